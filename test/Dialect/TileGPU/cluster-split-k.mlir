// RUN: tile-opt %s --split-input-file --tilegpu-cluster-split-k | FileCheck %s

// The K loop over two CTAs: rank r runs iterations [first, last) of
// ceil(trips / 2) each; the pointers start `first` steps in, moved in 64
// bits; the steps computed in the loop are hoisted before it; the sum comes
// after the loop and the epilogue runs on rank 0; the module is marked
// splittable.
// CHECK: module attributes {tilegpu.cluster_split = 2 : i32, tilegpu.cluster_splittable
// CHECK-LABEL: func.func @mm
// CHECK-DAG: %[[S16:.*]] = tile.splat %c16_i32 : tensor<16x16xi32>
// CHECK-DAG: %[[S256:.*]] = tile.splat %c256_i32 : tensor<16x16xi32>
// CHECK: %[[RANK:.*]] = tilegpu.cluster_rank : i32
// CHECK: %[[TRIPS:.*]] = arith.maxsi
// CHECK: %[[CHUNK:.*]] = arith.divsi %{{.*}}, %c2_i32
// CHECK: %[[AT:.*]] = arith.muli %[[RANK]], %[[CHUNK]]
// CHECK: %[[FIRST:.*]] = arith.minsi %[[AT]], %[[TRIPS]]
// CHECK: %[[END:.*]] = arith.addi %[[FIRST]], %[[CHUNK]]
// CHECK: %[[LAST:.*]] = arith.minsi %[[END]], %[[TRIPS]]
// CHECK: %[[ZERO:.*]] = arith.cmpi eq, %[[RANK]], %{{.*}}
// CHECK: %[[LB:.*]] = arith.muli %[[FIRST]], %c16_i32
// CHECK: %[[UB:.*]] = arith.muli %[[LAST]], %c16_i32
// CHECK: %[[WIDE:.*]] = arith.extsi %[[FIRST]] : i32 to i64
// CHECK: %[[OFF:.*]] = arith.muli %{{.*}}, %[[WIDE]] : i64
// CHECK: %[[SOFF:.*]] = tile.splat %[[OFF]] : tensor<16x16xi64>
// CHECK: %[[A0:.*]] = tile.addptr %{{.*}}, %[[SOFF]]
// CHECK: %[[B0:.*]] = tile.addptr
// CHECK: %[[R:.*]]:3 = scf.for %{{.*}} = %[[LB]] to %[[UB]] step %c16_i32 iter_args(%{{.*}} = %[[A0]], %{{.*}} = %cst, %{{.*}} = %[[B0]])
// CHECK: tile.dot
// CHECK: tile.addptr %{{.*}}, %[[S16]]
// CHECK: %[[SUM:.*]] = tilegpu.cluster_sum %[[R]]#1 {ctas = 2 : i32} : tensor<16x16xf32>
// CHECK-NEXT: scf.if %[[ZERO]] {
// CHECK: tile.store %{{.*}}, %[[SUM]]
// CHECK: }
// CHECK-NEXT: return
module attributes {tilegpu.cluster_split = 2 : i32, tilegpu.compute_capability = 90 : i32} {
  func.func @mm(%a: !tile.ptr<f16>, %b: !tile.ptr<f16>, %c: !tile.ptr<f32>, %K: i32) {
    %c0 = arith.constant 0 : i32
    %c16 = arith.constant 16 : i32
    %c256 = arith.constant 256 : i32
    %zero = arith.constant dense<0.000000e+00> : tensor<16x16xf32>
    %pa = tile.splat %a : tensor<16x16x!tile.ptr<f16>>
    %pb = tile.splat %b : tensor<16x16x!tile.ptr<f16>>
    %r:3 = scf.for %k = %c0 to %K step %c16 iter_args(%x = %pa, %acc = %zero, %y = %pb) -> (tensor<16x16x!tile.ptr<f16>>, tensor<16x16xf32>, tensor<16x16x!tile.ptr<f16>>) : i32 {
      %u = tile.load %x : tensor<16x16x!tile.ptr<f16>>
      %v = tile.load %y : tensor<16x16x!tile.ptr<f16>>
      %d = tile.dot %u, %v, %acc, tf32 : tensor<16x16xf16>, tensor<16x16xf16> -> tensor<16x16xf32>
      %s16 = tile.splat %c16 : tensor<16x16xi32>
      %x2 = tile.addptr %x, %s16 : tensor<16x16x!tile.ptr<f16>>, tensor<16x16xi32>
      %s256 = tile.splat %c256 : tensor<16x16xi32>
      %y2 = tile.addptr %y, %s256 : tensor<16x16x!tile.ptr<f16>>, tensor<16x16xi32>
      scf.yield %x2, %d, %y2 : tensor<16x16x!tile.ptr<f16>>, tensor<16x16xf32>, tensor<16x16x!tile.ptr<f16>>
    }
    %pc = tile.splat %c : tensor<16x16x!tile.ptr<f32>>
    tile.store %pc, %r#1 : tensor<16x16x!tile.ptr<f32>>
    return
  }
}

