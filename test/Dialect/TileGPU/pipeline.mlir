// RUN: tile-opt %s -split-input-file --tilegpu-pipeline --canonicalize --cse | FileCheck %s

#bl = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tilegpu.mma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#a = #tilegpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#b = #tilegpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>

// A K loop of 3 stages: both operands get a ring of 3 swizzled buffers;
// the copies of iterations 0 and 1 go out before the loop (each iteration
// one commit group); in the loop, iteration i waits until at most one group
// (i + 1's) is in flight, reads its buffers, and sends the copies of
// iteration i + 2 into the buffers iteration i - 1 read, predicated on
// i + 2 being an iteration. All copies land before the buffers are left.
// A barrier comes before the first copies: the rings' bytes may still be
// read as another op's scratch, or as this ring in the previous iteration
// of an enclosing loop (a persistent kernel's next tile). Loads of 8-element
// vectors keep the pointer tiles the loop carries (one pointer a vector).
// CHECK-LABEL: func.func @k_loop
// CHECK-DAG: %[[RA:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<3x64x32xf16, #shared>
// CHECK-DAG: %[[RB:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<3x32x64xf16, #shared1>
// CHECK: tile.debug_barrier
// CHECK-NOT: tilegpu.local_alloc
// CHECK-COUNT-2: tilegpu.async_copy
// CHECK: tilegpu.async_commit_group
// CHECK-COUNT-2: tilegpu.async_copy
// CHECK: tilegpu.async_commit_group
// CHECK: scf.for {{.*}} -> (tensor<64x64xf32, #mma>, tensor<64x32x!tile.ptr<f16>, #blocked>, tensor<32x64x!tile.ptr<f16>, #blocked>)
// CHECK: %[[PRED:.*]] = arith.cmpi slt
// CHECK: tilegpu.async_wait {pending = 1 : i32}
// CHECK: %[[A:.*]] = tilegpu.memdesc_index %[[RA]], %[[SLOT:.*]] : <3x64x32xf16, #shared> -> <64x32xf16, #shared>
// CHECK: %[[B:.*]] = tilegpu.memdesc_index %[[RB]], %[[SLOT]]
// CHECK: tile.dot %[[A]], %[[B]], %{{.*}}, tf32 : !tilegpu.memdesc<64x32xf16, #shared>, !tilegpu.memdesc<32x64xf16, #shared1> -> tensor<64x64xf32, #mma>
// CHECK: %[[PREDS:.*]] = tile.splat %[[PRED]] : tensor<64x32xi1, #blocked>
// CHECK: %[[MASK:.*]] = arith.andi %{{.*}}, %[[PREDS]]
// CHECK: tilegpu.async_copy %{{.*}}, %{{.*}}, %[[MASK]]
// CHECK: tilegpu.async_copy
// CHECK: tilegpu.async_commit_group
// CHECK: scf.yield
// CHECK: tilegpu.async_wait {pending = 0 : i32}
module attributes {tilegpu.num_warps = 4 : i32, tile.num_stages = 3 : i32} {
  func.func @k_loop(%pa: !tile.ptr<f16>, %pb: !tile.ptr<f16>, %pc: !tile.ptr<f32>, %n: i32, %k: i32) {
    %a0 = tile.splat %pa : tensor<64x32x!tile.ptr<f16>, #bl>
    %b0 = tile.splat %pb : tensor<32x64x!tile.ptr<f16>, #bl>
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
    %c32 = arith.constant dense<32> : tensor<64x32xi32, #bl>
    %c64 = arith.constant dense<64> : tensor<32x64xi32, #bl>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r:3 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero, %ap = %a0, %bp = %b0) -> (tensor<64x64xf32, #mma>, tensor<64x32x!tile.ptr<f16>, #bl>, tensor<32x64x!tile.ptr<f16>, #bl>) : i32 {
      %ks = tile.splat %k : tensor<64x32xi32, #bl>
      %m = arith.cmpi slt, %c32, %ks : tensor<64x32xi32, #bl>
      %a = tile.load %ap, %m : tensor<64x32x!tile.ptr<f16>, #bl>
      %b = tile.load %bp : tensor<32x64x!tile.ptr<f16>, #bl>
      %ca = tilegpu.convert_layout %a : tensor<64x32xf16, #bl> -> tensor<64x32xf16, #a>
      %cb = tilegpu.convert_layout %b : tensor<32x64xf16, #bl> -> tensor<32x64xf16, #b>
      %d = tile.dot %ca, %cb, %acc, tf32 : tensor<64x32xf16, #a>, tensor<32x64xf16, #b> -> tensor<64x64xf32, #mma>
      %ap2 = tile.addptr %ap, %c32 : tensor<64x32x!tile.ptr<f16>, #bl>, tensor<64x32xi32, #bl>
      %bp2 = tile.addptr %bp, %c64 : tensor<32x64x!tile.ptr<f16>, #bl>, tensor<32x64xi32, #bl>
      scf.yield %d, %ap2, %bp2 : tensor<64x64xf32, #mma>, tensor<64x32x!tile.ptr<f16>, #bl>, tensor<32x64x!tile.ptr<f16>, #bl>
    }
    %cp = tile.splat %pc : tensor<64x64x!tile.ptr<f32>, #mma>
    tile.store %cp, %r#0 : tensor<64x64x!tile.ptr<f32>, #mma>
    return
  }
}

