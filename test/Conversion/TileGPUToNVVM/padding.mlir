// RUN: tile-opt %s -split-input-file --convert-tilegpu-to-nvvm --canonicalize --cse | FileCheck %s

// Tiles whose extents are not powers of two are laid out padded to the next
// power of two; the padding is never loaded, stored or added atomically, and
// enters reductions as the identity.

// A tile of 100 over one warp, 4 per thread (padded to 128): each v4 load is
// predicated on its group lying below 100 (100 = 4 * 25, so no group
// straddles the end); the sum replaces padding by -0.0 before combining, and
// the 25 lanes holding real elements are spread over all 32 (5 butterflies).
// CHECK-LABEL: llvm.func @tile_of_100(
// CHECK-DAG: %[[NEG0:.*]] = llvm.mlir.constant(-0.000000e+00 : f32) : f32
// CHECK-DAG: %[[C100:.*]] = llvm.mlir.constant(100 : i32) : i32
// CHECK: %[[VALID0:.*]] = llvm.icmp "ult" %{{.*}}, %[[C100]] : i32
// CHECK: %[[LOAD:.*]] = llvm.inline_asm {{.*}}@$5 ld.global.v4.b32 { $0, $1, $2, $3 }{{.*}} %{{.*}}, %[[VALID0]],
// CHECK-NOT: ld.global
// CHECK-COUNT-3: llvm.icmp "ult" %{{.*}}, %[[C100]] : i32
// CHECK: llvm.select %[[VALID0]], %{{.*}}, %[[NEG0]] : i1, f32
// CHECK-COUNT-3: llvm.select %{{.*}}, %{{.*}}, %[[NEG0]] : i1, f32
// CHECK-COUNT-5: nvvm.shfl.sync  bfly
// CHECK-NOT: nvvm.shfl.sync
#v4 = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
module attributes {tilegpu.num_warps = 1 : i32} {
  func.func @tile_of_100(%p: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %q: !tile.ptr<f32> {tile.divisibility = 16 : i32}) {
    %r = tile.make_range {start = 0 : i32, end = 100 : i32} : tensor<100xi32, #v4>
    %ps = tile.splat %p : tensor<100x!tile.ptr<f32>, #v4>
    %pp = tile.addptr %ps, %r : tensor<100x!tile.ptr<f32>, #v4>, tensor<100xi32, #v4>
    %x = tile.load %pp : tensor<100x!tile.ptr<f32>, #v4>
    %s = tile.reduce sum %x {axis = 0 : i32} : tensor<100xf32, #v4> -> f32
    tile.store %q, %s : !tile.ptr<f32>
    return
  }
}

// -----

