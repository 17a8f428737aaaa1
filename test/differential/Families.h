//===- Families.h - The kinds of kernel the generator writes ----*- C++ -*-===//
//
// Each family draws one kernel (source, launch, data and the C++ reference)
// from the random stream it is given; Generator.cpp picks the family.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIFFERENTIAL_FAMILIES_H
#define TILEC_DIFFERENTIAL_FAMILIES_H

#include "KernelCase.h"
#include "Random.h"

namespace difftest {

/// Random computations over 1-D blocks (plain, early return, grid-stride
/// loop, unmasked padded store; strided and reversed loads) or 2-D tiles
/// with row and column vectors broadcast.
KernelCase elementwiseCase(Rng &rng);
/// tl.sum / tl.max / tl.min along an axis of 2-D tiles or over the whole
/// tile, in one block or a loop over the reduced extent.
KernelCase reduceCase(Rng &rng);
/// Row softmax: max, exp, sum and the broadcasts back (block reductions
/// and broadcast), one or several rows per program, or a grid-stride loop.
KernelCase softmaxCase(Rng &rng);
/// tl.dot in K loops (the tutorial's pointer increments, recomputed
/// offsets, rows wrapped modulo M, split-K with atomics), fp16, bf16, fp32
/// (tf32, tf32x3, ieee) and int8, with epilogues.
KernelCase dotCase(Rng &rng);
/// Histograms, atomic max/min/and/or/xor, per-program partial sums and
/// one-address-per-lane atomics whose old values are stored (add, xchg,
/// max, cas).
KernelCase atomicCase(Rng &rng);

} // namespace difftest

#endif // TILEC_DIFFERENTIAL_FAMILIES_H
