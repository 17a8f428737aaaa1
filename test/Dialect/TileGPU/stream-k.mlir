// RUN: tile-opt %s --split-input-file --tilegpu-stream-k | FileCheck %s

// Asked for (tilegpu.stream_k): the kernel becomes a loop over this CTA's
// runs. The parameters come last; the trip count is computed before the
// loop from the K loop's bounds; a CTA of the grid's programs runs its
// program once, a CTA after them every E-th piece from its own (E: such
// CTAs), up to programs + pieces. In a run, the program ids come from the
// run's program (x fastest) and num_programs from the parameters; the K
// loop runs from kb (the pointers moved in 64 bits); a program adds the
// partials of its pieces in order (piece j of split program p in slot j *
// R + p) and runs the epilogue; a piece stores its partial.
// CHECK: module attributes {tilegpu.compute_capability = 90 : i32, tilegpu.stream_k, tilegpu.stream_k_splittable}
// CHECK-LABEL: func.func @mm
// CHECK-SAME: %[[K:[^:]*]]: i32, %[[PX:[^:]*]]: i32 {tile.name = "programs_x", tilegpu.launch_param}
// CHECK-SAME: %[[PY:[^:]*]]: i32 {tile.name = "programs_y", tilegpu.launch_param}
// CHECK-SAME: {tile.name = "programs_z", tilegpu.launch_param}
// CHECK-SAME: %[[SPLIT:[^:]*]]: i32 {tile.name = "split_programs", tilegpu.launch_param}
// CHECK-SAME: %[[PARTS:[^:]*]]: i32 {tile.name = "parts", tilegpu.launch_param}
// CHECK-SAME: %[[HEAD:[^:]*]]: i32 {tile.name = "head_parts", tilegpu.launch_param}
// CHECK-SAME: %[[WS:[^:]*]]: !tile.ptr<i8> {tile.name = "stream_k_workspace", tilegpu.launch_param}
// CHECK: %[[SPAN:.*]] = arith.subi %[[K]], %c0_i32
// CHECK: %[[TRIPS:.*]] = arith.maxsi
// CHECK: %[[TRIPS64:.*]] = arith.extsi %[[TRIPS]] : i32 to i64
// CHECK: %[[UNITS:.*]] = arith.maxsi %[[TRIPS64]], %c1_i64
// CHECK: %[[CTA:.*]] = tile.program_id 0 : i32
// CHECK: %[[CTA64:.*]] = arith.extsi %[[CTA]]
// CHECK: %[[CTAS:.*]] = tile.num_programs 0 : i32
// CHECK: %[[XY:.*]] = arith.muli
// CHECK: %[[PROGRAMS:.*]] = arith.muli %[[XY]]
// CHECK: %[[PIECES:.*]] = arith.muli
// CHECK: %[[SLOTS:.*]] = arith.maxsi %[[PIECES]]
// CHECK: %[[BEYOND:.*]] = arith.cmpi sge, %[[CTA64]], %[[PROGRAMS]]
// CHECK: %[[STRIDE:.*]] = arith.select %[[BEYOND]]
// CHECK: %[[LAST:.*]] = arith.addi %[[PROGRAMS]], %[[PIECES]]
// CHECK: %[[END:.*]] = arith.select %[[BEYOND]], %[[LAST]]
// CHECK: scf.while (%[[AT:.*]] = %[[CTA64]]) : (i64) -> i64 {
// CHECK: arith.cmpi slt, %[[AT]], %[[END]]
// CHECK: } do {
// CHECK: ^bb0(%[[THIS:.*]]: i64):
// CHECK: %[[ISPROGRAM:.*]] = arith.cmpi slt, %[[THIS]], %[[PROGRAMS]]
// CHECK: %[[PROGRAM:.*]] = arith.select %[[ISPROGRAM]], %[[THIS]]
// CHECK: %[[X:.*]] = arith.remsi %[[PROGRAM]]
// CHECK: %[[X32:.*]] = arith.trunci %[[X]] : i64 to i32
// CHECK: %[[NEXT:.*]] = arith.addi %[[THIS]], %[[STRIDE]]
// CHECK: %[[OFF:.*]] = arith.muli %[[X32]], %c256_i32
// CHECK: tile.addptr %arg0, %[[OFF]]
// CHECK: %[[KB32:.*]] = arith.trunci %{{.*}} : i64 to i32
// CHECK-NEXT: %[[KE:.*]] = arith.minsi %{{.*}}, %[[TRIPS64]]
// CHECK-NEXT: %[[KE32:.*]] = arith.trunci %[[KE]] : i64 to i32
// CHECK-NEXT: %[[LB:.*]] = arith.muli %[[KB32]], %c16_i32
// CHECK: %[[R:.*]]:3 = scf.for %{{.*}} = %[[LB]] to
// CHECK: tile.dot
// CHECK: scf.if %[[ISPROGRAM]] {
// CHECK: %[[TAIL:.*]] = arith.select
// CHECK: %[[SUM:.*]] = scf.for %[[J:.*]] = %{{.*}} to %[[TAIL]] step %{{.*}} iter_args(%[[PARTIAL:.*]] = %[[R]]#1)
// CHECK: tilegpu.stream_k_add %[[PARTIAL]], %[[WS]][%{{.*}} of %{{.*}}]
// CHECK: tile.addptr %arg2, %[[PY]]
// CHECK: tile.store %{{.*}}, %[[SUM]]
// CHECK: } else {
// CHECK: tilegpu.stream_k_store %[[R]]#1, %[[WS]][%{{.*}} of %{{.*}}]
// CHECK: }
// CHECK: scf.yield %[[NEXT]]
// CHECK: return
module attributes {tilegpu.stream_k, tilegpu.compute_capability = 90 : i32} {
  func.func @mm(%a: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %b: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %c: !tile.ptr<f32>, %K: i32) {
    %c0 = arith.constant 0 : i32
    %c16 = arith.constant 16 : i32
    %c256 = arith.constant 256 : i32
    %zero = arith.constant dense<0.000000e+00> : tensor<16x16xf32>
    %pid = tile.program_id 0 : i32
    %off = arith.muli %pid, %c256 : i32
    %a0 = tile.addptr %a, %off : !tile.ptr<f16>, i32
    %cols = tile.make_range {start = 0 : i32, end = 16 : i32} : tensor<16xi32>
    %cols2 = tile.expand_dims %cols {axis = 0 : i32} : tensor<16xi32> -> tensor<1x16xi32>
    %colsb = tile.broadcast %cols2 : tensor<1x16xi32> -> tensor<16x16xi32>
    %pa0 = tile.splat %a0 : tensor<16x16x!tile.ptr<f16>>
    %pa = tile.addptr %pa0, %colsb : tensor<16x16x!tile.ptr<f16>>, tensor<16x16xi32>
    %pb0 = tile.splat %b : tensor<16x16x!tile.ptr<f16>>
    %pb = tile.addptr %pb0, %colsb : tensor<16x16x!tile.ptr<f16>>, tensor<16x16xi32>
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
    %n = tile.num_programs 1 : i32
    %c1 = tile.addptr %c, %n : !tile.ptr<f32>, i32
    %pc = tile.splat %c1 : tensor<16x16x!tile.ptr<f32>>
    tile.store %pc, %r#1 : tensor<16x16x!tile.ptr<f32>>
    return
  }
}

