// RUN: tile-opt %s --tile-combine | FileCheck %s

// addptr(addptr(p, a), b) -> addptr(p, a + b).
// CHECK-LABEL: func.func @addptr_chain
// CHECK-SAME: (%[[P:.*]]: !tile.ptr<f32>, %[[A:.*]]: tensor<128xi32>, %[[B:.*]]: tensor<128xi32>)
// CHECK: %[[S:.*]] = tile.splat %[[P]] : tensor<128x!tile.ptr<f32>>
// CHECK: %[[SUM:.*]] = arith.addi %[[A]], %[[B]] : tensor<128xi32>
// CHECK: %[[R:.*]] = tile.addptr %[[S]], %[[SUM]] : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
// CHECK-NOT: tile.addptr
// CHECK: return %[[R]]
func.func @addptr_chain(%p: !tile.ptr<f32>, %a: tensor<128xi32>, %b: tensor<128xi32>) -> tensor<128x!tile.ptr<f32>> {
  %s = tile.splat %p : tensor<128x!tile.ptr<f32>>
  %0 = tile.addptr %s, %a : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %1 = tile.addptr %0, %b : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  return %1 : tensor<128x!tile.ptr<f32>>
}

// Three in a row: one addptr of the summed offsets.
// CHECK-LABEL: func.func @addptr_chain3
// CHECK-SAME: (%[[P:.*]]: !tile.ptr<f16>, %[[A:.*]]: i32, %[[B:.*]]: i32, %[[C:.*]]: i32)
// CHECK-DAG: arith.addi {{.*}}%[[A]]
// CHECK-DAG: arith.addi {{.*}}%[[C]]
// CHECK: %[[R:.*]] = tile.addptr %[[P]], %{{.*}} : !tile.ptr<f16>, i32
// CHECK-NOT: tile.addptr
// CHECK: return %[[R]]
func.func @addptr_chain3(%p: !tile.ptr<f16>, %a: i32, %b: i32, %c: i32) -> !tile.ptr<f16> {
  %0 = tile.addptr %p, %a : !tile.ptr<f16>, i32
  %1 = tile.addptr %0, %b : !tile.ptr<f16>, i32
  %2 = tile.addptr %1, %c : !tile.ptr<f16>, i32
  return %2 : !tile.ptr<f16>
}

// Offsets of different types would need a cast: left alone.
// CHECK-LABEL: func.func @addptr_mixed_offsets
// CHECK: %[[Q:.*]] = tile.addptr %{{.*}}, %{{.*}} : !tile.ptr<f32>, i32
// CHECK: tile.addptr %[[Q]], %{{.*}} : !tile.ptr<f32>, i64
// CHECK-NOT: arith.addi
func.func @addptr_mixed_offsets(%p: !tile.ptr<f32>, %a: i32, %b: i64) -> !tile.ptr<f32> {
  %0 = tile.addptr %p, %a : !tile.ptr<f32>, i32
  %1 = tile.addptr %0, %b : !tile.ptr<f32>, i64
  return %1 : !tile.ptr<f32>
}