// -----

// One stage (the loop's own tile.num_stages): no ring, each iteration
// stores its operands into buffers and its dot reads them. A dot outside
// any loop reads buffers too.
// CHECK-LABEL: func.func @one_stage
// CHECK-NOT: tilegpu.async_copy
// CHECK: scf.for
// CHECK: %[[L:.*]] = tile.load
// CHECK: %[[BUF:.*]] = tilegpu.local_alloc %[[L]] : (tensor<16x16xf16, #blocked>) -> !tilegpu.memdesc<16x16xf16, #shared>
// CHECK: tile.dot %[[BUF]]
// CHECK: } {tile.num_stages = 1 : i32}
// CHECK: tilegpu.local_alloc %{{.*}} : (tensor<16x16xf16, #blocked>) -> !tilegpu.memdesc<16x16xf16, #shared>
// CHECK-NOT: tilegpu.async_copy
#bl = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [16, 2], warpsPerCTA = [1, 1], order = [1, 0]}>
#mma = #tilegpu.mma<{version = 2, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #tilegpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#b = #tilegpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>
module attributes {tilegpu.num_warps = 1 : i32, tile.num_stages = 3 : i32} {
  func.func @one_stage(%p: !tile.ptr<f16>, %pc: !tile.ptr<f32>, %n: i32) {
    %ps = tile.splat %p : tensor<16x16x!tile.ptr<f16>, #bl>
    %zero = arith.constant dense<0.0> : tensor<16x16xf32, #mma>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<16x16xf32, #mma>) : i32 {
      %x = tile.load %ps : tensor<16x16x!tile.ptr<f16>, #bl>
      %ca = tilegpu.convert_layout %x : tensor<16x16xf16, #bl> -> tensor<16x16xf16, #a>
      %cb = tilegpu.convert_layout %x : tensor<16x16xf16, #bl> -> tensor<16x16xf16, #b>
      %d = tile.dot %ca, %cb, %acc, tf32 : tensor<16x16xf16, #a>, tensor<16x16xf16, #b> -> tensor<16x16xf32, #mma>
      scf.yield %d : tensor<16x16xf32, #mma>
    } {tile.num_stages = 1 : i32}
    %y = tile.load %ps : tensor<16x16x!tile.ptr<f16>, #bl>
    %ya = tilegpu.convert_layout %y : tensor<16x16xf16, #bl> -> tensor<16x16xf16, #a>
    %yb = tilegpu.convert_layout %y : tensor<16x16xf16, #bl> -> tensor<16x16xf16, #b>
    %e = tile.dot %ya, %yb, %r, tf32 : tensor<16x16xf16, #a>, tensor<16x16xf16, #b> -> tensor<16x16xf32, #mma>
    %cp = tile.splat %pc : tensor<16x16x!tile.ptr<f32>, #mma>
    tile.store %cp, %e : tensor<16x16x!tile.ptr<f32>, #mma>
    return
  }
}

// -----

