// RUN: tile-opt %s -split-input-file --convert-tilegpu-to-nvvm | FileCheck %s

// Every thread owns its one element: the predicate is the mask alone, and
// the old value is the atomic's result, without shared memory. acq_rel is
// a relaxed atom, then a fence for the store that follows; no fence before
// it, where no access to global memory precedes.
// CHECK-LABEL: module attributes {tilegpu.num_warps = 4 : i32} {
// CHECK-LABEL: llvm.func @owned_tile(
// CHECK-SAME: %{{.*}}: !llvm.ptr<1>, %[[V:.*]]: f32, %[[M:.*]]: i1)
// CHECK-NOT: llvm.fence
// CHECK: %[[VI:.*]] = llvm.bitcast %[[V]] : f32 to i32
// CHECK-NEXT: %[[OLD:.*]] = llvm.inline_asm has_side_effects asm_dialect = att "mov.b32 $0, 0;\0A\09@$3 atom.relaxed.gpu.global.add.f32 $0, [ $1 + 0 ], $2;", "=r,l,r,b" %{{.*}}, %[[VI]], %[[M]] : (!llvm.ptr<1>, i32, i1) -> i32
// CHECK-NEXT: %[[OLDF:.*]] = llvm.bitcast %[[OLD]] : i32 to f32
// CHECK-NEXT: llvm.fence syncscope("device") acq_rel
// CHECK-NOT: nvvm.barrier0
// CHECK: %[[W:.*]] = llvm.bitcast %[[OLDF]] : f32 to i32
// CHECK: st.global.b32{{.*}}%[[W]]
#v1 = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tilegpu.num_warps = 4 : i32} {
  func.func @owned_tile(%p: !tile.ptr<f32>, %v: tensor<128xf32, #v1>, %m: tensor<128xi1, #v1>) {
    %r = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32, #v1>
    %ps = tile.splat %p : tensor<128x!tile.ptr<f32>, #v1>
    %pp = tile.addptr %ps, %r : tensor<128x!tile.ptr<f32>, #v1>, tensor<128xi32, #v1>
    %old = tile.atomic_rmw add, acq_rel, gpu, %pp, %v, %m : tensor<128x!tile.ptr<f32>, #v1>
    tile.store %pp, %old : tensor<128x!tile.ptr<f32>, #v1>
    return
  }
}

// -----

// 64 elements over 128 threads: warps 2 and 3 hold copies of warps 0 and
// 1 (the second warp-id bit moves nowhere). Each element is added once, by
// the warp with that bit clear, and only where the mask is true; the
// owners' old values reach the copies through shared memory (64 x 4 bytes).
// CHECK-LABEL: module attributes {tilegpu.num_warps = 4 : i32, tilegpu.shared_bytes = 256 : i32}
// CHECK-LABEL: llvm.func @replicated_tile(
// CHECK-SAME: %[[M:arg3]]: i1)
// CHECK: %[[C2:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT: %[[BIT:.*]] = llvm.and %{{.*}}, %[[C2]] : i32
// CHECK-NEXT: %[[ZERO:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: %[[OWN:.*]] = llvm.icmp "eq" %[[BIT]], %[[ZERO]] : i32
// CHECK-NEXT: %[[PRED:.*]] = llvm.and %[[M]], %[[OWN]] : i1
// CHECK-NEXT: %[[OLD:.*]] = llvm.inline_asm has_side_effects asm_dialect = att "mov.b32 $0, 0;\0A\09@$3 atom.relaxed.gpu.global.add.u32 $0, [ $1 + 0 ], $2;", "=r,l,r,b" %{{.*}}, %{{.*}}, %[[PRED]]
// CHECK-NOT: atom.
// CHECK: %[[BASE:.*]] = llvm.mlir.addressof @global_smem : !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: %[[SLOT:.*]] = llvm.getelementptr %[[BASE]][%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i32
// CHECK: %[[ADDR:.*]] = llvm.ptrtoint %[[SLOT]] : !llvm.ptr<3> to i64
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "@$2 st.shared.b32 [ $0 + 0 ], $1;", "l,r,b" %[[ADDR]], %[[OLD]], %[[OWN]]
// CHECK-NEXT: nvvm.barrier0
// CHECK-NEXT: %[[SLOT2:.*]] = llvm.getelementptr %[[BASE]][%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i32
// CHECK-NEXT: %[[SHARED:.*]] = llvm.load %[[SLOT2]] : !llvm.ptr<3> -> i32
// CHECK: st.global.b32{{.*}}%[[SHARED]]
#v1 = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tilegpu.num_warps = 4 : i32} {
  func.func @replicated_tile(%p: !tile.ptr<i32>, %q: !tile.ptr<i32>, %v: tensor<64xi32, #v1>, %m: tensor<64xi1, #v1>) {
    %r = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32, #v1>
    %ps = tile.splat %p : tensor<64x!tile.ptr<i32>, #v1>
    %pp = tile.addptr %ps, %r : tensor<64x!tile.ptr<i32>, #v1>, tensor<64xi32, #v1>
    %old = tile.atomic_rmw add, relaxed, gpu, %pp, %v, %m : tensor<64x!tile.ptr<i32>, #v1>
    %qs = tile.splat %q : tensor<64x!tile.ptr<i32>, #v1>
    %qp = tile.addptr %qs, %r : tensor<64x!tile.ptr<i32>, #v1>, tensor<64xi32, #v1>
    tile.store %qp, %old : tensor<64x!tile.ptr<i32>, #v1>
    return
  }
}

