// RUN: tile-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// A linear layout prints as it parses, under a #linear alias.
// CHECK: #linear = #tilegpu.linear<{reg = {{\[\[0, 1\], \[8, 0\]\]}}, lane = {{\[\[0, 2\], \[0, 4\], \[1, 0\], \[2, 0\], \[4, 0\]\]}}, warp = {{\[\[0, 0\], \[16, 0\]\]}}}>
// CHECK: func.func @f(%{{.*}}: tensor<32x8xf32, #linear>)
#l = #tilegpu.linear<{reg = [[0, 1], [8, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[0, 0], [16, 0]]}>
func.func @f(%x: tensor<32x8xf32, #l>) {
  return
}

// -----

// expected-error @+1 {{a basis moves along one dimension at most}}
#l = #tilegpu.linear<{reg = [[1, 1]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = []}>
func.func @diagonal(%x: tensor<8x8xf32, #l>) {
  return
}

// -----

// expected-error @+1 {{a basis moves by a power of two, not 3}}
#l = #tilegpu.linear<{reg = [[0, 3]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = []}>
func.func @three(%x: tensor<8x8xf32, #l>) {
  return
}

// -----

// expected-error @+1 {{a linear layout has five lane bases}}
#l = #tilegpu.linear<{reg = [], lane = [[1], [2]], warp = []}>
func.func @lanes(%x: tensor<4xf32, #l>) {
  return
}

// -----

// expected-error @+1 {{a register basis must move}}
#l = #tilegpu.linear<{reg = [[0]], lane = [[1], [2], [4], [8], [16]], warp = []}>
func.func @still(%x: tensor<32xf32, #l>) {
  return
}
