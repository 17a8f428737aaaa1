// RUN: tile-opt %s -split-input-file --tilegpu-assign-layouts --tilegpu-remove-layout-conversions | FileCheck %s
// RUN: tile-opt %s -split-input-file --tile-to-tilegpu --convert-tilegpu-to-nvvm | FileCheck %s --check-prefix=LLVM

// Shape ops take the layouts in which they move nothing (ShapeLayouts.h).
//
// A transposed tile that is only reduced: the transpose of the load's
// blocked layout is blocked, and no conversion comes before the trans. In
// LLVM the trans is gone without a trace: no barrier, no shared memory.
// CHECK-LABEL: func.func @row_sums_of_transpose
// CHECK: %[[X:.*]] = tile.load {{.*}} : tensor<32x64x!tile.ptr<f32>, #[[$L:.*]]>
// CHECK-NEXT: tile.trans %[[X]] {order = array<i32: 1, 0>} : tensor<32x64xf32, #[[$L]]> -> tensor<64x32xf32, #[[$T:blocked[0-9]*]]>
// CHECK: tile.reduce sum {{.*}} : tensor<64x32xf32, #[[$T]]>
// LLVM-LABEL: llvm.func @row_sums_of_transpose
// LLVM-NOT: nvvm.barrier
// LLVM: nvvm.shfl.sync
func.func @row_sums_of_transpose(%arg0: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %arg1: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %arg2: !tile.ptr<f32> {tile.divisibility = 16 : i32}) {
  %0 = tile.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
  %1 = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %2 = tile.expand_dims %0 {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %c64_i32 = arith.constant 64 : i32
  %3 = tile.splat %c64_i32 : tensor<32x1xi32>
  %4 = arith.muli %2, %3 : tensor<32x1xi32>
  %5 = tile.splat %arg0 : tensor<32x1x!tile.ptr<f32>>
  %6 = tile.addptr %5, %4 : tensor<32x1x!tile.ptr<f32>>, tensor<32x1xi32>
  %7 = tile.expand_dims %1 {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %8 = tile.broadcast %6 : tensor<32x1x!tile.ptr<f32>> -> tensor<32x64x!tile.ptr<f32>>
  %9 = tile.broadcast %7 : tensor<1x64xi32> -> tensor<32x64xi32>
  %10 = tile.addptr %8, %9 : tensor<32x64x!tile.ptr<f32>>, tensor<32x64xi32>
  %11 = tile.load %10 : tensor<32x64x!tile.ptr<f32>>
  %12 = tile.trans %11 {order = array<i32: 1, 0>} : tensor<32x64xf32> -> tensor<64x32xf32>
  %13 = tile.splat %arg1 : tensor<64x!tile.ptr<f32>>
  %14 = tile.addptr %13, %1 : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  %15 = tile.reduce sum %12 {axis = 1 : i32} : tensor<64x32xf32> -> tensor<64xf32>
  tile.store %14, %15 : tensor<64x!tile.ptr<f32>>
  return
}

// -----

// A transposed tile that is stored: the store wants its own coalesced
// layout, so the load's converts (through shared memory) before the trans.
// CHECK-LABEL: func.func @transpose_store
// CHECK: %[[X:.*]] = tile.load
// CHECK: %[[C:.*]] = tilegpu.convert_layout %[[X]]
// CHECK: %[[T:.*]] = tile.trans %[[C]] {order = array<i32: 1, 0>} : tensor<32x64xf32, #{{.*}}> -> tensor<64x32xf32, #[[$S:.*]]>
// CHECK: tile.store %{{.*}}, %[[T]] : tensor<64x32x!tile.ptr<f32>, #[[$S]]>
func.func @transpose_store(%arg0: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %arg1: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %arg2: !tile.ptr<f32> {tile.divisibility = 16 : i32}) {
  %0 = tile.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
  %1 = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %2 = tile.expand_dims %0 {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %c64_i32 = arith.constant 64 : i32
  %3 = tile.splat %c64_i32 : tensor<32x1xi32>
  %4 = arith.muli %2, %3 : tensor<32x1xi32>
  %5 = tile.splat %arg0 : tensor<32x1x!tile.ptr<f32>>
  %6 = tile.addptr %5, %4 : tensor<32x1x!tile.ptr<f32>>, tensor<32x1xi32>
  %7 = tile.expand_dims %1 {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %8 = tile.broadcast %6 : tensor<32x1x!tile.ptr<f32>> -> tensor<32x64x!tile.ptr<f32>>
  %9 = tile.broadcast %7 : tensor<1x64xi32> -> tensor<32x64xi32>
  %10 = tile.addptr %8, %9 : tensor<32x64x!tile.ptr<f32>>, tensor<32x64xi32>
  %11 = tile.load %10 : tensor<32x64x!tile.ptr<f32>>
  %12 = tile.trans %11 {order = array<i32: 1, 0>} : tensor<32x64xf32> -> tensor<64x32xf32>
  %13 = tile.expand_dims %1 {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %c32_i32 = arith.constant 32 : i32
  %14 = tile.splat %c32_i32 : tensor<64x1xi32>
  %15 = arith.muli %13, %14 : tensor<64x1xi32>
  %16 = tile.splat %arg1 : tensor<64x1x!tile.ptr<f32>>
  %17 = tile.addptr %16, %15 : tensor<64x1x!tile.ptr<f32>>, tensor<64x1xi32>
  %18 = tile.expand_dims %0 {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %19 = tile.broadcast %17 : tensor<64x1x!tile.ptr<f32>> -> tensor<64x32x!tile.ptr<f32>>
  %20 = tile.broadcast %18 : tensor<1x32xi32> -> tensor<64x32xi32>
  %21 = tile.addptr %19, %20 : tensor<64x32x!tile.ptr<f32>>, tensor<64x32xi32>
  tile.store %21, %12 : tensor<64x32x!tile.ptr<f32>>
  return
}

// -----

// Interleaving two loaded tiles: join adds the pair bit as register 0,
// the reshape renames it into a linear layout of 8 consecutive elements per
// thread, which stores as well as a blocked one: nothing converts.
// CHECK-LABEL: func.func @interleave_store
// CHECK: %[[J:.*]] = tile.join {{.*}} : tensor<512xf32, #{{.*}}> -> tensor<512x2xf32, #[[$P:.*]]>
// CHECK: %[[R:.*]] = tile.reshape %[[J]] : tensor<512x2xf32, #[[$P]]> -> tensor<1024xf32, #[[$LIN:linear[0-9]*]]>
// CHECK-NOT: convert_layout
// CHECK: tile.store %{{.*}}, %[[R]] : tensor<1024x!tile.ptr<f32>, #[[$LIN]]>
// LLVM-LABEL: llvm.func @interleave_store
// LLVM-NOT: nvvm.barrier
// LLVM-COUNT-2: st.global.v4.b32
func.func @interleave_store(%arg0: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %arg1: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %arg2: !tile.ptr<f32> {tile.divisibility = 16 : i32}) {
  %0 = tile.make_range {end = 512 : i32, start = 0 : i32} : tensor<512xi32>
  %1 = tile.splat %arg0 : tensor<512x!tile.ptr<f32>>
  %2 = tile.addptr %1, %0 : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
  %3 = tile.load %2 : tensor<512x!tile.ptr<f32>>
  %4 = tile.splat %arg1 : tensor<512x!tile.ptr<f32>>
  %5 = tile.addptr %4, %0 : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
  %6 = tile.load %5 : tensor<512x!tile.ptr<f32>>
  %7 = tile.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
  %8 = tile.splat %arg2 : tensor<1024x!tile.ptr<f32>>
  %9 = tile.addptr %8, %7 : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  %10 = tile.join %3, %6 : tensor<512xf32> -> tensor<512x2xf32>
  %11 = tile.reshape %10 : tensor<512x2xf32> -> tensor<1024xf32>
  tile.store %9, %11 : tensor<1024x!tile.ptr<f32>>
  return
}

// -----

// Splitting pairs: the halves need both elements of a pair in one
// thread, which the load's layout, reshaped, does not give; the halves'
// layout (the store's) asks for its join.
// CHECK-LABEL: // -----
// CHECK-DAG: #[[$P:.*]] = #tilegpu.blocked<{sizePerThread = [4, 2], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]}>
// CHECK-DAG: #[[$H:.*]] = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK-LABEL: func.func @split_pairs
// CHECK: %[[C:.*]] = tilegpu.convert_layout {{.*}} -> tensor<512x2xf32, #[[$P]]>
// CHECK: tile.split %[[C]] : tensor<512x2xf32, #[[$P]]> -> tensor<512xf32, #[[$H]]>
func.func @split_pairs(%arg0: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %arg1: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %arg2: !tile.ptr<f32> {tile.divisibility = 16 : i32}) {
  %0 = tile.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
  %1 = tile.splat %arg0 : tensor<1024x!tile.ptr<f32>>
  %2 = tile.addptr %1, %0 : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  %3 = tile.load %2 : tensor<1024x!tile.ptr<f32>>
  %4 = tile.reshape %3 : tensor<1024xf32> -> tensor<512x2xf32>
  %lhs, %rhs = tile.split %4 : tensor<512x2xf32> -> tensor<512xf32>
  %5 = tile.make_range {end = 512 : i32, start = 0 : i32} : tensor<512xi32>
  %6 = tile.splat %arg1 : tensor<512x!tile.ptr<f32>>
  %7 = tile.addptr %6, %5 : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
  %8 = arith.mulf %lhs, %lhs : tensor<512xf32>
  %9 = arith.mulf %rhs, %rhs : tensor<512xf32>
  %10 = arith.addf %8, %9 : tensor<512xf32>
  tile.store %7, %10 : tensor<512x!tile.ptr<f32>>
  return
}
