// RUN: tile-opt %s -split-input-file --tilegpu-assign-layouts --mlir-print-local-scope | FileCheck %s
// RUN: tile-opt %s -split-input-file --tilegpu-assign-layouts=num-warps=8 --mlir-print-local-scope | FileCheck %s --check-prefix=WARPS8

// On sm_90a (tilegpu.arch_specific) an f16 dot into f32 whose tile splits
// into whole m64nN instructions runs on wgmma (mma version 3): one
// warpgroup of 4 warps covers 64 rows with one 64 x 128 instruction and
// repeats over the other 64; 8 warps are two warpgroups along M. The
// operands take dot_op layouts (tilegpu-pipeline then stages them in
// shared memory).
// CHECK-LABEL: func.func @wgmma
// CHECK: tile.dot {{.*}} : tensor<128x32xf16, #tilegpu.dot_op<{opIdx = 0, parent = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 128]}>, kWidth = 2}>>, {{.*}} -> tensor<128x128xf32, #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 128]}>>
// WARPS8-LABEL: func.func @wgmma
// WARPS8: -> tensor<128x128xf32, #tilegpu.mma<{version = 3, warpsPerCTA = [8, 1], instrShape = [64, 128]}>>
module attributes {tilegpu.arch_specific, tilegpu.compute_capability = 90 : i32} {
func.func @wgmma(%pa: !tile.ptr<f16>, %pb: !tile.ptr<f16>, %pc: !tile.ptr<f32>) {
  %a_ptrs = tile.splat %pa : tensor<128x32x!tile.ptr<f16>>
  %b_ptrs = tile.splat %pb : tensor<32x128x!tile.ptr<f16>>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %a = tile.load %a_ptrs : tensor<128x32x!tile.ptr<f16>>
  %b = tile.load %b_ptrs : tensor<32x128x!tile.ptr<f16>>
  %d = tile.dot %a, %b, %zero, tf32 : tensor<128x32xf16>, tensor<32x128xf16> -> tensor<128x128xf32>
  %c_ptrs = tile.splat %pc : tensor<128x128x!tile.ptr<f32>>
  tile.store %c_ptrs, %d : tensor<128x128x!tile.ptr<f32>>
  return
}
}

// -----

// With 8 warps and a tile of 64 rows, the second warpgroup takes the other
// half of N: each group one 64 x 128 instruction.
// WARPS8-LABEL: func.func @groups_along_n
// WARPS8: -> tensor<64x256xf32, #tilegpu.mma<{version = 3, warpsPerCTA = [4, 2], instrShape = [64, 128]}>>
module attributes {tilegpu.arch_specific, tilegpu.compute_capability = 90 : i32} {
func.func @groups_along_n(%pa: !tile.ptr<f16>, %pb: !tile.ptr<f16>, %pc: !tile.ptr<f32>) {
  %a_ptrs = tile.splat %pa : tensor<64x32x!tile.ptr<f16>>
  %b_ptrs = tile.splat %pb : tensor<32x256x!tile.ptr<f16>>
  %zero = arith.constant dense<0.0> : tensor<64x256xf32>
  %a = tile.load %a_ptrs : tensor<64x32x!tile.ptr<f16>>
  %b = tile.load %b_ptrs : tensor<32x256x!tile.ptr<f16>>
  %d = tile.dot %a, %b, %zero, tf32 : tensor<64x32xf16>, tensor<32x256xf16> -> tensor<64x256xf32>
  %c_ptrs = tile.splat %pc : tensor<64x256x!tile.ptr<f32>>
  tile.store %c_ptrs, %d : tensor<64x256x!tile.ptr<f32>>
  return
}
}

// -----

// mma.sync where wgmma does not apply: plain sm_90 (no arch_specific).
// CHECK-LABEL: func.func @not_wgmma
// CHECK: tile.dot {{.*}} -> tensor<128x128xf32, #tilegpu.mma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>>
module attributes {tilegpu.compute_capability = 90 : i32} {
func.func @not_wgmma(%pa: !tile.ptr<f16>, %pb: !tile.ptr<f16>, %pc: !tile.ptr<f32>) {
  %a_ptrs = tile.splat %pa : tensor<128x32x!tile.ptr<f16>>
  %b_ptrs = tile.splat %pb : tensor<32x128x!tile.ptr<f16>>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %a = tile.load %a_ptrs : tensor<128x32x!tile.ptr<f16>>
  %b = tile.load %b_ptrs : tensor<32x128x!tile.ptr<f16>>
  %d = tile.dot %a, %b, %zero, tf32 : tensor<128x32xf16>, tensor<32x128xf16> -> tensor<128x128xf32>
  %c_ptrs = tile.splat %pc : tensor<128x128x!tile.ptr<f32>>
  tile.store %c_ptrs, %d : tensor<128x128x!tile.ptr<f32>>
  return
}
}

