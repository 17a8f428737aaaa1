// RUN: tile-opt %s -split-input-file --tilegpu-assign-layouts | FileCheck %s
// RUN: tile-opt %s -split-input-file --tilegpu-assign-layouts=num-warps=8 | FileCheck %s --check-prefix=WARPS8

// A K loop of f16 dots on mma.sync: the loop-carried accumulator's whole
// class (zero init, iteration argument, dot, yield, loop result and the
// elementwise epilogue) takes the mma layout, so nothing converts inside
// the loop but the loaded operands, into their dot_op layouts (two f16 per
// register). The epilogue converts once, to the store's layout. 4 warps
// split a 64 x 64 accumulator 2 x 2.
// CHECK-DAG: #[[$MMA:.*]] = #tilegpu.mma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
// CHECK-DAG: #[[$A:.*]] = #tilegpu.dot_op<{opIdx = 0, parent = #[[$MMA]], kWidth = 2}>
// CHECK-DAG: #[[$B:.*]] = #tilegpu.dot_op<{opIdx = 1, parent = #[[$MMA]], kWidth = 2}>
// CHECK-LABEL: func.func @k_loop
// CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #[[$MMA]]>
// CHECK: scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[ZERO]]) -> (tensor<64x64xf32, #[[$MMA]]>)
// CHECK: %[[LA:.*]] = tile.load
// CHECK: %[[LB:.*]] = tile.load
// CHECK: %[[CA:.*]] = tilegpu.convert_layout %[[LA]] : tensor<64x32xf16, #{{.*}}> -> tensor<64x32xf16, #[[$A]]>
// CHECK: %[[CB:.*]] = tilegpu.convert_layout %[[LB]] : tensor<32x64xf16, #{{.*}}> -> tensor<32x64xf16, #[[$B]]>
// CHECK: %[[D:.*]] = tile.dot %[[CA]], %[[CB]], %[[ACC]], tf32 : tensor<64x32xf16, #[[$A]]>, tensor<32x64xf16, #[[$B]]> -> tensor<64x64xf32, #[[$MMA]]>
// CHECK-NEXT: scf.yield %[[D]] : tensor<64x64xf32, #[[$MMA]]>
// CHECK: %[[H:.*]] = arith.truncf %{{.*}} : tensor<64x64xf32, #[[$MMA]]> to tensor<64x64xf16, #[[$MMA]]>
// CHECK: %[[OUT:.*]] = tilegpu.convert_layout %[[H]] : tensor<64x64xf16, #[[$MMA]]> -> tensor<64x64xf16, #{{.*}}>
// CHECK-NEXT: tile.store %{{.*}}, %[[OUT]]
// 8 warps: 4 along N, 2 along M.
// WARPS8: #tilegpu.mma<{version = 2, warpsPerCTA = [2, 4], instrShape = [16, 8]}>
func.func @k_loop(%pa: !tile.ptr<f16>, %pb: !tile.ptr<f16>, %pc: !tile.ptr<f16>, %n: i32) {
  %a_ptrs = tile.splat %pa : tensor<64x32x!tile.ptr<f16>>
  %b_ptrs = tile.splat %pb : tensor<32x64x!tile.ptr<f16>>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %acc = scf.for %i = %c0 to %n step %c1 iter_args(%acc0 = %zero) -> (tensor<64x64xf32>) : i32 {
    %a = tile.load %a_ptrs : tensor<64x32x!tile.ptr<f16>>
    %b = tile.load %b_ptrs : tensor<32x64x!tile.ptr<f16>>
    %d = tile.dot %a, %b, %acc0, tf32 : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  %h = arith.truncf %acc : tensor<64x64xf32> to tensor<64x64xf16>
  %c_ptrs = tile.splat %pc : tensor<64x64x!tile.ptr<f16>>
  tile.store %c_ptrs, %h : tensor<64x64x!tile.ptr<f16>>
  return
}

// -----

// CHECK-LABEL: // -----
// Exact f32 ("ieee") runs on FMAs, on a blocked accumulator shaped for
// register tiling: per K, each thread loads one value of A (its row) and
// one 16-byte vector of B (its 4 columns), 8 x 4 lanes covering the 32 x 16
// tile. The operands take dot_op layouts of it. Its 16-byte vectors store
// as well as the store's own layout would, so the result is stored as it
// is and the (cheap) pointers are converted instead.
// CHECK-DAG: #[[$BL:.*]] = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
// CHECK-DAG: #[[$FA:.*]] = #tilegpu.dot_op<{opIdx = 0, parent = #[[$BL]], kWidth = 0}>
// CHECK-DAG: #[[$FB:.*]] = #tilegpu.dot_op<{opIdx = 1, parent = #[[$BL]], kWidth = 0}>
// CHECK-LABEL: func.func @ieee
// CHECK: %[[D:.*]] = tile.dot %{{.*}}, %{{.*}}, %{{.*}}, ieee : tensor<32x8xf32, #[[$FA]]>, tensor<8x16xf32, #[[$FB]]> -> tensor<32x16xf32, #[[$BL]]>
// CHECK: %[[P:.*]] = tilegpu.convert_layout %{{.*}} : tensor<32x16x!tile.ptr<f32>, #{{.*}}> -> tensor<32x16x!tile.ptr<f32>, #[[$BL]]>
// CHECK: tile.store %[[P]], %[[D]] : tensor<32x16x!tile.ptr<f32>, #[[$BL]]>
func.func @ieee(%a_p: !tile.ptr<f32>, %b_p: !tile.ptr<f32>, %pc: !tile.ptr<f32>) {
  %a_ps = tile.splat %a_p : tensor<32x8x!tile.ptr<f32>>
  %a = tile.load %a_ps : tensor<32x8x!tile.ptr<f32>>
  %b_ps = tile.splat %b_p : tensor<8x16x!tile.ptr<f32>>
  %b = tile.load %b_ps : tensor<8x16x!tile.ptr<f32>>
  %zero = arith.constant dense<0.0> : tensor<32x16xf32>
  %d = tile.dot %a, %b, %zero, ieee : tensor<32x8xf32>, tensor<8x16xf32> -> tensor<32x16xf32>
  %c_ptrs = tile.splat %pc : tensor<32x16x!tile.ptr<f32>>
  tile.store %c_ptrs, %d : tensor<32x16x!tile.ptr<f32>>
  return
}

// -----

// CHECK-LABEL: // -----
// tf32 (one f32 per register) and i8 (four per register) on mma.sync.
// CHECK-DAG: #[[$MMA:.*]] = #tilegpu.mma<{version = 2, warpsPerCTA = [4, 1], instrShape = [16, 8]}>
// CHECK-DAG: #[[$A1:.*]] = #tilegpu.dot_op<{opIdx = 0, parent = #[[$MMA]], kWidth = 1}>
// CHECK-DAG: #[[$A4:.*]] = #tilegpu.dot_op<{opIdx = 0, parent = #[[$MMA]], kWidth = 4}>
// CHECK-LABEL: func.func @tf32_and_i8
// CHECK: tile.dot {{.*}}, tf32x3 : tensor<64x16xf32, #[[$A1]]>, {{.*}} -> tensor<64x8xf32, #[[$MMA]]>
// CHECK: tile.dot {{.*}} : tensor<64x32xi8, #[[$A4]]>, {{.*}} -> tensor<64x8xi32, #[[$MMA]]>
func.func @tf32_and_i8(%a_p: !tile.ptr<f32>, %b_p: !tile.ptr<f32>, %x_p: !tile.ptr<i8>, %y_p: !tile.ptr<i8>, %pc: !tile.ptr<f32>, %pi: !tile.ptr<i32>) {
  %a_ps = tile.splat %a_p : tensor<64x16x!tile.ptr<f32>>
  %a = tile.load %a_ps : tensor<64x16x!tile.ptr<f32>>
  %b_ps = tile.splat %b_p : tensor<16x8x!tile.ptr<f32>>
  %b = tile.load %b_ps : tensor<16x8x!tile.ptr<f32>>
  %x_ps = tile.splat %x_p : tensor<64x32x!tile.ptr<i8>>
  %x = tile.load %x_ps : tensor<64x32x!tile.ptr<i8>>
  %y_ps = tile.splat %y_p : tensor<32x8x!tile.ptr<i8>>
  %y = tile.load %y_ps : tensor<32x8x!tile.ptr<i8>>
  %zero = arith.constant dense<0.0> : tensor<64x8xf32>
  %d = tile.dot %a, %b, %zero, tf32x3 : tensor<64x16xf32>, tensor<16x8xf32> -> tensor<64x8xf32>
  %c_ptrs = tile.splat %pc : tensor<64x8x!tile.ptr<f32>>
  tile.store %c_ptrs, %d : tensor<64x8x!tile.ptr<f32>>
  %izero = arith.constant dense<0> : tensor<64x8xi32>
  %e = tile.dot %x, %y, %izero, tf32 : tensor<64x32xi8>, tensor<32x8xi8> -> tensor<64x8xi32>
  %i_ptrs = tile.splat %pi : tensor<64x8x!tile.ptr<i32>>
  tile.store %i_ptrs, %e : tensor<64x8x!tile.ptr<i32>>
  return
}

// -----

// CHECK-LABEL: // -----
// A row vector (M = 1) would waste an instruction tile: FMA.
// CHECK-LABEL: func.func @row_vector
// CHECK-NOT: #tilegpu.mma
// CHECK: tile.dot {{.*}} -> tensor<1x64xf32, #blocked{{.*}}>
func.func @row_vector(%a_p: !tile.ptr<f16>, %b_p: !tile.ptr<f16>, %pc: !tile.ptr<f32>) {
  %a_ps = tile.splat %a_p : tensor<1x32x!tile.ptr<f16>>
  %a = tile.load %a_ps : tensor<1x32x!tile.ptr<f16>>
  %b_ps = tile.splat %b_p : tensor<32x64x!tile.ptr<f16>>
  %b = tile.load %b_ps : tensor<32x64x!tile.ptr<f16>>
  %zero = arith.constant dense<0.0> : tensor<1x64xf32>
  %d = tile.dot %a, %b, %zero, tf32 : tensor<1x32xf16>, tensor<32x64xf16> -> tensor<1x64xf32>
  %c_ptrs = tile.splat %pc : tensor<1x64x!tile.ptr<f32>>
  tile.store %c_ptrs, %d : tensor<1x64x!tile.ptr<f32>>
  return
}

// -----

// CHECK-LABEL: // -----
// A batched dot spreads warps over the batch first: 2 batches, then the
// 2 instruction tiles along N of a 16 x 16 accumulator.
// CHECK: #[[$MMA3:.*]] = #tilegpu.mma<{version = 2, warpsPerCTA = [2, 1, 2], instrShape = [1, 16, 8]}>
// CHECK-LABEL: func.func @batched
// CHECK: tile.dot {{.*}} -> tensor<2x16x16xf32, #[[$MMA3]]>
func.func @batched(%a_p: !tile.ptr<bf16>, %b_p: !tile.ptr<bf16>, %pc: !tile.ptr<f32>) {
  %a_ps = tile.splat %a_p : tensor<2x16x32x!tile.ptr<bf16>>
  %a = tile.load %a_ps : tensor<2x16x32x!tile.ptr<bf16>>
  %b_ps = tile.splat %b_p : tensor<2x32x16x!tile.ptr<bf16>>
  %b = tile.load %b_ps : tensor<2x32x16x!tile.ptr<bf16>>
  %zero = arith.constant dense<0.0> : tensor<2x16x16xf32>
  %d = tile.dot %a, %b, %zero, tf32 : tensor<2x16x32xbf16>, tensor<2x32x16xbf16> -> tensor<2x16x16xf32>
  %c_ptrs = tile.splat %pc : tensor<2x16x16x!tile.ptr<f32>>
  tile.store %c_ptrs, %d : tensor<2x16x16x!tile.ptr<f32>>
  return
}

// -----

// Split-K's slab form: the dot's result is atomically added. The atomic is
// laid out like its pointers, 4 contiguous f32 per thread (one 16-byte
// vector atomic each on sm_90), and the accumulator converts to it once.
// CHECK-DAG: #[[$MMA:.*]] = #tilegpu.mma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
// CHECK-DAG: #[[$ROWS:.*]] = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
// CHECK-LABEL: func.func @atomic_partial
// CHECK: %[[D:.*]] = tile.dot {{.*}} -> tensor<64x64xf32, #[[$MMA]]>
// CHECK: %[[V:.*]] = tilegpu.convert_layout %[[D]] : tensor<64x64xf32, #[[$MMA]]> -> tensor<64x64xf32, #[[$ROWS]]>
// CHECK: tile.atomic_rmw add, acq_rel, gpu, %{{.*}}, %[[V]], %{{.*}} : tensor<64x64x!tile.ptr<f32>, #[[$ROWS]]>
func.func @atomic_partial(%pa: !tile.ptr<f16>, %pb: !tile.ptr<f16>, %pc: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32) {
  %a_ptrs = tile.splat %pa : tensor<64x32x!tile.ptr<f16>>
  %b_ptrs = tile.splat %pb : tensor<32x64x!tile.ptr<f16>>
  %a = tile.load %a_ptrs : tensor<64x32x!tile.ptr<f16>>
  %b = tile.load %b_ptrs : tensor<32x64x!tile.ptr<f16>>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = tile.dot %a, %b, %zero, tf32 : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
  %r = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  %rows = tile.expand_dims %r {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %c64 = arith.constant dense<64> : tensor<64x1xi32>
  %row_offs = arith.muli %rows, %c64 : tensor<64x1xi32>
  %cols = tile.expand_dims %r {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %rb = tile.broadcast %row_offs : tensor<64x1xi32> -> tensor<64x64xi32>
  %cb = tile.broadcast %cols : tensor<1x64xi32> -> tensor<64x64xi32>
  %offs = arith.addi %rb, %cb : tensor<64x64xi32>
  %lim = arith.constant dense<4000> : tensor<64x64xi32>
  %m = arith.cmpi slt, %offs, %lim : tensor<64x64xi32>
  %c_ptrs = tile.splat %pc : tensor<64x64x!tile.ptr<f32>>
  %ptrs = tile.addptr %c_ptrs, %offs : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  %old = tile.atomic_rmw add, acq_rel, gpu, %ptrs, %d, %m : tensor<64x64x!tile.ptr<f32>>
  return
}
