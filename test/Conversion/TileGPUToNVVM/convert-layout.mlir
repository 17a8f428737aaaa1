// RUN: tile-opt %s -split-input-file --convert-tilegpu-to-nvvm | FileCheck %s
// RUN: tile-opt %s -split-input-file --tilegpu-to-llvm | FileCheck %s --check-prefix=PIPE

// A layout conversion goes through the module's dynamic shared memory:
// barrier, every thread writes its 32 elements, barrier, every thread reads
// the 32 elements of the new layout. 2-D rows are padded by one element:
// 64 x (64 + 1) x 4 bytes = 16640, recorded for the launch.
// CHECK-LABEL: module attributes {tilegpu.num_warps = 4 : i32, tilegpu.shared_bytes = 16640 : i32}
// CHECK: llvm.mlir.global external @global_smem() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
// CHECK-LABEL: llvm.func @transpose_tile
// CHECK-COUNT-32: ld.global.b32
// CHECK-NOT: !llvm.ptr<3>
// CHECK: %[[BASE:.*]] = llvm.mlir.addressof @global_smem : !llvm.ptr<3>
// CHECK-NEXT: nvvm.barrier0
// Slot (r, c) is r * 65 + c.
// CHECK: %[[C65:.*]] = llvm.mlir.constant(65 : i32) : i32
// CHECK: %[[ROW:.*]] = llvm.mul %{{.*}}, %[[C65]] : i32
// CHECK: %[[LIN:.*]] = llvm.add %[[ROW]], %{{.*}} : i32
// CHECK: %[[SLOT:.*]] = llvm.getelementptr %[[BASE]][%[[LIN]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
// CHECK: llvm.store %{{.*}}, %[[SLOT]] : f32, !llvm.ptr<3>
// CHECK-COUNT-31: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// CHECK-NOT: llvm.load
// CHECK: nvvm.barrier0
// CHECK-NOT: llvm.store
// CHECK-COUNT-32: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK-NOT: nvvm.barrier0
// CHECK-NOT: !llvm.ptr<3>
// CHECK-COUNT-32: st.global.b32
// CHECK: llvm.return

// PIPE-LABEL: module attributes {tilegpu.num_warps = 4 : i32, tilegpu.shared_bytes = 16640 : i32}
// PIPE: llvm.mlir.global external @global_smem()
// PIPE-LABEL: llvm.func @transpose_tile
// PIPE-COUNT-2: nvvm.barrier0
// PIPE-NOT: nvvm.barrier0
// PIPE: llvm.return
#row = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#col = #tilegpu.blocked<{sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]}>
module attributes {tilegpu.num_warps = 4 : i32} {
  func.func @transpose_tile(%p: !tile.ptr<f32>, %q: !tile.ptr<f32>) {
    %ps = tile.splat %p : tensor<64x64x!tile.ptr<f32>, #row>
    %v = tile.load %ps : tensor<64x64x!tile.ptr<f32>, #row>
    %c = tilegpu.convert_layout %v : tensor<64x64xf32, #row> -> tensor<64x64xf32, #col>
    %qs = tile.splat %q : tensor<64x64x!tile.ptr<f32>, #col>
    tile.store %qs, %c : tensor<64x64x!tile.ptr<f32>, #col>
    return
  }
}

// -----

// Two conversions share the buffer; the module records the larger. 1-D
// tensors are not padded. Masks travel as bytes (512 B; a nonzero byte
// reads back as true), pointers as i64 (512 x 8 = 4096 B). One element per
// thread written at a time, 4 consecutive ones read as one vector (4 bytes,
// or two of 16 bytes), each conversion between its own pair of barriers.
// CHECK-LABEL: module attributes {tilegpu.num_warps = 4 : i32, tilegpu.shared_bytes = 4096 : i32}
// CHECK-COUNT-1: llvm.mlir.global external @global_smem()
// CHECK-LABEL: llvm.func @masks_and_pointers
// CHECK: nvvm.barrier0
// CHECK-COUNT-4: llvm.zext %{{.*}} : i1 to i8
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.store %{{.*}}, %{{.*}} : i8, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: %[[BYTES:.*]] = llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> vector<4xi8>
// CHECK: %[[BYTE:.*]] = llvm.extractelement %[[BYTES]]
// CHECK-NEXT: %[[ZERO:.*]] = llvm.mlir.constant(0 : i8) : i8
// CHECK-NEXT: llvm.icmp "ne" %[[BYTE]], %[[ZERO]] : i8
// CHECK-COUNT-3: llvm.icmp "ne" %{{.*}}, %{{.*}} : i8
// CHECK: nvvm.barrier0
// CHECK: llvm.ptrtoint %{{.*}} : !llvm.ptr<1> to i64
// CHECK: llvm.store %{{.*}}, %{{.*}} : i64, !llvm.ptr<3>
// CHECK-COUNT-3: llvm.store %{{.*}}, %{{.*}} : i64, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<2xi64>
// CHECK-COUNT-2: llvm.inttoptr %{{.*}} : i64 to !llvm.ptr<1>
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<2xi64>
// CHECK-COUNT-2: llvm.inttoptr %{{.*}} : i64 to !llvm.ptr<1>
// CHECK-NOT: llvm.load {{.*}}!llvm.ptr<3>
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.return
#v1 = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#v4 = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tilegpu.num_warps = 4 : i32} {
  func.func @masks_and_pointers(%p: !tile.ptr<i8>, %n: i32) {
    %r = tile.make_range {start = 0 : i32, end = 512 : i32} : tensor<512xi32, #v1>
    %ns = tile.splat %n : tensor<512xi32, #v1>
    %m = arith.cmpi slt, %r, %ns : tensor<512xi32, #v1>
    %mc = tilegpu.convert_layout %m : tensor<512xi1, #v1> -> tensor<512xi1, #v4>
    %ps = tile.splat %p : tensor<512x!tile.ptr<i8>, #v1>
    %pp = tile.addptr %ps, %r : tensor<512x!tile.ptr<i8>, #v1>, tensor<512xi32, #v1>
    %pc = tilegpu.convert_layout %pp : tensor<512x!tile.ptr<i8>, #v1> -> tensor<512x!tile.ptr<i8>, #v4>
    %v = tile.load %pc, %mc : tensor<512x!tile.ptr<i8>, #v4>
    tile.store %pc, %v, %mc : tensor<512x!tile.ptr<i8>, #v4>
    return
  }
}