// -----

// A tile of 32 rows is too short for a warpgroup's instruction (64 rows),
// its 128 columns are not: the dot swaps its operands (C^T = B^T A^T), B's
// columns the instruction's M and A's 32 rows its N.
// CHECK-LABEL: func.func @too_few_rows
// CHECK: tile.dot {{.*}} -> tensor<32x128xf32, #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 32], swapped = true}>>
module attributes {tilegpu.arch_specific, tilegpu.compute_capability = 90 : i32} {
func.func @too_few_rows(%pa: !tile.ptr<f16>, %pb: !tile.ptr<f16>, %pc: !tile.ptr<f32>) {
  %a_ptrs = tile.splat %pa : tensor<32x32x!tile.ptr<f16>>
  %b_ptrs = tile.splat %pb : tensor<32x128x!tile.ptr<f16>>
  %zero = arith.constant dense<0.0> : tensor<32x128xf32>
  %a = tile.load %a_ptrs : tensor<32x32x!tile.ptr<f16>>
  %b = tile.load %b_ptrs : tensor<32x128x!tile.ptr<f16>>
  %d = tile.dot %a, %b, %zero, tf32 : tensor<32x32xf16>, tensor<32x128xf16> -> tensor<32x128xf32>
  %c_ptrs = tile.splat %pc : tensor<32x128x!tile.ptr<f32>>
  tile.store %c_ptrs, %d : tensor<32x128x!tile.ptr<f32>>
  return
}
}

// -----

// Neither side has 64 rows or columns: mma.sync.
// CHECK-LABEL: func.func @too_small
// CHECK: tile.dot {{.*}} -> tensor<32x32xf32, #tilegpu.mma<{version = 2
module attributes {tilegpu.arch_specific, tilegpu.compute_capability = 90 : i32} {
func.func @too_small(%pa: !tile.ptr<f16>, %pb: !tile.ptr<f16>, %pc: !tile.ptr<f32>) {
  %a_ptrs = tile.splat %pa : tensor<32x32x!tile.ptr<f16>>
  %b_ptrs = tile.splat %pb : tensor<32x32x!tile.ptr<f16>>
  %zero = arith.constant dense<0.0> : tensor<32x32xf32>
  %a = tile.load %a_ptrs : tensor<32x32x!tile.ptr<f16>>
  %b = tile.load %b_ptrs : tensor<32x32x!tile.ptr<f16>>
  %d = tile.dot %a, %b, %zero, tf32 : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf32>
  %c_ptrs = tile.splat %pc : tensor<32x32x!tile.ptr<f32>>
  tile.store %c_ptrs, %d : tensor<32x32x!tile.ptr<f32>>
  return
}
}

// -----

