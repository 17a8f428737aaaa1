// RUN: tile-opt %s -split-input-file --tilegpu-assign-layouts | FileCheck %s
// RUN: tile-opt %s -split-input-file --tilegpu-assign-layouts=num-warps=8 | FileCheck %s --check-prefix=WARPS8
// RUN: tile-opt %s -split-input-file --tile-to-tilegpu | FileCheck %s --check-prefix=PIPE
// RUN: not tile-opt %s -split-input-file --tilegpu-assign-layouts=num-warps=3 2>&1 | FileCheck %s --check-prefix=BAD

// A CTA of 3 warps is rejected. The number after "not" is left unchecked
// here; num-warps.mlir checks it. It used to print as the byte \x03: the
// pass option (an llvm::cl::opt<unsigned>) streamed into the diagnostic
// converted to char, not to an integer, so AssignLayouts.cpp casts it to
// unsigned first.
// BAD: error: num-warps must be a power of two, not

// A transpose: loaded along rows (contiguous along dim 1), stored along
// columns (contiguous along dim 0). Each access gets its own 16-byte
// vectorized layout, fastest dimension first in `order`; the loaded tile is
// converted to the store's layout once, and every 1-D range feeding an
// expand_dims is a slice of the 2-D layout it expands into.
// CHECK-DAG: #[[$LOAD:.*]] = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
// CHECK-DAG: #[[$STORE:.*]] = #tilegpu.blocked<{sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]}>
// CHECK-DAG: #[[$LROWS:.*]] = #tilegpu.slice<{dim = 1, parent = #[[$LOAD]]}>
// CHECK-DAG: #[[$SROWS:.*]] = #tilegpu.slice<{dim = 1, parent = #[[$STORE]]}>
// CHECK-DAG: #[[$LCOLS:.*]] = #tilegpu.slice<{dim = 0, parent = #[[$LOAD]]}>
// CHECK-DAG: #[[$SCOLS:.*]] = #tilegpu.slice<{dim = 0, parent = #[[$STORE]]}>
// CHECK-LABEL: module attributes {tilegpu.num_warps = 4 : i32}
// CHECK-LABEL: func.func @transpose
// CHECK-NOT: tilegpu.convert_layout
// CHECK-DAG: tile.expand_dims %{{.*}} {axis = 1 : i32} : tensor<64xi32, #[[$LROWS]]> -> tensor<64x1xi32, #[[$LOAD]]>
// CHECK-DAG: tile.expand_dims %{{.*}} {axis = 0 : i32} : tensor<64xi32, #[[$LCOLS]]> -> tensor<1x64xi32, #[[$LOAD]]>
// CHECK-DAG: tile.expand_dims %{{.*}} {axis = 1 : i32} : tensor<64xi32, #[[$SROWS]]> -> tensor<64x1xi32, #[[$STORE]]>
// CHECK-DAG: tile.expand_dims %{{.*}} {axis = 0 : i32} : tensor<64xi32, #[[$SCOLS]]> -> tensor<1x64xi32, #[[$STORE]]>
// CHECK-DAG: tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #[[$LROWS]]>
// CHECK-DAG: tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #[[$LCOLS]]>
// CHECK-DAG: tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #[[$SROWS]]>
// CHECK-DAG: tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #[[$SCOLS]]>
// CHECK: %[[LMASK:.*]] = arith.andi %{{.*}} : tensor<64x64xi1, #[[$LOAD]]>
// CHECK: %[[SMASK:.*]] = arith.andi %{{.*}} : tensor<64x64xi1, #[[$STORE]]>
// CHECK-NOT: tilegpu.convert_layout
// CHECK: %[[V:.*]] = tile.load %{{.*}}, %[[LMASK]], %{{.*}} : tensor<64x64x!tile.ptr<f32>, #[[$LOAD]]>
// CHECK-NOT: tilegpu.convert_layout
// CHECK: %[[C:.*]] = tilegpu.convert_layout %[[V]] : tensor<64x64xf32, #[[$LOAD]]> -> tensor<64x64xf32, #[[$STORE]]>
// CHECK-NEXT: tile.store %{{.*}}, %[[C]], %[[SMASK]] : tensor<64x64x!tile.ptr<f32>, #[[$STORE]]>
// CHECK-NOT: tilegpu.convert_layout

// num-warps=8 puts the extra warps along each layout's slow dimension.
// WARPS8-DAG: #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]}>
// WARPS8-DAG: #tilegpu.blocked<{sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 8], order = [0, 1]}>
// WARPS8-LABEL: module attributes {tilegpu.num_warps = 8 : i32}
// WARPS8-LABEL: func.func @transpose

