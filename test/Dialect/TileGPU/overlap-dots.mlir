// RUN: tile-opt %s -split-input-file --tilegpu-overlap-dots | FileCheck %s

#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 128]}>
#mma1 = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64]}>
#shared = #tilegpu.shared<{vec = 8, perPhase = 4, maxPhase = 2, order = [1, 0]}>
#shared1 = #tilegpu.shared<{vec = 8, perPhase = 4, maxPhase = 2, order = [0, 1]}>
#shared2 = #tilegpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#dot_op = #tilegpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#slice = #tilegpu.slice<{dim = 1, parent = #mma}>
#slice4 = #tilegpu.slice<{dim = 1, parent = #mma1}>

// Attention's loop at head dim 128 as tilegpu-pipeline leaves it (K and
// V in rings of two slots filled by bulk copies, one iteration ahead), its
// softmax cut to what the stages need. The first iteration's S = Q K^T
// and softmax go before the loop, under a test that it runs at all; in
// the loop, S_j's dot is issued, then the previous iteration's rescale,
// wait for V and P V (P and alpha carried by the loop, the slot and phase
// recomputed from j - 64); S_j is waited for with one group (P V's) left
// in flight, the softmax runs, and P V is waited for before the next P is
// made (in the registers P V read) and before the barrier that comes
// before the refill. The last iteration's P V follows the loop.
// CHECK-LABEL: func.func @attention
// CHECK-SAME: %[[Q:[a-z0-9]+]]: !tilegpu.memdesc<64x128xf16, #shared>, %[[N:[a-z0-9]+]]: i32
// CHECK: %[[KS:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<2x128x64xf16, #shared1>
// CHECK: %[[VS:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<2x64x128xf16, #shared>
// CHECK: %[[VB:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<2x1xi64, #shared2>
// CHECK: %[[ANY:.*]] = arith.cmpi slt, %c0_i32, %[[N]] : i32
// CHECK: %[[R:.*]]:3 = scf.if %[[ANY]] -> (tensor<64x128xf32, #mma>, tensor<64xf32, #slice>, tensor<64xf32, #slice>) {
// CHECK: %[[S0:.*]] = tile.dot %[[Q]], {{.*}} -> tensor<64x64xf32, #mma1>
// CHECK-NOT: tilegpu.warpgroup_dot_wait
// CHECK: %[[E0:.*]] = math.exp2 %[[S0]]
// CHECK: %[[ALPHA0:.*]] = math.exp2 %{{.*}} : tensor<64xf32, #slice>
// CHECK: %[[P0:.*]] = tilegpu.convert_layout %{{.*}} : tensor<64x64xf16, #mma1> -> tensor<64x64xf16, #dot_op>
// CHECK-NOT: tile.dot
// CHECK: tilegpu.async_tma_copy
// CHECK: %[[START:.*]] = arith.addi %c0_i32, %c64_i32 : i32
// CHECK: %[[LOOP:.*]]:5 = scf.for %[[J:.*]] = %[[START]] to %[[N]] step %c64_i32 iter_args(%[[ACC:.*]] = %{{.*}}, %[[L:.*]] = %{{.*}}, %[[M:.*]] = %{{.*}}, %[[ALPHA:.*]] = %[[ALPHA0]], %[[P:.*]] = %[[P0]])
// CHECK: %[[S:.*]] = tile.dot %[[Q]], {{.*}} -> tensor<64x64xf32, #mma1>
// CHECK-NEXT: %[[PREV:.*]] = arith.subi %[[J]], %c64_i32 : i32
// CHECK: %[[SCALE:.*]] = tile.broadcast {{.*}} -> tensor<64x128xf32, #mma>
// CHECK: %[[RESCALED:.*]] = arith.mulf %[[ACC]], %[[SCALE]] : tensor<64x128xf32, #mma>
// CHECK: %[[VSLOT:.*]] = tilegpu.memdesc_index %[[VB]]
// CHECK: tilegpu.barrier_wait %[[VSLOT]]
// CHECK: %[[PV:.*]] = tile.dot %[[P]], %{{.*}}, %[[RESCALED]]
// CHECK-NEXT: %[[SDONE:.*]] = tilegpu.warpgroup_dot_wait %[[S]] {pending = 1 : i32}
// CHECK: math.exp2
// CHECK: %[[PVDONE:.*]] = tilegpu.warpgroup_dot_wait %[[PV]] {pending = 0 : i32}
// CHECK-NEXT: %[[P16:.*]] = arith.truncf
// CHECK-NEXT: %[[PNEXT:.*]] = tilegpu.convert_layout %[[P16]]
// CHECK: tile.debug_barrier
// CHECK: tilegpu.async_tma_copy
// CHECK: scf.yield %[[PVDONE]], {{.*}}, %[[PNEXT]] : tensor<64x128xf32, #mma>
// CHECK: %[[SPAN:.*]] = arith.subi %[[N]], %c0_i32 : i32
// CHECK: %[[SPAN1:.*]] = arith.subi %[[SPAN]], %c1_i32{{.*}} : i32
// CHECK: %[[STEPS:.*]] = arith.divsi %[[SPAN1]], %c64_i32 : i32
// CHECK: %[[OFFSET:.*]] = arith.muli %[[STEPS]], %c64_i32 : i32
// CHECK: %[[LAST:.*]] = arith.addi %c0_i32, %[[OFFSET]] : i32
// CHECK: arith.divsi %[[LAST]], %c64_i32 : i32
// CHECK: arith.mulf %[[LOOP]]#0,
// CHECK: tilegpu.barrier_wait
// CHECK: %[[PVLAST:.*]] = tile.dot %[[LOOP]]#4,
// CHECK-NEXT: %[[PVLASTDONE:.*]] = tilegpu.warpgroup_dot_wait %[[PVLAST]] {pending = 0 : i32}
// CHECK: scf.yield %[[PVLASTDONE]], %[[LOOP]]#1, %[[LOOP]]#2
// CHECK: } else {
// CHECK: scf.yield
// CHECK: return %[[R]]#0
func.func @attention(%q: !tilegpu.memdesc<64x128xf16, #shared>, %n: i32, %kmap: !tilegpu.tensormap, %vmap: !tilegpu.tensormap) -> tensor<64x128xf32, #mma> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c64 = arith.constant 64 : i32
  %ninf = arith.constant dense<0xFF800000> : tensor<64xf32, #slice>
  %zeros = arith.constant dense<0.000000e+00> : tensor<64xf32, #slice>
  %acc0 = arith.constant dense<0.000000e+00> : tensor<64x128xf32, #mma>
  %s0 = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma1>
  %ks = tilegpu.local_alloc : () -> !tilegpu.memdesc<2x128x64xf16, #shared1>
  %kb = tilegpu.local_alloc : () -> !tilegpu.memdesc<2x1xi64, #shared2>
  %vs = tilegpu.local_alloc : () -> !tilegpu.memdesc<2x64x128xf16, #shared>
  %vb = tilegpu.local_alloc : () -> !tilegpu.memdesc<2x1xi64, #shared2>
  tilegpu.barrier_init %kb : <2x1xi64, #shared2>
  tilegpu.barrier_init %vb : <2x1xi64, #shared2>
  %any = arith.cmpi sgt, %n, %c0 : i32
  %k0 = tilegpu.memdesc_index %ks, %c0 : <2x128x64xf16, #shared1> -> <128x64xf16, #shared1>
  %kb0 = tilegpu.memdesc_index %kb, %c0 : <2x1xi64, #shared2> -> <1xi64, #shared2>
  tilegpu.barrier_expect %kb0, %any {bytes = 16384 : i32} : <1xi64, #shared2>
  tilegpu.async_tma_copy %kmap[%c0, %c0], %k0, %kb0, %any : <128x64xf16, #shared1>, <1xi64, #shared2>
  %v0 = tilegpu.memdesc_index %vs, %c0 : <2x64x128xf16, #shared> -> <64x128xf16, #shared>
  %vb0 = tilegpu.memdesc_index %vb, %c0 : <2x1xi64, #shared2> -> <1xi64, #shared2>
  tilegpu.barrier_expect %vb0, %any {bytes = 16384 : i32} : <1xi64, #shared2>
  tilegpu.async_tma_copy %vmap[%c0, %c0], %v0, %vb0, %any : <64x128xf16, #shared>, <1xi64, #shared2>
  %r:3 = scf.for %j = %c0 to %n step %c64 iter_args(%acc = %acc0, %l = %zeros, %m = %ninf) -> (tensor<64x128xf32, #mma>, tensor<64xf32, #slice>, tensor<64xf32, #slice>) : i32 {
    %more = arith.subi %n, %c64 : i32
    %refill = arith.cmpi slt, %j, %more : i32
    %block = arith.divsi %j, %c64 : i32
    %slot = arith.remsi %block, %c2 : i32
    %round = arith.divsi %block, %c2 : i32
    %phase = arith.andi %round, %c1 : i32
    %kbar = tilegpu.memdesc_index %kb, %slot : <2x1xi64, #shared2> -> <1xi64, #shared2>
    tilegpu.barrier_wait %kbar, %phase : <1xi64, #shared2>
    %k = tilegpu.memdesc_index %ks, %slot : <2x128x64xf16, #shared1> -> <128x64xf16, #shared1>
    %s = tile.dot %q, %k, %s0, tf32 : !tilegpu.memdesc<64x128xf16, #shared>, !tilegpu.memdesc<128x64xf16, #shared1> -> tensor<64x64xf32, #mma1>
    %rowmax = tile.reduce max %s {axis = 1 : i32} : tensor<64x64xf32, #mma1> -> tensor<64xf32, #slice4>
    %rowmax1 = tilegpu.convert_layout %rowmax : tensor<64xf32, #slice4> -> tensor<64xf32, #slice>
    %mnew = arith.maxnumf %m, %rowmax1 : tensor<64xf32, #slice>
    %e = math.exp2 %s : tensor<64x64xf32, #mma1>
    %diff = arith.subf %m, %mnew : tensor<64xf32, #slice>
    %alpha = math.exp2 %diff : tensor<64xf32, #slice>
    %sum = tile.reduce sum %e {axis = 1 : i32} : tensor<64x64xf32, #mma1> -> tensor<64xf32, #slice4>
    %sum1 = tilegpu.convert_layout %sum : tensor<64xf32, #slice4> -> tensor<64xf32, #slice>
    %lscaled = arith.mulf %l, %alpha : tensor<64xf32, #slice>
    %lnew = arith.addf %lscaled, %sum1 : tensor<64xf32, #slice>
    %alpha2 = tile.expand_dims %alpha {axis = 1 : i32} : tensor<64xf32, #slice> -> tensor<64x1xf32, #mma>
    %scale = tile.broadcast %alpha2 : tensor<64x1xf32, #mma> -> tensor<64x128xf32, #mma>
    %rescaled = arith.mulf %acc, %scale : tensor<64x128xf32, #mma>
    %p16 = arith.truncf %e : tensor<64x64xf32, #mma1> to tensor<64x64xf16, #mma1>
    %p = tilegpu.convert_layout %p16 : tensor<64x64xf16, #mma1> -> tensor<64x64xf16, #dot_op>
    %vbar = tilegpu.memdesc_index %vb, %slot : <2x1xi64, #shared2> -> <1xi64, #shared2>
    tilegpu.barrier_wait %vbar, %phase : <1xi64, #shared2>
    %v = tilegpu.memdesc_index %vs, %slot : <2x64x128xf16, #shared> -> <64x128xf16, #shared>
    %o = tile.dot %p, %v, %rescaled, tf32 : tensor<64x64xf16, #dot_op>, !tilegpu.memdesc<64x128xf16, #shared> -> tensor<64x128xf32, #mma>
    %next = arith.addi %j, %c64 : i32
    %nblock = arith.divsi %next, %c64 : i32
    %nslot = arith.remsi %nblock, %c2 : i32
    %kn = tilegpu.memdesc_index %ks, %nslot : <2x128x64xf16, #shared1> -> <128x64xf16, #shared1>
    %kbn = tilegpu.memdesc_index %kb, %nslot : <2x1xi64, #shared2> -> <1xi64, #shared2>
    tile.debug_barrier
    tilegpu.barrier_expect %kbn, %refill {bytes = 16384 : i32} : <1xi64, #shared2>
    tilegpu.async_tma_copy %kmap[%c0, %next], %kn, %kbn, %refill : <128x64xf16, #shared1>, <1xi64, #shared2>
    %vn = tilegpu.memdesc_index %vs, %nslot : <2x64x128xf16, #shared> -> <64x128xf16, #shared>
    %vbn = tilegpu.memdesc_index %vb, %nslot : <2x1xi64, #shared2> -> <1xi64, #shared2>
    tilegpu.barrier_expect %vbn, %refill {bytes = 16384 : i32} : <1xi64, #shared2>
    tilegpu.async_tma_copy %vmap[%next, %c0], %vn, %vbn, %refill : <64x128xf16, #shared>, <1xi64, #shared2>
    scf.yield %o, %lnew, %mnew : tensor<64x128xf32, #mma>, tensor<64xf32, #slice>, tensor<64xf32, #slice>
  }
  return %r#0 : tensor<64x128xf32, #mma>
}

