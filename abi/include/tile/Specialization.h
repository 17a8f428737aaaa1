//===- Specialization.h - What argument values promise a kernel -*- C++ -*-===//
//
// The hints a launch's values give the kernel it compiles: the ":N" of a
// signature entry ("*fp16:8", "i32:16", "i32:1"). Every place that picks a
// specialization from real arguments (the JIT's cache key, tile-run's
// inferred signature, the benchmarks' harness) uses this one rule, so that a
// kernel compiled by one of them is the kernel compiled by the others.
//
// Triton's rule is "divisible by 16, or equal to 1": a row of 5000 fp16
// elements, 16-byte aligned, promises nothing, and every load of it is
// scalar. tilec takes the alignment as it is, a power of two up to 16, but
// only as far as it can change the code: the compiler uses divisibility
// for byte alignment (vector accesses and bulk copies, 16 bytes; rows of
// whole 32-byte sectors, whose bulk copies neighbouring programs need not
// share) and for how many elements share a mask. So an integer's hint
// stops at 32 bytes' worth of the launch's narrowest pointer elements (16
// where those are fp16, 8 where fp32; 16 at most, the largest hint), and a
// pointer's, 16 bytes at most, starts above its element's own alignment. A
// kernel then compiles one variant per level that matters, never one per
// stride. The 32-byte level changes the code of dot kernels with large
// tiles only: the metadata's "row_sectors_matter" says so, and the JIT
// keys every other kernel by the 16-byte level.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_SPECIALIZATION_H
#define TILE_SPECIALIZATION_H

#include <cstdint>

namespace tile {

/// The widest access the compiler makes, in bytes: a pointer's alignment
/// past it changes no code.
inline constexpr unsigned kMaxUsefulAlignment = 16;

/// The alignment of a row (a stride, an extent) past which no code changes,
/// in bytes: an L2 sector.
inline constexpr unsigned kMaxUsefulRowAlignment = 32;

/// The largest hint a signature entry carries (Triton's 16).
inline constexpr unsigned kMaxHint = 16;

/// The largest power of two dividing `value`, at most `cap` (a power of
/// two); 0 is divisible by anything.
constexpr unsigned powerOfTwoDivisor(uint64_t value, unsigned cap) {
  unsigned divisor = 1;
  while (divisor < cap && value % (uint64_t(divisor) * 2) == 0)
    divisor *= 2;
  return divisor;
}

/// A pointer's hint: the bytes it is aligned to, up to 16; 0 where that is
/// no more than its element's own alignment (`elementBytes`), which every
/// pointer has.
constexpr unsigned pointerHint(uint64_t address, unsigned elementBytes) {
  unsigned alignment = powerOfTwoDivisor(address, kMaxUsefulAlignment);
  return alignment > elementBytes ? alignment : 0;
}

/// An integer's hint: 1 where it equals 1 and `ones` (the GPU makes it a
/// constant of the kernel); else its largest power-of-two divisor up to 32
/// bytes of the launch's narrowest pointer elements
/// (`narrowestElementBytes`, 1 where there are none) and up to 16; 0 where
/// that is 1.
/// `rowBytes` lowers the 32 bytes (to kMaxUsefulAlignment for a kernel whose
/// code row sectors do not change).
constexpr unsigned integerHint(int64_t value, unsigned narrowestElementBytes,
                               bool ones,
                               unsigned rowBytes = kMaxUsefulRowAlignment) {
  if (ones && value == 1)
    return 1;
  unsigned cap = rowBytes / (narrowestElementBytes ? narrowestElementBytes : 1);
  cap = cap < kMaxHint ? cap : kMaxHint;
  unsigned divisor = powerOfTwoDivisor(uint64_t(value), cap ? cap : 1);
  return divisor > 1 ? divisor : 0;
}

} // namespace tile

#endif // TILE_SPECIALIZATION_H
