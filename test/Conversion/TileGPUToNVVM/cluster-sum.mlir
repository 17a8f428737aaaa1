// RUN: tile-opt %s --convert-tilegpu-to-nvvm --canonicalize --cse | FileCheck %s

// tilegpu.cluster_sum over 4 CTAs of 8 f32 per thread (two 16-byte chunks,
// 64 threads: chunk j at j * 1024 + tid * 16). Every CTA stores its partial;
// after a cluster barrier rank r sums chunk r (here r < 2) of all four in
// rank order and stores it back; after another, rank 0 gathers chunk j from
// rank j; a last barrier keeps the others' shared memory until it has.
// Program ids are cluster ids where programs run as clusters.
// CHECK-LABEL: llvm.func @sum_512(
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK: %[[RANK:.*]] = nvvm.read.ptx.sreg.cluster.ctarank : i32
// CHECK: nvvm.barrier0
// CHECK: "@$5 st.shared.v4.b32 [ $0 + 0 ], { $1, $2, $3, $4 };", "l,r,r,r,r,b"
// CHECK: "@$5 st.shared.v4.b32 [ $0 + 1024 ], { $1, $2, $3, $4 };", "l,r,r,r,r,b"
// CHECK: "barrier.cluster.arrive.release;\0A\09barrier.cluster.wait.acquire;"
// CHECK-COUNT-4: "mapa.shared::cluster.u64 $0, $1, $2;"
// CHECK: llvm.icmp "slt"
// CHECK: @$5 ld.shared::cluster.v4.b32 { %cs0_0_0, %cs0_0_1, %cs0_0_2, %cs0_0_3 }, [ $0 + 0 ];
// CHECK-SAME: @$5 ld.shared::cluster.v4.b32 { %cs0_3_0, %cs0_3_1, %cs0_3_2, %cs0_3_3 }, [ $3 + 0 ];
// CHECK-SAME: add.f32 %cs0_0_0, %cs0_0_0, %cs0_1_0;
// CHECK-SAME: add.f32 %cs0_0_3, %cs0_0_3, %cs0_3_3;
// CHECK-SAME: @$5 st.shared.v4.b32 [ $4 + 0 ], { %cs0_0_0, %cs0_0_1, %cs0_0_2, %cs0_0_3 };
// CHECK-SAME: "l,l,l,l,l,b"
// CHECK: "barrier.cluster.arrive.release;\0A\09barrier.cluster.wait.acquire;"
// CHECK: llvm.icmp "eq" %[[RANK]]
// CHECK: "@$5 ld.shared::cluster.v4.b32 { $0, $1, $2, $3 }, [ $4 + 0 ];", "=f,=f,=f,=f,l,b"
// CHECK: "@$5 ld.shared::cluster.v4.b32 { $0, $1, $2, $3 }, [ $4 + 1024 ];", "=f,=f,=f,=f,l,b"
// CHECK: "barrier.cluster.arrive.release;\0A\09barrier.cluster.wait.acquire;"
// CHECK: nvvm.read.ptx.sreg.clusterid.x : i32
// CHECK: nvvm.read.ptx.sreg.nclusterid.x : i32

// Over 2 CTAs, 16 f32 per thread (4 chunks): rank r owns chunks r and
// r + 2, one batch: both rounds' loads, each under its own predicate, go
// out before the adds.
// CHECK-LABEL: llvm.func @sum_2_ctas(
// CHECK: "{\0A\09.reg .b32 %cs0_0_<4>;
// CHECK-SAME: @$3 ld.shared::cluster.v4.b32 { %cs0_0_0, %cs0_0_1, %cs0_0_2, %cs0_0_3 }, [ $0 + 0 ];
// CHECK-SAME: @$3 ld.shared::cluster.v4.b32 { %cs0_1_0, %cs0_1_1, %cs0_1_2, %cs0_1_3 }, [ $1 + 0 ];
// CHECK-SAME: @$4 ld.shared::cluster.v4.b32 { %cs1_0_0, %cs1_0_1, %cs1_0_2, %cs1_0_3 }, [ $0 + 2048 ];
// CHECK-SAME: @$4 ld.shared::cluster.v4.b32 { %cs1_1_0, %cs1_1_1, %cs1_1_2, %cs1_1_3 }, [ $1 + 2048 ];
// CHECK-SAME: add.f32 %cs0_0_0, %cs0_0_0, %cs0_1_0;
// CHECK-SAME: @$3 st.shared.v4.b32 [ $2 + 0 ]
// CHECK-SAME: @$4 st.shared.v4.b32 [ $2 + 2048 ]
// CHECK-SAME: "l,l,l,b,b"
#b = #tilegpu.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}>
#b16 = #tilegpu.blocked<{sizePerThread = [16], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}>
module attributes {tilegpu.num_warps = 2 : i32, tilegpu.cluster_split = 4 : i32, tilegpu.compute_capability = 90 : i32} {
  func.func @sum_512(%x: tensor<512xf32, #b>) -> (tensor<512xf32, #b>, i32, i32) {
    %s = tilegpu.cluster_sum %x {ctas = 4 : i32} : tensor<512xf32, #b>
    %pid = tile.program_id 0 : i32
    %n = tile.num_programs 0 : i32
    return %s, %pid, %n : tensor<512xf32, #b>, i32, i32
  }
  func.func @sum_2_ctas(%x: tensor<1024xf32, #b16>) -> tensor<1024xf32, #b16> {
    %s = tilegpu.cluster_sum %x {ctas = 2 : i32} : tensor<1024xf32, #b16>
    return %s : tensor<1024xf32, #b16>
  }
}