// -----

#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64]}>
#mma1 = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64]}>
#shared = #tilegpu.shared<{vec = 8, perPhase = 4, maxPhase = 2, order = [1, 0]}>
#shared1 = #tilegpu.shared<{vec = 8, perPhase = 4, maxPhase = 2, order = [0, 1]}>
#shared2 = #tilegpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#dot_op = #tilegpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#slice = #tilegpu.slice<{dim = 1, parent = #mma}>
#slice4 = #tilegpu.slice<{dim = 1, parent = #mma1}>

// The same loop at head dim 64: the second dot's tile is too narrow for
// the schedule to pay (paysToIssueLate). The loop stays as it is.
// CHECK-LABEL: func.func @head_dim_64
// CHECK-NOT: scf.if
// CHECK: scf.for
// CHECK-NOT: tilegpu.warpgroup_dot_wait
// CHECK: return
func.func @head_dim_64(%q: !tilegpu.memdesc<64x64xf16, #shared>, %n: i32, %kmap: !tilegpu.tensormap, %vmap: !tilegpu.tensormap) -> tensor<64x64xf32, #mma> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c64 = arith.constant 64 : i32
  %ninf = arith.constant dense<0xFF800000> : tensor<64xf32, #slice>
  %zeros = arith.constant dense<0.000000e+00> : tensor<64xf32, #slice>
  %acc0 = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
  %s0 = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma1>
  %ks = tilegpu.local_alloc : () -> !tilegpu.memdesc<2x64x64xf16, #shared1>
  %kb = tilegpu.local_alloc : () -> !tilegpu.memdesc<2x1xi64, #shared2>
  %vs = tilegpu.local_alloc : () -> !tilegpu.memdesc<2x64x64xf16, #shared>
  %vb = tilegpu.local_alloc : () -> !tilegpu.memdesc<2x1xi64, #shared2>
  tilegpu.barrier_init %kb : <2x1xi64, #shared2>
  tilegpu.barrier_init %vb : <2x1xi64, #shared2>
  %any = arith.cmpi sgt, %n, %c0 : i32
  %k0 = tilegpu.memdesc_index %ks, %c0 : <2x64x64xf16, #shared1> -> <64x64xf16, #shared1>
  %kb0 = tilegpu.memdesc_index %kb, %c0 : <2x1xi64, #shared2> -> <1xi64, #shared2>
  tilegpu.barrier_expect %kb0, %any {bytes = 8192 : i32} : <1xi64, #shared2>
  tilegpu.async_tma_copy %kmap[%c0, %c0], %k0, %kb0, %any : <64x64xf16, #shared1>, <1xi64, #shared2>
  %v0 = tilegpu.memdesc_index %vs, %c0 : <2x64x64xf16, #shared> -> <64x64xf16, #shared>
  %vb0 = tilegpu.memdesc_index %vb, %c0 : <2x1xi64, #shared2> -> <1xi64, #shared2>
  tilegpu.barrier_expect %vb0, %any {bytes = 8192 : i32} : <1xi64, #shared2>
  tilegpu.async_tma_copy %vmap[%c0, %c0], %v0, %vb0, %any : <64x64xf16, #shared>, <1xi64, #shared2>
  %r:3 = scf.for %j = %c0 to %n step %c64 iter_args(%acc = %acc0, %l = %zeros, %m = %ninf) -> (tensor<64x64xf32, #mma>, tensor<64xf32, #slice>, tensor<64xf32, #slice>) : i32 {
    %more = arith.subi %n, %c64 : i32
    %refill = arith.cmpi slt, %j, %more : i32
    %block = arith.divsi %j, %c64 : i32
    %slot = arith.remsi %block, %c2 : i32
    %round = arith.divsi %block, %c2 : i32
    %phase = arith.andi %round, %c1 : i32
    %kbar = tilegpu.memdesc_index %kb, %slot : <2x1xi64, #shared2> -> <1xi64, #shared2>
    tilegpu.barrier_wait %kbar, %phase : <1xi64, #shared2>
    %k = tilegpu.memdesc_index %ks, %slot : <2x64x64xf16, #shared1> -> <64x64xf16, #shared1>
    %s = tile.dot %q, %k, %s0, tf32 : !tilegpu.memdesc<64x64xf16, #shared>, !tilegpu.memdesc<64x64xf16, #shared1> -> tensor<64x64xf32, #mma1>
    %rowmax = tile.reduce max %s {axis = 1 : i32} : tensor<64x64xf32, #mma1> -> tensor<64xf32, #slice4>
    %rowmax1 = tilegpu.convert_layout %rowmax : tensor<64xf32, #slice4> -> tensor<64xf32, #slice>
    %mnew = arith.maxnumf %m, %rowmax1 : tensor<64xf32, #slice>
    %e = math.exp2 %s : tensor<64x64xf32, #mma1>
    %diff = arith.subf %m, %mnew : tensor<64xf32, #slice>
    %alpha = math.exp2 %diff : tensor<64xf32, #slice>
    %sum = tile.reduce sum %e {axis = 1 : i32} : tensor<64x64xf32, #mma1> -> tensor<64xf32, #slice4>
    %sum1 = tilegpu.convert_layout %sum : tensor<64xf32, #slice4> -> tensor<64xf32, #slice>
    %lscaled = arith.mulf %l, %alpha : tensor<64xf32, #slice>
    %lnew = arith.addf %lscaled, %sum1 : tensor<64xf32, #slice>
    %alpha2 = tile.expand_dims %alpha {axis = 1 : i32} : tensor<64xf32, #slice> -> tensor<64x1xf32, #mma>
    %scale = tile.broadcast %alpha2 : tensor<64x1xf32, #mma> -> tensor<64x64xf32, #mma>
    %rescaled = arith.mulf %acc, %scale : tensor<64x64xf32, #mma>
    %p16 = arith.truncf %e : tensor<64x64xf32, #mma1> to tensor<64x64xf16, #mma1>
    %p = tilegpu.convert_layout %p16 : tensor<64x64xf16, #mma1> -> tensor<64x64xf16, #dot_op>
    %vbar = tilegpu.memdesc_index %vb, %slot : <2x1xi64, #shared2> -> <1xi64, #shared2>
    tilegpu.barrier_wait %vbar, %phase : <1xi64, #shared2>
    %v = tilegpu.memdesc_index %vs, %slot : <2x64x64xf16, #shared> -> <64x64xf16, #shared>
    %o = tile.dot %p, %v, %rescaled, tf32 : tensor<64x64xf16, #dot_op>, !tilegpu.memdesc<64x64xf16, #shared> -> tensor<64x64xf32, #mma>
    %next = arith.addi %j, %c64 : i32
    %nblock = arith.divsi %next, %c64 : i32
    %nslot = arith.remsi %nblock, %c2 : i32
    %kn = tilegpu.memdesc_index %ks, %nslot : <2x64x64xf16, #shared1> -> <64x64xf16, #shared1>
    %kbn = tilegpu.memdesc_index %kb, %nslot : <2x1xi64, #shared2> -> <1xi64, #shared2>
    tile.debug_barrier
    tilegpu.barrier_expect %kbn, %refill {bytes = 8192 : i32} : <1xi64, #shared2>
    tilegpu.async_tma_copy %kmap[%c0, %next], %kn, %kbn, %refill : <64x64xf16, #shared1>, <1xi64, #shared2>
    %vn = tilegpu.memdesc_index %vs, %nslot : <2x64x64xf16, #shared> -> <64x64xf16, #shared>
    %vbn = tilegpu.memdesc_index %vb, %nslot : <2x1xi64, #shared2> -> <1xi64, #shared2>
    tilegpu.barrier_expect %vbn, %refill {bytes = 8192 : i32} : <1xi64, #shared2>
    tilegpu.async_tma_copy %vmap[%next, %c0], %vn, %vbn, %refill : <64x64xf16, #shared>, <1xi64, #shared2>
    scf.yield %o, %lnew, %mnew : tensor<64x64xf32, #mma>, tensor<64xf32, #slice>, tensor<64xf32, #slice>
  }
  return %r#0 : tensor<64x64xf32, #mma>
}

