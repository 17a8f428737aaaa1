// RUN: tile-opt %s -split-input-file --tile-to-tilegpu | FileCheck %s

// Pointers and `n` divisible by 16: the mask `offs < n` is constant over
// runs of 4 elements, so each thread takes 4 consecutive f32 (16 bytes).
// CHECK: #[[$V4:.*]] = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK-LABEL: module attributes {tilegpu.num_warps = 4 : i32}
// CHECK-LABEL: func.func @add_kernel
// CHECK: tile.load {{.*}} : tensor<1024x!tile.ptr<f32>, #[[$V4]]>
// CHECK: tile.store {{.*}} : tensor<1024x!tile.ptr<f32>, #[[$V4]]>
module {
  func.func @add_kernel(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32, tile.name = "x_ptr"}, %y: !tile.ptr<f32> {tile.divisibility = 16 : i32, tile.name = "y_ptr"}, %out: !tile.ptr<f32> {tile.divisibility = 16 : i32, tile.name = "out_ptr"}, %n: i32 {tile.divisibility = 16 : i32, tile.name = "n"}) {
    %pid = tile.program_id 0 : i32
    %c1024 = arith.constant 1024 : i32
    %start = arith.muli %pid, %c1024 : i32
    %range = tile.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
    %s = tile.splat %start : tensor<1024xi32>
    %offs = arith.addi %s, %range : tensor<1024xi32>
    %ns = tile.splat %n : tensor<1024xi32>
    %mask = arith.cmpi slt, %offs, %ns : tensor<1024xi32>
    %xs = tile.splat %x : tensor<1024x!tile.ptr<f32>>
    %xp = tile.addptr %xs, %offs : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
    %xv = tile.load %xp, %mask : tensor<1024x!tile.ptr<f32>>
    %ys = tile.splat %y : tensor<1024x!tile.ptr<f32>>
    %yp = tile.addptr %ys, %offs : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
    %yv = tile.load %yp, %mask : tensor<1024x!tile.ptr<f32>>
    %sum = arith.addf %xv, %yv : tensor<1024xf32>
    %os = tile.splat %out : tensor<1024x!tile.ptr<f32>>
    %op = tile.addptr %os, %offs : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
    tile.store %op, %sum, %mask : tensor<1024x!tile.ptr<f32>>
    return
  }
}

// -----

// `n` of unknown divisibility: the mask may change at any element, so
// accesses stay scalar, as in Triton.
// CHECK: #[[$V1:.*]] = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK-LABEL: func.func @add_kernel_any_n
// CHECK: tile.load {{.*}} : tensor<1024x!tile.ptr<f32>, #[[$V1]]>
module {
  func.func @add_kernel_any_n(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %out: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32) {
    %pid = tile.program_id 0 : i32
    %c1024 = arith.constant 1024 : i32
    %start = arith.muli %pid, %c1024 : i32
    %range = tile.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
    %s = tile.splat %start : tensor<1024xi32>
    %offs = arith.addi %s, %range : tensor<1024xi32>
    %ns = tile.splat %n : tensor<1024xi32>
    %mask = arith.cmpi slt, %offs, %ns : tensor<1024xi32>
    %xs = tile.splat %x : tensor<1024x!tile.ptr<f32>>
    %xp = tile.addptr %xs, %offs : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
    %xv = tile.load %xp, %mask : tensor<1024x!tile.ptr<f32>>
    %os = tile.splat %out : tensor<1024x!tile.ptr<f32>>
    %op = tile.addptr %os, %offs : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
    tile.store %op, %xv, %mask : tensor<1024x!tile.ptr<f32>>
    return
  }
}

// -----

// Row-major 2-D f16 tile, rows `stride` apart: 8 halves (16 bytes) per
// thread along the contiguous dimension, which comes first in `order`.
// CHECK: #[[$V8:.*]] = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
// CHECK-LABEL: func.func @copy2d
// CHECK: tile.load {{.*}} : tensor<64x128x!tile.ptr<f16>, #[[$V8]]>
module {
  func.func @copy2d(%x: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %y: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %stride: i32 {tile.divisibility = 16 : i32}) {
    %r = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %c = tile.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
    %re = tile.expand_dims %r {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
    %ss = tile.splat %stride : tensor<64x1xi32>
    %rows = arith.muli %re, %ss : tensor<64x1xi32>
    %ce = tile.expand_dims %c {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
    %rb = tile.broadcast %rows : tensor<64x1xi32> -> tensor<64x128xi32>
    %cb = tile.broadcast %ce : tensor<1x128xi32> -> tensor<64x128xi32>
    %offs = arith.addi %rb, %cb : tensor<64x128xi32>
    %xs = tile.splat %x : tensor<64x128x!tile.ptr<f16>>
    %xp = tile.addptr %xs, %offs : tensor<64x128x!tile.ptr<f16>>, tensor<64x128xi32>
    %v = tile.load %xp : tensor<64x128x!tile.ptr<f16>>
    %ys = tile.splat %y : tensor<64x128x!tile.ptr<f16>>
    %yp = tile.addptr %ys, %offs : tensor<64x128x!tile.ptr<f16>>, tensor<64x128xi32>
    tile.store %yp, %v : tensor<64x128x!tile.ptr<f16>>
    return
  }
}