// -----

// Loads in vectors narrower than 16 bytes (rows 2 bytes aligned, one
// pointer an element): the stream-K form would leave them no registers;
// the kernel is left as it is, and not marked as able.
// CHECK: module attributes {tilegpu.compute_capability = 90 : i32} {
// CHECK-LABEL: func.func @narrow
// CHECK-NOT: scf.while
module attributes {tilegpu.stream_k, tilegpu.compute_capability = 90 : i32} {
  func.func @narrow(%a: !tile.ptr<f16>, %c: !tile.ptr<f32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant dense<0.000000e+00> : tensor<16x16xf32>
    %cols = tile.make_range {start = 0 : i32, end = 16 : i32} : tensor<16xi32>
    %cols2 = tile.expand_dims %cols {axis = 0 : i32} : tensor<16xi32> -> tensor<1x16xi32>
    %colsb = tile.broadcast %cols2 : tensor<1x16xi32> -> tensor<16x16xi32>
    %pa0 = tile.splat %a : tensor<16x16x!tile.ptr<f16>>
    %pa = tile.addptr %pa0, %colsb : tensor<16x16x!tile.ptr<f16>>, tensor<16x16xi32>
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<16x16xf32>) : i32 {
      %u = tile.load %pa : tensor<16x16x!tile.ptr<f16>>
      %d = tile.dot %u, %u, %acc, tf32 : tensor<16x16xf16>, tensor<16x16xf16> -> tensor<16x16xf32>
      scf.yield %d : tensor<16x16xf32>
    }
    %pc = tile.splat %c : tensor<16x16x!tile.ptr<f32>>
    tile.store %pc, %r : tensor<16x16x!tile.ptr<f32>>
    return
  }
}

// -----

// Not asked for: only marked as able, the kernel unchanged.
// CHECK: module attributes {tilegpu.compute_capability = 90 : i32, tilegpu.stream_k_splittable}
// CHECK-LABEL: func.func @able
// CHECK-NOT: tilegpu.launch_param
// CHECK-NOT: scf.while
// CHECK: scf.for
module attributes {tilegpu.compute_capability = 90 : i32} {
  func.func @able(%a: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %c: !tile.ptr<f32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant dense<0.000000e+00> : tensor<16x16xf32>
    %cols = tile.make_range {start = 0 : i32, end = 16 : i32} : tensor<16xi32>
    %cols2 = tile.expand_dims %cols {axis = 0 : i32} : tensor<16xi32> -> tensor<1x16xi32>
    %colsb = tile.broadcast %cols2 : tensor<1x16xi32> -> tensor<16x16xi32>
    %pa0 = tile.splat %a : tensor<16x16x!tile.ptr<f16>>
    %pa = tile.addptr %pa0, %colsb : tensor<16x16x!tile.ptr<f16>>, tensor<16x16xi32>
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<16x16xf32>) : i32 {
      %u = tile.load %pa : tensor<16x16x!tile.ptr<f16>>
      %d = tile.dot %u, %u, %acc, tf32 : tensor<16x16xf16>, tensor<16x16xf16> -> tensor<16x16xf32>
      scf.yield %d : tensor<16x16xf32>
    }
    %pc = tile.splat %c : tensor<16x16x!tile.ptr<f32>>
    tile.store %pc, %r : tensor<16x16x!tile.ptr<f32>>
    return
  }
}

