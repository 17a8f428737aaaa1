//===- Compare.h - The checks of a run --------------------------*- C++ -*-===//
//
// After a run: every guard byte as it was, every input unchanged (bit for
// bit), and each output element within its tolerance of the other side's
// (integers exactly; floats within the generator's bound; NaN only where
// the other is NaN, infinities equal).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIFFERENTIAL_COMPARE_H
#define TILEC_DIFFERENTIAL_COMPARE_H

#include "KernelCase.h"
#include "Runner.h"

#include <string>
#include <vector>

namespace difftest {

/// A buffer's elements in an image after a run.
std::vector<double> elementsOf(const Buffer &b, const Image &image);

/// Appends a line to `problems` for each damaged guard (its first bad
/// byte) and each modified input (its first changed element).
void checkImages(const KernelCase &c, const std::vector<Image> &images,
                 const std::string &side, std::vector<std::string> &problems);

/// Compares every output of `got` (from side `gotName`) with `want` (from
/// `wantName`), appending the first mismatching elements of each.
void compareOutputs(const KernelCase &c, const std::vector<Image> &got,
                    const std::string &gotName,
                    const std::vector<std::vector<double>> &want,
                    const std::string &wantName,
                    std::vector<std::string> &problems);

/// Each output's elements in the images (inputs: empty).
std::vector<std::vector<double>> outputsOf(const KernelCase &c,
                                           const std::vector<Image> &images);
/// Each output's reference values (inputs: empty).
std::vector<std::vector<double>> expectedOf(const KernelCase &c);

} // namespace difftest

#endif // TILEC_DIFFERENTIAL_COMPARE_H
