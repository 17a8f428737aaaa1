// RUN: tile-opt %s -split-input-file --tile-to-tilegpu --tilegpu-to-llvm | FileCheck %s

// 16-byte aligned, mask constant over runs of 4: one predicated v4 access
// per run, two runs per thread (1024 elements over 128 threads).
// CHECK-LABEL: llvm.func @add_kernel(
// CHECK-SAME: !llvm.ptr<1>
// CHECK-SAME: nvvm.kernel
// CHECK-SAME: nvvm.reqntid = array<i32: 128, 1, 1>
// CHECK-NOT: tile.
// CHECK-COUNT-4: ld.global.v4.b32
// CHECK-NOT: ld.global
// CHECK-COUNT-2: st.global.v4.b32
// CHECK-NOT: st.global
// CHECK: llvm.return
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

// `n` of unknown divisibility: scalar predicated accesses, 8 per thread.
// CHECK-LABEL: llvm.func @copy_any_n(
// CHECK-COUNT-8: ld.global.b32
// CHECK-NOT: ld.global
// CHECK-COUNT-8: st.global.b32
// CHECK-NOT: st.global
module {
  func.func @copy_any_n(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %out: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32) {
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

// f64 elements travel whole, in 64-bit registers: two per 16-byte access.
// CHECK-LABEL: llvm.func @copy_f64(
// CHECK-COUNT-4: ld.global.v2.b64 { $0, $1 }{{.*}}"=l,=l,l,b,l,l"
// CHECK-NOT: ld.global
// CHECK-COUNT-4: st.global.v2.b64 [ $0 + 0 ], { $1, $2 };", "l,l,l,b"
// CHECK-NOT: st.global
module {
  func.func @copy_f64(%x: !tile.ptr<f64> {tile.divisibility = 16 : i32}, %out: !tile.ptr<f64> {tile.divisibility = 16 : i32}) {
    %range = tile.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
    %xs = tile.splat %x : tensor<1024x!tile.ptr<f64>>
    %xp = tile.addptr %xs, %range : tensor<1024x!tile.ptr<f64>>, tensor<1024xi32>
    %xv = tile.load %xp : tensor<1024x!tile.ptr<f64>>
    %os = tile.splat %out : tensor<1024x!tile.ptr<f64>>
    %op = tile.addptr %os, %range : tensor<1024x!tile.ptr<f64>>, tensor<1024xi32>
    tile.store %op, %xv : tensor<1024x!tile.ptr<f64>>
    return
  }
}