// -----

// A K loop whose length depends on the program (a causal mask's) cannot
// be shared out: the attribute is removed, the kernel left as it is.
// CHECK: module attributes {tilegpu.compute_capability = 90 : i32} {
// CHECK-LABEL: func.func @causal
// CHECK-NOT: scf.while
module attributes {tilegpu.stream_k, tilegpu.compute_capability = 90 : i32} {
  func.func @causal(%a: !tile.ptr<f16>, %c: !tile.ptr<f32>) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant dense<0.000000e+00> : tensor<16x16xf32>
    %pid = tile.program_id 0 : i32
    %pa = tile.splat %a : tensor<16x16x!tile.ptr<f16>>
    %r = scf.for %k = %c0 to %pid step %c1 iter_args(%acc = %zero) -> (tensor<16x16xf32>) : i32 {
      %u = tile.load %pa : tensor<16x16x!tile.ptr<f16>>
      %d = tile.dot %u, %u, %acc, tf32 : tensor<16x16xf16>, tensor<16x16xf16> -> tensor<16x16xf32>
      scf.yield %d : tensor<16x16xf32>
    }
    %pc = tile.splat %c : tensor<16x16x!tile.ptr<f32>>
    tile.store %pc, %r : tensor<16x16x!tile.ptr<f32>>
    return
  }
}

// -----

// Split over a cluster already: no stream-K.
// CHECK: module attributes {tilegpu.cluster_split = 2 : i32, tilegpu.compute_capability = 90 : i32} {
// CHECK-LABEL: func.func @clustered
module attributes {tilegpu.stream_k, tilegpu.cluster_split = 2 : i32, tilegpu.compute_capability = 90 : i32} {
  func.func @clustered(%a: !tile.ptr<f16>, %c: !tile.ptr<f32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant dense<0.000000e+00> : tensor<16x16xf32>
    %pa = tile.splat %a : tensor<16x16x!tile.ptr<f16>>
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<16x16xf32>) : i32 {
      %u = tile.load %pa : tensor<16x16x!tile.ptr<f16>>
      %d = tile.dot %u, %u, %acc, tf32 : tensor<16x16xf16>, tensor<16x16xf16> -> tensor<16x16xf32>
      scf.yield %d : tensor<16x16xf32>
    }
    %pc = tile.splat %c : tensor<16x16x!tile.ptr<f32>>
    tile.store %pc, %r : tensor<16x16x!tile.ptr<f32>>
    return
  }
}

// -----

// A narrow load in the loop that is no dot operand (scales, one element a
// thread, that multiply an operand) does not stop it: only the operands'
// own copies count.
// CHECK: module attributes {tilegpu.compute_capability = 90 : i32, tilegpu.stream_k, tilegpu.stream_k_splittable} {
// CHECK-LABEL: func.func @scaled
// CHECK: scf.while
module attributes {tilegpu.stream_k, tilegpu.compute_capability = 90 : i32} {
  func.func @scaled(%a: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %s: !tile.ptr<f16>, %c: !tile.ptr<f32>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant dense<0.000000e+00> : tensor<16x16xf32>
    %cols = tile.make_range {start = 0 : i32, end = 16 : i32} : tensor<16xi32>
    %cols2 = tile.expand_dims %cols {axis = 0 : i32} : tensor<16xi32> -> tensor<1x16xi32>
    %colsb = tile.broadcast %cols2 : tensor<1x16xi32> -> tensor<16x16xi32>
    %pa0 = tile.splat %a : tensor<16x16x!tile.ptr<f16>>
    %pa = tile.addptr %pa0, %colsb : tensor<16x16x!tile.ptr<f16>>, tensor<16x16xi32>
    %ps = tile.splat %s : tensor<16x16x!tile.ptr<f16>>
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<16x16xf32>) : i32 {
      %u = tile.load %pa : tensor<16x16x!tile.ptr<f16>>
      %scale = tile.load %ps : tensor<16x16x!tile.ptr<f16>>
      %w = arith.mulf %u, %scale : tensor<16x16xf16>
      %d = tile.dot %w, %u, %acc, tf32 : tensor<16x16xf16>, tensor<16x16xf16> -> tensor<16x16xf32>
      scf.yield %d : tensor<16x16xf32>
    }
    %pc = tile.splat %c : tensor<16x16x!tile.ptr<f32>>
    tile.store %pc, %r : tensor<16x16x!tile.ptr<f32>>
    return
  }
}
