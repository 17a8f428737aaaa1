// RUN: tile-opt %s -split-input-file --convert-tilegpu-to-nvvm --canonicalize --cse | FileCheck %s

// One warp, one m16n8k16 instruction tile: A's 8 f16 elements travel as 4
// vector<2xf16> registers, B's 4 as 2, the f32 accumulator as 4 values.
// CHECK-LABEL: llvm.func @f16(
// CHECK-COUNT-6: llvm.insertelement {{.*}} : vector<2xf16>
// CHECK: nvvm.mma.sync A[{{.*}}]  B[{{.*}}]  C[{{.*}}]  {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK-NOT: nvvm.mma.sync
#mma = #tilegpu.mma<{version = 2, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #tilegpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#b = #tilegpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>
module attributes {tilegpu.num_warps = 1 : i32} {
  func.func @f16(%pa: !tile.ptr<f16>, %pb: !tile.ptr<f16>, %pc: !tile.ptr<f32>) {
    %ap = tile.splat %pa : tensor<16x16x!tile.ptr<f16>, #a>
    %a = tile.load %ap : tensor<16x16x!tile.ptr<f16>, #a>
    %bp = tile.splat %pb : tensor<16x8x!tile.ptr<f16>, #b>
    %b = tile.load %bp : tensor<16x8x!tile.ptr<f16>, #b>
    %zero = arith.constant dense<0.0> : tensor<16x8xf32, #mma>
    %d = tile.dot %a, %b, %zero, tf32 : tensor<16x16xf16, #a>, tensor<16x8xf16, #b> -> tensor<16x8xf32, #mma>
    %cp = tile.splat %pc : tensor<16x8x!tile.ptr<f32>, #mma>
    tile.store %cp, %d : tensor<16x8x!tile.ptr<f32>, #mma>
    return
  }
}

// -----

// tf32x3: each f32 operand splits into a tf32 head (cvt.rna) and the tf32
// of the remainder; three products per tile, the two small ones first.
// CHECK-LABEL: llvm.func @tf32x3(
// CHECK: %[[HEAD:.*]] = nvvm.convert.float.to.tf32 %[[X:.*]] {rnd = #nvvm.fp_rnd_mode<rna>}
// CHECK-NEXT: %[[HEADF:.*]] = llvm.bitcast %[[HEAD]] : i32 to f32
// CHECK-NEXT: %[[REST:.*]] = llvm.fsub %[[X]], %[[HEADF]] : f32
// CHECK-NEXT: nvvm.convert.float.to.tf32 %[[REST]] {rnd = #nvvm.fp_rnd_mode<rna>}
// CHECK-COUNT-3: nvvm.mma.sync {{.*}}multiplicandAPtxType = #nvvm.mma_type<tf32>, multiplicandBPtxType = #nvvm.mma_type<tf32>, shape = #nvvm.shape<m = 16, n = 8, k = 8>} : (i32, i32, f32)
// CHECK-NOT: nvvm.mma.sync
#mma = #tilegpu.mma<{version = 2, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a1 = #tilegpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 1}>
#b1 = #tilegpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 1}>
module attributes {tilegpu.num_warps = 1 : i32} {
  func.func @tf32x3(%pa: !tile.ptr<f32>, %pb: !tile.ptr<f32>, %pc: !tile.ptr<f32>) {
    %ap = tile.splat %pa : tensor<16x8x!tile.ptr<f32>, #a1>
    %a = tile.load %ap : tensor<16x8x!tile.ptr<f32>, #a1>
    %bp = tile.splat %pb : tensor<8x8x!tile.ptr<f32>, #b1>
    %b = tile.load %bp : tensor<8x8x!tile.ptr<f32>, #b1>
    %zero = arith.constant dense<0.0> : tensor<16x8xf32, #mma>
    %d = tile.dot %a, %b, %zero, tf32x3 : tensor<16x8xf32, #a1>, tensor<8x8xf32, #b1> -> tensor<16x8xf32, #mma>
    %cp = tile.splat %pc : tensor<16x8x!tile.ptr<f32>, #mma>
    tile.store %cp, %d : tensor<16x8x!tile.ptr<f32>, #mma>
    return
  }
}
// -----

