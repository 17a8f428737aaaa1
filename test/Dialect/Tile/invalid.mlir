// RUN: tile-opt %s -split-input-file -verify-diagnostics

// One case per verifier rule of the tile ops and the tilegpu attributes.

func.func @make_range_empty() {
  // expected-error @+1 {{'tile.make_range' op needs start < end, got [8, 8)}}
  %0 = tile.make_range {start = 8 : i32, end = 8 : i32} : tensor<0xi32>
  return
}

// -----

func.func @make_range_reversed() {
  // expected-error @+1 {{needs start < end, got [16, 8)}}
  %0 = tile.make_range {start = 16 : i32, end = 8 : i32} : tensor<8xi32>
  return
}

// -----

func.func @make_range_wrong_size() {
  // expected-error @+1 {{'tile.make_range' op result must be a 1-D tensor of 8 elements}}
  %0 = tile.make_range {start = 0 : i32, end = 8 : i32} : tensor<16xi32>
  return
}

// -----

func.func @make_range_wrong_rank() {
  // expected-error @+1 {{result must be a 1-D tensor of 8 elements}}
  %0 = tile.make_range {start = 0 : i32, end = 8 : i32} : tensor<8x1xi32>
  return
}

// -----

func.func @make_range_not_i32() {
  // expected-error @+1 {{result #0 must be ranked tensor of 32-bit signless integer values}}
  %0 = tile.make_range {start = 0 : i32, end = 8 : i32} : tensor<8xi64>
  return
}

// -----

func.func @broadcast_rank(%a: tensor<64xi32>) {
  // expected-error @+1 {{'tile.broadcast' op cannot change the rank, from 1 to 2}}
  %0 = tile.broadcast %a : tensor<64xi32> -> tensor<64x64xi32>
  return
}

// -----

func.func @broadcast_non_unit(%a: tensor<64x2xi32>) {
  // expected-error @+1 {{'tile.broadcast' op can only broadcast dimensions of size 1, not 2 to 64}}
  %0 = tile.broadcast %a : tensor<64x2xi32> -> tensor<64x64xi32>
  return
}

// -----

func.func @broadcast_element_type(%a: tensor<64x1xi32>) {
  // expected-error @+1 {{requires the same element type for all operands and results}}
  %0 = tile.broadcast %a : tensor<64x1xi32> -> tensor<64x64xf32>
  return
}

// -----

