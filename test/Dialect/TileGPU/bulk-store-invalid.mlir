// RUN: tile-opt %s -split-input-file -verify-diagnostics

#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64]}>
#nvmma = #tilegpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
func.func @shape(%c: tensor<64x64xf16, #mma>, %map: !tilegpu.tensormap) {
  %c0 = arith.constant 0 : i32
  // expected-error @+1 {{stages the tile in a buffer of its shape and element type}}
  tilegpu.async_tma_store %map[%c0, %c0], %c {buffer = !tilegpu.memdesc<64x32xf16, #nvmma>} : tensor<64x64xf16, #mma>
  return
}

// -----

#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64]}>
#nvmma = #tilegpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
func.func @coords(%c: tensor<64x64xf16, #mma>, %map: !tilegpu.tensormap) {
  %c0 = arith.constant 0 : i32
  // expected-error @+1 {{needs a coordinate for each dimension of the tile}}
  tilegpu.async_tma_store %map[%c0], %c {buffer = !tilegpu.memdesc<64x64xf16, #nvmma>} : tensor<64x64xf16, #mma>
  return
}