// -----

// i8: four bytes per register, m16n8k32, wrapping i32 sums.
// CHECK-LABEL: llvm.func @i8(
// CHECK: nvvm.mma.sync {{.*}}{intOverflowBehavior = #nvvm.mma_int_overflow<wrapped>, {{.*}}multiplicandAPtxType = #nvvm.mma_type<s8>, multiplicandBPtxType = #nvvm.mma_type<s8>, shape = #nvvm.shape<m = 16, n = 8, k = 32>} : (i32, i32, i32) -> !llvm.struct<(i32, i32, i32, i32)>
#mma = #tilegpu.mma<{version = 2, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a4 = #tilegpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b4 = #tilegpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
module attributes {tilegpu.num_warps = 1 : i32} {
  func.func @i8(%pa: !tile.ptr<i8>, %pb: !tile.ptr<i8>, %pc: !tile.ptr<i32>) {
    %ap = tile.splat %pa : tensor<16x32x!tile.ptr<i8>, #a4>
    %a = tile.load %ap : tensor<16x32x!tile.ptr<i8>, #a4>
    %bp = tile.splat %pb : tensor<32x8x!tile.ptr<i8>, #b4>
    %b = tile.load %bp : tensor<32x8x!tile.ptr<i8>, #b4>
    %zero = arith.constant dense<0> : tensor<16x8xi32, #mma>
    %d = tile.dot %a, %b, %zero, tf32 : tensor<16x32xi8, #a4>, tensor<32x8xi8, #b4> -> tensor<16x8xi32, #mma>
    %cp = tile.splat %pc : tensor<16x8x!tile.ptr<i32>, #mma>
    tile.store %cp, %d : tensor<16x8x!tile.ptr<i32>, #mma>
    return
  }
}

// -----

// An f16 accumulator is summed in f32 and rounded once. K = 3 pads to
// the instruction's 16: padding of both operands is zeroed (K positions
// 3..15 select 0), and 2 warps along M repeat nothing: one mma per warp.
// CHECK-LABEL: llvm.func @f16_acc_k3(
// CHECK: %[[ZERO:.*]] = llvm.mlir.zero : f16
// CHECK: llvm.select %{{.*}}, %{{.*}}, %[[ZERO]] : i1, f16
// CHECK: llvm.fpext %{{.*}} : f16 to f32
// CHECK: nvvm.mma.sync {{.*}} : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK-NOT: nvvm.mma.sync
// CHECK: llvm.fptrunc %{{.*}} : f32 to f16
#mma = #tilegpu.mma<{version = 2, warpsPerCTA = [2, 1], instrShape = [16, 8]}>
#a = #tilegpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#b = #tilegpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>
module attributes {tilegpu.num_warps = 2 : i32} {
  func.func @f16_acc_k3(%pa: !tile.ptr<f16>, %pb: !tile.ptr<f16>, %pc: !tile.ptr<f16>) {
    %ap = tile.splat %pa : tensor<32x3x!tile.ptr<f16>, #a>
    %a = tile.load %ap : tensor<32x3x!tile.ptr<f16>, #a>
    %bp = tile.splat %pb : tensor<3x8x!tile.ptr<f16>, #b>
    %b = tile.load %bp : tensor<3x8x!tile.ptr<f16>, #b>
    %zero = arith.constant dense<0.0> : tensor<32x8xf16, #mma>
    %d = tile.dot %a, %b, %zero, tf32 : tensor<32x3xf16, #a>, tensor<3x8xf16, #b> -> tensor<32x8xf16, #mma>
    %cp = tile.splat %pc : tensor<32x8x!tile.ptr<f16>, #mma>
    tile.store %cp, %d : tensor<32x8x!tile.ptr<f16>, #mma>
    return
  }
}

// -----

