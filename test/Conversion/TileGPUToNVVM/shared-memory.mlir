// RUN: tile-opt %s -split-input-file --convert-tilegpu-to-nvvm --canonicalize --cse | FileCheck %s

// Buffers are laid out one after the other (128-byte aligned). A ring slot is its ring's address plus
// slot * bytes. An async copy is cp.async of 16 bytes (8 f16 the axis
// analysis proved contiguous and aligned), zero-filled where masked off
// (a source size of 0); commit and wait are cp.async's, the wait followed by
// a barrier. The dot reads its operands from the buffers one K step at a
// time with ldmatrix (B row-major: transposed) and runs m16n8k16.
// CHECK-LABEL: module attributes {tilegpu.num_warps = 1 : i32, tilegpu.shared_bytes = 3072 : i32}
// CHECK-LABEL: llvm.func @staged(
// CHECK-DAG: %[[C16:.*]] = llvm.mlir.constant(16 : i32) : i32
// CHECK: %[[SMEM:.*]] = llvm.mlir.addressof @global_smem : !llvm.ptr<3>
// CHECK-NEXT: %[[RINGB:.*]] = llvm.getelementptr %[[SMEM]][1536] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// The 16 x 8 B ring pads to 16 x 16: zeroed once.
// CHECK-NEXT: nvvm.barrier0
// CHECK: nvvm.barrier0
// CHECK: %[[SIZE:.*]] = llvm.select %{{.*}}, %[[C16]], %{{.*}} : i1, i32
// CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = cg, %[[SIZE]]
// CHECK: nvvm.cp.async.commit.group
// CHECK: nvvm.cp.async.wait.group 0
// CHECK-NEXT: nvvm.barrier0
// CHECK: nvvm.ldmatrix {{.*}}layout = #nvvm.mma_layout<row>{{.*}}num = 4
// CHECK: nvvm.ldmatrix {{.*}}layout = #nvvm.mma_layout<col>{{.*}}num = 2
// CHECK: nvvm.mma.sync {{.*}}shape = #nvvm.shape<m = 16, n = 8, k = 16>
#bl = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [16, 2], warpsPerCTA = [1, 1], order = [1, 0]}>
#bl8 = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>
#mma = #tilegpu.mma<{version = 2, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#sa = #tilegpu.shared<{vec = 8, perPhase = 4, maxPhase = 2, order = [1, 0]}>
#sb = #tilegpu.shared<{vec = 8, perPhase = 8, maxPhase = 1, order = [1, 0]}>
module attributes {tilegpu.num_warps = 1 : i32} {
  func.func @staged(%pa: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %pb: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %pc: !tile.ptr<f32>, %n: i32 {tile.divisibility = 16 : i32}) {
    %ra = tilegpu.local_alloc : () -> !tilegpu.memdesc<3x16x16xf16, #sa>
    %rb = tilegpu.local_alloc : () -> !tilegpu.memdesc<3x16x8xf16, #sb>
    %r = tile.make_range {start = 0 : i32, end = 16 : i32} : tensor<16xi32, #tilegpu.slice<{dim = 0, parent = #bl}>>
    %re = tile.expand_dims %r {axis = 0 : i32} : tensor<16xi32, #tilegpu.slice<{dim = 0, parent = #bl}>> -> tensor<1x16xi32, #bl>
    %rb2 = tile.broadcast %re : tensor<1x16xi32, #bl> -> tensor<16x16xi32, #bl>
    %ps = tile.splat %pa : tensor<16x16x!tile.ptr<f16>, #bl>
    %pp = tile.addptr %ps, %rb2 : tensor<16x16x!tile.ptr<f16>, #bl>, tensor<16x16xi32, #bl>
    %ns = tile.splat %n : tensor<16x16xi32, #bl>
    %m = arith.cmpi slt, %rb2, %ns : tensor<16x16xi32, #bl>
    %c1 = arith.constant 1 : i32
    %slot = tilegpu.memdesc_index %ra, %c1 : !tilegpu.memdesc<3x16x16xf16, #sa> -> !tilegpu.memdesc<16x16xf16, #sa>
    tilegpu.async_copy %pp, %slot, %m : tensor<16x16x!tile.ptr<f16>, #bl>, !tilegpu.memdesc<16x16xf16, #sa>, tensor<16x16xi1, #bl>
    tilegpu.async_commit_group
    tilegpu.async_wait {pending = 0 : i32}
    %bslot = tilegpu.memdesc_index %rb, %c1 : !tilegpu.memdesc<3x16x8xf16, #sb> -> !tilegpu.memdesc<16x8xf16, #sb>
    %zero = arith.constant dense<0.0> : tensor<16x8xf32, #mma>
    %d = tile.dot %slot, %bslot, %zero, tf32 : !tilegpu.memdesc<16x16xf16, #sa>, !tilegpu.memdesc<16x8xf16, #sb> -> tensor<16x8xf32, #mma>
    %cp = tile.splat %pc : tensor<16x8x!tile.ptr<f32>, #mma>
    tile.store %cp, %d : tensor<16x8x!tile.ptr<f32>, #mma>
    return
  }
}