func.func @expand_dims_axis(%a: tensor<64xi32>) {
  // expected-error @+1 {{'tile.expand_dims' op axis 2 out of range for rank 1}}
  %0 = tile.expand_dims %a {axis = 2 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  return
}

// -----

func.func @expand_dims_shape(%a: tensor<64xi32>) {
  // expected-error @+1 {{'tile.expand_dims' op result shape must be the source shape with 1 at axis 0}}
  %0 = tile.expand_dims %a {axis = 0 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  return
}

// -----

func.func @expand_dims_size(%a: tensor<64xi32>) {
  // expected-error @+1 {{result shape must be the source shape with 1 at axis 1}}
  %0 = tile.expand_dims %a {axis = 1 : i32} : tensor<64xi32> -> tensor<64x2xi32>
  return
}

// -----

// `other` without a mask (generic form: the custom syntax cannot say it).
// With an i1 pointee the operand types line up, so the op's own verifier
// is what rejects it.
func.func @load_other_without_mask(%p: tensor<128x!tile.ptr<i1>>, %o: tensor<128xi1>) {
  // expected-error @+1 {{'tile.load' op `other` needs a mask}}
  %0 = "tile.load"(%p, %o) <{operandSegmentSizes = array<i32: 1, 0, 1>}> : (tensor<128x!tile.ptr<i1>>, tensor<128xi1>) -> tensor<128xi1>
  return
}

// -----

func.func @load_mask_not_i1(%p: tensor<128x!tile.ptr<f32>>, %m: tensor<128xi32>) {
  // expected-error @+1 {{'tile.load' op operand #1 must be 1-bit signless integer or ranked tensor of 1-bit signless integer values, but got 'tensor<128xi32>'}}
  %0 = "tile.load"(%p, %m) <{operandSegmentSizes = array<i32: 1, 1, 0>}> : (tensor<128x!tile.ptr<f32>>, tensor<128xi32>) -> tensor<128xf32>
  return
}

// -----

func.func @load_mask_shape(%p: !tile.ptr<f32>, %m: tensor<128xi1>) {
  // expected-error @+1 {{'tile.load' op failed to verify that mask is i1 of the pointer's shape}}
  %0 = "tile.load"(%p, %m) <{operandSegmentSizes = array<i32: 1, 1, 0>}> : (!tile.ptr<f32>, tensor<128xi1>) -> f32
  return
}

// -----

func.func @load_other_type(%p: tensor<128x!tile.ptr<f32>>, %m: tensor<128xi1>, %o: tensor<128xf16>) {
  // expected-error @+1 {{'tile.load' op failed to verify that other is the pointee of ptr}}
  %0 = "tile.load"(%p, %m, %o) <{operandSegmentSizes = array<i32: 1, 1, 1>}> : (tensor<128x!tile.ptr<f32>>, tensor<128xi1>, tensor<128xf16>) -> tensor<128xf32>
  return
}

// -----

func.func @load_result_type(%p: tensor<128x!tile.ptr<f32>>) {
  // expected-error @+1 {{'tile.load' op failed to verify that result is the pointee of ptr}}
  %0 = "tile.load"(%p) <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (tensor<128x!tile.ptr<f32>>) -> tensor<128xf16>
  return
}

// -----

func.func @store_mask_not_i1(%p: tensor<128x!tile.ptr<f32>>, %v: tensor<128xf32>, %m: tensor<128xi8>) {
  // expected-error @+1 {{'tile.store' op operand #2 must be 1-bit signless integer or ranked tensor of 1-bit signless integer values, but got 'tensor<128xi8>'}}
  "tile.store"(%p, %v, %m) : (tensor<128x!tile.ptr<f32>>, tensor<128xf32>, tensor<128xi8>) -> ()
  return
}

// -----

func.func @store_mask_shape(%p: tensor<128x!tile.ptr<f32>>, %v: tensor<128xf32>, %m: tensor<64xi1>) {
  // expected-error @+1 {{'tile.store' op failed to verify that mask is i1 of the pointer's shape}}
  "tile.store"(%p, %v, %m) : (tensor<128x!tile.ptr<f32>>, tensor<128xf32>, tensor<64xi1>) -> ()
  return
}

// -----

func.func @store_value_type(%p: tensor<128x!tile.ptr<f32>>, %v: tensor<128xi32>) {
  // expected-error @+1 {{'tile.store' op failed to verify that value is the pointee of ptr}}
  "tile.store"(%p, %v) : (tensor<128x!tile.ptr<f32>>, tensor<128xi32>) -> ()
  return
}

// -----

func.func @addptr_float_offset(%p: !tile.ptr<f32>, %o: f32) {
  // expected-error @+1 {{'tile.addptr' op operand #1 must be}}
  %0 = "tile.addptr"(%p, %o) : (!tile.ptr<f32>, f32) -> !tile.ptr<f32>
  return
}

// -----

func.func @splat_element_type(%x: f32) {
  // expected-error @+1 {{'tile.splat' op failed to verify that result element type is the operand type}}
  %0 = "tile.splat"(%x) : (f32) -> tensor<64xi32>
  return
}

// -----

func.func @program_id_axis() {
  // expected-error @+1 {{'tile.program_id' op attribute 'axis' failed to satisfy constraint: 32-bit integer attribute whose minimum value is 0 whose maximum value is 2}}
  %0 = tile.program_id 3 : i32
  return
}

// -----

func.func @num_programs_axis() {
  // expected-error @+1 {{'tile.num_programs' op attribute 'axis' failed to satisfy constraint}}
  %0 = tile.num_programs 3 : i32
  return
}

// -----

// expected-error @+1 {{threadsPerWarp must multiply to 32, not 16}}
func.func @lanes(%a: tensor<64xi32, #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [16], warpsPerCTA = [4], order = [0]}>>) {
  return
}

// -----

// expected-error @+1 {{threadsPerWarp must multiply to 32, not 64}}
func.func @lanes_2d(%a: tensor<64x64xi32, #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [1, 0]}>>) {
  return
}

// -----

// expected-error @+1 {{order must be a permutation of 0..1}}
func.func @order_repeats(%a: tensor<64x64xi32, #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 1]}>>) {
  return
}

// -----

// expected-error @+1 {{order must be a permutation of 0..1}}
func.func @order_out_of_range(%a: tensor<64x64xi32, #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [0, 2]}>>) {
  return
}

// -----

// expected-error @+1 {{blocked layout parameters must all have rank 2}}
func.func @ranks(%a: tensor<64x64xi32, #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32], warpsPerCTA = [4, 1], order = [0, 1]}>>) {
  return
}

// -----

// expected-error @+1 {{blocked layout counts must be powers of two, not 0}}
func.func @empty_thread(%a: tensor<64x64xi32, #tilegpu.blocked<{sizePerThread = [0, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [0, 1]}>>) {
  return
}

// -----

// expected-error @+1 {{blocked layout counts must be powers of two, not 3}}
func.func @odd_warps(%a: tensor<64x64xi32, #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [3, 1], order = [0, 1]}>>) {
  return
}

// -----

// expected-error @+1 {{mma.sync's accumulator tiles are 16 x 8}}
func.func @mma_shape(%a: tensor<64x64xf32, #tilegpu.mma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 16]}>>) {
  return
}

// -----

// expected-error @+1 {{wgmma's accumulator tiles are 64 x N, N a multiple of 8 up to 256}}
func.func @wgmma_shape(%a: tensor<64x64xf32, #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 12]}>>) {
  return
}

// -----

// expected-error @+1 {{wgmma's warps come in warpgroups of 4 along M}}
func.func @wgmma_warps(%a: tensor<64x64xf32, #tilegpu.mma<{version = 3, warpsPerCTA = [2, 2], instrShape = [64, 64]}>>) {
  return
}

// -----

// expected-error @+1 {{mma version 4 is not supported}}
func.func @mma_version(%a: tensor<64x64xf32, #tilegpu.mma<{version = 4, warpsPerCTA = [2, 2], instrShape = [16, 8]}>>) {
  return
}

// -----

// expected-error @+1 {{one warp count and one instruction extent per dimension}}
func.func @mma_rank(%a: tensor<64x64xf32, #tilegpu.mma<{version = 2, warpsPerCTA = [4], instrShape = [16, 8]}>>) {
  return
}

// -----

// expected-error @+1 {{kWidth of an mma operand is 1, 2 or 4}}
func.func @dot_op_kwidth(%a: tensor<64x64xf16, #tilegpu.dot_op<{opIdx = 0, parent = #tilegpu.mma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>, kWidth = 3}>>) {
  return
}

// -----

// expected-error @+1 {{opIdx is 0 (A) or 1 (B), not 2}}
func.func @dot_op_index(%a: tensor<64x64xf16, #tilegpu.dot_op<{opIdx = 2, parent = #tilegpu.mma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>, kWidth = 2}>>) {
  return
}

// -----

#b = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @convert_element_type(%a: tensor<64xi32, #b>) {
  // expected-error @+1 {{'tilegpu.convert_layout' op requires the same element type for all operands and results}}
  %0 = tilegpu.convert_layout %a : tensor<64xi32, #b> -> tensor<64xf32, #b>
  return
}

// -----

#b = #tilegpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @convert_shape(%a: tensor<64xi32, #b>) {
  // expected-error @+1 {{'tilegpu.convert_layout' op requires the same shape for all operands and results}}
  %0 = tilegpu.convert_layout %a : tensor<64xi32, #b> -> tensor<128xi32, #b>
  return
}