// The FMA dot on a blocked 16 x 16 accumulator, one warp: 8 elements per
// thread, K = 3 real positions of the 4 padded ones: 24 fmas, none on
// padding.
// CHECK-LABEL: llvm.func @fma_k3(
// CHECK-COUNT-24: llvm.intr.fma
// CHECK-NOT: llvm.intr.fma
#bl = #tilegpu.blocked<{sizePerThread = [2, 2], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1, 0]}>
#fa = #tilegpu.dot_op<{opIdx = 0, parent = #bl, kWidth = 0}>
#fb = #tilegpu.dot_op<{opIdx = 1, parent = #bl, kWidth = 0}>
module attributes {tilegpu.num_warps = 1 : i32} {
  func.func @fma_k3(%pa: !tile.ptr<f32>, %pb: !tile.ptr<f32>, %pc: !tile.ptr<f32>) {
    %ap = tile.splat %pa : tensor<16x3x!tile.ptr<f32>, #fa>
    %a = tile.load %ap : tensor<16x3x!tile.ptr<f32>, #fa>
    %bp = tile.splat %pb : tensor<3x16x!tile.ptr<f32>, #fb>
    %b = tile.load %bp : tensor<3x16x!tile.ptr<f32>, #fb>
    %zero = arith.constant dense<0.0> : tensor<16x16xf32, #bl>
    %d = tile.dot %a, %b, %zero, ieee : tensor<16x3xf32, #fa>, tensor<3x16xf32, #fb> -> tensor<16x16xf32, #bl>
    %cp = tile.splat %pc : tensor<16x16x!tile.ptr<f32>, #bl>
    tile.store %cp, %d : tensor<16x16x!tile.ptr<f32>, #bl>
    return
  }
}

// -----

// The FMA dot from shared buffers: per K, each thread reads its row of A
// (one value) and its run of 4 columns of B as one 16-byte vector (the
// swizzle moves runs of 4 whole), then 4 FMAs.
// CHECK-LABEL: llvm.func @fma_shared(
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// CHECK-COUNT-4: llvm.intr.fma
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
#bl = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1, 0]}>
#sa = #tilegpu.shared<{vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#sb = #tilegpu.shared<{vec = 4, perPhase = 2, maxPhase = 4, order = [1, 0]}>
module attributes {tilegpu.num_warps = 1 : i32} {
  func.func @fma_shared(%a: !tilegpu.memdesc<8x32xf32, #sa>, %b: !tilegpu.memdesc<32x16xf32, #sb>) -> tensor<8x16xf32, #bl> {
    %zero = arith.constant dense<0.0> : tensor<8x16xf32, #bl>
    %d = tile.dot %a, %b, %zero, ieee : !tilegpu.memdesc<8x32xf32, #sa>, !tilegpu.memdesc<32x16xf32, #sb> -> tensor<8x16xf32, #bl>
    return %d : tensor<8x16xf32, #bl>
  }
}

// -----

