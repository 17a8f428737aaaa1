// RUN: tile-opt %s --tilegpu-version-masks --cse | FileCheck %s

// A ragged edge in a loop: the select runs only when the block's last
// index reaches n (in i64, and only when that index does not wrap); the
// compare moves into the else branch with it.
// CHECK-LABEL: func.func @ragged_edge
// CHECK-SAME: (%[[N:.*]]: i32, %[[X:.*]]: tensor<64xf32>)
// CHECK: scf.for %[[IV:[a-z0-9]+]] = {{.*}} iter_args(%[[ACC:[a-z0-9]+]] = {{.*}})
// CHECK: %[[IV64:.*]] = arith.extsi %[[IV]] : i32 to i64
// CHECK: %[[LAST:.*]] = arith.addi %[[IV64]], %c63_i64 : i64
// CHECK: %[[N64:.*]] = arith.extsi %[[N]] : i32 to i64
// CHECK: %[[BELOW:.*]] = arith.cmpi slt, %[[LAST]], %[[N64]] : i64
// CHECK: %[[FITS:.*]] = arith.cmpi sle, %[[LAST]], %c2147483647_i64 : i64
// CHECK: %[[ALL:.*]] = arith.andi %[[BELOW]], %[[FITS]] : i1
// CHECK: %[[R:.*]] = scf.if %[[ALL]] -> (tensor<64xf32>) {
// CHECK-NEXT: scf.yield %[[X]] : tensor<64xf32>
// CHECK-NEXT: } else {
// CHECK: %[[MASK:.*]] = arith.cmpi slt, {{.*}} : tensor<64xi32>
// CHECK: %[[SEL:.*]] = arith.select %[[MASK]], %[[X]], {{.*}} : tensor<64xi1>, tensor<64xf32>
// CHECK-NEXT: scf.yield %[[SEL]] : tensor<64xf32>
// CHECK: arith.addf %[[ACC]], %[[R]]
func.func @ragged_edge(%n: i32, %x: tensor<64xf32>) -> tensor<64xf32> {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant dense<0.0> : tensor<64xf32>
  %r = scf.for %iv = %c0 to %n step %c64 iter_args(%acc = %zero) -> (tensor<64xf32>) : i32 {
    %base = tile.splat %iv : tensor<64xi32>
    %range = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %offs = arith.addi %base, %range : tensor<64xi32>
    %bound = tile.splat %n : tensor<64xi32>
    %mask = arith.cmpi slt, %offs, %bound : tensor<64xi32>
    %sel = arith.select %mask, %x, %zero : tensor<64xi1>, tensor<64xf32>
    %sum = arith.addf %acc, %sel : tensor<64xf32>
    scf.yield %sum : tensor<64xf32>
  }
  return %r : tensor<64xf32>
}