// -----

// A negative axis is reported as such.
func.func @expand_dims_negative_axis(%a: tensor<64xi32>) {
  // expected-error @+1 {{axis -1 out of range for rank 1}}
  %0 = tile.expand_dims %a {axis = -1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  return
}

// -----

// Without a mask, `other` is an error of its own.
func.func @load_other_without_mask(%p: tensor<128x!tile.ptr<f32>>, %o: tensor<128xf32>) {
  // expected-error @+1 {{`other` needs a mask}}
  %0 = "tile.load"(%p, %o) <{operandSegmentSizes = array<i32: 1, 0, 1>}> : (tensor<128x!tile.ptr<f32>>, tensor<128xf32>) -> tensor<128xf32>
  return
}

// -----

// Atomic add takes f16, bf16, f32, f64, i32 and i64 elements.
func.func @atomic_rmw_i8(%p: !tile.ptr<i8>, %v: i8) {
  // expected-error @+1 {{atomic add supports f16, bf16, f32, f64, i32 and i64 elements, got 'i8'}}
  %0 = tile.atomic_rmw add, acq_rel, gpu, %p, %v : !tile.ptr<i8>
  return
}

// -----

// The added value is the pointee.
func.func @atomic_rmw_value_type(%p: tensor<16x!tile.ptr<f32>>, %v: tensor<16xf16>) {
  // expected-error @+1 {{value is the pointee of ptr}}
  %0 = "tile.atomic_rmw"(%p, %v) <{kind = 0 : i32, sem = 3 : i32, scope = 0 : i32}> : (tensor<16x!tile.ptr<f32>>, tensor<16xf16>) -> tensor<16xf16>
  return
}

// -----

// An unknown memory semantic does not parse.
func.func @atomic_rmw_bad_sem(%p: !tile.ptr<f32>, %v: f32) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'sem' [relaxed, acquire, release, acq_rel]}}
  %0 = tile.atomic_rmw add, seq_cst, gpu, %p, %v : !tile.ptr<f32>
  return
}