// A wgmma dot whose result goes to tilegpu.warpgroup_dot_wait commits its
// group and leaves it in flight; the wait is wgmma.wait_group with the
// given count, the accumulator threaded through it. One warpgroup, a
// 64 x 64 x 16 tile: one m64n64k16, its 32 accumulator registers tied.
// The fence and barrier before it are tilegpu-pipeline's, not the dot's.
// CHECK-LABEL: llvm.func @wgmma_wait(
// CHECK-NOT: fence.proxy
// CHECK: wgmma.fence.sync.aligned;
// CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// CHECK-NOT: wgmma.mma_async
// CHECK: wgmma.commit_group.sync.aligned;
// CHECK-NOT: wgmma.wait_group.sync.aligned 0;
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "wgmma.wait_group.sync.aligned 1;", "=f,=f,{{.*}},0,1,{{.*}},31"
// CHECK-NOT: wgmma
#wg = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64]}>
#bl = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#sw = #tilegpu.shared<{vec = 8, perPhase = 4, maxPhase = 2, order = [1, 0]}>
#swb = #tilegpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.arch_specific} {
  func.func @wgmma_wait(%pa: !tile.ptr<f16>, %pb: !tile.ptr<f16>, %pc: !tile.ptr<f32>) {
    %ap = tile.splat %pa : tensor<64x16x!tile.ptr<f16>, #bl>
    %a = tile.load %ap : tensor<64x16x!tile.ptr<f16>, #bl>
    %bp = tile.splat %pb : tensor<16x64x!tile.ptr<f16>, #bl>
    %b = tile.load %bp : tensor<16x64x!tile.ptr<f16>, #bl>
    %sa = tilegpu.local_alloc %a : (tensor<64x16xf16, #bl>) -> !tilegpu.memdesc<64x16xf16, #sw>
    %sb = tilegpu.local_alloc %b : (tensor<16x64xf16, #bl>) -> !tilegpu.memdesc<16x64xf16, #swb>
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #wg>
    %d = tile.dot %sa, %sb, %zero, tf32 : !tilegpu.memdesc<64x16xf16, #sw>, !tilegpu.memdesc<16x64xf16, #swb> -> tensor<64x64xf32, #wg>
    %w = tilegpu.warpgroup_dot_wait %d {pending = 1 : i32} : tensor<64x64xf32, #wg>
    %cp = tile.splat %pc : tensor<64x64x!tile.ptr<f32>, #wg>
    tile.store %cp, %w : tensor<64x64x!tile.ptr<f32>, #wg>
    return
  }
}

// -----

// A wgmma whose A was computed in registers (here: the accumulator of a
// first dot, rounded to f16) reads it from them: the conversion from the
// accumulator's layout to A's only renames registers (no shared memory,
// no barrier), and each m64n64k16 takes four 32-bit registers of A before
// B's descriptor (K 64: four instructions); B keeps its transpose flag.
// CHECK-LABEL: llvm.func @wgmma_registers_a(
// CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{.*}}, $32, $33, p, 1, 1, 0, 1;
// CHECK: wgmma.wait_group.sync.aligned 0;
// CHECK-NOT: nvvm.barrier0
// CHECK-NOT: llvm.store
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 { $0, {{.*}}, $31 }, { $32, $33, $34, $35 }, $36, p, 1, 1, 1;{{.*}}"=f,{{.*}},=f,r,r,r,r,l,r,0,
// CHECK-NOT: wgmma.mma_async
// CHECK: wgmma.wait_group.sync.aligned 0;
#wr = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64]}>
#ra = #tilegpu.dot_op<{opIdx = 0, parent = #wr, kWidth = 2}>
#blr = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#swr = #tilegpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
module attributes {tilegpu.num_warps = 4 : i32, tilegpu.arch_specific} {
  func.func @wgmma_registers_a(%pa: !tile.ptr<f16>, %pb: !tile.ptr<f16>, %pc: !tile.ptr<f32>) {
    %ap = tile.splat %pa : tensor<64x64x!tile.ptr<f16>, #blr>
    %a = tile.load %ap : tensor<64x64x!tile.ptr<f16>, #blr>
    %bp = tile.splat %pb : tensor<64x64x!tile.ptr<f16>, #blr>
    %b = tile.load %bp : tensor<64x64x!tile.ptr<f16>, #blr>
    %sa = tilegpu.local_alloc %a : (tensor<64x64xf16, #blr>) -> !tilegpu.memdesc<64x64xf16, #swr>
    %sb = tilegpu.local_alloc %b : (tensor<64x64xf16, #blr>) -> !tilegpu.memdesc<64x64xf16, #swr>
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #wr>
    %s = tile.dot %sa, %sb, %zero, tf32 : !tilegpu.memdesc<64x64xf16, #swr>, !tilegpu.memdesc<64x64xf16, #swr> -> tensor<64x64xf32, #wr>
    %p = arith.truncf %s : tensor<64x64xf32, #wr> to tensor<64x64xf16, #wr>
    %pa2 = tilegpu.convert_layout %p : tensor<64x64xf16, #wr> -> tensor<64x64xf16, #ra>
    %d = tile.dot %pa2, %sb, %zero, tf32 : tensor<64x64xf16, #ra>, !tilegpu.memdesc<64x64xf16, #swr> -> tensor<64x64xf32, #wr>
    %cp = tile.splat %pc : tensor<64x64x!tile.ptr<f32>, #wr>
    tile.store %cp, %d : tensor<64x64x!tile.ptr<f32>, #wr>
    return
  }
}
