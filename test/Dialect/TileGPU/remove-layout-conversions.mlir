// RUN: tile-opt %s --tilegpu-remove-layout-conversions | FileCheck %s

#row = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#col = #tilegpu.blocked<{sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]}>
#v1 = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#v4 = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#v2 = #tilegpu.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#row_rows = #tilegpu.slice<{dim = 1, parent = #row}>
#col_rows = #tilegpu.slice<{dim = 1, parent = #col}>

// CHECK-DAG: #[[$ROW:.*]] = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
// CHECK-DAG: #[[$COL:.*]] = #tilegpu.blocked<{sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]}>
// CHECK-DAG: #[[$V1:.*]] = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK-DAG: #[[$V4:.*]] = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK-DAG: #[[$V2:.*]] = #tilegpu.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK-DAG: #[[$ROWROWS:.*]] = #tilegpu.slice<{dim = 1, parent = #[[$ROW]]}>
// CHECK-DAG: #[[$COLROWS:.*]] = #tilegpu.slice<{dim = 1, parent = #[[$COL]]}>

// Ranges, splats and constants are made again in the target layout; the
// originals, left unused, are erased.
// CHECK-LABEL: func.func @leaves
// CHECK-SAME: (%[[X:.*]]: i32)
// CHECK-NOT: tilegpu.convert_layout
// CHECK-NOT: #[[$V1]]>
// CHECK-DAG: %[[R:.*]] = tile.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #[[$V4]]>
// CHECK-DAG: %[[S:.*]] = tile.splat %[[X]] : tensor<128xi32, #[[$V4]]>
// CHECK-DAG: %[[C:.*]] = arith.constant dense<7> : tensor<128xi32, #[[$V4]]>
// CHECK: return %[[R]], %[[S]], %[[C]]
func.func @leaves(%x: i32) -> (tensor<128xi32, #v4>, tensor<128xi32, #v4>, tensor<128xi32, #v4>) {
  %r = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32, #v1>
  %s = tile.splat %x : tensor<128xi32, #v1>
  %c = arith.constant dense<7> : tensor<128xi32, #v1>
  %0 = tilegpu.convert_layout %r : tensor<128xi32, #v1> -> tensor<128xi32, #v4>
  %1 = tilegpu.convert_layout %s : tensor<128xi32, #v1> -> tensor<128xi32, #v4>
  %2 = tilegpu.convert_layout %c : tensor<128xi32, #v1> -> tensor<128xi32, #v4>
  return %0, %1, %2 : tensor<128xi32, #v4>, tensor<128xi32, #v4>, tensor<128xi32, #v4>
}

// An elementwise chain of those (offs < n) is recomputed as a whole.
// CHECK-LABEL: func.func @chain
// CHECK-SAME: (%[[X:.*]]: i32, %[[N:.*]]: i32)
// CHECK-NOT: tilegpu.convert_layout
// CHECK-NOT: #[[$V1]]>
// CHECK-DAG: %[[R:.*]] = tile.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #[[$V4]]>
// CHECK-DAG: %[[S:.*]] = tile.splat %[[X]] : tensor<128xi32, #[[$V4]]>
// CHECK-DAG: %[[NS:.*]] = tile.splat %[[N]] : tensor<128xi32, #[[$V4]]>
// CHECK-DAG: %[[OFFS:.*]] = arith.addi %[[S]], %[[R]] : tensor<128xi32, #[[$V4]]>
// CHECK: %[[M:.*]] = arith.cmpi slt, %[[OFFS]], %[[NS]] : tensor<128xi32, #[[$V4]]>
// CHECK-NOT: tilegpu.convert_layout
// CHECK: return %[[M]]
func.func @chain(%x: i32, %n: i32) -> tensor<128xi1, #v4> {
  %r = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32, #v1>
  %s = tile.splat %x : tensor<128xi32, #v1>
  %offs = arith.addi %s, %r : tensor<128xi32, #v1>
  %ns = tile.splat %n : tensor<128xi32, #v1>
  %m = arith.cmpi slt, %offs, %ns : tensor<128xi32, #v1>
  %0 = tilegpu.convert_layout %m : tensor<128xi1, #v1> -> tensor<128xi1, #v4>
  return %0 : tensor<128xi1, #v4>
}