// -----

// tile.dot: every check of its verifier, then its type constraints.
func.func @dot_rank1(%a: tensor<16xf32>, %b: tensor<16xf32>, %c: tensor<16xf32>) {
  // expected-error @+1 {{'tile.dot' op operands must be 2-D or 3-D (batched), not rank 1}}
  %0 = tile.dot %a, %b, %c, tf32 : tensor<16xf32>, tensor<16xf32> -> tensor<16xf32>
  return
}

// -----

func.func @dot_rank4(%a: tensor<2x2x4x4xf32>, %b: tensor<2x2x4x4xf32>, %c: tensor<2x2x4x4xf32>) {
  // expected-error @+1 {{operands must be 2-D or 3-D (batched), not rank 4}}
  %0 = tile.dot %a, %b, %c, tf32 : tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32> -> tensor<2x2x4x4xf32>
  return
}

// -----

func.func @dot_mixed_ranks(%a: tensor<2x4x4xf32>, %b: tensor<4x4xf32>, %c: tensor<2x4x4xf32>) {
  // expected-error @+1 {{operands and accumulator must have one rank, got 3, 2 and 3}}
  %0 = tile.dot %a, %b, %c, tf32 : tensor<2x4x4xf32>, tensor<4x4xf32> -> tensor<2x4x4xf32>
  return
}

// -----

func.func @dot_k(%a: tensor<16x32xf32>, %b: tensor<16x8xf32>, %c: tensor<16x8xf32>) {
  // expected-error @+1 {{K must agree: 32 columns of a, 16 rows of b}}
  %0 = tile.dot %a, %b, %c, tf32 : tensor<16x32xf32>, tensor<16x8xf32> -> tensor<16x8xf32>
  return
}

// -----

func.func @dot_acc_shape(%a: tensor<16x32xf32>, %b: tensor<32x8xf32>, %c: tensor<8x16xf32>) {
  // expected-error @+1 {{accumulator must be 16x8, not 8x16}}
  %0 = tile.dot %a, %b, %c, tf32 : tensor<16x32xf32>, tensor<32x8xf32> -> tensor<8x16xf32>
  return
}

// -----

func.func @dot_batch(%a: tensor<2x4x4xf32>, %b: tensor<3x4x4xf32>, %c: tensor<2x4x4xf32>) {
  // expected-error @+1 {{batch sizes must agree, got 2 (a), 3 (b) and 2 (accumulator)}}
  %0 = tile.dot %a, %b, %c, tf32 : tensor<2x4x4xf32>, tensor<3x4x4xf32> -> tensor<2x4x4xf32>
  return
}

// -----

func.func @dot_operand_types(%a: tensor<4x4xi8>, %b: tensor<4x4xf16>, %c: tensor<4x4xf32>) {
  // expected-error @+1 {{operands must have one element type, got 'i8' and 'f16'}}
  %0 = tile.dot %a, %b, %c, tf32 : tensor<4x4xi8>, tensor<4x4xf16> -> tensor<4x4xf32>
  return
}

// -----

func.func @dot_i32(%a: tensor<4x4xi32>, %b: tensor<4x4xi32>, %c: tensor<4x4xi32>) {
  // expected-error @+1 {{cannot multiply 'i32' into a 'i32' accumulator}}
  %0 = tile.dot %a, %b, %c, tf32 : tensor<4x4xi32>, tensor<4x4xi32> -> tensor<4x4xi32>
  return
}

// -----