// -----

// Copies do not add, but with the old values unused nothing is shared,
// and the add is a `red`, which returns nothing. No access to global memory
// precedes or follows the atomic: acq_rel needs no fence.
// CHECK-LABEL: module attributes {tilegpu.num_warps = 4 : i32} {
// CHECK-LABEL: llvm.func @replicated_unused(
// CHECK-NOT: llvm.fence
// CHECK: %[[OWN:.*]] = llvm.icmp "eq"
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "@$2 red.relaxed.gpu.global.add.noftz.f16 [ $0 + 0 ], $1;", "l,h,b" %{{.*}}, %{{.*}}, %[[OWN]] : (!llvm.ptr<1>, i16, i1) -> !llvm.void
// CHECK-NOT: nvvm.barrier0
// CHECK-NOT: llvm.fence
// CHECK: llvm.return
#v1 = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tilegpu.num_warps = 4 : i32} {
  func.func @replicated_unused(%p: !tile.ptr<f16>, %v: tensor<64xf16, #v1>) {
    %r = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32, #v1>
    %ps = tile.splat %p : tensor<64x!tile.ptr<f16>, #v1>
    %pp = tile.addptr %ps, %r : tensor<64x!tile.ptr<f16>, #v1>, tensor<64xi32, #v1>
    %old = tile.atomic_rmw add, acq_rel, gpu, %pp, %v : tensor<64x!tile.ptr<f16>, #v1>
    return
  }
}

// -----

