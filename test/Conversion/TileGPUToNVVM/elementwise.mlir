// RUN: tile-opt %s -split-input-file --convert-tilegpu-to-nvvm | FileCheck %s

// A 256-element tensor over 128 threads with sizePerThread = 1: each thread
// holds elements tid and tid + 128, and each arith/math op on the tensor
// becomes exactly two scalar LLVM ops.
// CHECK-LABEL: llvm.func @elementwise(
// CHECK-SAME: %[[X:.*]]: !llvm.ptr<1>, %[[Y:.*]]: !llvm.ptr<1>, %{{.*}}: i32)
// CHECK-SAME: attributes {nvvm.kernel, nvvm.reqntid = array<i32: 128, 1, 1>}
// CHECK: nvvm.read.ptx.sreg.ctaid.x : i32
// CHECK: nvvm.read.ptx.sreg.ctaid.y : i32
// CHECK: nvvm.read.ptx.sreg.ctaid.z : i32
// CHECK: nvvm.read.ptx.sreg.nctaid.x : i32
// CHECK: nvvm.read.ptx.sreg.nctaid.y : i32
// make_range: base = lane + warp * 32, elements base and base | 128.
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK: %[[C32:.*]] = llvm.mlir.constant(32 : i32) : i32
// CHECK: %[[LANE:.*]] = llvm.urem %[[TID]], %[[C32]] : i32
// CHECK: %[[WARP:.*]] = llvm.udiv %[[TID]], %[[C32]] : i32
// CHECK: %[[C128:.*]] = llvm.mlir.constant(128 : i32) : i32
// CHECK: llvm.or %{{.*}}, %[[C128]] : i32
// CHECK-COUNT-2: llvm.getelementptr %[[X]][%{{.*}}] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
// CHECK-COUNT-2: ld.global.b32
// CHECK-NOT: ld.global
// CHECK: %[[A0:.*]] = llvm.fadd %[[L0:.*]], %[[L0]] : f32
// CHECK-NEXT: %[[A1:.*]] = llvm.fadd %[[L1:.*]], %[[L1]] : f32
// CHECK-NOT: llvm.fadd
// exp(x) = ex2(x * log2(e)), one per element.
// CHECK: %[[LOG2E:.*]] = llvm.mlir.constant(1.44269502 : f32) : f32
// CHECK-NEXT: %[[S0:.*]] = llvm.fmul %[[A0]], %[[LOG2E]] : f32
// CHECK-NEXT: %[[E0:.*]] = llvm.inline_asm asm_dialect = att "ex2.approx.f32 $0, $1;", "=f,f" %[[S0]] : (f32) -> f32
// CHECK: llvm.fmul %[[A1]], %{{.*}} : f32
// CHECK-NEXT: %[[E1:.*]] = llvm.inline_asm asm_dialect = att "ex2.approx.f32 $0, $1;", "=f,f"
// log(x): libdevice's, as Triton's.
// CHECK-NEXT: llvm.call @__nv_logf(%[[E0]]) : (f32) -> f32
// CHECK-NEXT: llvm.call @__nv_logf(%[[E1]]) : (f32) -> f32
// CHECK-NOT: ex2.approx
// CHECK-NOT: __nv_logf
// CHECK-COUNT-2: llvm.add %{{.*}}, %{{.*}} : i32
// CHECK-COUNT-2: llvm.sitofp %{{.*}} : i32 to f32
// CHECK-COUNT-2: llvm.fmul
// CHECK-NOT: llvm.fmul
// CHECK-COUNT-2: st.global.b32
// CHECK-NOT: st.global
// CHECK: llvm.return
#v1 = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tilegpu.num_warps = 4 : i32} {
  func.func @elementwise(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %n: i32) {
    %pid = tile.program_id 0 : i32
    %pidy = tile.program_id 1 : i32
    %pidz = tile.program_id 2 : i32
    %np = tile.num_programs 0 : i32
    %npy = tile.num_programs 1 : i32
    %r = tile.make_range {start = 0 : i32, end = 256 : i32} : tensor<256xi32, #v1>
    %xs = tile.splat %x : tensor<256x!tile.ptr<f32>, #v1>
    %xp = tile.addptr %xs, %r : tensor<256x!tile.ptr<f32>, #v1>, tensor<256xi32, #v1>
    %a = tile.load %xp : tensor<256x!tile.ptr<f32>, #v1>
    %b = arith.addf %a, %a : tensor<256xf32, #v1>
    %c = math.exp %b : tensor<256xf32, #v1>
    %d = math.log %c : tensor<256xf32, #v1>
    %ri = arith.addi %r, %r : tensor<256xi32, #v1>
    %rf = arith.sitofp %ri : tensor<256xi32, #v1> to tensor<256xf32, #v1>
    %e = arith.mulf %d, %rf : tensor<256xf32, #v1>
    %ys = tile.splat %y : tensor<256x!tile.ptr<f32>, #v1>
    %yp = tile.addptr %ys, %r : tensor<256x!tile.ptr<f32>, #v1>, tensor<256xi32, #v1>
    tile.store %yp, %e : tensor<256x!tile.ptr<f32>, #v1>
    return
  }
}