// Through expand_dims and broadcast in 2-D: the 1-D range is made again in
// the slice of the target layout. A value with other users keeps its
// original too.
// CHECK-LABEL: func.func @two_d
// CHECK-NOT: tilegpu.convert_layout
// CHECK-DAG: %[[OLD:.*]] = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #[[$ROWROWS]]>
// CHECK-DAG: %[[R:.*]] = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #[[$COLROWS]]>
// CHECK-DAG: %[[E:.*]] = tile.expand_dims %[[R]] {axis = 1 : i32} : tensor<64xi32, #[[$COLROWS]]> -> tensor<64x1xi32, #[[$COL]]>
// CHECK-DAG: %[[B:.*]] = tile.broadcast %[[E]] : tensor<64x1xi32, #[[$COL]]> -> tensor<64x64xi32, #[[$COL]]>
// CHECK-NOT: tilegpu.convert_layout
// CHECK: return %[[B]], %[[OLD]]
func.func @two_d() -> (tensor<64x64xi32, #col>, tensor<64xi32, #row_rows>) {
  %r = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32, #row_rows>
  %e = tile.expand_dims %r {axis = 1 : i32} : tensor<64xi32, #row_rows> -> tensor<64x1xi32, #row>
  %b = tile.broadcast %e : tensor<64x1xi32, #row> -> tensor<64x64xi32, #row>
  %0 = tilegpu.convert_layout %b : tensor<64x64xi32, #row> -> tensor<64x64xi32, #col>
  return %0, %r : tensor<64x64xi32, #col>, tensor<64xi32, #row_rows>
}

// A load is not recomputed (it reads memory): its conversion stays, and so
// does the conversion of anything computed from it.
// CHECK-LABEL: func.func @load
// CHECK: %[[V:.*]] = tile.load %{{.*}} : tensor<64x64x!tile.ptr<f32>, #[[$ROW]]>
// CHECK: %[[C:.*]] = tilegpu.convert_layout %[[V]] : tensor<64x64xf32, #[[$ROW]]> -> tensor<64x64xf32, #[[$COL]]>
// CHECK: %[[W:.*]] = arith.mulf %[[V]], %[[V]] : tensor<64x64xf32, #[[$ROW]]>
// CHECK: %[[D:.*]] = tilegpu.convert_layout %[[W]] : tensor<64x64xf32, #[[$ROW]]> -> tensor<64x64xf32, #[[$COL]]>
// CHECK: return %[[C]], %[[D]]
func.func @load(%p: tensor<64x64x!tile.ptr<f32>, #row>) -> (tensor<64x64xf32, #col>, tensor<64x64xf32, #col>) {
  %v = tile.load %p : tensor<64x64x!tile.ptr<f32>, #row>
  %0 = tilegpu.convert_layout %v : tensor<64x64xf32, #row> -> tensor<64x64xf32, #col>
  %w = arith.mulf %v, %v : tensor<64x64xf32, #row>
  %1 = tilegpu.convert_layout %w : tensor<64x64xf32, #row> -> tensor<64x64xf32, #col>
  return %0, %1 : tensor<64x64xf32, #col>, tensor<64x64xf32, #col>
}