// What does not fit is not pipelined deeper: f32 rings of 128 x 128 for A
// and B take 128 KB a stage; with 227 KB to spend, one stage is all there
// is room for, and the loop stays as it was.
// CHECK-LABEL: func.func @too_big
// CHECK-NOT: tilegpu.async_copy
// CHECK: tilegpu.local_alloc %{{.*}} : (tensor<128x128xf32, #blocked>) -> !tilegpu.memdesc<128x128xf32
#bl = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tilegpu.mma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#a = #tilegpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 1}>
#b = #tilegpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 1}>
module attributes {tilegpu.num_warps = 4 : i32, tile.num_stages = 3 : i32, tilegpu.shared_limit = 232448 : i32} {
  func.func @too_big(%p: !tile.ptr<f32>, %pc: !tile.ptr<f32>, %n: i32) {
    %ps = tile.splat %p : tensor<128x128x!tile.ptr<f32>, #bl>
    %zero = arith.constant dense<0.0> : tensor<128x128xf32, #mma>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<128x128xf32, #mma>) : i32 {
      %x = tile.load %ps : tensor<128x128x!tile.ptr<f32>, #bl>
      %y = tile.load %ps : tensor<128x128x!tile.ptr<f32>, #bl>
      %ca = tilegpu.convert_layout %x : tensor<128x128xf32, #bl> -> tensor<128x128xf32, #a>
      %cb = tilegpu.convert_layout %y : tensor<128x128xf32, #bl> -> tensor<128x128xf32, #b>
      %d = tile.dot %ca, %cb, %acc, tf32 : tensor<128x128xf32, #a>, tensor<128x128xf32, #b> -> tensor<128x128xf32, #mma>
      scf.yield %d : tensor<128x128xf32, #mma>
    }
    %cp = tile.splat %pc : tensor<128x128x!tile.ptr<f32>, #mma>
    tile.store %cp, %r : tensor<128x128x!tile.ptr<f32>, #mma>
    return
  }
}

// -----

// An epilogue's conversion runs after the loop, when the rings are dead, so
// its scratch space (64 x 65 f32, 16.6 KB) reuses theirs and costs the loop
// no stage: three rings of 64 x 64 f16 for A and B (48 KB) fit in 56 KB.
// CHECK-LABEL: func.func @epilogue_reuses_rings
// CHECK: tilegpu.local_alloc : () -> !tilegpu.memdesc<3x64x64xf16
// CHECK: tilegpu.local_alloc : () -> !tilegpu.memdesc<3x64x64xf16
#bl = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#rows = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tilegpu.mma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#a = #tilegpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#b = #tilegpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>
module attributes {tilegpu.num_warps = 4 : i32, tile.num_stages = 3 : i32, tilegpu.shared_limit = 57344 : i32} {
  func.func @epilogue_reuses_rings(%p: !tile.ptr<f16>, %pc: !tile.ptr<f32>, %n: i32) {
    %ps = tile.splat %p : tensor<64x64x!tile.ptr<f16>, #bl>
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<64x64xf32, #mma>) : i32 {
      %x = tile.load %ps : tensor<64x64x!tile.ptr<f16>, #bl>
      %y = tile.load %ps : tensor<64x64x!tile.ptr<f16>, #bl>
      %ca = tilegpu.convert_layout %x : tensor<64x64xf16, #bl> -> tensor<64x64xf16, #a>
      %cb = tilegpu.convert_layout %y : tensor<64x64xf16, #bl> -> tensor<64x64xf16, #b>
      %d = tile.dot %ca, %cb, %acc, tf32 : tensor<64x64xf16, #a>, tensor<64x64xf16, #b> -> tensor<64x64xf32, #mma>
      scf.yield %d : tensor<64x64xf32, #mma>
    }
    %out = tilegpu.convert_layout %r : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #rows>
    %cp = tile.splat %pc : tensor<64x64x!tile.ptr<f32>, #rows>
    tile.store %cp, %out : tensor<64x64x!tile.ptr<f32>, #rows>
    return
  }
}

// -----