// -----

// 16-bit floats go through f32 for ex2.approx.
// CHECK-LABEL: llvm.func @exp_f16(
// CHECK-SAME: %[[X:.*]]: f16) -> f16
// CHECK-NEXT: %[[W:.*]] = llvm.fpext %[[X]] : f16 to f32
// CHECK-NEXT: %[[C:.*]] = llvm.mlir.constant(1.44269502 : f32) : f32
// CHECK-NEXT: %[[S:.*]] = llvm.fmul %[[W]], %[[C]] : f32
// CHECK-NEXT: %[[E:.*]] = llvm.inline_asm asm_dialect = att "ex2.approx.f32 $0, $1;", "=f,f" %[[S]] : (f32) -> f32
// CHECK-NEXT: %[[R:.*]] = llvm.fptrunc %[[E]] : f32 to f16
// CHECK-NEXT: llvm.return %[[R]] : f16
#v1 = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tilegpu.num_warps = 4 : i32} {
  func.func @exp_f16(%x: tensor<128xf16, #v1>) -> tensor<128xf16, #v1> {
    %0 = math.exp %x : tensor<128xf16, #v1>
    return %0 : tensor<128xf16, #v1>
  }
}

// -----

// expand_dims and broadcast move no data and emit no ops: each result
// element is one of the thread's source values. 16x8 in this layout wraps
// along dim 1 (the layout covers 32 columns): 2 x 2 elements per thread,
// numbered dim 1 fastest. Sliced along dim 1 a thread holds 2 values (its
// rows); sliced along dim 0, 2 values (its columns).
// CHECK-LABEL: llvm.func @broadcast_rows(
// CHECK-SAME: %[[A0:.*]]: f32, %[[A1:.*]]: f32)
// CHECK-NEXT: %[[U:.*]] = llvm.mlir.poison
// CHECK-NEXT: %[[I0:.*]] = llvm.insertvalue %[[A0]], %[[U]][0]
// CHECK-NEXT: %[[I1:.*]] = llvm.insertvalue %[[A0]], %[[I0]][1]
// CHECK-NEXT: %[[I2:.*]] = llvm.insertvalue %[[A1]], %[[I1]][2]
// CHECK-NEXT: %[[I3:.*]] = llvm.insertvalue %[[A1]], %[[I2]][3]
// CHECK-NEXT: llvm.return %[[I3]]
// CHECK-LABEL: llvm.func @broadcast_cols(
// CHECK-SAME: %[[A0:.*]]: f32, %[[A1:.*]]: f32)
// CHECK-NEXT: %[[U:.*]] = llvm.mlir.poison
// CHECK-NEXT: %[[I0:.*]] = llvm.insertvalue %[[A0]], %[[U]][0]
// CHECK-NEXT: %[[I1:.*]] = llvm.insertvalue %[[A1]], %[[I0]][1]
// CHECK-NEXT: %[[I2:.*]] = llvm.insertvalue %[[A0]], %[[I1]][2]
// CHECK-NEXT: %[[I3:.*]] = llvm.insertvalue %[[A1]], %[[I2]][3]
// CHECK-NEXT: llvm.return %[[I3]]
#b = #tilegpu.blocked<{sizePerThread = [2, 2], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [1, 0]}>
#rows = #tilegpu.slice<{dim = 1, parent = #b}>
#cols = #tilegpu.slice<{dim = 0, parent = #b}>
module attributes {tilegpu.num_warps = 4 : i32} {
  func.func @broadcast_rows(%x: tensor<16xf32, #rows>) -> tensor<16x8xf32, #b> {
    %e = tile.expand_dims %x {axis = 1 : i32} : tensor<16xf32, #rows> -> tensor<16x1xf32, #b>
    %r = tile.broadcast %e : tensor<16x1xf32, #b> -> tensor<16x8xf32, #b>
    return %r : tensor<16x8xf32, #b>
  }
  func.func @broadcast_cols(%x: tensor<8xf32, #cols>) -> tensor<16x8xf32, #b> {
    %e = tile.expand_dims %x {axis = 0 : i32} : tensor<8xf32, #cols> -> tensor<1x8xf32, #b>
    %r = tile.broadcast %e : tensor<1x8xf32, #b> -> tensor<16x8xf32, #b>
    return %r : tensor<16x8xf32, #b>
  }
}