// A 2-D offset's part that is the same for every element (a head's origin
// added to the tile's indices, through a broadcast): on the scalar pointer.
// CHECK-LABEL: func.func @uniform_offset
// CHECK-SAME: (%[[P:.*]]: !tile.ptr<f16>, %[[BASE:.*]]: i64, %[[ROWS:.*]]: tensor<1x64xi64>, %[[COLS:.*]]: tensor<128x1xi64>)
// CHECK-NEXT: %[[C:.*]] = tile.broadcast %[[COLS]]
// CHECK-NEXT: %[[R:.*]] = tile.broadcast %[[ROWS]]
// CHECK-NEXT: %[[SUM:.*]] = arith.addi %[[R]], %[[C]]
// CHECK-NEXT: %[[Q:.*]] = tile.addptr %[[P]], %[[BASE]] : !tile.ptr<f16>, i64
// CHECK-NEXT: %[[S:.*]] = tile.splat %[[Q]] : tensor<128x64x!tile.ptr<f16>>
// CHECK-NEXT: %[[PTRS:.*]] = tile.addptr %[[S]], %[[SUM]]
// CHECK-NEXT: return %[[PTRS]]
func.func @uniform_offset(%p: !tile.ptr<f16>, %base: i64, %rows: tensor<1x64xi64>, %cols: tensor<128x1xi64>) -> tensor<128x64x!tile.ptr<f16>> {
  %b = tile.splat %base : tensor<1x64xi64>
  %r = arith.addi %b, %rows : tensor<1x64xi64>
  %rb = tile.broadcast %r : tensor<1x64xi64> -> tensor<128x64xi64>
  %cb = tile.broadcast %cols : tensor<128x1xi64> -> tensor<128x64xi64>
  %off = arith.addi %rb, %cb : tensor<128x64xi64>
  %s = tile.splat %p : tensor<128x64x!tile.ptr<f16>>
  %ptrs = tile.addptr %s, %off : tensor<128x64x!tile.ptr<f16>>, tensor<128x64xi64>
  return %ptrs : tensor<128x64x!tile.ptr<f16>>
}

// One dimension: `s + arange` is the index itself and stays.
// CHECK-LABEL: func.func @uniform_offset_1d
// CHECK: %[[S:.*]] = tile.splat %{{.*}} : tensor<64x!tile.ptr<f32>>
// CHECK-NEXT: tile.addptr %[[S]], %{{.*}} : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
func.func @uniform_offset_1d(%p: !tile.ptr<f32>, %o: i32) -> tensor<64x!tile.ptr<f32>> {
  %r = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %b = tile.splat %o : tensor<64xi32>
  %off = arith.addi %b, %r : tensor<64xi32>
  %s = tile.splat %p : tensor<64x!tile.ptr<f32>>
  %ptrs = tile.addptr %s, %off : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  return %ptrs : tensor<64x!tile.ptr<f32>>
}