// A Hopper dot (mma version 3) reads its ring buffers right after the
// copies' wait, whose barrier serves it (cp.async's writes need no proxy
// fence). Carrying its accumulator through the loop, it stays in flight:
// iteration i waits for dot i - 1 only, then sends the copies of iteration
// i + 2 into dot i - 1's buffers; the loop's result waits for the last dot.
// One warpgroup: its own wait covers every reader, no barrier.
#blw = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#wg = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64]}>
#wa = #tilegpu.dot_op<{opIdx = 0, parent = #wg, kWidth = 2}>
#wb = #tilegpu.dot_op<{opIdx = 1, parent = #wg, kWidth = 2}>
// CHECK-LABEL: func.func @wgmma_in_flight
// CHECK-DAG: %[[RA:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<3x64x64xf16
// CHECK-DAG: %[[RB:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<3x64x64xf16
// CHECK: scf.for
// CHECK: tilegpu.async_wait {pending = 1 : i32}
// CHECK: %[[A:.*]] = tilegpu.memdesc_index %[[RA]]
// CHECK-NOT: tilegpu.fence_async_shared
// CHECK-NOT: tile.debug_barrier
// CHECK: %[[D:.*]] = tile.dot %[[A]]
// CHECK-NEXT: %[[W:.*]] = tilegpu.warpgroup_dot_wait %[[D]] {pending = 1 : i32}
// CHECK-NOT: tile.debug_barrier
// CHECK: tilegpu.async_copy
// CHECK: scf.yield %[[W]]
// What tl.range said of the loop stays on the pipelined one.
// CHECK-NEXT: } {tile.warp_specialize = false}
// CHECK: tilegpu.async_wait {pending = 0 : i32}
// CHECK: %[[LAST:.*]] = tilegpu.warpgroup_dot_wait %{{.*}}#0 {pending = 0 : i32}
// CHECK: tile.store %{{.*}}, %[[LAST]]
module attributes {tilegpu.num_warps = 4 : i32, tile.num_stages = 3 : i32} {
  func.func @wgmma_in_flight(%pa: !tile.ptr<f16>, %pb: !tile.ptr<f16>, %pc: !tile.ptr<f32>, %n: i32) {
    %a0 = tile.splat %pa : tensor<64x64x!tile.ptr<f16>, #blw>
    %b0 = tile.splat %pb : tensor<64x64x!tile.ptr<f16>, #blw>
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #wg>
    %c64 = arith.constant dense<64> : tensor<64x64xi32, #blw>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r:3 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero, %ap = %a0, %bp = %b0) -> (tensor<64x64xf32, #wg>, tensor<64x64x!tile.ptr<f16>, #blw>, tensor<64x64x!tile.ptr<f16>, #blw>) : i32 {
      %a = tile.load %ap : tensor<64x64x!tile.ptr<f16>, #blw>
      %b = tile.load %bp : tensor<64x64x!tile.ptr<f16>, #blw>
      %ca = tilegpu.convert_layout %a : tensor<64x64xf16, #blw> -> tensor<64x64xf16, #wa>
      %cb = tilegpu.convert_layout %b : tensor<64x64xf16, #blw> -> tensor<64x64xf16, #wb>
      %d = tile.dot %ca, %cb, %acc, tf32 : tensor<64x64xf16, #wa>, tensor<64x64xf16, #wb> -> tensor<64x64xf32, #wg>
      %ap2 = tile.addptr %ap, %c64 : tensor<64x64x!tile.ptr<f16>, #blw>, tensor<64x64xi32, #blw>
      %bp2 = tile.addptr %bp, %c64 : tensor<64x64x!tile.ptr<f16>, #blw>, tensor<64x64xi32, #blw>
      scf.yield %d, %ap2, %bp2 : tensor<64x64xf32, #wg>, tensor<64x64x!tile.ptr<f16>, #blw>, tensor<64x64x!tile.ptr<f16>, #blw>
    } {tile.warp_specialize = false}
    %cp = tile.splat %pc : tensor<64x64x!tile.ptr<f32>, #wg>
    tile.store %cp, %r#0 : tensor<64x64x!tile.ptr<f32>, #wg>
    return
  }
}

// -----

// The accumulator is read in the loop beside the dot (here: scaled before
// it), so the dot must finish in its iteration: no explicit wait, 3 buffers.
#blx = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#wx = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64]}>
#xa = #tilegpu.dot_op<{opIdx = 0, parent = #wx, kWidth = 2}>
#xb = #tilegpu.dot_op<{opIdx = 1, parent = #wx, kWidth = 2}>
// CHECK-LABEL: func.func @wgmma_accumulator_read
// CHECK: tilegpu.local_alloc : () -> !tilegpu.memdesc<3x64x64xf16
// CHECK-NOT: warpgroup_dot_wait
// CHECK: return
module attributes {tilegpu.num_warps = 4 : i32, tile.num_stages = 3 : i32} {
  func.func @wgmma_accumulator_read(%pa: !tile.ptr<f16>, %pb: !tile.ptr<f16>, %pc: !tile.ptr<f32>, %n: i32) {
    %a0 = tile.splat %pa : tensor<64x64x!tile.ptr<f16>, #blx>
    %b0 = tile.splat %pb : tensor<64x64x!tile.ptr<f16>, #blx>
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #wx>
    %half = arith.constant dense<0.5> : tensor<64x64xf32, #wx>
    %c64 = arith.constant dense<64> : tensor<64x64xi32, #blx>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r:3 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero, %ap = %a0, %bp = %b0) -> (tensor<64x64xf32, #wx>, tensor<64x64x!tile.ptr<f16>, #blx>, tensor<64x64x!tile.ptr<f16>, #blx>) : i32 {
      %a = tile.load %ap : tensor<64x64x!tile.ptr<f16>, #blx>
      %b = tile.load %bp : tensor<64x64x!tile.ptr<f16>, #blx>
      %ca = tilegpu.convert_layout %a : tensor<64x64xf16, #blx> -> tensor<64x64xf16, #xa>
      %cb = tilegpu.convert_layout %b : tensor<64x64xf16, #blx> -> tensor<64x64xf16, #xb>
      %scaled = arith.mulf %acc, %half : tensor<64x64xf32, #wx>
      %d = tile.dot %ca, %cb, %scaled, tf32 : tensor<64x64xf16, #xa>, tensor<64x64xf16, #xb> -> tensor<64x64xf32, #wx>
      %ap2 = tile.addptr %ap, %c64 : tensor<64x64x!tile.ptr<f16>, #blx>, tensor<64x64xi32, #blx>
      %bp2 = tile.addptr %bp, %c64 : tensor<64x64x!tile.ptr<f16>, #blx>, tensor<64x64xi32, #blx>
      scf.yield %d, %ap2, %bp2 : tensor<64x64xf32, #wx>, tensor<64x64x!tile.ptr<f16>, #blx>, tensor<64x64x!tile.ptr<f16>, #blx>
    }
    %cp = tile.splat %pc : tensor<64x64x!tile.ptr<f32>, #wx>
    tile.store %cp, %r#0 : tensor<64x64x!tile.ptr<f32>, #wx>
    return
  }
}

