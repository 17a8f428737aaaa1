// RUN: tile-opt %s --convert-tilegpu-to-nvvm --canonicalize --cse | FileCheck %s

// tl.gather along axis 0 of a 16x8 f32 tile: the source's 128 elements go
// to shared memory row-major (bitcast to i32, each by its owner) between
// barriers, then each result element is read at its column and the row
// its index names, clamped to the 16 rows.
// CHECK-LABEL: llvm.func @rows(
// CHECK: %[[LAST:.*]] = llvm.mlir.constant(15 : i32) : i32
// CHECK: nvvm.barrier0
// CHECK: llvm.bitcast %{{.*}} : f32 to i32
// CHECK-COUNT-4: st.shared.b32
// CHECK: nvvm.barrier0
// CHECK: %[[ROW:.*]] = llvm.trunc %{{.*}} : i64 to i32
// CHECK: llvm.intr.umin(%[[ROW]], %[[LAST]]) : (i32, i32) -> i32
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> i32
// CHECK: llvm.bitcast %{{.*}} : i32 to f32
#b = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>
module attributes {tilegpu.num_warps = 1 : i32} {
  func.func @rows(%x: tensor<16x8xf32, #b>, %i: tensor<4x8xi64, #b>) -> tensor<4x8xf32, #b> {
    %g = tile.gather %x[%i] {axis = 0 : i32} : tensor<16x8xf32, #b>, tensor<4x8xi64, #b> -> tensor<4x8xf32, #b>
    return %g : tensor<4x8xf32, #b>
  }
}