// -----

#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64]}>
#mma1 = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64]}>
#shared = #tilegpu.shared<{vec = 8, perPhase = 4, maxPhase = 2, order = [1, 0]}>
#shared1 = #tilegpu.shared<{vec = 8, perPhase = 4, maxPhase = 2, order = [0, 1]}>
#shared2 = #tilegpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#dot_op = #tilegpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#slice = #tilegpu.slice<{dim = 1, parent = #mma}>
#slice4 = #tilegpu.slice<{dim = 1, parent = #mma1}>

// Head dim 64 again, with tl.range(..., warp_specialize=True): the
// schedule is forced on.
// CHECK-LABEL: func.func @head_dim_64_forced
// CHECK: scf.if
// CHECK: scf.for
// CHECK: tilegpu.warpgroup_dot_wait %{{.*}} {pending = 1 : i32}
// CHECK: tilegpu.warpgroup_dot_wait %{{.*}} {pending = 0 : i32}
// CHECK: return
func.func @head_dim_64_forced(%q: !tilegpu.memdesc<64x64xf16, #shared>, %n: i32, %kmap: !tilegpu.tensormap, %vmap: !tilegpu.tensormap) -> tensor<64x64xf32, #mma> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c64 = arith.constant 64 : i32
  %ninf = arith.constant dense<0xFF800000> : tensor<64xf32, #slice>
  %zeros = arith.constant dense<0.000000e+00> : tensor<64xf32, #slice>
  %acc0 = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
  %s0 = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma1>
  %ks = tilegpu.local_alloc : () -> !tilegpu.memdesc<2x64x64xf16, #shared1>
  %kb = tilegpu.local_alloc : () -> !tilegpu.memdesc<2x1xi64, #shared2>
  %vs = tilegpu.local_alloc : () -> !tilegpu.memdesc<2x64x64xf16, #shared>
  %vb = tilegpu.local_alloc : () -> !tilegpu.memdesc<2x1xi64, #shared2>
  tilegpu.barrier_init %kb : <2x1xi64, #shared2>
  tilegpu.barrier_init %vb : <2x1xi64, #shared2>
  %any = arith.cmpi sgt, %n, %c0 : i32
  %k0 = tilegpu.memdesc_index %ks, %c0 : <2x64x64xf16, #shared1> -> <64x64xf16, #shared1>
  %kb0 = tilegpu.memdesc_index %kb, %c0 : <2x1xi64, #shared2> -> <1xi64, #shared2>
  tilegpu.barrier_expect %kb0, %any {bytes = 8192 : i32} : <1xi64, #shared2>
  tilegpu.async_tma_copy %kmap[%c0, %c0], %k0, %kb0, %any : <64x64xf16, #shared1>, <1xi64, #shared2>
  %v0 = tilegpu.memdesc_index %vs, %c0 : <2x64x64xf16, #shared> -> <64x64xf16, #shared>
  %vb0 = tilegpu.memdesc_index %vb, %c0 : <2x1xi64, #shared2> -> <1xi64, #shared2>
  tilegpu.barrier_expect %vb0, %any {bytes = 8192 : i32} : <1xi64, #shared2>
  tilegpu.async_tma_copy %vmap[%c0, %c0], %v0, %vb0, %any : <64x64xf16, #shared>, <1xi64, #shared2>
  %r:3 = scf.for %j = %c0 to %n step %c64 iter_args(%acc = %acc0, %l = %zeros, %m = %ninf) -> (tensor<64x64xf32, #mma>, tensor<64xf32, #slice>, tensor<64xf32, #slice>) : i32 {
    %more = arith.subi %n, %c64 : i32
    %refill = arith.cmpi slt, %j, %more : i32
    %block = arith.divsi %j, %c64 : i32
    %slot = arith.remsi %block, %c2 : i32
    %round = arith.divsi %block, %c2 : i32
    %phase = arith.andi %round, %c1 : i32
    %kbar = tilegpu.memdesc_index %kb, %slot : <2x1xi64, #shared2> -> <1xi64, #shared2>
    tilegpu.barrier_wait %kbar, %phase : <1xi64, #shared2>
    %k = tilegpu.memdesc_index %ks, %slot : <2x64x64xf16, #shared1> -> <64x64xf16, #shared1>
    %s = tile.dot %q, %k, %s0, tf32 : !tilegpu.memdesc<64x64xf16, #shared>, !tilegpu.memdesc<64x64xf16, #shared1> -> tensor<64x64xf32, #mma1>
    %rowmax = tile.reduce max %s {axis = 1 : i32} : tensor<64x64xf32, #mma1> -> tensor<64xf32, #slice4>
    %rowmax1 = tilegpu.convert_layout %rowmax : tensor<64xf32, #slice4> -> tensor<64xf32, #slice>
    %mnew = arith.maxnumf %m, %rowmax1 : tensor<64xf32, #slice>
    %e = math.exp2 %s : tensor<64x64xf32, #mma1>
    %diff = arith.subf %m, %mnew : tensor<64xf32, #slice>
    %alpha = math.exp2 %diff : tensor<64xf32, #slice>
    %sum = tile.reduce sum %e {axis = 1 : i32} : tensor<64x64xf32, #mma1> -> tensor<64xf32, #slice4>
    %sum1 = tilegpu.convert_layout %sum : tensor<64xf32, #slice4> -> tensor<64xf32, #slice>
    %lscaled = arith.mulf %l, %alpha : tensor<64xf32, #slice>
    %lnew = arith.addf %lscaled, %sum1 : tensor<64xf32, #slice>
    %alpha2 = tile.expand_dims %alpha {axis = 1 : i32} : tensor<64xf32, #slice> -> tensor<64x1xf32, #mma>
    %scale = tile.broadcast %alpha2 : tensor<64x1xf32, #mma> -> tensor<64x64xf32, #mma>
    %rescaled = arith.mulf %acc, %scale : tensor<64x64xf32, #mma>
    %p16 = arith.truncf %e : tensor<64x64xf32, #mma1> to tensor<64x64xf16, #mma1>
    %p = tilegpu.convert_layout %p16 : tensor<64x64xf16, #mma1> -> tensor<64x64xf16, #dot_op>
    %vbar = tilegpu.memdesc_index %vb, %slot : <2x1xi64, #shared2> -> <1xi64, #shared2>
    tilegpu.barrier_wait %vbar, %phase : <1xi64, #shared2>
    %v = tilegpu.memdesc_index %vs, %slot : <2x64x64xf16, #shared> -> <64x64xf16, #shared>
    %o = tile.dot %p, %v, %rescaled, tf32 : tensor<64x64xf16, #dot_op>, !tilegpu.memdesc<64x64xf16, #shared> -> tensor<64x64xf32, #mma>
    %next = arith.addi %j, %c64 : i32
    %nblock = arith.divsi %next, %c64 : i32
    %nslot = arith.remsi %nblock, %c2 : i32
    %kn = tilegpu.memdesc_index %ks, %nslot : <2x64x64xf16, #shared1> -> <64x64xf16, #shared1>
    %kbn = tilegpu.memdesc_index %kb, %nslot : <2x1xi64, #shared2> -> <1xi64, #shared2>
    tile.debug_barrier
    tilegpu.barrier_expect %kbn, %refill {bytes = 8192 : i32} : <1xi64, #shared2>
    tilegpu.async_tma_copy %kmap[%c0, %next], %kn, %kbn, %refill : <64x64xf16, #shared1>, <1xi64, #shared2>
    %vn = tilegpu.memdesc_index %vs, %nslot : <2x64x64xf16, #shared> -> <64x64xf16, #shared>
    %vbn = tilegpu.memdesc_index %vb, %nslot : <2x1xi64, #shared2> -> <1xi64, #shared2>
    tilegpu.barrier_expect %vbn, %refill {bytes = 8192 : i32} : <1xi64, #shared2>
    tilegpu.async_tma_copy %vmap[%next, %c0], %vn, %vbn, %refill : <64x64xf16, #shared>, <1xi64, #shared2>
    scf.yield %o, %lnew, %mnew : tensor<64x64xf32, #mma>, tensor<64xf32, #slice>, tensor<64xf32, #slice>
  } {tile.warp_specialize = true}
  return %r#0 : tensor<64x64xf32, #mma>
}

