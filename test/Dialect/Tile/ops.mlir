// RUN: tile-opt %s | tile-opt | FileCheck %s

// Every op of the tile dialect, the tilegpu layout attributes and
// tilegpu.convert_layout print in a form that parses back to the same IR.

// Layouts print as aliases; a nested slice names its parent slice's alias.
// CHECK: #[[$ROW:.*]] = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
// CHECK: #[[$COL:.*]] = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>
// CHECK: #[[$SLICE:.*]] = #tilegpu.slice<{dim = 1, parent = #[[$ROW]]}>
// CHECK: #[[$NESTED:.*]] = #tilegpu.slice<{dim = 0, parent = #[[$SLICE]]}>

// CHECK-LABEL: func.func @grid
// CHECK: tile.program_id 0 : i32
// CHECK: tile.program_id 1 : i32
// CHECK: tile.program_id 2 : i32
// CHECK: tile.num_programs 0 : i32
// CHECK: tile.num_programs 2 : i32
func.func @grid() -> (i32, i32, i32, i32, i32) {
  %0 = tile.program_id 0 : i32
  %1 = tile.program_id 1 : i32
  %2 = tile.program_id 2 : i32
  %3 = tile.num_programs 0 : i32
  %4 = tile.num_programs 2 : i32
  return %0, %1, %2, %3, %4 : i32, i32, i32, i32, i32
}