// convert(convert(x)) is one conversion from x; the inner one dies.
// CHECK-LABEL: func.func @convert_of_convert
// CHECK: %[[V:.*]] = tile.load %{{.*}} : tensor<128x!tile.ptr<f32>, #[[$V1]]>
// CHECK-NEXT: %[[C:.*]] = tilegpu.convert_layout %[[V]] : tensor<128xf32, #[[$V1]]> -> tensor<128xf32, #[[$V2]]>
// CHECK-NEXT: return %[[C]]
func.func @convert_of_convert(%p: tensor<128x!tile.ptr<f32>, #v1>) -> tensor<128xf32, #v2> {
  %v = tile.load %p : tensor<128x!tile.ptr<f32>, #v1>
  %0 = tilegpu.convert_layout %v : tensor<128xf32, #v1> -> tensor<128xf32, #v4>
  %1 = tilegpu.convert_layout %0 : tensor<128xf32, #v4> -> tensor<128xf32, #v2>
  return %1 : tensor<128xf32, #v2>
}

// Back to where it started: no conversion at all.
// CHECK-LABEL: func.func @round_trip
// CHECK: %[[V:.*]] = tile.load
// CHECK-NEXT: return %[[V]]
func.func @round_trip(%p: tensor<128x!tile.ptr<f32>, #v1>) -> tensor<128xf32, #v1> {
  %v = tile.load %p : tensor<128x!tile.ptr<f32>, #v1>
  %0 = tilegpu.convert_layout %v : tensor<128xf32, #v1> -> tensor<128xf32, #v4>
  %1 = tilegpu.convert_layout %0 : tensor<128xf32, #v4> -> tensor<128xf32, #v1>
  return %1 : tensor<128xf32, #v1>
}

// A conversion to the same type is no conversion.
// CHECK-LABEL: func.func @same_type
// CHECK: %[[V:.*]] = tile.load
// CHECK-NEXT: return %[[V]]
func.func @same_type(%p: tensor<128x!tile.ptr<f32>, #v4>) -> tensor<128xf32, #v4> {
  %v = tile.load %p : tensor<128x!tile.ptr<f32>, #v4>
  %0 = tilegpu.convert_layout %v : tensor<128xf32, #v4> -> tensor<128xf32, #v4>
  return %0 : tensor<128xf32, #v4>
}

// A dot operand's layout has no slices: a triangle mask made from two
// ranges (fla's cumsum, `o_i[:, None] >= o_i[None, :]`) cannot be made
// again from ranges in a slice of #dot_op, and stays converted.
#fma = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#a = #tilegpu.dot_op<{opIdx = 0, parent = #fma, kWidth = 0}>
#row_cols = #tilegpu.slice<{dim = 0, parent = #row}>
// CHECK-LABEL: func.func @no_sliced_dot_operand
// CHECK: %[[M:.*]] = arith.cmpi sge
// CHECK: %[[A:.*]] = tilegpu.convert_layout %[[M]] : tensor<16x16xi1, #{{.*}}> -> tensor<16x16xi1, #dot_op>
// CHECK: return %[[A]]
func.func @no_sliced_dot_operand() -> tensor<16x16xi1, #a> {
  %r0 = tile.make_range {start = 0 : i32, end = 16 : i32} : tensor<16xi32, #row_rows>
  %r1 = tile.make_range {start = 0 : i32, end = 16 : i32} : tensor<16xi32, #row_cols>
  %e0 = tile.expand_dims %r0 {axis = 1 : i32} : tensor<16xi32, #row_rows> -> tensor<16x1xi32, #row>
  %e1 = tile.expand_dims %r1 {axis = 0 : i32} : tensor<16xi32, #row_cols> -> tensor<1x16xi32, #row>
  %b0 = tile.broadcast %e0 : tensor<16x1xi32, #row> -> tensor<16x16xi32, #row>
  %b1 = tile.broadcast %e1 : tensor<1x16xi32, #row> -> tensor<16x16xi32, #row>
  %m = arith.cmpi sge, %b0, %b1 : tensor<16x16xi32, #row>
  %0 = tilegpu.convert_layout %m : tensor<16x16xi1, #row> -> tensor<16x16xi1, #a>
  return %0 : tensor<16x16xi1, #a>
}