// -----

#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 128]}>
#mma1 = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64]}>
#shared = #tilegpu.shared<{vec = 8, perPhase = 4, maxPhase = 2, order = [1, 0]}>
#shared1 = #tilegpu.shared<{vec = 8, perPhase = 4, maxPhase = 2, order = [0, 1]}>
#shared2 = #tilegpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#dot_op = #tilegpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#slice = #tilegpu.slice<{dim = 1, parent = #mma}>
#slice4 = #tilegpu.slice<{dim = 1, parent = #mma1}>

// Head dim 128 with tl.range(..., warp_specialize=False): the loop stays.
// CHECK-LABEL: func.func @forced_off
// CHECK-NOT: scf.if
// CHECK: scf.for
// CHECK-NOT: tilegpu.warpgroup_dot_wait
// CHECK: tile.warp_specialize = false
func.func @forced_off(%q: !tilegpu.memdesc<64x128xf16, #shared>, %n: i32, %kmap: !tilegpu.tensormap, %vmap: !tilegpu.tensormap) -> tensor<64x128xf32, #mma> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c64 = arith.constant 64 : i32
  %ninf = arith.constant dense<0xFF800000> : tensor<64xf32, #slice>
  %zeros = arith.constant dense<0.000000e+00> : tensor<64xf32, #slice>
  %acc0 = arith.constant dense<0.000000e+00> : tensor<64x128xf32, #mma>
  %s0 = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma1>
  %ks = tilegpu.local_alloc : () -> !tilegpu.memdesc<2x128x64xf16, #shared1>
  %kb = tilegpu.local_alloc : () -> !tilegpu.memdesc<2x1xi64, #shared2>
  %vs = tilegpu.local_alloc : () -> !tilegpu.memdesc<2x64x128xf16, #shared>
  %vb = tilegpu.local_alloc : () -> !tilegpu.memdesc<2x1xi64, #shared2>
  tilegpu.barrier_init %kb : <2x1xi64, #shared2>
  tilegpu.barrier_init %vb : <2x1xi64, #shared2>
  %any = arith.cmpi sgt, %n, %c0 : i32
  %k0 = tilegpu.memdesc_index %ks, %c0 : <2x128x64xf16, #shared1> -> <128x64xf16, #shared1>
  %kb0 = tilegpu.memdesc_index %kb, %c0 : <2x1xi64, #shared2> -> <1xi64, #shared2>
  tilegpu.barrier_expect %kb0, %any {bytes = 16384 : i32} : <1xi64, #shared2>
  tilegpu.async_tma_copy %kmap[%c0, %c0], %k0, %kb0, %any : <128x64xf16, #shared1>, <1xi64, #shared2>
  %v0 = tilegpu.memdesc_index %vs, %c0 : <2x64x128xf16, #shared> -> <64x128xf16, #shared>
  %vb0 = tilegpu.memdesc_index %vb, %c0 : <2x1xi64, #shared2> -> <1xi64, #shared2>
  tilegpu.barrier_expect %vb0, %any {bytes = 16384 : i32} : <1xi64, #shared2>
  tilegpu.async_tma_copy %vmap[%c0, %c0], %v0, %vb0, %any : <64x128xf16, #shared>, <1xi64, #shared2>
  %r:3 = scf.for %j = %c0 to %n step %c64 iter_args(%acc = %acc0, %l = %zeros, %m = %ninf) -> (tensor<64x128xf32, #mma>, tensor<64xf32, #slice>, tensor<64xf32, #slice>) : i32 {
    %more = arith.subi %n, %c64 : i32
    %refill = arith.cmpi slt, %j, %more : i32
    %block = arith.divsi %j, %c64 : i32
    %slot = arith.remsi %block, %c2 : i32
    %round = arith.divsi %block, %c2 : i32
    %phase = arith.andi %round, %c1 : i32
    %kbar = tilegpu.memdesc_index %kb, %slot : <2x1xi64, #shared2> -> <1xi64, #shared2>
    tilegpu.barrier_wait %kbar, %phase : <1xi64, #shared2>
    %k = tilegpu.memdesc_index %ks, %slot : <2x128x64xf16, #shared1> -> <128x64xf16, #shared1>
    %s = tile.dot %q, %k, %s0, tf32 : !tilegpu.memdesc<64x128xf16, #shared>, !tilegpu.memdesc<128x64xf16, #shared1> -> tensor<64x64xf32, #mma1>
    %rowmax = tile.reduce max %s {axis = 1 : i32} : tensor<64x64xf32, #mma1> -> tensor<64xf32, #slice4>
    %rowmax1 = tilegpu.convert_layout %rowmax : tensor<64xf32, #slice4> -> tensor<64xf32, #slice>
    %mnew = arith.maxnumf %m, %rowmax1 : tensor<64xf32, #slice>
    %e = math.exp2 %s : tensor<64x64xf32, #mma1>
    %diff = arith.subf %m, %mnew : tensor<64xf32, #slice>
    %alpha = math.exp2 %diff : tensor<64xf32, #slice>
    %sum = tile.reduce sum %e {axis = 1 : i32} : tensor<64x64xf32, #mma1> -> tensor<64xf32, #slice4>
    %sum1 = tilegpu.convert_layout %sum : tensor<64xf32, #slice4> -> tensor<64xf32, #slice>
    %lscaled = arith.mulf %l, %alpha : tensor<64xf32, #slice>
    %lnew = arith.addf %lscaled, %sum1 : tensor<64xf32, #slice>
    %alpha2 = tile.expand_dims %alpha {axis = 1 : i32} : tensor<64xf32, #slice> -> tensor<64x1xf32, #mma>
    %scale = tile.broadcast %alpha2 : tensor<64x1xf32, #mma> -> tensor<64x128xf32, #mma>
    %rescaled = arith.mulf %acc, %scale : tensor<64x128xf32, #mma>
    %p16 = arith.truncf %e : tensor<64x64xf32, #mma1> to tensor<64x64xf16, #mma1>
    %p = tilegpu.convert_layout %p16 : tensor<64x64xf16, #mma1> -> tensor<64x64xf16, #dot_op>
    %vbar = tilegpu.memdesc_index %vb, %slot : <2x1xi64, #shared2> -> <1xi64, #shared2>
    tilegpu.barrier_wait %vbar, %phase : <1xi64, #shared2>
    %v = tilegpu.memdesc_index %vs, %slot : <2x64x128xf16, #shared> -> <64x128xf16, #shared>
    %o = tile.dot %p, %v, %rescaled, tf32 : tensor<64x64xf16, #dot_op>, !tilegpu.memdesc<64x128xf16, #shared> -> tensor<64x128xf32, #mma>
    %next = arith.addi %j, %c64 : i32
    %nblock = arith.divsi %next, %c64 : i32
    %nslot = arith.remsi %nblock, %c2 : i32
    %kn = tilegpu.memdesc_index %ks, %nslot : <2x128x64xf16, #shared1> -> <128x64xf16, #shared1>
    %kbn = tilegpu.memdesc_index %kb, %nslot : <2x1xi64, #shared2> -> <1xi64, #shared2>
    tile.debug_barrier
    tilegpu.barrier_expect %kbn, %refill {bytes = 16384 : i32} : <1xi64, #shared2>
    tilegpu.async_tma_copy %kmap[%c0, %next], %kn, %kbn, %refill : <128x64xf16, #shared1>, <1xi64, #shared2>
    %vn = tilegpu.memdesc_index %vs, %nslot : <2x64x128xf16, #shared> -> <64x128xf16, #shared>
    %vbn = tilegpu.memdesc_index %vb, %nslot : <2x1xi64, #shared2> -> <1xi64, #shared2>
    tilegpu.barrier_expect %vbn, %refill {bytes = 16384 : i32} : <1xi64, #shared2>
    tilegpu.async_tma_copy %vmap[%next, %c0], %vn, %vbn, %refill : <64x128xf16, #shared>, <1xi64, #shared2>
    scf.yield %o, %lnew, %mnew : tensor<64x128xf32, #mma>, tensor<64xf32, #slice>, tensor<64xf32, #slice>
  } {tile.warp_specialize = false}
  return %r#0 : tensor<64x128xf32, #mma>
}