// A tile of 6, 4 per thread over 128 threads (padded to 8, replicated 16
// times: lane bits 1..4 and both warp bits move nowhere). Groups shrink to
// 2 so that none straddles element 6. Loads are predicated on the position
// lying below 6, stores and atomics on owning it (below 6, and those lane
// and warp bits clear, so exactly one thread writes or adds each real
// element, as in Triton), and the
// owners' old values go through 8 padded slots of shared memory (32 bytes).
// The max replaces padding by INT_MIN and combines the 2 distinct lanes.
// CHECK-LABEL: module attributes {tilegpu.num_warps = 4 : i32, tilegpu.shared_bytes = 32 : i32}
// CHECK-LABEL: llvm.func @tile_of_6(
// CHECK-DAG: %[[INTMIN:.*]] = llvm.mlir.constant(-2147483648 : i32) : i32
// CHECK-DAG: %[[C30:.*]] = llvm.mlir.constant(30 : i32) : i32
// CHECK-DAG: %[[C6:.*]] = llvm.mlir.constant(6 : i32) : i32
// CHECK-DAG: %[[C3:.*]] = llvm.mlir.constant(3 : i32) : i32
// CHECK: %[[LANE:.*]] = llvm.urem
// CHECK: %[[POS0:.*]] = llvm.mul %{{.*}}, %{{.*}} : i32
// CHECK: %[[VALID0:.*]] = llvm.icmp "ult" %[[POS0]], %[[C6]] : i32
// CHECK: ld.global.v2.b32 {{.*}} %{{.*}}, %[[VALID0]],
// CHECK: ld.global.v2.b32
// CHECK-NOT: ld.global
// CHECK: %[[WARP:.*]] = llvm.udiv
// CHECK-NEXT: %[[LANEBITS:.*]] = llvm.and %[[LANE]], %[[C30]] : i32
// CHECK-NEXT: %[[LANE0:.*]] = llvm.icmp "eq" %[[LANEBITS]], %{{.*}} : i32
// CHECK-NEXT: %[[WARPBITS:.*]] = llvm.and %[[WARP]], %[[C3]] : i32
// CHECK-NEXT: %[[WARP0:.*]] = llvm.icmp "eq" %[[WARPBITS]], %{{.*}} : i32
// CHECK-NEXT: %[[OWNER:.*]] = llvm.and %[[LANE0]], %[[WARP0]] : i1
// CHECK: %[[OWN0:.*]] = llvm.and %[[OWNER]], %[[VALID0]] : i1
// CHECK: atom.relaxed.gpu.global.add.v2.f32 {{.*}}, %[[OWN0]] :
// CHECK: atom.relaxed.gpu.global.add.v2.f32
// CHECK-NOT: atom.
// CHECK: nvvm.barrier0
// CHECK: st.shared.b32 {{.*}}, %[[OWN0]] :
// CHECK: nvvm.barrier0
// CHECK: st.global.v2.b32 {{.*}}, %[[OWN0]] :
// CHECK: st.global.v2.b32
// CHECK: llvm.select %[[VALID0]], %{{.*}}, %[[INTMIN]] : i1, i32
// CHECK-COUNT-1: nvvm.shfl.sync  bfly
// CHECK-NOT: nvvm.shfl.sync
#v4 = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tilegpu.num_warps = 4 : i32} {
  func.func @tile_of_6(%p: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %q: !tile.ptr<i32> {tile.divisibility = 16 : i32}) {
    %r = tile.make_range {start = 0 : i32, end = 6 : i32} : tensor<6xi32, #v4>
    %ps = tile.splat %p : tensor<6x!tile.ptr<f32>, #v4>
    %pp = tile.addptr %ps, %r : tensor<6x!tile.ptr<f32>, #v4>, tensor<6xi32, #v4>
    %x = tile.load %pp : tensor<6x!tile.ptr<f32>, #v4>
    %old = tile.atomic_rmw add, relaxed, gpu, %pp, %x : tensor<6x!tile.ptr<f32>, #v4>
    tile.store %pp, %old : tensor<6x!tile.ptr<f32>, #v4>
    %m = tile.reduce max %r {axis = 0 : i32} : tensor<6xi32, #v4> -> i32
    tile.store %q, %m : !tile.ptr<i32>
    return
  }
}

// -----

// Summing 3 rows held by 4 warps: the warp of the padding row contributes
// -0.0, and the per-warp partials of the 5 columns take 8 padded slots per
// warp (4 x 8 x 4 bytes).
// CHECK-LABEL: module attributes {tilegpu.num_warps = 4 : i32, tilegpu.shared_bytes = 128 : i32}
// CHECK-LABEL: llvm.func @rows_of_3x5(
// CHECK-SAME: %[[X:.*]]: f32)
// CHECK-DAG: %[[NEG0:.*]] = llvm.mlir.constant(-0.000000e+00 : f32) : f32
// CHECK-DAG: %[[C3:.*]] = llvm.mlir.constant(3 : i32) : i32
// CHECK: %[[ROW:.*]] = llvm.icmp "ult" %{{.*}}, %[[C3]] : i32
// CHECK: %[[VALID:.*]] = llvm.and %[[ROW]], %{{.*}} : i1
// CHECK: %[[V:.*]] = llvm.select %[[VALID]], %[[X]], %[[NEG0]] : i1, f32
// CHECK: nvvm.barrier0
// CHECK: llvm.store %[[V]]
// CHECK: nvvm.barrier0
// CHECK-COUNT-4: llvm.load
#w = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {tilegpu.num_warps = 4 : i32} {
  func.func @rows_of_3x5(%x: tensor<3x5xf32, #w>) -> tensor<5xf32, #tilegpu.slice<{dim = 0, parent = #w}>> {
    %s = tile.reduce sum %x {axis = 0 : i32} : tensor<3x5xf32, #w> -> tensor<5xf32, #tilegpu.slice<{dim = 0, parent = #w}>>
    return %s : tensor<5xf32, #tilegpu.slice<{dim = 0, parent = #w}>>
  }
}

// -----

// A layout conversion of a 6 x 3 tile goes through the padded 8 x 4 tile in
// shared memory, 8 x 4 x 4 bytes: each warp's 32 slots are distinct words,
// no padding of rows would spread them further.
// CHECK-LABEL: module attributes {tilegpu.num_warps = 4 : i32, tilegpu.shared_bytes = 128 : i32}
// CHECK-LABEL: llvm.func @convert_6x3(
#a = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
#b = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {tilegpu.num_warps = 4 : i32} {
  func.func @convert_6x3(%x: tensor<6x3xf32, #a>) -> tensor<6x3xf32, #b> {
    %y = tilegpu.convert_layout %x : tensor<6x3xf32, #a> -> tensor<6x3xf32, #b>
    return %y : tensor<6x3xf32, #b>
  }
}