// -----

// A loop carrying a 512-element tensor (4 per thread) carries 4 scalars
// next to the induction variable.
// CHECK-LABEL: llvm.func @loop(
// CHECK: %[[ZERO:.*]] = llvm.mlir.constant(0.000000e+00 : f32) : f32
// CHECK: %[[ONE:.*]] = llvm.mlir.constant(1.000000e+00 : f32) : f32
// CHECK: llvm.br ^[[HEAD:.*]](%{{.*}}, %[[ZERO]], %[[ZERO]], %[[ZERO]], %[[ZERO]] : i32, f32, f32, f32, f32)
// CHECK: ^[[HEAD]](%[[I:.*]]: i32, %[[A0:.*]]: f32, %[[A1:.*]]: f32, %[[A2:.*]]: f32, %[[A3:.*]]: f32):
// CHECK: llvm.cond_br %{{.*}}, ^[[BODY:.*]], ^[[EXIT:.*]]
// CHECK: ^[[BODY]]:
// CHECK-NEXT: %[[S0:.*]] = llvm.fadd %[[A0]], %[[ONE]] : f32
// CHECK-NEXT: %[[S1:.*]] = llvm.fadd %[[A1]], %[[ONE]] : f32
// CHECK-NEXT: %[[S2:.*]] = llvm.fadd %[[A2]], %[[ONE]] : f32
// CHECK-NEXT: %[[S3:.*]] = llvm.fadd %[[A3]], %[[ONE]] : f32
// CHECK-NEXT: %[[NEXT:.*]] = llvm.add %[[I]], %{{.*}} : i32
// CHECK-NEXT: llvm.br ^[[HEAD]](%[[NEXT]], %[[S0]], %[[S1]], %[[S2]], %[[S3]] : i32, f32, f32, f32, f32)
// CHECK: ^[[EXIT]]:
// CHECK-COUNT-4: st.global.b32
// CHECK-NOT: st.global
#v1 = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tilegpu.num_warps = 4 : i32} {
  func.func @loop(%y: !tile.ptr<f32>, %n: i32) {
    %zeros = arith.constant dense<0.000000e+00> : tensor<512xf32, #v1>
    %ones = arith.constant dense<1.000000e+00> : tensor<512xf32, #v1>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %acc = scf.for %i = %c0 to %n step %c1 iter_args(%a = %zeros) -> (tensor<512xf32, #v1>) : i32 {
      %s = arith.addf %a, %ones : tensor<512xf32, #v1>
      scf.yield %s : tensor<512xf32, #v1>
    }
    %r = tile.make_range {start = 0 : i32, end = 512 : i32} : tensor<512xi32, #v1>
    %ys = tile.splat %y : tensor<512x!tile.ptr<f32>, #v1>
    %yp = tile.addptr %ys, %r : tensor<512x!tile.ptr<f32>, #v1>, tensor<512xi32, #v1>
    tile.store %yp, %acc : tensor<512x!tile.ptr<f32>, #v1>
    return
  }
}

// -----

// Triton's '/' (marked arcp) on f32 is div.full.f32; a correctly rounded
// division (no flag) and f64 stay LLVM fdiv (div.rn).
// CHECK-LABEL: llvm.func @division(
// CHECK-SAME: %[[A:.*]]: f32, %[[B:.*]]: f32, %[[C:.*]]: f64)
// CHECK: llvm.call_intrinsic "llvm.nvvm.div.full"(%[[A]], %[[B]]) : (f32, f32) -> f32
// CHECK: llvm.fdiv %[[A]], %[[B]] : f32
// CHECK: llvm.fdiv {{.*}}%[[C]], %[[C]] {{.*}}: f64
module attributes {tilegpu.num_warps = 4 : i32} {
  func.func @division(%a: f32, %b: f32, %c: f64) -> (f32, f32, f64) {
    %fast = arith.divf %a, %b fastmath<arcp> : f32
    %exact = arith.divf %a, %b : f32
    %wide = arith.divf %c, %c fastmath<arcp> : f64
    return %fast, %exact, %wide : f32, f32, f64
  }
}