// -----

// A loaded initial accumulator (a bias) counts once: rank 0 starts from it,
// the other ranks from zero.
// CHECK-LABEL: func.func @bias
// CHECK: %[[INIT:.*]] = tile.load
// CHECK: %[[RANK:.*]] = tilegpu.cluster_rank : i32
// CHECK: %[[ZERO:.*]] = arith.cmpi eq, %[[RANK]]
// CHECK: %[[ZEROS:.*]] = tile.splat %{{.*}} : tensor<16x16xf32>
// CHECK: %[[MASK:.*]] = tile.splat %[[ZERO]] : tensor<16x16xi1>
// CHECK: %[[START:.*]] = arith.select %[[MASK]], %[[INIT]], %[[ZEROS]]
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[START]])
// CHECK: tilegpu.cluster_sum %{{.*}} {ctas = 4 : i32}

module attributes {tilegpu.cluster_split = 4 : i32, tilegpu.compute_capability = 90 : i32} {
  func.func @bias(%a: !tile.ptr<f16>, %c: !tile.ptr<f32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %pc = tile.splat %c : tensor<16x16x!tile.ptr<f32>>
    %init = tile.load %pc : tensor<16x16x!tile.ptr<f32>>
    %pa = tile.splat %a : tensor<16x16x!tile.ptr<f16>>
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %init) -> (tensor<16x16xf32>) : i32 {
      %u = tile.load %pa : tensor<16x16x!tile.ptr<f16>>
      %d = tile.dot %u, %u, %acc, tf32 : tensor<16x16xf16>, tensor<16x16xf16> -> tensor<16x16xf32>
      scf.yield %d : tensor<16x16xf32>
    }
    tile.store %pc, %r : tensor<16x16x!tile.ptr<f32>>
    return
  }
}

// -----

// A store in the loop: every rank would make it. Not split: the module
// loses its cluster_split, and the kernel is as it was (its steps not
// hoisted either).
// CHECK-NOT: tilegpu.cluster_split
// CHECK-NOT: tilegpu.cluster_splittable
// CHECK-LABEL: func.func @stores
// CHECK-NOT: tilegpu.cluster_rank
// CHECK: scf.for
// CHECK-NEXT: arith.addi
// CHECK-NEXT: tile.load
// CHECK-NOT: cluster_sum

module attributes {tilegpu.cluster_split = 2 : i32, tilegpu.compute_capability = 90 : i32} {
  func.func @stores(%a: !tile.ptr<f16>, %c: !tile.ptr<f32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant dense<0.000000e+00> : tensor<16x16xf32>
    %pc = tile.splat %c : tensor<16x16x!tile.ptr<f32>>
    %pa = tile.splat %a : tensor<16x16x!tile.ptr<f16>>
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<16x16xf32>) : i32 {
      %invariant = arith.addi %c1, %c1 : i32
      %u = tile.load %pa : tensor<16x16x!tile.ptr<f16>>
      %d = tile.dot %u, %u, %acc, tf32 : tensor<16x16xf16>, tensor<16x16xf16> -> tensor<16x16xf32>
      tile.store %pc, %d : tensor<16x16x!tile.ptr<f32>>
      scf.yield %d : tensor<16x16xf32>
    }
    return
  }
}

// -----

// One CTA a program asked for (tilec's cluster_split = 1): the kernel as it
// was, the steps still in the loop, but the module marked splittable for a
// launcher that decides.
// CHECK: module attributes {tilegpu.cluster_splittable, tilegpu.compute_capability = 90 : i32}
// CHECK-LABEL: func.func @single
// CHECK-NOT: tilegpu.cluster_rank
// CHECK: scf.for
// CHECK: tile.splat %c16
// CHECK-NOT: cluster_sum
module attributes {tilegpu.cluster_split = 1 : i32, tilegpu.compute_capability = 90 : i32} {
  func.func @single(%a: !tile.ptr<f16>, %c: !tile.ptr<f32>, %K: i32) {
    %c0 = arith.constant 0 : i32
    %c16 = arith.constant 16 : i32
    %zero = arith.constant dense<0.000000e+00> : tensor<16x16xf32>
    %pa = tile.splat %a : tensor<16x16x!tile.ptr<f16>>
    %r:2 = scf.for %k = %c0 to %K step %c16 iter_args(%x = %pa, %acc = %zero) -> (tensor<16x16x!tile.ptr<f16>>, tensor<16x16xf32>) : i32 {
      %u = tile.load %x : tensor<16x16x!tile.ptr<f16>>
      %d = tile.dot %u, %u, %acc, tf32 : tensor<16x16xf16>, tensor<16x16xf16> -> tensor<16x16xf32>
      %s16 = tile.splat %c16 : tensor<16x16xi32>
      %x2 = tile.addptr %x, %s16 : tensor<16x16x!tile.ptr<f16>>, tensor<16x16xi32>
      scf.yield %x2, %d : tensor<16x16x!tile.ptr<f16>>, tensor<16x16xf32>
    }
    %pc = tile.splat %c : tensor<16x16x!tile.ptr<f32>>
    tile.store %pc, %r#1 : tensor<16x16x!tile.ptr<f32>>
    return
  }
}