// Attention's causal mask, rows >= columns over expanded and broadcast
// ranges, and-ed with a splatted scalar: every column of the block at or
// below the first row (sgt/sge swap the sides), and the scalar.
// CHECK-LABEL: func.func @causal
// CHECK-SAME: (%[[M:.*]]: i32, %[[HI:.*]]: i32, %[[P:.*]]: i1, %[[X:.*]]: tensor<16x32xf32>)
// CHECK: scf.for %[[IV:[a-z0-9]+]] =
// CHECK: %[[IV64:.*]] = arith.extsi %[[IV]] : i32 to i64
// CHECK: %[[LASTCOL:.*]] = arith.addi %[[IV64]], %c31_i64 : i64
// CHECK: %[[M64:.*]] = arith.extsi %[[M]] : i32 to i64
// CHECK: %[[BELOW:.*]] = arith.cmpi sle, %[[LASTCOL]], %[[M64]] : i64
// CHECK: %[[COLFITS:.*]] = arith.cmpi sle, %[[LASTCOL]], %c2147483647_i64 : i64
// CHECK: %[[T0:.*]] = arith.andi %[[BELOW]], %[[COLFITS]] : i1
// CHECK: %[[LASTROW:.*]] = arith.addi %[[M64]], %c15_i64 : i64
// CHECK: %[[ROWFITS:.*]] = arith.cmpi sle, %[[LASTROW]], %c2147483647_i64 : i64
// CHECK: %[[T1:.*]] = arith.andi %[[T0]], %[[ROWFITS]] : i1
// CHECK: %[[ALL:.*]] = arith.andi %[[T1]], %[[P]] : i1
// CHECK: scf.if %[[ALL]] -> (tensor<16x32xf32>)
// CHECK: } else {
// CHECK: arith.cmpi sge, {{.*}} : tensor<16x32xi32>
// CHECK: arith.select
func.func @causal(%m: i32, %hi: i32, %p: i1, %x: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %ninf = arith.constant dense<0xFF800000> : tensor<16x32xf32>
  %r = scf.for %iv = %c0 to %hi step %c32 iter_args(%acc = %x) -> (tensor<16x32xf32>) : i32 {
    %mb = tile.splat %m : tensor<16xi32>
    %mr = tile.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
    %rows = arith.addi %mb, %mr : tensor<16xi32>
    %nb = tile.splat %iv : tensor<32xi32>
    %nr = tile.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
    %cols = arith.addi %nr, %nb : tensor<32xi32>
    %r2 = tile.expand_dims %rows {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
    %rb = tile.broadcast %r2 : tensor<16x1xi32> -> tensor<16x32xi32>
    %c2 = tile.expand_dims %cols {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
    %cb = tile.broadcast %c2 : tensor<1x32xi32> -> tensor<16x32xi32>
    %below = arith.cmpi sge, %rb, %cb : tensor<16x32xi32>
    %ps = tile.splat %p : tensor<16x32xi1>
    %mask = arith.andi %below, %ps : tensor<16x32xi1>
    %sel = arith.select %mask, %acc, %ninf : tensor<16x32xi1>, tensor<16x32xf32>
    scf.yield %sel : tensor<16x32xf32>
  }
  return %r : tensor<16x32xf32>
}

// Left alone: a mask that a masked load also reads (its compares would
// stay), a select outside a loop, an unsigned compare, a compare of two
// constants' ranges, and a mask of another form (a loaded one).
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: scf.if
// CHECK: return
func.func @left_alone(%n: i32, %p: tensor<64x!tile.ptr<f32>>, %mp: tensor<64x!tile.ptr<i1>>,
                      %x: tensor<64xf32>) -> tensor<64xf32> {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant dense<0.0> : tensor<64xf32>
  %range = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %bound = tile.splat %n : tensor<64xi32>
  %outside = arith.cmpi slt, %range, %bound : tensor<64xi32>
  %s0 = arith.select %outside, %x, %zero : tensor<64xi1>, tensor<64xf32>
  %r = scf.for %iv = %c0 to %n step %c64 iter_args(%acc = %s0) -> (tensor<64xf32>) : i32 {
    %base = tile.splat %iv : tensor<64xi32>
    %offs = arith.addi %base, %range : tensor<64xi32>
    %shared = arith.cmpi slt, %offs, %bound : tensor<64xi32>
    %y = tile.load %p, %shared, %zero : tensor<64x!tile.ptr<f32>>
    %s1 = arith.select %shared, %y, %zero : tensor<64xi1>, tensor<64xf32>
    %unsigned = arith.cmpi ult, %offs, %bound : tensor<64xi32>
    %s2 = arith.select %unsigned, %s1, %zero : tensor<64xi1>, tensor<64xf32>
    %c10 = arith.constant dense<10> : tensor<64xi32>
    %constant = arith.cmpi slt, %range, %c10 : tensor<64xi32>
    %s3 = arith.select %constant, %s2, %zero : tensor<64xi1>, tensor<64xf32>
    %loaded = tile.load %mp : tensor<64x!tile.ptr<i1>>
    %s4 = arith.select %loaded, %s3, %acc : tensor<64xi1>, tensor<64xf32>
    scf.yield %s4 : tensor<64xf32>
  }
  return %r : tensor<64xf32>
}
