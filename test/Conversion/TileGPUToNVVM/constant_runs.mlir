// RUN: tile-opt %s --convert-tilegpu-to-nvvm --canonicalize --cse | FileCheck %s

// A range of 8 consecutive values per thread compared with a bound that 16
// divides: the axis analysis proves the 8 results equal, so the thread
// compares once and uses the result 8 times. Without the divisibility each
// element is compared.
// CHECK-LABEL: llvm.func @mask(
// CHECK: %[[LT:.*]] = llvm.icmp "slt"
// CHECK-NOT: llvm.icmp
// CHECK-COUNT-8: llvm.insertvalue %[[LT]]
// CHECK-LABEL: llvm.func @unknown(
// CHECK-COUNT-8: llvm.icmp "slt"
#b = #tilegpu.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
module attributes {tilegpu.num_warps = 1 : i32} {
  func.func @mask(%n: i32 {tile.divisibility = 16 : i32}) -> tensor<256xi1, #b> {
    %r = tile.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32, #b>
    %s = tile.splat %n : tensor<256xi32, #b>
    %m = arith.cmpi slt, %r, %s : tensor<256xi32, #b>
    return %m : tensor<256xi1, #b>
  }
  func.func @unknown(%n: i32) -> tensor<256xi1, #b> {
    %r = tile.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32, #b>
    %s = tile.splat %n : tensor<256xi32, #b>
    %m = arith.cmpi slt, %r, %s : tensor<256xi32, #b>
    return %m : tensor<256xi1, #b>
  }
}