// CHECK-LABEL: func.func @shapes
// CHECK-SAME: (%[[X:.*]]: f32, %[[P:.*]]: !tile.ptr<f16>)
// CHECK: %[[R:.*]] = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
// CHECK: tile.make_range {end = 20 : i32, start = 4 : i32} : tensor<16xi32>
// CHECK: tile.splat %[[X]] : tensor<64x32xf32>
// CHECK: tile.splat %[[P]] : tensor<8x!tile.ptr<f16>>
// CHECK: %[[E:.*]] = tile.expand_dims %[[R]] {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
// CHECK: tile.expand_dims %[[R]] {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
// CHECK: tile.broadcast %[[E]] : tensor<64x1xi32> -> tensor<64x32xi32>
func.func @shapes(%x: f32, %p: !tile.ptr<f16>) -> (tensor<16xi32>, tensor<64x32xf32>, tensor<8x!tile.ptr<f16>>, tensor<1x64xi32>, tensor<64x32xi32>) {
  %r = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  %r2 = tile.make_range {start = 4 : i32, end = 20 : i32} : tensor<16xi32>
  %s = tile.splat %x : tensor<64x32xf32>
  %sp = tile.splat %p : tensor<8x!tile.ptr<f16>>
  %e = tile.expand_dims %r {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %e0 = tile.expand_dims %r {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %b = tile.broadcast %e : tensor<64x1xi32> -> tensor<64x32xi32>
  return %r2, %s, %sp, %e0, %b : tensor<16xi32>, tensor<64x32xf32>, tensor<8x!tile.ptr<f16>>, tensor<1x64xi32>, tensor<64x32xi32>
}

// CHECK-LABEL: func.func @memory
// CHECK-SAME: (%[[P:.*]]: !tile.ptr<f32>, %[[O:.*]]: tensor<128xi32>, %[[M:.*]]: tensor<128xi1>, %[[F:.*]]: tensor<128xf32>, %[[I:.*]]: i64, %[[C:.*]]: i1)
// CHECK: %[[SP:.*]] = tile.splat %[[P]] : tensor<128x!tile.ptr<f32>>
// CHECK: %[[PS:.*]] = tile.addptr %[[SP]], %[[O]] : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
// CHECK: %[[Q:.*]] = tile.addptr %[[P]], %[[I]] : !tile.ptr<f32>, i64
// CHECK: tile.load %[[PS]] : tensor<128x!tile.ptr<f32>>
// CHECK: tile.load %[[PS]], %[[M]] : tensor<128x!tile.ptr<f32>>
// CHECK: %[[V:.*]] = tile.load %[[PS]], %[[M]], %[[F]] : tensor<128x!tile.ptr<f32>>
// CHECK: %[[S:.*]] = tile.load %[[Q]], %[[C]] : !tile.ptr<f32>
// CHECK: tile.store %[[PS]], %[[V]] : tensor<128x!tile.ptr<f32>>
// CHECK: tile.store %[[PS]], %[[V]], %[[M]] : tensor<128x!tile.ptr<f32>>
// CHECK: tile.store %[[Q]], %[[S]], %[[C]] : !tile.ptr<f32>
func.func @memory(%p: !tile.ptr<f32>, %o: tensor<128xi32>, %m: tensor<128xi1>, %f: tensor<128xf32>, %i: i64, %c: i1) -> (tensor<128xf32>, tensor<128xf32>) {
  %sp = tile.splat %p : tensor<128x!tile.ptr<f32>>
  %ps = tile.addptr %sp, %o : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %q = tile.addptr %p, %i : !tile.ptr<f32>, i64
  %a = tile.load %ps : tensor<128x!tile.ptr<f32>>
  %b = tile.load %ps, %m : tensor<128x!tile.ptr<f32>>
  %v = tile.load %ps, %m, %f : tensor<128x!tile.ptr<f32>>
  %s = tile.load %q, %c : !tile.ptr<f32>
  tile.store %ps, %v : tensor<128x!tile.ptr<f32>>
  tile.store %ps, %v, %m : tensor<128x!tile.ptr<f32>>
  tile.store %q, %s, %c : !tile.ptr<f32>
  return %a, %b : tensor<128xf32>, tensor<128xf32>
}

// Pointers to the other scalar types.
// CHECK-LABEL: func.func @pointee_types
// CHECK-SAME: !tile.ptr<bf16>, %{{.*}}: !tile.ptr<i8>, %{{.*}}: !tile.ptr<i1>, %{{.*}}: !tile.ptr<i64>, %{{.*}}: !tile.ptr<f64>
func.func @pointee_types(%a: !tile.ptr<bf16>, %b: !tile.ptr<i8>, %c: !tile.ptr<i1>, %d: !tile.ptr<i64>, %e: !tile.ptr<f64>) {
  return
}

// CHECK-LABEL: func.func @layouts
// CHECK-SAME: %[[X:.*]]: tensor<64x64xf32, #[[$ROW]]>, %[[R:.*]]: tensor<64xi32, #[[$SLICE]]>, %{{.*}}: tensor<1xi32, #[[$NESTED]]>
// CHECK: tilegpu.convert_layout %[[X]] : tensor<64x64xf32, #[[$ROW]]> -> tensor<64x64xf32, #[[$COL]]>
// CHECK: tile.expand_dims %[[R]] {axis = 1 : i32} : tensor<64xi32, #[[$SLICE]]> -> tensor<64x1xi32, #[[$ROW]]>
#row = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#col = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>
#rows = #tilegpu.slice<{dim = 1, parent = #row}>
#nested = #tilegpu.slice<{dim = 0, parent = #tilegpu.slice<{dim = 1, parent = #row}>}>
func.func @layouts(%x: tensor<64x64xf32, #row>, %r: tensor<64xi32, #rows>, %n: tensor<1xi32, #nested>) -> (tensor<64x64xf32, #col>, tensor<64x1xi32, #row>) {
  %0 = tilegpu.convert_layout %x : tensor<64x64xf32, #row> -> tensor<64x64xf32, #col>
  %1 = tile.expand_dims %r {axis = 1 : i32} : tensor<64xi32, #rows> -> tensor<64x1xi32, #row>
  return %0, %1 : tensor<64x64xf32, #col>, tensor<64x1xi32, #row>
}

// A negative start is a range like any other.
// CHECK-LABEL: func.func @make_range_negative_start
// CHECK: tile.make_range {end = 4 : i32, start = -4 : i32} : tensor<8xi32>
func.func @make_range_negative_start() -> tensor<8xi32> {
  %0 = tile.make_range {start = -4 : i32, end = 4 : i32} : tensor<8xi32>
  return %0 : tensor<8xi32>
}

// Atomics: kind, sem and scope as keywords; the mask is optional; a scalar
// pointer takes a scalar value.
// CHECK-LABEL: func.func @atomic_rmw
// CHECK: tile.atomic_rmw add, acq_rel, gpu, %{{.*}}, %{{.*}}, %{{.*}} : tensor<128x!tile.ptr<f32>>
// CHECK: tile.atomic_rmw add, relaxed, sys, %{{.*}}, %{{.*}} : !tile.ptr<i32>
// CHECK: tile.atomic_rmw add, release, cta, %{{.*}}, %{{.*}} : tensor<4x8x!tile.ptr<bf16>>
func.func @atomic_rmw(%p: tensor<128x!tile.ptr<f32>>, %v: tensor<128xf32>, %m: tensor<128xi1>, %q: !tile.ptr<i32>, %i: i32, %h: tensor<4x8x!tile.ptr<bf16>>, %hv: tensor<4x8xbf16>) -> (tensor<128xf32>, i32) {
  %0 = tile.atomic_rmw add, acq_rel, gpu, %p, %v, %m : tensor<128x!tile.ptr<f32>>
  %1 = tile.atomic_rmw add, relaxed, sys, %q, %i : !tile.ptr<i32>
  %2 = tile.atomic_rmw add, release, cta, %h, %hv : tensor<4x8x!tile.ptr<bf16>>
  return %0, %1 : tensor<128xf32>, i32
}

// tile.dot: every precision, the optional max_num_imprecise_acc, every
// input/accumulator pair, batched operands and extents that are not
// powers of two.
// CHECK-LABEL: func.func @dot
// CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}}, tf32 : tensor<64x32xf32>, tensor<32x16xf32> -> tensor<64x16xf32>
// CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}}, tf32x3 : tensor<64x32xf32>, tensor<32x16xf32> -> tensor<64x16xf32>
// CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}}, ieee {max_num_imprecise_acc = 0 : i32} : tensor<64x32xf32>, tensor<32x16xf32> -> tensor<64x16xf32>
// CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}}, tf32 : tensor<16x16xf16>, tensor<16x8xf16> -> tensor<16x8xf32>
// CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}}, tf32 : tensor<16x16xf16>, tensor<16x8xf16> -> tensor<16x8xf16>
// CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}}, tf32 : tensor<16x16xbf16>, tensor<16x8xbf16> -> tensor<16x8xf32>
// CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}}, tf32 : tensor<2x5x7xi8>, tensor<2x7x3xi8> -> tensor<2x5x3xi32>
// CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}}, ieee : tensor<3x1xf64>, tensor<1x3xf64> -> tensor<3x3xf64>
func.func @dot(%a: tensor<64x32xf32>, %b: tensor<32x16xf32>, %c: tensor<64x16xf32>,
               %h: tensor<16x16xf16>, %hb: tensor<16x8xf16>, %hc: tensor<16x8xf32>, %hh: tensor<16x8xf16>,
               %g: tensor<16x16xbf16>, %gb: tensor<16x8xbf16>,
               %i: tensor<2x5x7xi8>, %ib: tensor<2x7x3xi8>, %ic: tensor<2x5x3xi32>,
               %d: tensor<3x1xf64>, %db: tensor<1x3xf64>, %dc: tensor<3x3xf64>) {
  %0 = tile.dot %a, %b, %c, tf32 : tensor<64x32xf32>, tensor<32x16xf32> -> tensor<64x16xf32>
  %1 = tile.dot %a, %b, %c, tf32x3 : tensor<64x32xf32>, tensor<32x16xf32> -> tensor<64x16xf32>
  %2 = tile.dot %a, %b, %c, ieee {max_num_imprecise_acc = 0 : i32} : tensor<64x32xf32>, tensor<32x16xf32> -> tensor<64x16xf32>
  %3 = tile.dot %h, %hb, %hc, tf32 : tensor<16x16xf16>, tensor<16x8xf16> -> tensor<16x8xf32>
  %4 = tile.dot %h, %hb, %hh, tf32 : tensor<16x16xf16>, tensor<16x8xf16> -> tensor<16x8xf16>
  %5 = tile.dot %g, %gb, %hc, tf32 : tensor<16x16xbf16>, tensor<16x8xbf16> -> tensor<16x8xf32>
  %6 = tile.dot %i, %ib, %ic, tf32 : tensor<2x5x7xi8>, tensor<2x7x3xi8> -> tensor<2x5x3xi32>
  %7 = tile.dot %d, %db, %dc, ieee : tensor<3x1xf64>, tensor<1x3xf64> -> tensor<3x3xf64>
  return
}

// CHECK-LABEL: func.func @combine_regions
// CHECK: %{{.*}}:2 = tile.reduce_with %{{.*}}, %{{.*}} {axis = 1 : i32} : tensor<4x8xf32>, tensor<4x8xi32> -> tensor<4xf32>, tensor<4xi32> {
// CHECK: ^bb0(%{{.*}}: f32, %{{.*}}: i32, %{{.*}}: f32, %{{.*}}: i32):
// CHECK: tile.yield %{{.*}}, %{{.*}} : f32, i32
// CHECK: tile.scan %{{.*}} {axis = 0 : i32, reverse = true} : tensor<4x8xf32> -> tensor<4x8xf32> {
func.func @combine_regions(%x: tensor<4x8xf32>, %i: tensor<4x8xi32>) {
  %m:2 = tile.reduce_with %x, %i {axis = 1 : i32} : tensor<4x8xf32>, tensor<4x8xi32> -> tensor<4xf32>, tensor<4xi32> {
  ^bb0(%a: f32, %ai: i32, %b: f32, %bi: i32):
    %gt = arith.cmpf ogt, %a, %b : f32
    %v = arith.select %gt, %a, %b : f32
    %j = arith.select %gt, %ai, %bi : i32
    tile.yield %v, %j : f32, i32
  }
  %s = tile.scan %x {axis = 0 : i32, reverse = true} : tensor<4x8xf32> -> tensor<4x8xf32> {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    tile.yield %p : f32
  }
  return
}

// CHECK-LABEL: func.func @butterfly_and_histogram
// CHECK: tile.butterfly %{{.*}} {axis = 1 : i32, bit = 2 : i32} : tensor<4x8xf32>
// CHECK: tile.histogram %{{.*}} : tensor<64xi32> -> tensor<16xi32>
// CHECK: tile.histogram %{{.*}}, %{{.*}} : tensor<64xi8>, tensor<64xi1> -> tensor<10xi32>
func.func @butterfly_and_histogram(%x: tensor<4x8xf32>, %v: tensor<64xi32>, %w: tensor<64xi8>, %m: tensor<64xi1>) {
  %y = tile.butterfly %x {axis = 1 : i32, bit = 2 : i32} : tensor<4x8xf32>
  %h = tile.histogram %v : tensor<64xi32> -> tensor<16xi32>
  %g = tile.histogram %w, %m : tensor<64xi8>, tensor<64xi1> -> tensor<10xi32>
  return
}

// CHECK-LABEL: func.func @synchronization
// CHECK: tile.debug_barrier
// CHECK: tile.grid_dependency wait
// CHECK: tile.grid_dependency launch_dependents
func.func @synchronization() {
  tile.debug_barrier
  tile.grid_dependency wait
  tile.grid_dependency launch_dependents
  return
}
