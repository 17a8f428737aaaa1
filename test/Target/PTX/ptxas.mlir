// REQUIRES: ptxas
// RUN: tilec %s --arch sm_80 -o %t.sm80.ptx && %ptxas -arch=sm_80 %t.sm80.ptx -o %t.sm80.cubin
// RUN: tilec %s --arch sm_90 -o %t.sm90.ptx && %ptxas -arch=sm_90 %t.sm90.ptx -o %t.sm90.cubin
// RUN: tilec %s --num-warps 8 --emit=cubin -o %t.cubin && FileCheck %s --input-file=%t.json
// RUN: not env TILEC_PTXAS=%t.missing tilec %s --emit=cubin -o %t.x.cubin 2>&1 | FileCheck %s --check-prefix=MISSING

// ptxas accepts what LLVM's NVPTX backend emits for both targets, from a
// 2-D f16 kernel with slices, broadcasts and 16-byte vectors.
// CHECK: {"kernel":"scale2d","num_warps":8,"threads_per_block":256,"shared_bytes":0,"arch":"sm_90"
// CHECK-SAME: {"name":"stride","type":"i32","divisibility":16}
// MISSING: ptxas.mlir: error: ptxas not found: $TILEC_PTXAS is '{{.*}}missing', which is not an executable

module {
  func.func @scale2d(%x: !tile.ptr<f16> {tile.divisibility = 16 : i32, tile.name = "x"}, %y: !tile.ptr<f16> {tile.divisibility = 16 : i32, tile.name = "y"}, %stride: i32 {tile.divisibility = 16 : i32, tile.name = "stride"}) {
    %r = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %c = tile.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
    %re = tile.expand_dims %r {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
    %ss = tile.splat %stride : tensor<64x1xi32>
    %rows = arith.muli %re, %ss : tensor<64x1xi32>
    %ce = tile.expand_dims %c {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
    %rb = tile.broadcast %rows : tensor<64x1xi32> -> tensor<64x128xi32>
    %cb = tile.broadcast %ce : tensor<1x128xi32> -> tensor<64x128xi32>
    %offs = arith.addi %rb, %cb : tensor<64x128xi32>
    %xs = tile.splat %x : tensor<64x128x!tile.ptr<f16>>
    %xp = tile.addptr %xs, %offs : tensor<64x128x!tile.ptr<f16>>, tensor<64x128xi32>
    %v = tile.load %xp : tensor<64x128x!tile.ptr<f16>>
    %two = arith.constant dense<2.0> : tensor<64x128xf16>
    %w = arith.mulf %v, %two : tensor<64x128xf16>
    %ys = tile.splat %y : tensor<64x128x!tile.ptr<f16>>
    %yp = tile.addptr %ys, %offs : tensor<64x128x!tile.ptr<f16>>, tensor<64x128xi32>
    tile.store %yp, %w : tensor<64x128x!tile.ptr<f16>>
    return
  }
}