func.func @dot_f32_into_f16(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>, %c: tensor<4x4xf16>) {
  // expected-error @+1 {{cannot multiply 'f32' into a 'f16' accumulator}}
  %0 = tile.dot %a, %b, %c, tf32 : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf16>
  return
}

// -----

func.func @dot_bf16_into_bf16(%a: tensor<4x4xbf16>, %b: tensor<4x4xbf16>, %c: tensor<4x4xbf16>) {
  // expected-error @+1 {{cannot multiply 'bf16' into a 'bf16' accumulator}}
  %0 = tile.dot %a, %b, %c, tf32 : tensor<4x4xbf16>, tensor<4x4xbf16> -> tensor<4x4xbf16>
  return
}

// -----

func.func @dot_i8_into_f32(%a: tensor<4x4xi8>, %b: tensor<4x4xi8>, %c: tensor<4x4xf32>) {
  // expected-error @+1 {{cannot multiply 'i8' into a 'f32' accumulator}}
  %0 = tile.dot %a, %b, %c, tf32 : tensor<4x4xi8>, tensor<4x4xi8> -> tensor<4x4xf32>
  return
}

// -----

// The result is the accumulator's type (generic form: the custom syntax
// prints one type for both).
func.func @dot_result_type(%a: tensor<4x4xf16>, %b: tensor<4x4xf16>, %c: tensor<4x4xf32>) {
  // expected-error @+1 {{'tile.dot' op failed to verify that all of {acc, result} have same type}}
  %0 = "tile.dot"(%a, %b, %c) <{precision = 0 : i32}> : (tensor<4x4xf16>, tensor<4x4xf16>, tensor<4x4xf32>) -> tensor<4x4xf16>
  return
}

// -----

func.func @dot_bad_precision(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>, %c: tensor<4x4xf32>) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'precision' [tf32, tf32x3, ieee]}}
  %0 = tile.dot %a, %b, %c, bf16x3 : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  return
}

// -----

