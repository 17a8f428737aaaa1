// RUN: tile-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// A swapped wgmma layout (tf32's C^T = B^T A^T) prints as it parses; an
// unswapped one prints no `swapped`.
// CHECK: #mma = #tilegpu.mma<{version = 3, warpsPerCTA = [8, 1], instrShape = [64, 256], swapped = true}>
// CHECK: #mma1 = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 128]}>
// CHECK: func.func @f(%{{.*}}: tensor<256x128xf32, #mma>, %{{.*}}: tensor<64x128xf32, #mma1>)
#s = #tilegpu.mma<{version = 3, warpsPerCTA = [8, 1], instrShape = [64, 256], swapped = true}>
#u = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 128], swapped = false}>
func.func @f(%x: tensor<256x128xf32, #s>, %y: tensor<64x128xf32, #u>) {
  return
}

// -----

// expected-error @+1 {{only wgmma's layouts (version 3) swap operands}}
#s = #tilegpu.mma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8], swapped = true}>
func.func @mma_sync(%x: tensor<64x64xf32, #s>) {
  return
}
