// RUN: tile-opt %s --convert-tilegpu-to-nvvm --canonicalize --cse | FileCheck %s

// fp8 travels as i8 bits. Conversions are PTX's cvt, two elements per
// instruction: fp8x2 to f16x2 (then exactly to f32), f32 pairs (the second
// element first: it becomes the upper byte) or f16x2 to fp8x2 with
// saturation; an fp8 constant is its bits (1.5 in e4m3: 0x3c).
// CHECK-LABEL: llvm.func @widen(
// CHECK-SAME: %{{[^:]*}}: i8
// CHECK-COUNT-2: "cvt.rn.f16x2.e4m3x2 $0, $1;", "=r,h"
// CHECK-NOT: cvt.rn
// CHECK: llvm.fpext %{{.*}} : f16 to f32
// CHECK-LABEL: llvm.func @narrow(
// CHECK: "cvt.rn.satfinite.e5m2x2.f32 $0, $1, $2;", "=h,f,f" %arg1, %arg0
// CHECK: "cvt.rn.satfinite.e5m2x2.f32 $0, $1, $2;", "=h,f,f" %arg3, %arg2
// CHECK-COUNT-2: "cvt.rn.satfinite.e4m3x2.f16x2 $0, $1;", "=h,r"
// CHECK-LABEL: llvm.func @constant(
// CHECK: llvm.mlir.constant(60 : i8) : i8
#b = #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
module attributes {tilegpu.num_warps = 1 : i32} {
  func.func @widen(%x: tensor<128xf8E4M3FN, #b>) -> tensor<128xf32, #b> {
    %y = arith.extf %x : tensor<128xf8E4M3FN, #b> to tensor<128xf32, #b>
    return %y : tensor<128xf32, #b>
  }
  func.func @narrow(%x: tensor<128xf32, #b>, %h: tensor<128xf16, #b>) -> (tensor<128xf8E5M2, #b>, tensor<128xf8E4M3FN, #b>) {
    %y = arith.truncf %x : tensor<128xf32, #b> to tensor<128xf8E5M2, #b>
    %z = arith.truncf %h : tensor<128xf16, #b> to tensor<128xf8E4M3FN, #b>
    return %y, %z : tensor<128xf8E5M2, #b>, tensor<128xf8E4M3FN, #b>
  }
  func.func @constant() -> tensor<128xf8E4M3FN, #b> {
    %c = arith.constant dense<1.5> : tensor<128xf8E4M3FN, #b>
    return %c : tensor<128xf8E4M3FN, #b>
  }
}