// -----

// Hopper dot operands stored from registers (one stage: no ring) are
// fenced into the async proxy by every thread, then the CTA syncs.
#bly = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#wy = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64]}>
#ya = #tilegpu.dot_op<{opIdx = 0, parent = #wy, kWidth = 2}>
#yb = #tilegpu.dot_op<{opIdx = 1, parent = #wy, kWidth = 2}>
// CHECK-LABEL: func.func @wgmma_stored_operands
// CHECK: tilegpu.local_alloc %{{.*}} : (tensor<64x64xf16, #{{.*}}>) -> !tilegpu.memdesc<64x64xf16
// CHECK: tilegpu.local_alloc %{{.*}} : (tensor<64x64xf16, #{{.*}}>) -> !tilegpu.memdesc<64x64xf16
// CHECK-NEXT: tilegpu.fence_async_shared
// CHECK-NEXT: tile.debug_barrier
// CHECK-NEXT: tile.dot
// CHECK-NOT: warpgroup_dot_wait
module attributes {tilegpu.num_warps = 4 : i32, tile.num_stages = 1 : i32} {
  func.func @wgmma_stored_operands(%pa: !tile.ptr<f16>, %pb: !tile.ptr<f16>, %pc: !tile.ptr<f32>, %n: i32) {
    %a0 = tile.splat %pa : tensor<64x64x!tile.ptr<f16>, #bly>
    %b0 = tile.splat %pb : tensor<64x64x!tile.ptr<f16>, #bly>
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #wy>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<64x64xf32, #wy>) : i32 {
      %a = tile.load %a0 : tensor<64x64x!tile.ptr<f16>, #bly>
      %b = tile.load %b0 : tensor<64x64x!tile.ptr<f16>, #bly>
      %ca = tilegpu.convert_layout %a : tensor<64x64xf16, #bly> -> tensor<64x64xf16, #ya>
      %cb = tilegpu.convert_layout %b : tensor<64x64xf16, #bly> -> tensor<64x64xf16, #yb>
      %d = tile.dot %ca, %cb, %acc, tf32 : tensor<64x64xf16, #ya>, tensor<64x64xf16, #yb> -> tensor<64x64xf32, #wy>
      scf.yield %d : tensor<64x64xf32, #wy>
    }
    %cp = tile.splat %pc : tensor<64x64x!tile.ptr<f32>, #wy>
    tile.store %cp, %r : tensor<64x64x!tile.ptr<f32>, #wy>
    return
  }
}

// -----

