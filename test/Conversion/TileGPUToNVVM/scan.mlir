// RUN: tile-opt %s -split-input-file --convert-tilegpu-to-nvvm --canonicalize --cse | FileCheck %s

// A scan of 256 over 2 warps, 4 per thread: the 2 register bits combine in
// the thread (no data moves), the 5 lane bits with shuffles, and the warp
// bit through shared memory between barriers. After the register bits
// the thread's 4 totals are one, so each exchange moves one value.
// CHECK-LABEL: llvm.func @cumsum_256(
// CHECK-NOT: nvvm.shfl.sync
// CHECK-COUNT-5: nvvm.shfl.sync  bfly
// CHECK-NOT: nvvm.shfl.sync
// CHECK: nvvm.barrier0
// CHECK: llvm.store {{.*}} : i32, !llvm.ptr<3>
// CHECK-NEXT: nvvm.barrier0
// CHECK: llvm.load {{.*}} : !llvm.ptr<3> -> i32
// CHECK-NOT: llvm.load
// CHECK-NOT: nvvm.barrier0
#b = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}>
module attributes {tilegpu.num_warps = 2 : i32} {
  func.func @cumsum_256(%x: tensor<256xi32, #b>) -> tensor<256xi32, #b> {
    %s = tile.scan %x {axis = 0 : i32, reverse = false} : tensor<256xi32, #b> -> tensor<256xi32, #b> {
    ^bb0(%a: i32, %c: i32):
      %sum = arith.addi %a, %c : i32
      tile.yield %sum : i32
    }
    return %s : tensor<256xi32, #b>
  }
}

// -----

// A reverse scan of 100 padded to 128 carries a flag per group: padding
// starts the reversed sequence, and every combination passes over it.
// CHECK-LABEL: llvm.func @reverse_100(
// CHECK: %[[C100:.*]] = llvm.mlir.constant(100 : i32) : i32
// CHECK: llvm.icmp "ult" %{{.*}}, %[[C100]] : i32
// CHECK: llvm.and %{{.*}}, %{{.*}} : i1
// CHECK: llvm.or %{{.*}}, %{{.*}} : i1
// CHECK: nvvm.shfl.sync  bfly
#v4 = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
module attributes {tilegpu.num_warps = 1 : i32} {
  func.func @reverse_100(%x: tensor<100xf32, #v4>) -> tensor<100xf32, #v4> {
    %s = tile.scan %x {axis = 0 : i32, reverse = true} : tensor<100xf32, #v4> -> tensor<100xf32, #v4> {
    ^bb0(%a: f32, %c: f32):
      %m = arith.maximumf %a, %c : f32
      tile.yield %m : f32
    }
    return %s : tensor<100xf32, #v4>
  }
}

// -----

// tl.reduce of a (value, index) pair across 4 warps: both travel through
// the shuffles and through shared memory, and the region (a compare and two
// selects) runs at each combination.
// CHECK-LABEL: llvm.func @argmax_pair(
// CHECK-COUNT-10: nvvm.shfl.sync  bfly
// CHECK: nvvm.barrier0
// CHECK-COUNT-2: llvm.store
// CHECK: nvvm.barrier0
// CHECK-COUNT-8: llvm.load {{.*}} : !llvm.ptr<3>
#w4 = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tilegpu.num_warps = 4 : i32} {
  func.func @argmax_pair(%x: tensor<128xf32, #w4>, %i: tensor<128xi32, #w4>) -> (f32, i32) {
    %v, %j = tile.reduce_with %x, %i {axis = 0 : i32} : tensor<128xf32, #w4>, tensor<128xi32, #w4> -> f32, i32 {
    ^bb0(%a: f32, %ai: i32, %b: f32, %bi: i32):
      %gt = arith.cmpf ogt, %a, %b : f32
      %m = arith.select %gt, %a, %b : f32
      %k = arith.select %gt, %ai, %bi : i32
      tile.yield %m, %k : f32, i32
    }
    return %v, %j : f32, i32
  }
}