// CHECK-LABEL: func.func @shape_of_splat
// CHECK-SAME: (%[[X:.*]]: i32)
// CHECK-NEXT: %[[E:.*]] = tile.splat %[[X]] : tensor<64x1xi32>
// CHECK-NEXT: %[[B:.*]] = tile.splat %[[X]] : tensor<64x32xi32>
// CHECK-NEXT: return %[[E]], %[[B]]
func.func @shape_of_splat(%x: i32) -> (tensor<64x1xi32>, tensor<64x32xi32>) {
  %s = tile.splat %x : tensor<64xi32>
  %e = tile.expand_dims %s {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %s2 = tile.splat %x : tensor<1x32xi32>
  %b = tile.broadcast %s2 : tensor<1x32xi32> -> tensor<64x32xi32>
  return %e, %b : tensor<64x1xi32>, tensor<64x32xi32>
}

// expand_dims then broadcast of a splat: one splat of the final shape.
// CHECK-LABEL: func.func @shape_chain_of_splat
// CHECK-SAME: (%[[P:.*]]: !tile.ptr<f32>)
// CHECK-NEXT: %[[S:.*]] = tile.splat %[[P]] : tensor<32x64x!tile.ptr<f32>>
// CHECK-NEXT: return %[[S]]
func.func @shape_chain_of_splat(%p: !tile.ptr<f32>) -> tensor<32x64x!tile.ptr<f32>> {
  %s = tile.splat %p : tensor<64x!tile.ptr<f32>>
  %e = tile.expand_dims %s {axis = 0 : i32} : tensor<64x!tile.ptr<f32>> -> tensor<1x64x!tile.ptr<f32>>
  %b = tile.broadcast %e : tensor<1x64x!tile.ptr<f32>> -> tensor<32x64x!tile.ptr<f32>>
  return %b : tensor<32x64x!tile.ptr<f32>>
}

// Elementwise ops of splats compute once on the scalars; attributes (the
// predicate) carry over.
// CHECK-LABEL: func.func @elementwise_of_splats
// CHECK-SAME: (%[[X:.*]]: f32, %[[Y:.*]]: f32, %[[I:.*]]: i32, %[[N:.*]]: i32, %[[P:.*]]: !tile.ptr<f32>)
// CHECK: %[[MUL:.*]] = arith.mulf %[[X]], %[[Y]] : f32
// CHECK: %[[MS:.*]] = tile.splat %[[MUL]] : tensor<128xf32>
// CHECK: %[[CMP:.*]] = arith.cmpi slt, %[[I]], %[[N]] : i32
// CHECK: %[[CS:.*]] = tile.splat %[[CMP]] : tensor<128xi1>
// CHECK: %[[EXP:.*]] = math.exp %[[X]] : f32
// CHECK: %[[ES:.*]] = tile.splat %[[EXP]] : tensor<128xf32>
// CHECK: %[[Q:.*]] = tile.addptr %[[P]], %[[I]] : !tile.ptr<f32>, i32
// CHECK: %[[QS:.*]] = tile.splat %[[Q]] : tensor<128x!tile.ptr<f32>>
// CHECK-NOT: tensor<128xi32>
// CHECK: return %[[MS]], %[[CS]], %[[ES]], %[[QS]]
func.func @elementwise_of_splats(%x: f32, %y: f32, %i: i32, %n: i32, %p: !tile.ptr<f32>) -> (tensor<128xf32>, tensor<128xi1>, tensor<128xf32>, tensor<128x!tile.ptr<f32>>) {
  %a = tile.splat %x : tensor<128xf32>
  %b = tile.splat %y : tensor<128xf32>
  %c = arith.mulf %a, %b : tensor<128xf32>
  %ii = tile.splat %i : tensor<128xi32>
  %nn = tile.splat %n : tensor<128xi32>
  %m = arith.cmpi slt, %ii, %nn : tensor<128xi32>
  %e = math.exp %a : tensor<128xf32>
  %ps = tile.splat %p : tensor<128x!tile.ptr<f32>>
  %q = tile.addptr %ps, %ii : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  return %c, %m, %e, %q : tensor<128xf32>, tensor<128xi1>, tensor<128xf32>, tensor<128x!tile.ptr<f32>>
}

// A splat of a splat result feeds the next op: the whole chain folds.
// CHECK-LABEL: func.func @chain_of_splats
// CHECK-SAME: (%[[X:.*]]: i32)
// CHECK: %[[A:.*]] = arith.muli %[[X]], %[[X]] : i32
// CHECK: %[[B:.*]] = arith.addi %[[A]], %[[X]] : i32
// CHECK: %[[S:.*]] = tile.splat %[[B]] : tensor<16x16xi32>
// CHECK-NEXT: return %[[S]]
func.func @chain_of_splats(%x: i32) -> tensor<16x16xi32> {
  %s = tile.splat %x : tensor<16xi32>
  %m = arith.muli %s, %s : tensor<16xi32>
  %e = tile.expand_dims %m {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %b = tile.broadcast %e : tensor<16x1xi32> -> tensor<16x16xi32>
  %t = tile.splat %x : tensor<16x16xi32>
  %r = arith.addi %b, %t : tensor<16x16xi32>
  return %r : tensor<16x16xi32>
}

// Nothing to combine: a splat meets a non-splat tensor, a single addptr,
// a constant tensor (not a tile.splat), expand_dims of a range, and a load.
// CHECK-LABEL: func.func @negative
// CHECK-SAME: (%[[P:.*]]: !tile.ptr<f32>, %[[X:.*]]: f32, %[[R:.*]]: tensor<128xf32>, %[[O:.*]]: tensor<128xi32>)
// CHECK-NEXT: %[[K:.*]] = arith.constant dense<2.000000e+00> : tensor<128xf32>
// CHECK-NEXT: %[[A:.*]] = tile.splat %[[X]] : tensor<128xf32>
// CHECK-NEXT: %[[C:.*]] = arith.addf %[[A]], %[[R]] : tensor<128xf32>
// CHECK-NEXT: %[[D:.*]] = arith.mulf %[[A]], %[[K]] : tensor<128xf32>
// CHECK-NEXT: %[[S:.*]] = tile.splat %[[P]] : tensor<128x!tile.ptr<f32>>
// CHECK-NEXT: %[[Q:.*]] = tile.addptr %[[S]], %[[O]] : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
// CHECK-NEXT: %[[L:.*]] = tile.load %[[Q]] : tensor<128x!tile.ptr<f32>>
// CHECK-NEXT: %[[RG:.*]] = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
// CHECK-NEXT: %[[E:.*]] = tile.expand_dims %[[RG]] {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
// CHECK-NEXT: return %[[C]], %[[D]], %[[L]], %[[E]]
func.func @negative(%p: !tile.ptr<f32>, %x: f32, %r: tensor<128xf32>, %o: tensor<128xi32>) -> (tensor<128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<64x1xi32>) {
  %a = tile.splat %x : tensor<128xf32>
  %c = arith.addf %a, %r : tensor<128xf32>
  %k = arith.constant dense<2.0> : tensor<128xf32>
  %d = arith.mulf %a, %k : tensor<128xf32>
  %s = tile.splat %p : tensor<128x!tile.ptr<f32>>
  %q = tile.addptr %s, %o : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %l = tile.load %q : tensor<128x!tile.ptr<f32>>
  %rg = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  %e = tile.expand_dims %rg {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  return %c, %d, %l, %e : tensor<128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<64x1xi32>
}

// `acc += tl.dot(a, b)`: the add of a dot with a zero accumulator becomes
// one dot accumulating into acc; precision and attributes carry over.
// CHECK-LABEL: func.func @dot_add_acc
// CHECK-SAME: (%[[A:.*]]: tensor<16x32xf32>, %[[B:.*]]: tensor<32x8xf32>, %[[ACC:.*]]: tensor<16x8xf32>)
// CHECK-NEXT: %[[D:.*]] = tile.dot %[[A]], %[[B]], %[[ACC]], ieee {max_num_imprecise_acc = 0 : i32} : tensor<16x32xf32>, tensor<32x8xf32> -> tensor<16x8xf32>
// CHECK-NEXT: return %[[D]]
func.func @dot_add_acc(%a: tensor<16x32xf32>, %b: tensor<32x8xf32>, %acc: tensor<16x8xf32>) -> tensor<16x8xf32> {
  %zero = arith.constant dense<0.0> : tensor<16x8xf32>
  %d = tile.dot %a, %b, %zero, ieee {max_num_imprecise_acc = 0 : i32} : tensor<16x32xf32>, tensor<32x8xf32> -> tensor<16x8xf32>
  %r = arith.addf %acc, %d : tensor<16x8xf32>
  return %r : tensor<16x8xf32>
}

// `acc = tl.dot(a, b) + acc`: the other operand order, an fp16
// accumulator and a -0.0 zero.
// CHECK-LABEL: func.func @dot_add_swapped
// CHECK-SAME: (%[[A:.*]]: tensor<16x16xf16>, %[[B:.*]]: tensor<16x16xf16>, %[[ACC:.*]]: tensor<16x16xf16>)
// CHECK-NEXT: %[[D:.*]] = tile.dot %[[A]], %[[B]], %[[ACC]], tf32 : tensor<16x16xf16>, tensor<16x16xf16> -> tensor<16x16xf16>
// CHECK-NEXT: return %[[D]]
func.func @dot_add_swapped(%a: tensor<16x16xf16>, %b: tensor<16x16xf16>, %acc: tensor<16x16xf16>) -> tensor<16x16xf16> {
  %zero = arith.constant dense<-0.0> : tensor<16x16xf16>
  %d = tile.dot %a, %b, %zero, tf32 : tensor<16x16xf16>, tensor<16x16xf16> -> tensor<16x16xf16>
  %r = arith.addf %d, %acc : tensor<16x16xf16>
  return %r : tensor<16x16xf16>
}

// Integer dots fold through arith.addi; batched dots too.
// CHECK-LABEL: func.func @dot_addi_batched
// CHECK-SAME: (%[[A:.*]]: tensor<2x4x8xi8>, %[[B:.*]]: tensor<2x8x3xi8>, %[[ACC:.*]]: tensor<2x4x3xi32>)
// CHECK-NEXT: %[[D:.*]] = tile.dot %[[A]], %[[B]], %[[ACC]], tf32 : tensor<2x4x8xi8>, tensor<2x8x3xi8> -> tensor<2x4x3xi32>
// CHECK-NEXT: return %[[D]]
func.func @dot_addi_batched(%a: tensor<2x4x8xi8>, %b: tensor<2x8x3xi8>, %acc: tensor<2x4x3xi32>) -> tensor<2x4x3xi32> {
  %zero = arith.constant dense<0> : tensor<2x4x3xi32>
  %d = tile.dot %a, %b, %zero, tf32 : tensor<2x4x8xi8>, tensor<2x8x3xi8> -> tensor<2x4x3xi32>
  %r = arith.addi %acc, %d : tensor<2x4x3xi32>
  return %r : tensor<2x4x3xi32>
}

// The loop of a blocked matmul: the loop-carried accumulator feeds the dot.
// CHECK-LABEL: func.func @dot_add_in_loop
// CHECK: scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (tensor<16x8xf32>)
// CHECK-NEXT: %[[D:.*]] = tile.dot %{{.*}}, %{{.*}}, %[[ACC]], tf32
// CHECK-NEXT: scf.yield %[[D]]
// CHECK-NOT: arith.addf
func.func @dot_add_in_loop(%a: tensor<16x32xf32>, %b: tensor<32x8xf32>, %n: i32) -> tensor<16x8xf32> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.0> : tensor<16x8xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<16x8xf32>) : i32 {
    %zero2 = arith.constant dense<0.0> : tensor<16x8xf32>
    %d = tile.dot %a, %b, %zero2, tf32 : tensor<16x32xf32>, tensor<32x8xf32> -> tensor<16x8xf32>
    %s = arith.addf %acc, %d : tensor<16x8xf32>
    scf.yield %s : tensor<16x8xf32>
  }
  return %r : tensor<16x8xf32>
}

// Not folded: a nonzero accumulator (the sum would count it twice), an
// accumulator that is not a constant, and a dot with a second use (folding
// would compute the product twice).
// CHECK-LABEL: func.func @dot_add_negative
// CHECK-SAME: (%[[A:.*]]: tensor<4x4xf32>, %[[B:.*]]: tensor<4x4xf32>, %[[C:.*]]: tensor<4x4xf32>, %[[X:.*]]: tensor<4x4xf32>)
// CHECK-DAG: %[[ONE:.*]] = arith.constant dense<1.000000e+00> : tensor<4x4xf32>
// CHECK-DAG: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<4x4xf32>
// CHECK: %[[D1:.*]] = tile.dot %[[A]], %[[B]], %[[ONE]], tf32
// CHECK-NEXT: %[[S1:.*]] = arith.addf %[[X]], %[[D1]]
// CHECK-NEXT: %[[D2:.*]] = tile.dot %[[A]], %[[B]], %[[C]], tf32
// CHECK-NEXT: %[[S2:.*]] = arith.addf %[[X]], %[[D2]]
// CHECK-NEXT: %[[D3:.*]] = tile.dot %[[A]], %[[B]], %[[ZERO]], ieee
// CHECK-NEXT: %[[S3:.*]] = arith.addf %[[X]], %[[D3]]
// CHECK-NEXT: return %[[S1]], %[[S2]], %[[S3]], %[[D3]]
func.func @dot_add_negative(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>, %c: tensor<4x4xf32>, %x: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) {
  %one = arith.constant dense<1.0> : tensor<4x4xf32>
  %d1 = tile.dot %a, %b, %one, tf32 : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %s1 = arith.addf %x, %d1 : tensor<4x4xf32>
  %d2 = tile.dot %a, %b, %c, tf32 : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %s2 = arith.addf %x, %d2 : tensor<4x4xf32>
  %zero = arith.constant dense<0.0> : tensor<4x4xf32>
  %d3 = tile.dot %a, %b, %zero, ieee : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %s3 = arith.addf %x, %d3 : tensor<4x4xf32>
  return %s1, %s2, %s3, %d3 : tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>
}
