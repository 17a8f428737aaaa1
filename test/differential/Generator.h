//===- Generator.h - A random kernel from a seed ----------------*- C++ -*-===//

#ifndef TILEC_DIFFERENTIAL_GENERATOR_H
#define TILEC_DIFFERENTIAL_GENERATOR_H

#include "KernelCase.h"

#include <cstdint>

namespace difftest {

/// The kernel for `seed`: the same source, launch and data on every
/// machine (the tester's own random numbers, no std distributions).
KernelCase generate(uint64_t seed);

} // namespace difftest

#endif // TILEC_DIFFERENTIAL_GENERATOR_H