// f32 at tf32 precision runs on wgmma too (K steps of 8), which reads its
// shared operand K-major only: the dot swaps its operands (C^T = B^T A^T),
// B^T from registers and A^T from shared memory, which a row-major A is
// K-major for. B's loads stay coalesced along N (no transposing copies);
// the accumulator is the instruction's [N, M] layout exchanged. IEEE f32
// stays off the tensor cores.
// CHECK-LABEL: func.func @tf32
// CHECK: tile.load {{.*}} : tensor<32x128x!tile.ptr<f32>, #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>>
// CHECK: tile.dot {{.*}} -> tensor<128x128xf32, #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 128], swapped = true}>>
// CHECK: tile.dot {{.*}}, ieee : {{.*}} -> tensor<128x128xf32, #tilegpu.blocked
module attributes {tilegpu.arch_specific, tilegpu.compute_capability = 90 : i32} {
func.func @tf32(%pa: !tile.ptr<f32>, %pb: !tile.ptr<f32>, %pc: !tile.ptr<f32>) {
  %a_ptrs = tile.splat %pa : tensor<128x32x!tile.ptr<f32>>
  %rows = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32>
  %cols = tile.expand_dims %rows {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
  %colsb = tile.broadcast %cols : tensor<1x128xi32> -> tensor<32x128xi32>
  %b_base = tile.splat %pb : tensor<32x128x!tile.ptr<f32>>
  %b_ptrs = tile.addptr %b_base, %colsb : tensor<32x128x!tile.ptr<f32>>, tensor<32x128xi32>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %a = tile.load %a_ptrs : tensor<128x32x!tile.ptr<f32>>
  %b = tile.load %b_ptrs : tensor<32x128x!tile.ptr<f32>>
  %d = tile.dot %a, %b, %zero, tf32 : tensor<128x32xf32>, tensor<32x128xf32> -> tensor<128x128xf32>
  %e = tile.dot %a, %b, %d, ieee : tensor<128x32xf32>, tensor<32x128xf32> -> tensor<128x128xf32>
  %c_ptrs = tile.splat %pc : tensor<128x128x!tile.ptr<f32>>
  tile.store %c_ptrs, %e : tensor<128x128x!tile.ptr<f32>>
  return
}
}

// -----

// A tf32 tile whose N is no whole number of the instruction's 64 rows keeps
// its operands' places: B is copied into K rows instead.
// CHECK-LABEL: func.func @tf32_narrow
// CHECK: tile.dot {{.*}} -> tensor<128x32xf32, #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 32]}>>
module attributes {tilegpu.arch_specific, tilegpu.compute_capability = 90 : i32} {
func.func @tf32_narrow(%pa: !tile.ptr<f32>, %pb: !tile.ptr<f32>, %pc: !tile.ptr<f32>) {
  %a_ptrs = tile.splat %pa : tensor<128x32x!tile.ptr<f32>>
  %b_ptrs = tile.splat %pb : tensor<32x32x!tile.ptr<f32>>
  %zero = arith.constant dense<0.0> : tensor<128x32xf32>
  %a = tile.load %a_ptrs : tensor<128x32x!tile.ptr<f32>>
  %b = tile.load %b_ptrs : tensor<32x32x!tile.ptr<f32>>
  %d = tile.dot %a, %b, %zero, tf32 : tensor<128x32xf32>, tensor<32x32xf32> -> tensor<128x32xf32>
  %c_ptrs = tile.splat %pc : tensor<128x32x!tile.ptr<f32>>
  tile.store %c_ptrs, %d : tensor<128x32x!tile.ptr<f32>>
  return
}
}

// -----

// A dot's operand of halves, contiguous along K but only 2 bytes aligned
// (no divisibility on its pointer): each thread still takes a run of 8
// along K (16 bytes), copied element by element but addressed from one
// pointer and stored as one vector; the same load feeding no dot keeps one
// element a thread, each warp's loads coalesced.
// CHECK-LABEL: func.func @unaligned_operand
// CHECK: tile.load {{.*}} : tensor<128x64x!tile.ptr<f16>, #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>>
// CHECK: tile.load {{.*}} : tensor<128x64x!tile.ptr<f16>, #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0]}>>
module attributes {tilegpu.arch_specific, tilegpu.compute_capability = 90 : i32} {
func.func @unaligned_operand(%pa: !tile.ptr<f16>, %pb: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %pc: !tile.ptr<f32>, %px: !tile.ptr<f16>, %py: !tile.ptr<f16>) {
  %k = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  %ke = tile.expand_dims %k {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %kb = tile.broadcast %ke : tensor<1x64xi32> -> tensor<128x64xi32>
  %a_base = tile.splat %pa : tensor<128x64x!tile.ptr<f16>>
  %a_ptrs = tile.addptr %a_base, %kb : tensor<128x64x!tile.ptr<f16>>, tensor<128x64xi32>
  %b_ptrs = tile.splat %pb : tensor<64x128x!tile.ptr<f16>>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %a = tile.load %a_ptrs : tensor<128x64x!tile.ptr<f16>>
  %b = tile.load %b_ptrs : tensor<64x128x!tile.ptr<f16>>
  %d = tile.dot %a, %b, %zero, tf32 : tensor<128x64xf16>, tensor<64x128xf16> -> tensor<128x128xf32>
  %c_ptrs = tile.splat %pc : tensor<128x128x!tile.ptr<f32>>
  tile.store %c_ptrs, %d : tensor<128x128x!tile.ptr<f32>>
  %x_base = tile.splat %px : tensor<128x64x!tile.ptr<f16>>
  %x_ptrs = tile.addptr %x_base, %kb : tensor<128x64x!tile.ptr<f16>>, tensor<128x64xi32>
  %x = tile.load %x_ptrs : tensor<128x64x!tile.ptr<f16>>
  %y_base = tile.splat %py : tensor<128x64x!tile.ptr<f16>>
  %y_ptrs = tile.addptr %y_base, %kb : tensor<128x64x!tile.ptr<f16>>, tensor<128x64xi32>
  tile.store %y_ptrs, %x : tensor<128x64x!tile.ptr<f16>>
  return
}
}