// Two warpgroups share the B buffers: each one's wait covers its own dots
// only, so a barrier follows the wait before the copies overwrite them.
#bl8 = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]}>
#w8 = #tilegpu.mma<{version = 3, warpsPerCTA = [8, 1], instrShape = [64, 64]}>
#a8 = #tilegpu.dot_op<{opIdx = 0, parent = #w8, kWidth = 2}>
#b8 = #tilegpu.dot_op<{opIdx = 1, parent = #w8, kWidth = 2}>
// CHECK-LABEL: func.func @wgmma_two_warpgroups
// CHECK: scf.for
// CHECK: tile.dot
// CHECK-NEXT: tilegpu.warpgroup_dot_wait %{{.*}} {pending = 1 : i32}
// CHECK-NEXT: tile.debug_barrier
// CHECK: tilegpu.async_copy
module attributes {tilegpu.num_warps = 8 : i32, tile.num_stages = 3 : i32} {
  func.func @wgmma_two_warpgroups(%pa: !tile.ptr<f16>, %pb: !tile.ptr<f16>, %pc: !tile.ptr<f32>, %n: i32) {
    %a0 = tile.splat %pa : tensor<128x64x!tile.ptr<f16>, #bl8>
    %b0 = tile.splat %pb : tensor<64x64x!tile.ptr<f16>, #bl8>
    %zero = arith.constant dense<0.0> : tensor<128x64xf32, #w8>
    %c64a = arith.constant dense<64> : tensor<128x64xi32, #bl8>
    %c64b = arith.constant dense<64> : tensor<64x64xi32, #bl8>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r:3 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero, %ap = %a0, %bp = %b0) -> (tensor<128x64xf32, #w8>, tensor<128x64x!tile.ptr<f16>, #bl8>, tensor<64x64x!tile.ptr<f16>, #bl8>) : i32 {
      %a = tile.load %ap : tensor<128x64x!tile.ptr<f16>, #bl8>
      %b = tile.load %bp : tensor<64x64x!tile.ptr<f16>, #bl8>
      %ca = tilegpu.convert_layout %a : tensor<128x64xf16, #bl8> -> tensor<128x64xf16, #a8>
      %cb = tilegpu.convert_layout %b : tensor<64x64xf16, #bl8> -> tensor<64x64xf16, #b8>
      %d = tile.dot %ca, %cb, %acc, tf32 : tensor<128x64xf16, #a8>, tensor<64x64xf16, #b8> -> tensor<128x64xf32, #w8>
      %ap2 = tile.addptr %ap, %c64a : tensor<128x64x!tile.ptr<f16>, #bl8>, tensor<128x64xi32, #bl8>
      %bp2 = tile.addptr %bp, %c64b : tensor<64x64x!tile.ptr<f16>, #bl8>, tensor<64x64xi32, #bl8>
      scf.yield %d, %ap2, %bp2 : tensor<128x64xf32, #w8>, tensor<128x64x!tile.ptr<f16>, #bl8>, tensor<64x64x!tile.ptr<f16>, #bl8>
    }
    %cp = tile.splat %pc : tensor<128x64x!tile.ptr<f32>, #w8>
    tile.store %cp, %r#0 : tensor<128x64x!tile.ptr<f32>, #w8>
    return
  }
}

// -----

// A tf32 Hopper dot reads both operands K-major: B's ring rows run along
// K (order [0, 1]) though its loads run along N; A's along K as loaded.
#blt = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [1, 0]}>
#wt = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64]}>
#ta = #tilegpu.dot_op<{opIdx = 0, parent = #wt, kWidth = 1}>
#tb = #tilegpu.dot_op<{opIdx = 1, parent = #wt, kWidth = 1}>
// CHECK: #shared = #tilegpu.shared<{vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0]}>
// CHECK: #shared1 = #tilegpu.shared<{vec = 4, perPhase = 1, maxPhase = 8, order = [0, 1]}>
// CHECK-LABEL: func.func @tf32_k_major
// CHECK-DAG: tilegpu.local_alloc : () -> !tilegpu.memdesc<3x64x32xf32, #shared>
// CHECK-DAG: tilegpu.local_alloc : () -> !tilegpu.memdesc<3x32x64xf32, #shared1>
module attributes {tilegpu.num_warps = 4 : i32, tile.num_stages = 3 : i32} {
  func.func @tf32_k_major(%pa: !tile.ptr<f32>, %pb: !tile.ptr<f32>, %pc: !tile.ptr<f32>, %n: i32) {
    %a0 = tile.splat %pa : tensor<64x32x!tile.ptr<f32>, #blt>
    %b0 = tile.splat %pb : tensor<32x64x!tile.ptr<f32>, #blt>
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #wt>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<64x64xf32, #wt>) : i32 {
      %a = tile.load %a0 : tensor<64x32x!tile.ptr<f32>, #blt>
      %b = tile.load %b0 : tensor<32x64x!tile.ptr<f32>, #blt>
      %ca = tilegpu.convert_layout %a : tensor<64x32xf32, #blt> -> tensor<64x32xf32, #ta>
      %cb = tilegpu.convert_layout %b : tensor<32x64xf32, #blt> -> tensor<32x64xf32, #tb>
      %d = tile.dot %ca, %cb, %acc, tf32 : tensor<64x32xf32, #ta>, tensor<32x64xf32, #tb> -> tensor<64x64xf32, #wt>
      scf.yield %d : tensor<64x64xf32, #wt>
    }
    %cp = tile.splat %pc : tensor<64x64x!tile.ptr<f32>, #wt>
    tile.store %cp, %r : tensor<64x64x!tile.ptr<f32>, #wt>
    return
  }
}

// -----