// -----

// A tile stored into a buffer: barriers around 16-byte stores; a padded
// buffer (a 3 x 3 tile takes 16 x 16 elements) is zeroed first.
// CHECK-LABEL: llvm.func @padded(
// CHECK: nvvm.barrier0
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: llvm.store %{{.*}}, %{{.*}} : f16, !llvm.ptr<3>
// CHECK: nvvm.barrier0
#bl = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>
#s = #tilegpu.shared<{vec = 8, perPhase = 4, maxPhase = 2, order = [1, 0]}>
module attributes {tilegpu.num_warps = 1 : i32} {
  func.func @padded(%p: !tile.ptr<f16>) {
    %ps = tile.splat %p : tensor<3x3x!tile.ptr<f16>, #bl>
    %x = tile.load %ps : tensor<3x3x!tile.ptr<f16>, #bl>
    %m = tilegpu.local_alloc %x : (tensor<3x3xf16, #bl>) -> !tilegpu.memdesc<3x3xf16, #s>
    return
  }
}

// -----

// Scratch space starts after the buffers live during its op: a conversion
// while the 16 x 16 f16 buffer (512 bytes) is live writes after it (32 rows
// of 36 f32: 4608 bytes), the conversion after the dot (the buffer's last
// use) reuses its bytes.
// CHECK-LABEL: module attributes {tilegpu.num_warps = 1 : i32, tilegpu.shared_bytes = 5120 : i32}
// CHECK-LABEL: llvm.func @scratch_reuse(
// CHECK: %[[SMEM:.*]] = llvm.mlir.addressof @global_smem
// CHECK: %[[AFTER:.*]] = llvm.getelementptr %[[SMEM]][512] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK: %[[SLOT:.*]] = llvm.getelementptr %[[AFTER]][%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
// CHECK: llvm.store %{{.*}}, %[[SLOT]] {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<3>
// CHECK: nvvm.mma.sync
// CHECK-NOT: llvm.getelementptr %[[SMEM]][512]
// CHECK: %[[SLOT0:.*]] = llvm.getelementptr %[[SMEM]][%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
// CHECK: llvm.store %{{.*}}, %[[SLOT0]] {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<3>
#bl = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [16, 2], warpsPerCTA = [1, 1], order = [1, 0]}>
#rows = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1, 0]}>
#cols = #tilegpu.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [0, 1]}>
#mma = #tilegpu.mma<{version = 2, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#sa = #tilegpu.shared<{vec = 8, perPhase = 4, maxPhase = 2, order = [1, 0]}>
#sb = #tilegpu.shared<{vec = 8, perPhase = 8, maxPhase = 1, order = [1, 0]}>
module attributes {tilegpu.num_warps = 1 : i32} {
  func.func @scratch_reuse(%a: tensor<16x16xf16, #bl>, %b: !tilegpu.memdesc<16x8xf16, #sb>, %x: tensor<32x32xf32, #rows>) -> (tensor<32x32xf32, #cols>, tensor<16x8xf32, #rows>) {
    %sa = tilegpu.local_alloc %a : (tensor<16x16xf16, #bl>) -> !tilegpu.memdesc<16x16xf16, #sa>
    %xt = tilegpu.convert_layout %x : tensor<32x32xf32, #rows> -> tensor<32x32xf32, #cols>
    %zero = arith.constant dense<0.0> : tensor<16x8xf32, #mma>
    %d = tile.dot %sa, %b, %zero, tf32 : !tilegpu.memdesc<16x16xf16, #sa>, !tilegpu.memdesc<16x8xf16, #sb> -> tensor<16x8xf32, #mma>
    %dr = tilegpu.convert_layout %d : tensor<16x8xf32, #mma> -> tensor<16x8xf32, #rows>
    return %xt, %dr : tensor<32x32xf32, #cols>, tensor<16x8xf32, #rows>
  }
}

// -----

// Tiles stored once and read by dots share bytes where their lives do not
// overlap: %sb (the second dot's operand, stored after the first dot, the
// last use of %sa) takes %sa's bytes at 0; %sc, read by both dots, goes
// after them at 512. 1024 bytes in all, where one buffer after another
// took 1280 and more.
// CHECK-LABEL: module attributes {tilegpu.num_warps = 1 : i32, tilegpu.shared_bytes = 1024 : i32}
// CHECK-LABEL: llvm.func @buffers_share_bytes(
// CHECK: %[[SMEM:.*]] = llvm.mlir.addressof @global_smem
// CHECK: llvm.getelementptr %[[SMEM]][512]
// CHECK: nvvm.mma.sync
// CHECK-NOT: llvm.getelementptr %[[SMEM]][
// CHECK: nvvm.mma.sync
#bl = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [16, 2], warpsPerCTA = [1, 1], order = [1, 0]}>
#mma = #tilegpu.mma<{version = 2, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#sa = #tilegpu.shared<{vec = 8, perPhase = 4, maxPhase = 2, order = [1, 0]}>
#sb = #tilegpu.shared<{vec = 8, perPhase = 8, maxPhase = 1, order = [1, 0]}>
module attributes {tilegpu.num_warps = 1 : i32} {
  func.func @buffers_share_bytes(%a: tensor<16x16xf16, #bl>, %b: tensor<16x16xf16, #bl>, %c: tensor<16x8xf16, #bl>) -> tensor<16x8xf32, #mma> {
    %zero = arith.constant dense<0.0> : tensor<16x8xf32, #mma>
    %sa = tilegpu.local_alloc %a : (tensor<16x16xf16, #bl>) -> !tilegpu.memdesc<16x16xf16, #sa>
    %sc = tilegpu.local_alloc %c : (tensor<16x8xf16, #bl>) -> !tilegpu.memdesc<16x8xf16, #sb>
    %d = tile.dot %sa, %sc, %zero, tf32 : !tilegpu.memdesc<16x16xf16, #sa>, !tilegpu.memdesc<16x8xf16, #sb> -> tensor<16x8xf32, #mma>
    %sb = tilegpu.local_alloc %b : (tensor<16x16xf16, #bl>) -> !tilegpu.memdesc<16x16xf16, #sa>
    %e = tile.dot %sb, %sc, %d, tf32 : !tilegpu.memdesc<16x16xf16, #sa>, !tilegpu.memdesc<16x8xf16, #sb> -> tensor<16x8xf32, #mma>
    return %e : tensor<16x8xf32, #mma>
  }
}

// -----

// Rows 2 bytes aligned (no divisibility on the pointer) but contiguous: no
// cp.async (4 bytes at least). A thread's run of 8 halves is addressed from
// its first element's pointer (7 constant offsets, one pointer live); its 8
// loads all come first, then one 16-byte store into the swizzle's chunk.
// CHECK-LABEL: llvm.func @narrow(
// CHECK-NOT: nvvm.cp.async
// CHECK: llvm.inline_asm has_side_effects {{.*}}ld.global.b16 $0, [ $1 + 0 ];", "=h,l,b" %[[P0:[^,]*]],
// CHECK-NEXT: %[[P1:.*]] = llvm.getelementptr %[[P0]][2] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i8
// CHECK-NEXT: llvm.inline_asm has_side_effects {{.*}}ld.global.b16 $0, [ $1 + 0 ];", "=h,l,b" %[[P1]],
// CHECK: llvm.getelementptr %[[P0]][14] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i8
// CHECK: ld.global.b16
// CHECK-NOT: llvm.store
// CHECK: llvm.getelementptr %{{.*}}[14] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i8
// CHECK: ld.global.b16
// CHECK-NOT: ld.global.b16
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<3>
// CHECK-NOT: ld.global.b16
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<3>
#bl = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>
#s = #tilegpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
module attributes {tilegpu.num_warps = 1 : i32} {
  func.func @narrow(%p: !tile.ptr<f16>, %stride: i32) {
    %buf = tilegpu.local_alloc : () -> !tilegpu.memdesc<8x64xf16, #s>
    %c = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32, #tilegpu.slice<{dim = 0, parent = #bl}>>
    %ce = tile.expand_dims %c {axis = 0 : i32} : tensor<64xi32, #tilegpu.slice<{dim = 0, parent = #bl}>> -> tensor<1x64xi32, #bl>
    %cb = tile.broadcast %ce : tensor<1x64xi32, #bl> -> tensor<8x64xi32, #bl>
    %r = tile.make_range {start = 0 : i32, end = 8 : i32} : tensor<8xi32, #tilegpu.slice<{dim = 1, parent = #bl}>>
    %re = tile.expand_dims %r {axis = 1 : i32} : tensor<8xi32, #tilegpu.slice<{dim = 1, parent = #bl}>> -> tensor<8x1xi32, #bl>
    %ss = tile.splat %stride : tensor<8x1xi32, #bl>
    %ro = arith.muli %re, %ss : tensor<8x1xi32, #bl>
    %rb = tile.broadcast %ro : tensor<8x1xi32, #bl> -> tensor<8x64xi32, #bl>
    %off = arith.addi %rb, %cb : tensor<8x64xi32, #bl>
    %ps = tile.splat %p : tensor<8x64x!tile.ptr<f16>, #bl>
    %pp = tile.addptr %ps, %off : tensor<8x64x!tile.ptr<f16>, #bl>, tensor<8x64xi32, #bl>
    tilegpu.async_copy %pp, %buf : tensor<8x64x!tile.ptr<f16>, #bl>, !tilegpu.memdesc<8x64xf16, #s>
    tilegpu.async_commit_group
    tilegpu.async_wait {pending = 0 : i32}
    return
  }
}