// The full pipeline keeps the one conversion a transpose needs.
// PIPE-LABEL: func.func @transpose
// PIPE-COUNT-1: tilegpu.convert_layout
// PIPE-NOT: tilegpu.convert_layout
// PIPE: tile.store
module {
  func.func @transpose(%in: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %out: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %M: i32 {tile.divisibility = 16 : i32}, %N: i32 {tile.divisibility = 16 : i32}, %stride_in: i32 {tile.divisibility = 16 : i32}, %stride_out: i32 {tile.divisibility = 16 : i32}) {
    %pid_m = tile.program_id 0 : i32
    %pid_n = tile.program_id 1 : i32
    %c64 = arith.constant 64 : i32
    %m0 = arith.muli %pid_m, %c64 : i32
    %r = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %m0s = tile.splat %m0 : tensor<64xi32>
    %rows = arith.addi %m0s, %r : tensor<64xi32>
    %n0 = arith.muli %pid_n, %c64 : i32
    %c = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %n0s = tile.splat %n0 : tensor<64xi32>
    %cols = arith.addi %n0s, %c : tensor<64xi32>
    %rows2 = tile.expand_dims %rows {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
    %Ms = tile.splat %M : tensor<64x1xi32>
    %rmask = arith.cmpi slt, %rows2, %Ms : tensor<64x1xi32>
    %cols2 = tile.expand_dims %cols {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
    %Ns = tile.splat %N : tensor<1x64xi32>
    %cmask = arith.cmpi slt, %cols2, %Ns : tensor<1x64xi32>
    %rmb = tile.broadcast %rmask : tensor<64x1xi1> -> tensor<64x64xi1>
    %cmb = tile.broadcast %cmask : tensor<1x64xi1> -> tensor<64x64xi1>
    %mask = arith.andi %rmb, %cmb : tensor<64x64xi1>
    %sis = tile.splat %stride_in : tensor<64x1xi32>
    %roff = arith.muli %rows2, %sis : tensor<64x1xi32>
    %ins = tile.splat %in : tensor<64x1x!tile.ptr<f32>>
    %inr = tile.addptr %ins, %roff : tensor<64x1x!tile.ptr<f32>>, tensor<64x1xi32>
    %inrb = tile.broadcast %inr : tensor<64x1x!tile.ptr<f32>> -> tensor<64x64x!tile.ptr<f32>>
    %cb = tile.broadcast %cols2 : tensor<1x64xi32> -> tensor<64x64xi32>
    %inp = tile.addptr %inrb, %cb : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
    %zero = arith.constant 0.000000e+00 : f32
    %zeros = tile.splat %zero : tensor<64x64xf32>
    %v = tile.load %inp, %mask, %zeros : tensor<64x64x!tile.ptr<f32>>
    %sos = tile.splat %stride_out : tensor<1x64xi32>
    %coff = arith.muli %cols2, %sos : tensor<1x64xi32>
    %outs = tile.splat %out : tensor<1x64x!tile.ptr<f32>>
    %outc = tile.addptr %outs, %coff : tensor<1x64x!tile.ptr<f32>>, tensor<1x64xi32>
    %outcb = tile.broadcast %outc : tensor<1x64x!tile.ptr<f32>> -> tensor<64x64x!tile.ptr<f32>>
    %rb = tile.broadcast %rows2 : tensor<64x1xi32> -> tensor<64x64xi32>
    %outp = tile.addptr %outcb, %rb : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
    tile.store %outp, %v, %mask : tensor<64x64x!tile.ptr<f32>>
    return
  }
}

// -----

// A tensor carried by a loop: init, iter_arg, yield and result share one
// layout (here the load's, 4 x f32 per thread since n is 16-divisible), and
// nothing is converted.
// CHECK: #[[$L:.*]] = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK-LABEL: func.func @loop
// CHECK-NOT: tilegpu.convert_layout
// CHECK: %[[INIT:.*]] = arith.constant dense<0.000000e+00> : tensor<512xf32, #[[$L]]>
// CHECK: %[[R:.*]] = scf.for %{{.*}} iter_args(%[[ACC:.*]] = %[[INIT]]) -> (tensor<512xf32, #[[$L]]>)
// CHECK: %[[X:.*]] = tile.load %{{.*}} : tensor<512x!tile.ptr<f32>, #[[$L]]>
// CHECK: %[[SUM:.*]] = arith.addf %[[ACC]], %[[X]] : tensor<512xf32, #[[$L]]>
// CHECK: scf.yield %[[SUM]] : tensor<512xf32, #[[$L]]>
// CHECK: tile.store %{{.*}}, %[[R]] : tensor<512x!tile.ptr<f32>, #[[$L]]>
// CHECK-NOT: tilegpu.convert_layout

// WARPS8: #tilegpu.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]}>
// WARPS8-LABEL: func.func @loop

// PIPE-LABEL: func.func @loop
// PIPE-NOT: tilegpu.convert_layout
module {
  func.func @loop(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %out: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32 {tile.divisibility = 16 : i32}) {
    %offs = tile.make_range {end = 512 : i32, start = 0 : i32} : tensor<512xi32>
    %zeros = arith.constant dense<0.000000e+00> : tensor<512xf32>
    %c0 = arith.constant 0 : i32
    %c512 = arith.constant 512 : i32
    %acc = scf.for %i = %c0 to %n step %c512 iter_args(%a = %zeros) -> (tensor<512xf32>) : i32 {
      %base = tile.addptr %x, %i : !tile.ptr<f32>, i32
      %bs = tile.splat %base : tensor<512x!tile.ptr<f32>>
      %p = tile.addptr %bs, %offs : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
      %v = tile.load %p : tensor<512x!tile.ptr<f32>>
      %s = arith.addf %a, %v : tensor<512xf32>
      scf.yield %s : tensor<512xf32>
    }
    %os = tile.splat %out : tensor<512x!tile.ptr<f32>>
    %op = tile.addptr %os, %offs : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
    tile.store %op, %acc : tensor<512x!tile.ptr<f32>>
    return
  }
}

// -----

// rows[:, None] * rows[None, :] of one cheap 1-D tensor: the pass gives each
// use its own copy of the range arithmetic, one per slice, so no conversion
// is needed, neither after this pass nor after the pipeline.
// CHECK-DAG: #[[$B:.*]] = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
// CHECK-DAG: #[[$S1:.*]] = #tilegpu.slice<{dim = 1, parent = #[[$B]]}>
// CHECK-DAG: #[[$S0:.*]] = #tilegpu.slice<{dim = 0, parent = #[[$B]]}>
// CHECK-LABEL: func.func @outer_of_range
// CHECK-NOT: tilegpu.convert_layout
// CHECK-DAG: %[[A:.*]] = arith.addi %{{.*}} : tensor<64xi32, #[[$S1]]>
// CHECK-DAG: %[[B:.*]] = arith.addi %{{.*}} : tensor<64xi32, #[[$S0]]>
// CHECK-DAG: tile.expand_dims %[[A]] {axis = 1 : i32} : tensor<64xi32, #[[$S1]]> -> tensor<64x1xi32, #[[$B]]>
// CHECK-DAG: tile.expand_dims %[[B]] {axis = 0 : i32} : tensor<64xi32, #[[$S0]]> -> tensor<1x64xi32, #[[$B]]>
// CHECK-NOT: tilegpu.convert_layout
// CHECK: tile.store

// PIPE-LABEL: func.func @outer_of_range
// PIPE-NOT: tilegpu.convert_layout
// PIPE: tile.store
module {
  func.func @outer_of_range(%out: !tile.ptr<i32> {tile.divisibility = 16 : i32}) {
    %pid = tile.program_id 0 : i32
    %c64 = arith.constant 64 : i32
    %start = arith.muli %pid, %c64 : i32
    %r = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
    %s = tile.splat %start : tensor<64xi32>
    %rows = arith.addi %s, %r : tensor<64xi32>
    %col = tile.expand_dims %rows {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
    %row = tile.expand_dims %rows {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
    %cb = tile.broadcast %col : tensor<64x1xi32> -> tensor<64x64xi32>
    %rb = tile.broadcast %row : tensor<1x64xi32> -> tensor<64x64xi32>
    %v = arith.muli %cb, %rb : tensor<64x64xi32>
    %c = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
    %ce = tile.expand_dims %c {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
    %c64t = tile.splat %c64 : tensor<64x1xi32>
    %cm = arith.muli %ce, %c64t : tensor<64x1xi32>
    %cmb = tile.broadcast %cm : tensor<64x1xi32> -> tensor<64x64xi32>
    %re = tile.expand_dims %c {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
    %reb = tile.broadcast %re : tensor<1x64xi32> -> tensor<64x64xi32>
    %offs = arith.addi %cmb, %reb : tensor<64x64xi32>
    %os = tile.splat %out : tensor<64x64x!tile.ptr<i32>>
    %op = tile.addptr %os, %offs : tensor<64x64x!tile.ptr<i32>>, tensor<64x64xi32>
    tile.store %op, %v : tensor<64x64x!tile.ptr<i32>>
    return
  }
}

// -----

// The same with a loaded 1-D tensor, which cannot be recomputed: it takes
// the slice of its first expand_dims, the other one reads a conversion to
// its own slice, and the conversion survives the pipeline.
// CHECK-DAG: #[[$B:.*]] = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
// CHECK-DAG: #[[$S1:.*]] = #tilegpu.slice<{dim = 1, parent = #[[$B]]}>
// CHECK-DAG: #[[$S0:.*]] = #tilegpu.slice<{dim = 0, parent = #[[$B]]}>
// CHECK-LABEL: func.func @outer_of_load
// CHECK: %[[V:.*]] = tile.load %{{.*}} : tensor<64x!tile.ptr<f32>, #[[$S1]]>
// CHECK-NEXT: tile.expand_dims %[[V]] {axis = 1 : i32} : tensor<64xf32, #[[$S1]]> -> tensor<64x1xf32, #[[$B]]>
// CHECK-NEXT: %[[C:.*]] = tilegpu.convert_layout %[[V]] : tensor<64xf32, #[[$S1]]> -> tensor<64xf32, #[[$S0]]>
// CHECK-NEXT: tile.expand_dims %[[C]] {axis = 0 : i32} : tensor<64xf32, #[[$S0]]> -> tensor<1x64xf32, #[[$B]]>
// CHECK-NOT: tilegpu.convert_layout

// PIPE-LABEL: func.func @outer_of_load
// PIPE-COUNT-1: tilegpu.convert_layout %{{.*}} : tensor<64xf32, #slice> -> tensor<64xf32, #slice1>
// PIPE-NOT: tilegpu.convert_layout
module {
  func.func @outer_of_load(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %out: !tile.ptr<f32> {tile.divisibility = 16 : i32}) {
    %r = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
    %xs = tile.splat %x : tensor<64x!tile.ptr<f32>>
    %xp = tile.addptr %xs, %r : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
    %v = tile.load %xp : tensor<64x!tile.ptr<f32>>
    %col = tile.expand_dims %v {axis = 1 : i32} : tensor<64xf32> -> tensor<64x1xf32>
    %row = tile.expand_dims %v {axis = 0 : i32} : tensor<64xf32> -> tensor<1x64xf32>
    %cb = tile.broadcast %col : tensor<64x1xf32> -> tensor<64x64xf32>
    %rb = tile.broadcast %row : tensor<1x64xf32> -> tensor<64x64xf32>
    %p = arith.mulf %cb, %rb : tensor<64x64xf32>
    %c64 = arith.constant 64 : i32
    %ce = tile.expand_dims %r {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
    %c64t = tile.splat %c64 : tensor<64x1xi32>
    %cm = arith.muli %ce, %c64t : tensor<64x1xi32>
    %cmb = tile.broadcast %cm : tensor<64x1xi32> -> tensor<64x64xi32>
    %re = tile.expand_dims %r {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
    %reb = tile.broadcast %re : tensor<1x64xi32> -> tensor<64x64xi32>
    %offs = arith.addi %cmb, %reb : tensor<64x64xi32>
    %os = tile.splat %out : tensor<64x64x!tile.ptr<f32>>
    %op = tile.addptr %os, %offs : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
    tile.store %op, %p : tensor<64x64x!tile.ptr<f32>>
    return
  }
}

// -----

// A while loop carrying a tile: its inits, the condition region's
// arguments, what the condition forwards, the body's arguments and yields
// and the results share one layout, so nothing converts around the loop.
// CHECK-LABEL: func.func @while_tile
// CHECK: scf.while (%{{.*}} = %{{.*}}) : (tensor<256xf32, #[[$L:.*]]>) -> tensor<256xf32, #[[$L]]>
// CHECK: scf.condition(%{{.*}}) %{{.*}} : tensor<256xf32, #[[$L]]>
// CHECK: ^bb0(%{{.*}}: tensor<256xf32, #[[$L]]>):
// CHECK: scf.yield %{{.*}} : tensor<256xf32, #[[$L]]>
// CHECK-NOT: tilegpu.convert_layout
func.func @while_tile(%p: !tile.ptr<f32>, %limit: f32) {
  %r = tile.make_range {start = 0 : i32, end = 256 : i32} : tensor<256xi32>
  %ps = tile.splat %p : tensor<256x!tile.ptr<f32>>
  %pp = tile.addptr %ps, %r : tensor<256x!tile.ptr<f32>>, tensor<256xi32>
  %x = tile.load %pp : tensor<256x!tile.ptr<f32>>
  %res = scf.while (%a = %x) : (tensor<256xf32>) -> tensor<256xf32> {
    %m = tile.reduce max %a {axis = 0 : i32} : tensor<256xf32> -> f32
    %go = arith.cmpf olt, %m, %limit : f32
    scf.condition(%go) %a : tensor<256xf32>
  } do {
  ^bb0(%a: tensor<256xf32>):
    %d = arith.addf %a, %a : tensor<256xf32>
    scf.yield %d : tensor<256xf32>
  }
  tile.store %pp, %res : tensor<256x!tile.ptr<f32>>
  return
}