// -----

// An mma accumulator to rows for the store: each thread writes its pairs
// (8 bytes of f32) and reads 4 f32 at a time. A pair-write serves 4 rows
// per phase; rows padded by 8 f32 (64 x 72 x 4 = 18432 bytes) put them in
// distinct banks. In f16 the pairs are 4 bytes and 8 f16 are read at a
// time; 8 rows per phase, padded by 8 f16 (64 x 72 x 2 = 9216 bytes).
// CHECK-LABEL: module attributes {tilegpu.num_warps = 4 : i32, tilegpu.shared_bytes = 18432 : i32}
// CHECK-LABEL: llvm.func @accumulator_f32
// CHECK: %[[C72:.*]] = llvm.mlir.constant(72 : i32) : i32
// CHECK-COUNT-16: llvm.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK-COUNT-8: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
#mma = #tilegpu.mma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#rows = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {tilegpu.num_warps = 4 : i32} {
  func.func @accumulator_f32(%x: tensor<64x64xf32, #mma>) -> tensor<64x64xf32, #rows> {
    %y = tilegpu.convert_layout %x : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #rows>
    return %y : tensor<64x64xf32, #rows>
  }
}

// -----

// On sm_80 an f16 accumulator writes its pairs as 4-byte vectors.
// CHECK-LABEL: module attributes {tilegpu.compute_capability = 80 : i32, tilegpu.num_warps = 4 : i32, tilegpu.shared_bytes = 9216 : i32}
// CHECK-LABEL: llvm.func @accumulator_f16
// CHECK-COUNT-16: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : vector<2xf16>, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK-COUNT-4: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<8xf16>
#mma = #tilegpu.mma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#rows8 = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {tilegpu.compute_capability = 80 : i32, tilegpu.num_warps = 4 : i32} {
  func.func @accumulator_f16(%x: tensor<64x64xf16, #mma>) -> tensor<64x64xf16, #rows8> {
    %y = tilegpu.convert_layout %x : tensor<64x64xf16, #mma> -> tensor<64x64xf16, #rows8>
    return %y : tensor<64x64xf16, #rows8>
  }
}

// -----

// From sm_90 the same conversion stores 8 x 8 matrices with stmatrix, four
// per instruction (eight registers), instead of 16 pairs: lane l points at
// row l % 8 of matrix l / 8 (rows of 72 f16: 144 bytes, so the 8 rows of
// a matrix fall in distinct banks).
// CHECK-LABEL: module attributes {tilegpu.compute_capability = 90 : i32, tilegpu.num_warps = 4 : i32, tilegpu.shared_bytes = 9216 : i32}
// CHECK-LABEL: llvm.func @accumulator_f16_stmatrix
// CHECK-NOT: llvm.store
// CHECK-COUNT-4: nvvm.stmatrix %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : !llvm.ptr<3>, i32, i32, i32, i32
// CHECK-NOT: llvm.store
// CHECK: nvvm.barrier0
// CHECK-COUNT-4: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<8xf16>
#mma = #tilegpu.mma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#rows8 = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {tilegpu.compute_capability = 90 : i32, tilegpu.num_warps = 4 : i32} {
  func.func @accumulator_f16_stmatrix(%x: tensor<64x64xf16, #mma>) -> tensor<64x64xf16, #rows8> {
    %y = tilegpu.convert_layout %x : tensor<64x64xf16, #mma> -> tensor<64x64xf16, #rows8>
    return %y : tensor<64x64xf16, #rows8>
  }
}
