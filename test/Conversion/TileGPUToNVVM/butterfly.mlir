// RUN: tile-opt %s -split-input-file --convert-tilegpu-to-nvvm --canonicalize --cse | FileCheck %s

// 256 elements over 2 warps, 4 per thread: bit 1 of the position is a
// register bit (the thread's registers swap), bit 4 a lane bit (a shuffle
// with lane mask 4, an f16 travelling in an i32), bit 7 the warp bit (each
// thread's elements through shared memory between barriers, read back
// from the thread 32 away).
// CHECK-LABEL: llvm.func @register_bit(
// CHECK-SAME: %[[A0:[^:]*]]: f32, %[[A1:[^:]*]]: f32, %[[A2:[^:]*]]: f32, %[[A3:[^:]*]]: f32)
// CHECK-NOT: nvvm.shfl.sync
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.insertvalue %[[A2]], %{{.*}}[0]
// CHECK-NEXT: llvm.insertvalue %[[A3]], %{{.*}}[1]
// CHECK-NEXT: llvm.insertvalue %[[A0]], %{{.*}}[2]
// CHECK-NEXT: llvm.insertvalue %[[A1]], %{{.*}}[3]
// CHECK-LABEL: llvm.func @lane_bit(
// CHECK: %[[MASK:.*]] = llvm.mlir.constant(4 : i32) : i32
// CHECK-COUNT-4: nvvm.shfl.sync  bfly %{{.*}}, %{{.*}}, %[[MASK]], %{{.*}} : i32 -> i32
// CHECK-NOT: nvvm.shfl.sync
// CHECK-NOT: nvvm.barrier0
// CHECK-LABEL: llvm.func @warp_bit(
// CHECK-NOT: nvvm.shfl.sync
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK: %[[PARTNER:.*]] = llvm.xor %[[TID]], %{{.*}} : i32
// CHECK: nvvm.barrier0
// CHECK-COUNT-4: llvm.store %{{.*}} : i32, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: llvm.add %[[PARTNER]]
// CHECK-COUNT-4: llvm.load %{{.*}} : !llvm.ptr<3> -> i32
#b = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}>
module attributes {tilegpu.num_warps = 2 : i32} {
  func.func @register_bit(%x: tensor<256xf32, #b>) -> tensor<256xf32, #b> {
    %y = tile.butterfly %x {axis = 0 : i32, bit = 1 : i32} : tensor<256xf32, #b>
    return %y : tensor<256xf32, #b>
  }
  func.func @lane_bit(%x: tensor<256xf16, #b>) -> tensor<256xf16, #b> {
    %y = tile.butterfly %x {axis = 0 : i32, bit = 4 : i32} : tensor<256xf16, #b>
    return %y : tensor<256xf16, #b>
  }
  func.func @warp_bit(%x: tensor<256xi32, #b>) -> tensor<256xi32, #b> {
    %y = tile.butterfly %x {axis = 0 : i32, bit = 7 : i32} : tensor<256xi32, #b>
    return %y : tensor<256xi32, #b>
  }
}

// -----

// A histogram of 100 bins: cleared by predicated stores between barriers,
// one red.shared.add per element where the value is below 100 and the mask
// holds, then each result element read from its bin (padding clamped to
// the last one).
// CHECK-LABEL: llvm.func @counts(
// CHECK: %[[BINS:.*]] = llvm.mlir.constant(100 : i32) : i32
// CHECK: nvvm.barrier0
// CHECK-COUNT-2: st.shared.b32
// CHECK: nvvm.barrier0
// CHECK: %[[IN:.*]] = llvm.icmp "ult" %arg0, %[[BINS]] : i32
// CHECK: %[[PRED:.*]] = llvm.and %[[IN]], %arg4 : i1
// CHECK: "@$1 red.shared.add.u32 [ $0 + 0 ], 1;", "l,b" %{{.*}}, %[[PRED]]
// CHECK-COUNT-3: red.shared.add.u32
// CHECK: nvvm.barrier0
// CHECK: llvm.intr.umin
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> i32
#b = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}>
module attributes {tilegpu.num_warps = 2 : i32} {
  func.func @counts(%x: tensor<256xi32, #b>, %m: tensor<256xi1, #b>) -> tensor<100xi32, #b> {
    %h = tile.histogram %x, %m : tensor<256xi32, #b>, tensor<256xi1, #b> -> tensor<100xi32, #b>
    return %h : tensor<100xi32, #b>
  }
}