func.func @dot_scalar(%a: f32, %b: tensor<4x4xf32>, %c: tensor<4x4xf32>) {
  // expected-error @+1 {{'tile.dot' op operand #0 must be ranked tensor or shared-memory buffer}}
  %0 = "tile.dot"(%a, %b, %c) <{precision = 0 : i32}> : (f32, tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  return
}

// -----

#bl = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>
#s = #tilegpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
func.func @alloc_shape(%x: tensor<16x16xf16, #bl>) {
  // expected-error @+1 {{'tilegpu.local_alloc' op the tile and the buffer must have one shape and element type}}
  %m = tilegpu.local_alloc %x : (tensor<16x16xf16, #bl>) -> !tilegpu.memdesc<16x32xf16, #s>
  return
}

// -----

func.func @alloc_encoding() {
  // expected-error @+1 {{'tilegpu.local_alloc' op shared-memory buffers have a #tilegpu.shared encoding}}
  %m = tilegpu.local_alloc : () -> !tilegpu.memdesc<16x32xf16, #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>>
  return
}

// -----

#s = #tilegpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
func.func @index_shape(%i: i32) {
  %m = tilegpu.local_alloc : () -> !tilegpu.memdesc<3x16x32xf16, #s>
  // expected-error @+1 {{'tilegpu.memdesc_index' op the result is one buffer of the source's ring}}
  %b = tilegpu.memdesc_index %m, %i : !tilegpu.memdesc<3x16x32xf16, #s> -> !tilegpu.memdesc<16x16xf16, #s>
  return
}

// -----

#s = #tilegpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
func.func @trans_order() {
  %m = tilegpu.local_alloc : () -> !tilegpu.memdesc<16x32xf16, #s>
  // expected-error @+1 {{'tilegpu.memdesc_trans' op the result must be the 2-D source transposed: its shape and its encoding's order reversed}}
  %t = tilegpu.memdesc_trans %m : !tilegpu.memdesc<16x32xf16, #s> -> !tilegpu.memdesc<32x16xf16, #s>
  return
}

// -----

#mma2 = #tilegpu.mma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
func.func @dot_wait_not_wgmma(%x: tensor<32x32xf32, #mma2>) {
  // expected-error @+1 {{'tilegpu.warpgroup_dot_wait' op waits on a wgmma accumulator (mma encoding version 3)}}
  %w = tilegpu.warpgroup_dot_wait %x {pending = 0 : i32} : tensor<32x32xf32, #mma2>
  return
}

// -----

#wg = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64]}>
func.func @dot_wait_negative(%x: tensor<64x64xf32, #wg>) {
  // expected-error @+1 {{'tilegpu.warpgroup_dot_wait' op pending must not be negative}}
  %w = tilegpu.warpgroup_dot_wait %x {pending = -1 : i32} : tensor<64x64xf32, #wg>
  return
}

// -----

func.func @hint_rank(%x: tensor<4x8xi32>) {
  // expected-error @+1 {{'tile.hint' op divisibility has 1 entries, but the value has 2 dimensions}}
  %h = tile.hint %x {divisibility = array<i64: 16>} : tensor<4x8xi32>
  return
}

// -----

func.func @hint_positive(%x: i32) {
  // expected-error @+1 {{'tile.hint' op contiguity entries must be positive, got 0}}
  %h = tile.hint %x {contiguity = array<i64: 0>} : i32
  return
}

// -----

func.func @atomic_and_float(%p: !tile.ptr<f32>, %v: f32) {
  // expected-error @+1 {{'tile.atomic_rmw' op atomic and supports i32 and i64 elements, got 'f32'}}
  %o = tile.atomic_rmw and, acq_rel, gpu, %p, %v : !tile.ptr<f32>
  return
}

// -----

func.func @cas_bool(%p: !tile.ptr<i1>, %c: i1, %v: i1) {
  // expected-error @+1 {{'tile.atomic_cas' op atomic compare-and-swap supports 16-, 32- and 64-bit elements, got 'i1'}}
  %o = tile.atomic_cas acq_rel, gpu, %p, %c, %v : !tile.ptr<i1>
  return
}

// -----

func.func @combine_arity(%x: tensor<8xf32>) {
  // expected-error @+1 {{'tile.reduce_with' op combine region must take two groups of the sources' element types}}
  %r = tile.reduce_with %x {axis = 0 : i32} : tensor<8xf32> -> f32 {
  ^bb0(%a: f32):
    tile.yield %a : f32
  }
  return
}

// -----

func.func @combine_yield(%x: tensor<8xf32>) {
  // expected-error @+1 {{'tile.scan' op combine region must yield one group of the sources' element types}}
  %r = tile.scan %x {axis = 0 : i32, reverse = false} : tensor<8xf32> -> tensor<8xf32> {
  ^bb0(%a: f32, %b: f32):
    %i = arith.fptosi %a : f32 to i32
    tile.yield %i : i32
  }
  return
}

// -----

func.func @combine_effects(%x: tensor<8xf32>, %p: !tile.ptr<f32>) {
  // expected-error @+1 {{'tile.reduce_with' op combine region may only compute on scalars, without side effects}}
  %r = tile.reduce_with %x {axis = 0 : i32} : tensor<8xf32> -> f32 {
  ^bb0(%a: f32, %b: f32):
    tile.store %p, %a : !tile.ptr<f32>
    tile.yield %b : f32
  }
  return
}

// -----

func.func @combine_shapes(%x: tensor<8xf32>, %y: tensor<4xf32>) {
  // expected-error @+1 {{'tile.scan' op sources must have one shape}}
  %r:2 = tile.scan %x, %y {axis = 0 : i32, reverse = false} : tensor<8xf32>, tensor<4xf32> -> tensor<8xf32>, tensor<4xf32> {
  ^bb0(%a: f32, %b: f32, %c: f32, %d: f32):
    tile.yield %a, %b : f32, f32
  }
  return
}

// -----

func.func @butterfly_partner(%x: tensor<4x12xf32>) {
  // expected-error @+1 {{'tile.butterfly' op 2^(bit + 1) must divide the axis's extent 12, got bit 2}}
  %y = tile.butterfly %x {axis = 1 : i32, bit = 2 : i32} : tensor<4x12xf32>
  return
}

// -----

func.func @histogram_floats(%x: tensor<64xf32>) {
  // expected-error @+1 {{'tile.histogram' op counts a 1-D tile of integers, got 'tensor<64xf32>'}}
  %h = tile.histogram %x : tensor<64xf32> -> tensor<16xi32>
  return
}

// -----

func.func @histogram_mask(%x: tensor<64xi32>, %m: tensor<32xi1>) {
  // expected-error @+1 {{'tile.histogram' op mask must be i1 of the source's shape, got 'tensor<32xi1>'}}
  %h = tile.histogram %x, %m : tensor<64xi32>, tensor<32xi1> -> tensor<16xi32>
  return
}