// -----

#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 128]}>
#mma1 = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64]}>
#shared = #tilegpu.shared<{vec = 8, perPhase = 4, maxPhase = 2, order = [1, 0]}>
#shared1 = #tilegpu.shared<{vec = 8, perPhase = 4, maxPhase = 2, order = [0, 1]}>
#blocked = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [16, 2], warpsPerCTA = [4, 1], order = [1, 0]}>
#dot_op = #tilegpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>

// V stored to shared memory by the loop itself, not copied into a ring:
// the next iteration would overwrite what a late P V reads. The loop
// stays as it is.
// CHECK-LABEL: func.func @stored_operand
// CHECK-NOT: scf.if
// CHECK: scf.for
// CHECK-NOT: tilegpu.warpgroup_dot_wait
func.func @stored_operand(%q: !tilegpu.memdesc<64x128xf16, #shared>, %k: !tilegpu.memdesc<128x64xf16, #shared1>, %v: tensor<64x128xf16, #blocked>, %n: i32) -> tensor<64x128xf32, #mma> {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %acc0 = arith.constant dense<0.000000e+00> : tensor<64x128xf32, #mma>
  %s0 = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma1>
  %r = scf.for %j = %c0 to %n step %c64 iter_args(%acc = %acc0) -> (tensor<64x128xf32, #mma>) : i32 {
    %s = tile.dot %q, %k, %s0, tf32 : !tilegpu.memdesc<64x128xf16, #shared>, !tilegpu.memdesc<128x64xf16, #shared1> -> tensor<64x64xf32, #mma1>
    %e = math.exp2 %s : tensor<64x64xf32, #mma1>
    %p16 = arith.truncf %e : tensor<64x64xf32, #mma1> to tensor<64x64xf16, #mma1>
    %p = tilegpu.convert_layout %p16 : tensor<64x64xf16, #mma1> -> tensor<64x64xf16, #dot_op>
    %vbuf = tilegpu.local_alloc %v : (tensor<64x128xf16, #blocked>) -> !tilegpu.memdesc<64x128xf16, #shared>
    %o = tile.dot %p, %vbuf, %acc, tf32 : tensor<64x64xf16, #dot_op>, !tilegpu.memdesc<64x128xf16, #shared> -> tensor<64x128xf32, #mma>
    scf.yield %o : tensor<64x128xf32, #mma>
  }
  return %r : tensor<64x128xf32, #mma>
}

// -----

#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [8, 1], instrShape = [64, 128]}>
#mma1 = #tilegpu.mma<{version = 3, warpsPerCTA = [8, 1], instrShape = [64, 64]}>
#shared = #tilegpu.shared<{vec = 8, perPhase = 4, maxPhase = 2, order = [1, 0]}>
#shared1 = #tilegpu.shared<{vec = 8, perPhase = 4, maxPhase = 2, order = [0, 1]}>
#shared2 = #tilegpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#dot_op = #tilegpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#slice = #tilegpu.slice<{dim = 1, parent = #mma}>
#slice4 = #tilegpu.slice<{dim = 1, parent = #mma1}>

// The loop as tilegpu-pipeline warp-specializes it for two consumer
// warpgroups (8 warps): a producer fills the rings (its waits for free
// slots cut here), and the consumers
// release an iteration's slots on %empty after its P V. The release moves
// with P V: it runs once P V is waited for, with the slot of iteration
// j - 64. The warpgroups take turns issuing their dots: the first turn
// (S of the first iteration) is warpgroup 0's without a wait, each later
// one waits, S_j and P V of j - 64 are issued between the wait and the
// pass (the first S waited for after its pass), and the last (the last
// P V) passes to none.
// CHECK-LABEL: func.func @turns
// CHECK: producer {
// CHECK-NOT: tilegpu.warpgroup_turn
// CHECK: } consumer {
// CHECK: scf.if
// CHECK: tilegpu.warpgroup_turn_wait {not_first}
// CHECK-NEXT: %[[S0:.*]] = tile.dot
// CHECK-NEXT: tilegpu.warpgroup_turn_pass{{$}}
// CHECK-NEXT: tilegpu.warpgroup_dot_wait %[[S0]] {pending = 0 : i32}
// CHECK-NOT: tilegpu.barrier_arrive
// CHECK: scf.for %[[J:[^ ]*]] = %{{.*}} to
// CHECK: tilegpu.barrier_wait
// CHECK: tilegpu.warpgroup_turn_wait{{$}}
// CHECK-NEXT: %[[S:.*]] = tile.dot
// CHECK: %[[PREV:.*]] = arith.subi %[[J]], %c64_i32
// CHECK: %[[BLOCK:.*]] = arith.divsi %[[PREV]], %c64_i32
// CHECK: %[[SLOT:.*]] = arith.remsi %[[BLOCK]], %c2_i32
// CHECK: %[[PV:.*]] = tile.dot
// CHECK: %[[FREE:.*]] = tilegpu.memdesc_index %{{.*}}, %[[SLOT]]
// CHECK: tilegpu.warpgroup_turn_pass{{$}}
// CHECK-NEXT: tilegpu.warpgroup_dot_wait %[[S]] {pending = 1 : i32}
// CHECK: tilegpu.warpgroup_dot_wait %[[PV]] {pending = 0 : i32}
// CHECK-NEXT: tilegpu.barrier_arrive %[[FREE]]
// CHECK: arith.truncf
// CHECK: scf.yield
// CHECK: tilegpu.warpgroup_turn_wait{{$}}
// CHECK: %[[LAST:.*]] = tile.dot
// CHECK: tilegpu.warpgroup_turn_pass {not_last}
// CHECK-NEXT: tilegpu.warpgroup_dot_wait %[[LAST]] {pending = 0 : i32}
// CHECK-NEXT: tilegpu.barrier_arrive
// CHECK-NOT: tilegpu.warpgroup_turn
// CHECK: tile.store
module attributes {tilegpu.num_warps = 8 : i32} {
func.func @turns(%q: !tilegpu.memdesc<128x128xf16, #shared>, %n: i32, %kmap: !tilegpu.tensormap, %vmap: !tilegpu.tensormap, %out: !tile.ptr<f32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c64 = arith.constant 64 : i32
  %ninf = arith.constant dense<0xFF800000> : tensor<128xf32, #slice>
  %zeros = arith.constant dense<0.000000e+00> : tensor<128xf32, #slice>
  %acc0 = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #mma>
  %s0 = arith.constant dense<0.000000e+00> : tensor<128x64xf32, #mma1>
  %ks = tilegpu.local_alloc : () -> !tilegpu.memdesc<2x128x64xf16, #shared1>
  %kb = tilegpu.local_alloc : () -> !tilegpu.memdesc<2x1xi64, #shared2>
  %vs = tilegpu.local_alloc : () -> !tilegpu.memdesc<2x64x128xf16, #shared>
  %vb = tilegpu.local_alloc : () -> !tilegpu.memdesc<2x1xi64, #shared2>
  %empty = tilegpu.local_alloc : () -> !tilegpu.memdesc<2x1xi64, #shared2>
  tilegpu.warp_specialize attributes {consumer_registers = 0 : i32, producer_registers = 0 : i32, producer_warps = 4 : i32} producer {
    scf.for %i = %c0 to %n step %c64 : i32 {
      %block = arith.divsi %i, %c64 : i32
      %slot = arith.remsi %block, %c2 : i32
      %kn = tilegpu.memdesc_index %ks, %slot : <2x128x64xf16, #shared1> -> <128x64xf16, #shared1>
      %kbn = tilegpu.memdesc_index %kb, %slot : <2x1xi64, #shared2> -> <1xi64, #shared2>
      tilegpu.barrier_expect %kbn {bytes = 16384 : i32} : <1xi64, #shared2>
      tilegpu.async_tma_copy %kmap[%c0, %i], %kn, %kbn : <128x64xf16, #shared1>, <1xi64, #shared2>
      %vn = tilegpu.memdesc_index %vs, %slot : <2x64x128xf16, #shared> -> <64x128xf16, #shared>
      %vbn = tilegpu.memdesc_index %vb, %slot : <2x1xi64, #shared2> -> <1xi64, #shared2>
      tilegpu.barrier_expect %vbn {bytes = 16384 : i32} : <1xi64, #shared2>
      tilegpu.async_tma_copy %vmap[%i, %c0], %vn, %vbn : <64x128xf16, #shared>, <1xi64, #shared2>
    }
    tilegpu.warp_yield
  } consumer {
    %r:3 = scf.for %j = %c0 to %n step %c64 iter_args(%acc = %acc0, %l = %zeros, %m = %ninf) -> (tensor<128x128xf32, #mma>, tensor<128xf32, #slice>, tensor<128xf32, #slice>) : i32 {
      %block = arith.divsi %j, %c64 : i32
      %slot = arith.remsi %block, %c2 : i32
      %round = arith.divsi %block, %c2 : i32
      %phase = arith.andi %round, %c1 : i32
      %kbar = tilegpu.memdesc_index %kb, %slot : <2x1xi64, #shared2> -> <1xi64, #shared2>
      tilegpu.barrier_wait %kbar, %phase : <1xi64, #shared2>
      %k = tilegpu.memdesc_index %ks, %slot : <2x128x64xf16, #shared1> -> <128x64xf16, #shared1>
      %s = tile.dot %q, %k, %s0, tf32 : !tilegpu.memdesc<128x128xf16, #shared>, !tilegpu.memdesc<128x64xf16, #shared1> -> tensor<128x64xf32, #mma1>
      %rowmax = tile.reduce max %s {axis = 1 : i32} : tensor<128x64xf32, #mma1> -> tensor<128xf32, #slice4>
      %rowmax1 = tilegpu.convert_layout %rowmax : tensor<128xf32, #slice4> -> tensor<128xf32, #slice>
      %mnew = arith.maxnumf %m, %rowmax1 : tensor<128xf32, #slice>
      %e = math.exp2 %s : tensor<128x64xf32, #mma1>
      %diff = arith.subf %m, %mnew : tensor<128xf32, #slice>
      %alpha = math.exp2 %diff : tensor<128xf32, #slice>
      %sum = tile.reduce sum %e {axis = 1 : i32} : tensor<128x64xf32, #mma1> -> tensor<128xf32, #slice4>
      %sum1 = tilegpu.convert_layout %sum : tensor<128xf32, #slice4> -> tensor<128xf32, #slice>
      %lscaled = arith.mulf %l, %alpha : tensor<128xf32, #slice>
      %lnew = arith.addf %lscaled, %sum1 : tensor<128xf32, #slice>
      %alpha2 = tile.expand_dims %alpha {axis = 1 : i32} : tensor<128xf32, #slice> -> tensor<128x1xf32, #mma>
      %scale = tile.broadcast %alpha2 : tensor<128x1xf32, #mma> -> tensor<128x128xf32, #mma>
      %rescaled = arith.mulf %acc, %scale : tensor<128x128xf32, #mma>
      %p16 = arith.truncf %e : tensor<128x64xf32, #mma1> to tensor<128x64xf16, #mma1>
      %p = tilegpu.convert_layout %p16 : tensor<128x64xf16, #mma1> -> tensor<128x64xf16, #dot_op>
      %vbar = tilegpu.memdesc_index %vb, %slot : <2x1xi64, #shared2> -> <1xi64, #shared2>
      tilegpu.barrier_wait %vbar, %phase : <1xi64, #shared2>
      %v = tilegpu.memdesc_index %vs, %slot : <2x64x128xf16, #shared> -> <64x128xf16, #shared>
      %o = tile.dot %p, %v, %rescaled, tf32 : tensor<128x64xf16, #dot_op>, !tilegpu.memdesc<64x128xf16, #shared> -> tensor<128x128xf32, #mma>
      %free = tilegpu.memdesc_index %empty, %slot : <2x1xi64, #shared2> -> <1xi64, #shared2>
      tilegpu.barrier_arrive %free : <1xi64, #shared2>
      scf.yield %o, %lnew, %mnew : tensor<128x128xf32, #mma>, tensor<128xf32, #slice>, tensor<128xf32, #slice>
    }
    %first = tile.splat %out : tensor<128x128x!tile.ptr<f32>, #mma>
    tile.store %first, %r#0 : tensor<128x128x!tile.ptr<f32>, #mma>
    tilegpu.warp_yield
  }
  return
}
}