// Attention's two dots on wgmma. The queries, loaded before the loop, are
// stored once there (fenced, then the CTA syncs), not in every iteration;
// the keys come through a ring, so the first dot needs only the copies'
// wait. The probabilities, computed in registers, stay there as the
// second dot's A (no buffer, no fence); its B (values) is in the ring the
// same wait covered.
#blq = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#wq = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64]}>
#qa = #tilegpu.dot_op<{opIdx = 0, parent = #wq, kWidth = 2}>
#qb = #tilegpu.dot_op<{opIdx = 1, parent = #wq, kWidth = 2}>
// CHECK-LABEL: func.func @wgmma_attention
// CHECK: %[[Q:.*]] = tilegpu.local_alloc %{{.*}} : (tensor<64x64xf16, #{{.*}}>) -> !tilegpu.memdesc<64x64xf16
// CHECK-NEXT: tilegpu.fence_async_shared
// CHECK-NEXT: tile.debug_barrier
// CHECK: scf.for
// CHECK-NOT: fence_async_shared
// CHECK: tilegpu.async_wait
// CHECK-NOT: tile.debug_barrier
// CHECK: tile.dot %[[Q]], %{{.*}} : !tilegpu.memdesc<64x64xf16, {{.*}}>, !tilegpu.memdesc<64x64xf16
// CHECK-NOT: local_alloc
// CHECK-NOT: fence_async_shared
// CHECK-NOT: tile.debug_barrier
// CHECK: %[[P:.*]] = tilegpu.convert_layout %{{.*}} -> tensor<64x64xf16, #{{.*}}>
// CHECK-NOT: tile.debug_barrier
// CHECK: tile.dot %[[P]], %{{.*}} : tensor<64x64xf16, #{{.*}}>, !tilegpu.memdesc<64x64xf16
// CHECK: scf.yield
module attributes {tilegpu.num_warps = 4 : i32, tile.num_stages = 2 : i32} {
  func.func @wgmma_attention(%pq: !tile.ptr<f16>, %pk: !tile.ptr<f16>, %pv: !tile.ptr<f16>, %po: !tile.ptr<f32>, %n: i32) {
    %q0 = tile.splat %pq : tensor<64x64x!tile.ptr<f16>, #blq>
    %k0 = tile.splat %pk : tensor<64x64x!tile.ptr<f16>, #blq>
    %v0 = tile.splat %pv : tensor<64x64x!tile.ptr<f16>, #blq>
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #wq>
    %c64 = arith.constant dense<64> : tensor<64x64xi32, #blq>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %q = tile.load %q0 : tensor<64x64x!tile.ptr<f16>, #blq>
    %r:3 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero, %kp = %k0, %vp = %v0) -> (tensor<64x64xf32, #wq>, tensor<64x64x!tile.ptr<f16>, #blq>, tensor<64x64x!tile.ptr<f16>, #blq>) : i32 {
      %k = tile.load %kp : tensor<64x64x!tile.ptr<f16>, #blq>
      %v = tile.load %vp : tensor<64x64x!tile.ptr<f16>, #blq>
      %cq = tilegpu.convert_layout %q : tensor<64x64xf16, #blq> -> tensor<64x64xf16, #qa>
      %ck = tilegpu.convert_layout %k : tensor<64x64xf16, #blq> -> tensor<64x64xf16, #qb>
      %s = tile.dot %cq, %ck, %zero, tf32 : tensor<64x64xf16, #qa>, tensor<64x64xf16, #qb> -> tensor<64x64xf32, #wq>
      %e = math.exp2 %s : tensor<64x64xf32, #wq>
      %p = arith.truncf %e : tensor<64x64xf32, #wq> to tensor<64x64xf16, #wq>
      %cp = tilegpu.convert_layout %p : tensor<64x64xf16, #wq> -> tensor<64x64xf16, #qa>
      %cv = tilegpu.convert_layout %v : tensor<64x64xf16, #blq> -> tensor<64x64xf16, #qb>
      %d = tile.dot %cp, %cv, %acc, tf32 : tensor<64x64xf16, #qa>, tensor<64x64xf16, #qb> -> tensor<64x64xf32, #wq>
      %kp2 = tile.addptr %kp, %c64 : tensor<64x64x!tile.ptr<f16>, #blq>, tensor<64x64xi32, #blq>
      %vp2 = tile.addptr %vp, %c64 : tensor<64x64x!tile.ptr<f16>, #blq>, tensor<64x64xi32, #blq>
      scf.yield %d, %kp2, %vp2 : tensor<64x64xf32, #wq>, tensor<64x64x!tile.ptr<f16>, #blq>, tensor<64x64x!tile.ptr<f16>, #blq>
    }
    %op = tile.splat %po : tensor<64x64x!tile.ptr<f32>, #wq>
    tile.store %op, %r#0 : tensor<64x64x!tile.ptr<f32>, #wq>
    return
  }
}