// -----

// A step computed in the loop through 40 ops, each using the one before
// twice: each value is looked at once (not 2^40 times), and the step is
// hoisted.
// CHECK-LABEL: func.func @chain
// CHECK: tilegpu.cluster_rank
// CHECK: arith.addi %{{.*}}, %{{.*}} : i32
// CHECK: scf.for
// CHECK: tilegpu.cluster_sum
module attributes {tilegpu.cluster_split = 2 : i32, tilegpu.compute_capability = 90 : i32} {
  func.func @chain(%a: !tile.ptr<f16>, %c: !tile.ptr<f32>, %K: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c16 = arith.constant 16 : i32
    %zero = arith.constant dense<0.000000e+00> : tensor<16x16xf32>
    %pa = tile.splat %a : tensor<16x16x!tile.ptr<f16>>
    %r:3 = scf.for %k = %c0 to %K step %c16 iter_args(%x = %pa, %acc = %zero, %n = %c0) -> (tensor<16x16x!tile.ptr<f16>>, tensor<16x16xf32>, i32) : i32 {
      %u = tile.load %x : tensor<16x16x!tile.ptr<f16>>
      %d = tile.dot %u, %u, %acc, tf32 : tensor<16x16xf16>, tensor<16x16xf16> -> tensor<16x16xf32>
      %t0 = arith.addi %c1, %c1 : i32
      %t1 = arith.addi %t0, %t0 : i32
      %t2 = arith.addi %t1, %t1 : i32
      %t3 = arith.addi %t2, %t2 : i32
      %t4 = arith.addi %t3, %t3 : i32
      %t5 = arith.addi %t4, %t4 : i32
      %t6 = arith.addi %t5, %t5 : i32
      %t7 = arith.addi %t6, %t6 : i32
      %t8 = arith.addi %t7, %t7 : i32
      %t9 = arith.addi %t8, %t8 : i32
      %t10 = arith.addi %t9, %t9 : i32
      %t11 = arith.addi %t10, %t10 : i32
      %t12 = arith.addi %t11, %t11 : i32
      %t13 = arith.addi %t12, %t12 : i32
      %t14 = arith.addi %t13, %t13 : i32
      %t15 = arith.addi %t14, %t14 : i32
      %t16 = arith.addi %t15, %t15 : i32
      %t17 = arith.addi %t16, %t16 : i32
      %t18 = arith.addi %t17, %t17 : i32
      %t19 = arith.addi %t18, %t18 : i32
      %t20 = arith.addi %t19, %t19 : i32
      %t21 = arith.addi %t20, %t20 : i32
      %t22 = arith.addi %t21, %t21 : i32
      %t23 = arith.addi %t22, %t22 : i32
      %t24 = arith.addi %t23, %t23 : i32
      %t25 = arith.addi %t24, %t24 : i32
      %t26 = arith.addi %t25, %t25 : i32
      %t27 = arith.addi %t26, %t26 : i32
      %t28 = arith.addi %t27, %t27 : i32
      %t29 = arith.addi %t28, %t28 : i32
      %t30 = arith.addi %t29, %t29 : i32
      %t31 = arith.addi %t30, %t30 : i32
      %t32 = arith.addi %t31, %t31 : i32
      %t33 = arith.addi %t32, %t32 : i32
      %t34 = arith.addi %t33, %t33 : i32
      %t35 = arith.addi %t34, %t34 : i32
      %t36 = arith.addi %t35, %t35 : i32
      %t37 = arith.addi %t36, %t36 : i32
      %t38 = arith.addi %t37, %t37 : i32
      %t39 = arith.addi %t38, %t38 : i32
      %t40 = arith.addi %t39, %t39 : i32
      %n2 = arith.addi %n, %t40 : i32
      %step = tile.splat %c16 : tensor<16x16xi32>
      %x2 = tile.addptr %x, %step : tensor<16x16x!tile.ptr<f16>>, tensor<16x16xi32>
      scf.yield %x2, %d, %n2 : tensor<16x16x!tile.ptr<f16>>, tensor<16x16xf32>, i32
    }
    %pc = tile.splat %c : tensor<16x16x!tile.ptr<f32>>
    tile.store %pc, %r#1 : tensor<16x16x!tile.ptr<f32>>
    return
  }
}