// A scalar atomic is one per program: thread 0's. Its old value reaches the
// other threads through 4 bytes of shared memory.
// CHECK-LABEL: module attributes {tilegpu.num_warps = 4 : i32, tilegpu.shared_bytes = 4 : i32}
// CHECK-LABEL: llvm.func @scalar(
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK: %[[C0:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK: %[[FIRST:.*]] = llvm.icmp "eq" %[[TID]], %[[C0]] : i32
// CHECK-NOT: llvm.fence
// CHECK: %[[OLD:.*]] = llvm.inline_asm {{.*}}atom.relaxed.gpu.global.add.f32 {{.*}}, %[[FIRST]] : (!llvm.ptr<1>, i32, i1) -> i32
// CHECK: llvm.fence syncscope("device") acq_rel
// CHECK-NOT: atom.
// CHECK: %[[BASE:.*]] = llvm.mlir.addressof @global_smem : !llvm.ptr<3>
// CHECK-NEXT: nvvm.barrier0
// CHECK-NEXT: %[[OLDI:.*]] = llvm.bitcast %{{.*}} : f32 to i32
// CHECK-NEXT: %[[ADDR:.*]] = llvm.ptrtoint %[[BASE]] : !llvm.ptr<3> to i64
// CHECK-NEXT: llvm.inline_asm has_side_effects asm_dialect = att "@$2 st.shared.b32 [ $0 + 0 ], $1;", "l,r,b" %[[ADDR]], %[[OLDI]], %[[FIRST]]
// CHECK-NEXT: nvvm.barrier0
// CHECK-NEXT: %[[SHARED:.*]] = llvm.load %[[BASE]] : !llvm.ptr<3> -> f32
// CHECK-NOT: atom.
// CHECK: %[[W:.*]] = llvm.bitcast %[[SHARED]] : f32 to i32
// CHECK: st.global.b32{{.*}}%[[W]]
module attributes {tilegpu.num_warps = 4 : i32} {
  func.func @scalar(%p: !tile.ptr<f32>, %q: !tile.ptr<f32>, %v: f32) {
    %old = tile.atomic_rmw add, acq_rel, gpu, %p, %v : !tile.ptr<f32>
    tile.store %q, %old : !tile.ptr<f32>
    return
  }
}

// -----

// A slice of a 2-D layout replicates along the sliced dimension: only the
// lanes whose bits along it are clear add (lane & 3 == 0). bf16 adds with a
// CAS loop on sm_80, which has no atom.add.bf16.
// CHECK-LABEL: llvm.func @sliced(
// CHECK: %[[C3:.*]] = llvm.mlir.constant(3 : i32) : i32
// CHECK-NEXT: %[[BITS:.*]] = llvm.and %{{.*}}, %[[C3]] : i32
// CHECK-NEXT: %[[ZERO:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: %[[OWN:.*]] = llvm.icmp "eq" %[[BITS]], %[[ZERO]] : i32
// CHECK-NEXT: llvm.bitcast %{{.*}} : bf16 to i16
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "mov.b16 $0, 0;{{.*}}@!$3 bra atom_done_${:uid};{{.*}}atom.relaxed.gpu.global.cas.b16 $0, [ $1 + 0 ], %atom_cur, %atom_new;{{.*}}@%atom_retry bra atom_retry_${:uid};{{.*}}", "=h,l,h,b" %{{.*}}, %{{.*}}, %[[OWN]] : (!llvm.ptr<1>, i16, i1) -> i16
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.return
#b2 = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#rows = #tilegpu.slice<{dim = 1, parent = #b2}>
module attributes {tilegpu.compute_capability = 80 : i32, tilegpu.num_warps = 4 : i32} {
  func.func @sliced(%p: !tile.ptr<bf16>, %v: tensor<32xbf16, #rows>) {
    %r = tile.make_range {start = 0 : i32, end = 32 : i32} : tensor<32xi32, #rows>
    %ps = tile.splat %p : tensor<32x!tile.ptr<bf16>, #rows>
    %pp = tile.addptr %ps, %r : tensor<32x!tile.ptr<bf16>, #rows>, tensor<32xi32, #rows>
    %old = tile.atomic_rmw add, acq_rel, gpu, %pp, %v : tensor<32x!tile.ptr<bf16>, #rows>
    return
  }
}

// -----

// sm_90 adds up to 16 bytes in one atom: 4 f32 (a thread's 4 contiguous
// elements, one instruction instead of 4), 8 f16, and bf16 natively; as
// `red`s where the old values are unused. The f32 tile's old values are
// stored, so an acquire fence follows its atoms.
// CHECK-LABEL: llvm.func @vectors(
// CHECK-NOT: llvm.fence
// CHECK: "mov.b32 $0, 0;{{.*}}mov.b32 $3, 0;\0A\09@$9 atom.relaxed.gpu.global.add.v4.f32 { $0, $1, $2, $3 }, [ $4 + 0 ], { $5, $6, $7, $8 };", "=r,=r,=r,=r,l,r,r,r,r,b"
// CHECK-NOT: atom.
// CHECK: llvm.fence syncscope("device") acq_rel
// CHECK-NOT: atom.
// CHECK: "@$9 red.relaxed.gpu.global.add.noftz.v8.f16 [ $0 + 0 ], { $1, $2, $3, $4, $5, $6, $7, $8 };", "l,h,h,h,h,h,h,h,h,b"
// CHECK-NOT: atom.
// CHECK: llvm.fence syncscope("device") acq_rel
// CHECK: "@$2 red.relaxed.gpu.global.add.noftz.bf16 [ $0 + 0 ], $1;", "l,h,b"
// CHECK: llvm.fence syncscope("device") acq_rel
// CHECK-NOT: atom.cas
// CHECK: st.global.v4.b32
#v4 = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#v8 = #tilegpu.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#rows90 = #tilegpu.slice<{dim = 1, parent = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>}>
module attributes {tilegpu.compute_capability = 90 : i32, tilegpu.num_warps = 4 : i32} {
  func.func @vectors(%p: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %v: tensor<512xf32, #v4>,
                     %h: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %w: tensor<1024xf16, #v8>,
                     %b: !tile.ptr<bf16>, %x: tensor<32xbf16, #rows90>) {
    %r = tile.make_range {start = 0 : i32, end = 512 : i32} : tensor<512xi32, #v4>
    %ps = tile.splat %p : tensor<512x!tile.ptr<f32>, #v4>
    %pp = tile.addptr %ps, %r : tensor<512x!tile.ptr<f32>, #v4>, tensor<512xi32, #v4>
    %old = tile.atomic_rmw add, acq_rel, gpu, %pp, %v : tensor<512x!tile.ptr<f32>, #v4>
    %rh = tile.make_range {start = 0 : i32, end = 1024 : i32} : tensor<1024xi32, #v8>
    %hs = tile.splat %h : tensor<1024x!tile.ptr<f16>, #v8>
    %hp = tile.addptr %hs, %rh : tensor<1024x!tile.ptr<f16>, #v8>, tensor<1024xi32, #v8>
    %oldh = tile.atomic_rmw add, relaxed, gpu, %hp, %w : tensor<1024x!tile.ptr<f16>, #v8>
    %rb = tile.make_range {start = 0 : i32, end = 32 : i32} : tensor<32xi32, #rows90>
    %bs = tile.splat %b : tensor<32x!tile.ptr<bf16>, #rows90>
    %bp = tile.addptr %bs, %rb : tensor<32x!tile.ptr<bf16>, #rows90>, tensor<32xi32, #rows90>
    %oldb = tile.atomic_rmw add, acq_rel, gpu, %bp, %x : tensor<32x!tile.ptr<bf16>, #rows90>
    tile.store %pp, %old : tensor<512x!tile.ptr<f32>, #v4>
    return
  }
}

// -----

// The same f32 tile on sm_80, read before: one red per element, the 4 of
// them after one release fence, and no acquire fence (nothing follows).
// CHECK-LABEL: llvm.func @no_vectors(
// CHECK: ld.global
// CHECK: llvm.fence syncscope("device") acq_rel
// CHECK-NOT: llvm.fence
// CHECK-COUNT-4: red.relaxed.gpu.global.add.f32 [ $0 + 0 ], $1
// CHECK-NOT: atom.
// CHECK-NOT: llvm.fence
// CHECK: llvm.return
#v4 = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tilegpu.compute_capability = 80 : i32, tilegpu.num_warps = 4 : i32} {
  func.func @no_vectors(%p: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %v: tensor<512xf32, #v4>) {
    %r = tile.make_range {start = 0 : i32, end = 512 : i32} : tensor<512xi32, #v4>
    %ps = tile.splat %p : tensor<512x!tile.ptr<f32>, #v4>
    %pp = tile.addptr %ps, %r : tensor<512x!tile.ptr<f32>, #v4>, tensor<512xi32, #v4>
    %x = tile.load %pp : tensor<512x!tile.ptr<f32>, #v4>
    %y = arith.addf %x, %v : tensor<512xf32, #v4>
    %old = tile.atomic_rmw add, acq_rel, gpu, %pp, %y : tensor<512x!tile.ptr<f32>, #v4>
    return
  }
}

// -----

// The rest of the family. A float max is two predicated integer atoms on
// the bits: signed max where the value's sign bit is clear, unsigned min
// where it is set. and/xchg are atom.and/atom.exch on the bits; a
// compare-and-swap is atom.cas, by thread 0 for a scalar pointer. Fences
// follow each atomic's order where it has accesses to order: none before
// the first, none for relaxed, none after the last.
// CHECK-LABEL: llvm.func @family(
// CHECK-NOT: llvm.fence
// CHECK: %[[BITS:.*]] = llvm.bitcast %{{.*}} : f32 to i32
// CHECK: %[[NEG:.*]] = llvm.icmp "slt" %[[BITS]], %{{.*}} : i32
// CHECK: %[[POS:.*]] = llvm.xor %[[NEG]], %{{.*}} : i1
// CHECK: %[[P1:.*]] = llvm.and %{{.*}}, %[[POS]] : i1
// CHECK: %[[P2:.*]] = llvm.and %{{.*}}, %[[NEG]] : i1
// CHECK: "mov.b32 $0, 0;\0A\09@$3 atom.relaxed.gpu.global.max.s32 $0, [ $1 + 0 ], $2;\0A\09@$4 atom.relaxed.gpu.global.min.u32 $0, [ $1 + 0 ], $2;", "=r,l,r,b,b" %{{.*}}, %[[BITS]], %[[P1]], %[[P2]]
// CHECK: llvm.fence syncscope("device") acq_rel
// CHECK-NOT: llvm.fence
// CHECK: "mov.b32 $0, 0;\0A\09@$3 atom.relaxed.gpu.global.and.b32 $0, [ $1 + 0 ], $2;", "=r,l,r,b"
// CHECK: llvm.fence syncscope("device") acq_rel
// CHECK: "mov.b32 $0, 0;\0A\09@$3 atom.relaxed.gpu.global.exch.b32 $0, [ $1 + 0 ], $2;", "=r,l,r,b"
// CHECK: llvm.fence syncscope("device") acq_rel
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK: %[[T0:.*]] = llvm.icmp "eq" %[[TID]], %{{.*}} : i32
// CHECK-NOT: llvm.fence
// CHECK: "mov.b32 $0, 0;\0A\09@$4 atom.relaxed.gpu.global.cas.b32 $0, [ $1 + 0 ], $2, $3;", "=r,l,r,r,b" %arg4, %{{.*}}, %{{.*}}, %[[T0]]
// CHECK-NOT: llvm.fence
// CHECK: llvm.return
#v1 = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tilegpu.num_warps = 4 : i32} {
  func.func @family(%p: !tile.ptr<f32>, %q: !tile.ptr<i32>, %v: tensor<128xf32, #v1>, %w: tensor<128xi32, #v1>, %lock: !tile.ptr<i32>) {
    %r = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32, #v1>
    %ps = tile.splat %p : tensor<128x!tile.ptr<f32>, #v1>
    %pp = tile.addptr %ps, %r : tensor<128x!tile.ptr<f32>, #v1>, tensor<128xi32, #v1>
    %qs = tile.splat %q : tensor<128x!tile.ptr<i32>, #v1>
    %qp = tile.addptr %qs, %r : tensor<128x!tile.ptr<i32>, #v1>, tensor<128xi32, #v1>
    %a = tile.atomic_rmw max, acq_rel, gpu, %pp, %v : tensor<128x!tile.ptr<f32>, #v1>
    %b = tile.atomic_rmw and, relaxed, gpu, %qp, %w : tensor<128x!tile.ptr<i32>, #v1>
    %c = tile.atomic_rmw xchg, acq_rel, gpu, %pp, %v : tensor<128x!tile.ptr<f32>, #v1>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %d = tile.atomic_cas acquire, gpu, %lock, %c0, %c1 : !tile.ptr<i32>
    return
  }
}

// -----

// In a loop an atomic precedes and follows itself: both fences, though
// nothing else touches memory.
// CHECK-LABEL: llvm.func @in_loop(
// CHECK: llvm.fence syncscope("block") acq_rel
// CHECK: llvm.bitcast
// CHECK-NEXT: llvm.inline_asm {{.*}}red.relaxed.cta.global.add.f32
// CHECK-NOT: llvm.inline_asm
// CHECK: llvm.fence syncscope("block") acq_rel
#v1 = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tilegpu.num_warps = 4 : i32} {
  func.func @in_loop(%p: !tile.ptr<f32>, %v: tensor<128xf32, #v1>, %n: i32) {
    %r = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32, #v1>
    %ps = tile.splat %p : tensor<128x!tile.ptr<f32>, #v1>
    %pp = tile.addptr %ps, %r : tensor<128x!tile.ptr<f32>, #v1>, tensor<128xi32, #v1>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    scf.for %i = %c0 to %n step %c1 : i32 {
      %old = tile.atomic_rmw add, acq_rel, cta, %pp, %v : tensor<128x!tile.ptr<f32>, #v1>
    }
    return
  }
}