// -----

// Loads of single elements (rows aligned to 2 bytes only): the tiles of
// pointers the loop carried, one 64-bit register per element, are rebuilt
// in each iteration from their scalar base advanced by the iteration's
// offset (in 64 bits: the advance of A a splat of a scalar, of B a splat
// constant); the loop carries the accumulator alone. The copies of the
// iterations ahead rebuild theirs from their own iteration numbers.
// CHECK-LABEL: func.func @single_elements
// CHECK: tile.addptr %arg0, %{{.*}} : !tile.ptr<f16>, i64
// CHECK: tile.addptr %arg1, %{{.*}} : !tile.ptr<f16>, i64
// CHECK: scf.for %[[I:.*]] = %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (tensor<64x64xf32, #mma>)
// CHECK: %[[I64:.*]] = arith.extsi %{{.*}} : i32 to i64
// CHECK: %[[OFF:.*]] = arith.muli %[[I64]], %{{.*}} : i64
// CHECK: %[[BASE:.*]] = tile.addptr %arg0, %[[OFF]] : !tile.ptr<f16>, i64
// CHECK: %[[SPLAT:.*]] = tile.splat %[[BASE]] : tensor<64x32x!tile.ptr<f16>, #blocked>
// CHECK: %[[PTRS:.*]] = tile.addptr %[[SPLAT]], %{{.*}} : tensor<64x32x!tile.ptr<f16>, #blocked>, tensor<64x32xi32, #blocked>
// CHECK: tilegpu.async_copy %[[PTRS]]
// CHECK: scf.yield %{{.*}} : tensor<64x64xf32, #mma>
#bl = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tilegpu.mma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#a = #tilegpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#b = #tilegpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>
module attributes {tilegpu.num_warps = 4 : i32, tile.num_stages = 3 : i32} {
  func.func @single_elements(%pa: !tile.ptr<f16>, %pb: !tile.ptr<f16>, %pc: !tile.ptr<f32>, %n: i32, %sa: i32, %offa: tensor<64x32xi32, #bl>, %offb: tensor<32x64xi32, #bl>) {
    %sa0 = tile.splat %pa : tensor<64x32x!tile.ptr<f16>, #bl>
    %a0 = tile.addptr %sa0, %offa : tensor<64x32x!tile.ptr<f16>, #bl>, tensor<64x32xi32, #bl>
    %sb0 = tile.splat %pb : tensor<32x64x!tile.ptr<f16>, #bl>
    %b0 = tile.addptr %sb0, %offb : tensor<32x64x!tile.ptr<f16>, #bl>, tensor<32x64xi32, #bl>
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
    %stepa = tile.splat %sa : tensor<64x32xi32, #bl>
    %stepb = arith.constant dense<4097> : tensor<32x64xi32, #bl>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r:3 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero, %ap = %a0, %bp = %b0) -> (tensor<64x64xf32, #mma>, tensor<64x32x!tile.ptr<f16>, #bl>, tensor<32x64x!tile.ptr<f16>, #bl>) : i32 {
      %a = tile.load %ap : tensor<64x32x!tile.ptr<f16>, #bl>
      %b = tile.load %bp : tensor<32x64x!tile.ptr<f16>, #bl>
      %ca = tilegpu.convert_layout %a : tensor<64x32xf16, #bl> -> tensor<64x32xf16, #a>
      %cb = tilegpu.convert_layout %b : tensor<32x64xf16, #bl> -> tensor<32x64xf16, #b>
      %d = tile.dot %ca, %cb, %acc, tf32 : tensor<64x32xf16, #a>, tensor<32x64xf16, #b> -> tensor<64x64xf32, #mma>
      %ap2 = tile.addptr %ap, %stepa : tensor<64x32x!tile.ptr<f16>, #bl>, tensor<64x32xi32, #bl>
      %bp2 = tile.addptr %bp, %stepb : tensor<32x64x!tile.ptr<f16>, #bl>, tensor<32x64xi32, #bl>
      scf.yield %d, %ap2, %bp2 : tensor<64x64xf32, #mma>, tensor<64x32x!tile.ptr<f16>, #bl>, tensor<32x64x!tile.ptr<f16>, #bl>
    }
    %cp = tile.splat %pc : tensor<64x64x!tile.ptr<f32>, #mma>
    tile.store %cp, %r#0 : tensor<64x64x!tile.ptr<f32>, #mma>
    return
  }
}
