// RUN: tile-opt %s --tile-test-axis-info -verify-diagnostics

// The axis analysis behind vectorization: per dimension, the length of runs
// of consecutive values (contiguity), the largest power of two dividing the
// first value of each run (divisibility; pointers count bytes) and the
// length of runs of equal values (constancy). 1073741824 (2^30) is the
// analysis' "divisible by anything", the divisibility of 0.

func.func @range_and_splat(%n: i32 {tile.divisibility = 16 : i32}, %m: i32) {
  // expected-remark @+1 {{contiguity = [128], divisibility = [1073741824], constancy = [1]}}
  %r = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32>
  // A range starting at 8 is only known divisible by 8.
  // expected-remark @+1 {{contiguity = [16], divisibility = [8], constancy = [1]}}
  %r8 = tile.make_range {start = 8 : i32, end = 24 : i32} : tensor<16xi32>
  // expected-remark @+1 {{contiguity = [1], divisibility = [16], constancy = [128]}}
  %ns = tile.splat %n : tensor<128xi32>
  // expected-remark @+1 {{contiguity = [1], divisibility = [1], constancy = [128]}}
  %ms = tile.splat %m : tensor<128xi32>
  // expected-remark @+1 {{contiguity = [1], divisibility = [4], constancy = [128], constant = 4}}
  %c4 = arith.constant dense<4> : tensor<128xi32>
  // Scalars are rank-1 facts of one element.
  // expected-remark @+1 {{contiguity = [1], divisibility = [1073741824], constancy = [1], constant = 0}}
  %c0 = arith.constant 0 : i32
  return
}

func.func @block_offsets(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32 {tile.divisibility = 16 : i32}, %m: i32) {
  // expected-remark @+1 {{contiguity = [1], divisibility = [1], constancy = [1]}}
  %pid = tile.program_id 0 : i32
  // expected-remark @+1 {{contiguity = [1], divisibility = [1024], constancy = [1], constant = 1024}}
  %c1024 = arith.constant 1024 : i32
  // expected-remark @+1 {{contiguity = [1], divisibility = [1024], constancy = [1]}}
  %start = arith.muli %pid, %c1024 : i32
  // expected-remark @+1 {{contiguity = [1024], divisibility = [1073741824], constancy = [1]}}
  %range = tile.make_range {start = 0 : i32, end = 1024 : i32} : tensor<1024xi32>
  // expected-remark @+1 {{contiguity = [1], divisibility = [1024], constancy = [1024]}}
  %s = tile.splat %start : tensor<1024xi32>
  // pid * 1024 + range: 1024 consecutive values starting at a multiple of 1024.
  // expected-remark @+1 {{contiguity = [1024], divisibility = [1024], constancy = [1]}}
  %offs = arith.addi %s, %range : tensor<1024xi32>
  // expected-remark @+1 {{contiguity = [1], divisibility = [16], constancy = [1024]}}
  %ns = tile.splat %n : tensor<1024xi32>
  // `offs < n` with n divisible by 16 flips at most at a multiple of 16.
  // expected-remark @+1 {{contiguity = [1], divisibility = [1], constancy = [16]}}
  %mask = arith.cmpi slt, %offs, %ns : tensor<1024xi32>
  // The same written `n > offs`.
  // expected-remark @+1 {{contiguity = [1], divisibility = [1], constancy = [16]}}
  %mask_flipped = arith.cmpi sgt, %ns, %offs : tensor<1024xi32>
  // expected-remark @+1 {{contiguity = [1], divisibility = [1], constancy = [1024]}}
  %ms = tile.splat %m : tensor<1024xi32>
  // n of unknown divisibility: the mask may flip anywhere.
  // expected-remark @+1 {{contiguity = [1], divisibility = [1], constancy = [1]}}
  %mask_any = arith.cmpi slt, %offs, %ms : tensor<1024xi32>
  // Equality says nothing about runs.
  // expected-remark @+1 {{contiguity = [1], divisibility = [1], constancy = [1]}}
  %eq = arith.cmpi eq, %offs, %ns : tensor<1024xi32>
  // expected-remark @+1 {{contiguity = [1], divisibility = [16], constancy = [1024]}}
  %xs = tile.splat %x : tensor<1024x!tile.ptr<f32>>
  // Offsets count f32 elements, divisibility counts bytes: 16 from the
  // pointer, 4096 = 1024 * 4 from the offsets.
  // expected-remark @+1 {{contiguity = [1024], divisibility = [16], constancy = [1]}}
  %xp = tile.addptr %xs, %offs : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  return
}

func.func @addptr_bytes(%p: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %q: !tile.ptr<f32> {tile.divisibility = 16 : i32}) {
  // expected-remark @+1 {{contiguity = [64], divisibility = [1073741824], constancy = [1]}}
  %r = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  // expected-remark @+1 {{contiguity = [1], divisibility = [2], constancy = [64], constant = 2}}
  %c2 = arith.constant dense<2> : tensor<64xi32>
  // expected-remark @+1 {{contiguity = [1], divisibility = [2], constancy = [1]}}
  %r2 = arith.muli %r, %c2 : tensor<64xi32>
  // expected-remark @+1 {{contiguity = [1], divisibility = [16], constancy = [64]}}
  %qs = tile.splat %q : tensor<64x!tile.ptr<f32>>
  // Every other f32: element offsets divisible by 2 are 8 bytes apart.
  // expected-remark @+1 {{contiguity = [1], divisibility = [8], constancy = [1]}}
  %qp = tile.addptr %qs, %r2 : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  // expected-remark @+1 {{contiguity = [1], divisibility = [16], constancy = [64]}}
  %ps = tile.splat %p : tensor<64x!tile.ptr<f16>>
  // expected-remark @+1 {{contiguity = [1], divisibility = [4], constancy = [1]}}
  %pp = tile.addptr %ps, %r2 : tensor<64x!tile.ptr<f16>>, tensor<64xi32>
  // A scalar pointer plus 3 f16: 6 bytes, divisible by 2.
  // expected-remark @+1 {{contiguity = [1], divisibility = [1], constancy = [1], constant = 3}}
  %c3 = arith.constant 3 : i32
  // expected-remark @+1 {{contiguity = [1], divisibility = [2], constancy = [1]}}
  %p3 = tile.addptr %p, %c3 : !tile.ptr<f16>, i32
  return
}

// offs = rows[:, None] * stride + cols[None, :]: rows are `stride` apart
// and contiguous along dim 1. The row term alone is a multiple of 16
// everywhere; in the sum the first element of each run along dim 1 is
// (r * stride), divisible by 16. Along dim 0, each element is r*stride + c
// for c of unknown alignment (as in Triton, the expand_dims of a contiguous
// range is divisible by 1 along the new axis).
func.func @two_d(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %stride: i32 {tile.divisibility = 16 : i32}) {
  // expected-remark @+1 {{contiguity = [32], divisibility = [1073741824], constancy = [1]}}
  %rows = tile.make_range {start = 0 : i32, end = 32 : i32} : tensor<32xi32>
  // expected-remark @+1 {{contiguity = [64], divisibility = [1073741824], constancy = [1]}}
  %cols = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  // expected-remark @+1 {{contiguity = [32, 1], divisibility = [1073741824, 1], constancy = [1, 1]}}
  %re = tile.expand_dims %rows {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  // expected-remark @+1 {{contiguity = [1, 1], divisibility = [16, 16], constancy = [32, 1]}}
  %ss = tile.splat %stride : tensor<32x1xi32>
  // expected-remark @+1 {{contiguity = [1, 1], divisibility = [16, 16], constancy = [1, 1]}}
  %rs = arith.muli %re, %ss : tensor<32x1xi32>
  // expected-remark @+1 {{contiguity = [1, 1], divisibility = [16, 16], constancy = [1, 64]}}
  %rb = tile.broadcast %rs : tensor<32x1xi32> -> tensor<32x64xi32>
  // expected-remark @+1 {{contiguity = [1, 64], divisibility = [1, 1073741824], constancy = [1, 1]}}
  %ce = tile.expand_dims %cols {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  // expected-remark @+1 {{contiguity = [1, 64], divisibility = [1, 1073741824], constancy = [32, 1]}}
  %cb = tile.broadcast %ce : tensor<1x64xi32> -> tensor<32x64xi32>
  // expected-remark @+1 {{contiguity = [1, 64], divisibility = [1, 16], constancy = [1, 1]}}
  %offs = arith.addi %rb, %cb : tensor<32x64xi32>
  // expected-remark @+1 {{contiguity = [1, 1], divisibility = [16, 16], constancy = [32, 64]}}
  %xs = tile.splat %x : tensor<32x64x!tile.ptr<f32>>
  // expected-remark @+1 {{contiguity = [1, 64], divisibility = [4, 16], constancy = [1, 1]}}
  %xp = tile.addptr %xs, %offs : tensor<32x64x!tile.ptr<f32>>, tensor<32x64xi32>
  // Transposed: cols[None, :] * stride + rows[:, None] is contiguous along
  // dim 0 and 16-divisible there.
  // expected-remark @+1 {{contiguity = [1, 1], divisibility = [16, 16], constancy = [32, 64]}}
  %ss2 = tile.splat %stride : tensor<32x64xi32>
  // expected-remark @+1 {{contiguity = [1, 1], divisibility = [16, 16], constancy = [32, 1]}}
  %cs = arith.muli %cb, %ss2 : tensor<32x64xi32>
  // expected-remark @+1 {{contiguity = [32, 1], divisibility = [1073741824, 1], constancy = [1, 64]}}
  %rb2 = tile.broadcast %re : tensor<32x1xi32> -> tensor<32x64xi32>
  // expected-remark @+1 {{contiguity = [32, 1], divisibility = [16, 1], constancy = [1, 1]}}
  %toffs = arith.addi %cs, %rb2 : tensor<32x64xi32>
  return
}

func.func @rem_div(%n: i32 {tile.divisibility = 16 : i32}) {
  // expected-remark @+1 {{contiguity = [256], divisibility = [1073741824], constancy = [1]}}
  %r = tile.make_range {start = 0 : i32, end = 256 : i32} : tensor<256xi32>
  // expected-remark @+1 {{contiguity = [1], divisibility = [64], constancy = [256], constant = 64}}
  %c64 = arith.constant dense<64> : tensor<256xi32>
  // r % 64: runs of 64 starting at multiples of 64.
  // expected-remark @+1 {{contiguity = [64], divisibility = [64], constancy = [1]}}
  %rem = arith.remsi %r, %c64 : tensor<256xi32>
  // r // 64: runs of 64 equal values.
  // expected-remark @+1 {{contiguity = [1], divisibility = [1], constancy = [64]}}
  %div = arith.divsi %r, %c64 : tensor<256xi32>
  // expected-remark @+1 {{contiguity = [1], divisibility = [16], constancy = [256]}}
  %ns = tile.splat %n : tensor<256xi32>
  // By a splat divisible by 16: runs of 16 never cross a multiple of n.
  // expected-remark @+1 {{contiguity = [16], divisibility = [16], constancy = [1]}}
  %remn = arith.remsi %r, %ns : tensor<256xi32>
  // expected-remark @+1 {{contiguity = [1], divisibility = [2], constancy = [256], constant = 6}}
  %c6 = arith.constant dense<6> : tensor<256xi32>
  // By 6: runs of 2.
  // expected-remark @+1 {{contiguity = [2], divisibility = [2], constancy = [1]}}
  %rem6 = arith.remsi %r, %c6 : tensor<256xi32>
  return
}

// The induction variable is divisible by gcd(lower bound, step).
func.func @loops(%n: i32, %k: i32 {tile.divisibility = 8 : i32}) {
  // expected-remark @+1 {{contiguity = [1], divisibility = [1073741824], constancy = [1], constant = 0}}
  %c0 = arith.constant 0 : i32
  // expected-remark @+1 {{contiguity = [1], divisibility = [1], constancy = [1], constant = 1}}
  %c1 = arith.constant 1 : i32
  // expected-remark @+1 {{contiguity = [1], divisibility = [32], constancy = [1], constant = 32}}
  %c32 = arith.constant 32 : i32
  // expected-remark @+1 {{contiguity = [1], divisibility = [16], constancy = [1], constant = 48}}
  %c48 = arith.constant 48 : i32
  scf.for %i = %c0 to %n step %c32 : i32 {
    // expected-remark @+1 {{contiguity = [1], divisibility = [32], constancy = [1]}}
    %j = arith.addi %i, %c0 : i32
  }
  scf.for %i = %c48 to %n step %c32 : i32 {
    // expected-remark @+1 {{contiguity = [1], divisibility = [16], constancy = [1]}}
    %j = arith.addi %i, %c0 : i32
  }
  scf.for %i = %k to %n step %c32 : i32 {
    // expected-remark @+1 {{contiguity = [1], divisibility = [8], constancy = [1]}}
    %j = arith.addi %i, %c0 : i32
  }
  scf.for %i = %c0 to %n step %c1 : i32 {
    // expected-remark @+1 {{contiguity = [1], divisibility = [1], constancy = [1]}}
    %j = arith.addi %i, %c0 : i32
  }
  return
}

// A loop-carried pointer tile holds what its initial value and every
// advanced one do: advanced by 32 elements (128 bytes) it keeps its runs
// of 128 and its 16-byte divisibility (the load in the loop vectorizes);
// advanced by an unknown amount it keeps the runs but not the divisibility.
func.func @loop_carried(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32, %s: i32) {
  // expected-remark @+1 {{contiguity = [128], divisibility = [1073741824], constancy = [1]}}
  %r = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32>
  // expected-remark @+1 {{contiguity = [1], divisibility = [16], constancy = [128]}}
  %xs = tile.splat %x : tensor<128x!tile.ptr<f32>>
  // expected-remark @+1 {{contiguity = [128], divisibility = [16], constancy = [1]}}
  %p = tile.addptr %xs, %r : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  // expected-remark @+1 {{contiguity = [1], divisibility = [1073741824], constancy = [1], constant = 0}}
  %c0 = arith.constant 0 : i32
  // expected-remark @+1 {{contiguity = [1], divisibility = [1], constancy = [1], constant = 1}}
  %c1 = arith.constant 1 : i32
  // expected-remark @+1 {{contiguity = [1], divisibility = [32], constancy = [128], constant = 32}}
  %c32 = arith.constant dense<32> : tensor<128xi32>
  %r1:2 = scf.for %i = %c0 to %n step %c1 iter_args(%a = %p, %b = %p) -> (tensor<128x!tile.ptr<f32>>, tensor<128x!tile.ptr<f32>>) : i32 {
    // expected-remark @+1 {{contiguity = [128], divisibility = [16], constancy = [1]}}
    %a2 = tile.addptr %a, %c32 : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
    // expected-remark @+1 {{contiguity = [1], divisibility = [1], constancy = [128]}}
    %ss = tile.splat %s : tensor<128xi32>
    // expected-remark @+1 {{contiguity = [128], divisibility = [4], constancy = [1]}}
    %b2 = tile.addptr %b, %ss : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
    scf.yield %a2, %b2 : tensor<128x!tile.ptr<f32>>, tensor<128x!tile.ptr<f32>>
  }
  return
}

// Hints replace what the analysis found; tl.assume(x % k == 0) raises x's
// divisibility wherever x is used.
func.func @hints(%n: i32, %s: i32) {
  // expected-remark @+1 {{contiguity = [1], divisibility = [1], constancy = [1]}}
  %pid = tile.program_id 0 : i32
  // expected-remark @+1 {{contiguity = [1], divisibility = [1], constancy = [1]}}
  %start = arith.muli %pid, %n : i32
  // expected-remark @+1 {{contiguity = [1], divisibility = [16], constancy = [1]}}
  %h = tile.hint %start {divisibility = array<i64: 16>} : i32
  // expected-remark @+1 {{contiguity = [64], divisibility = [1073741824], constancy = [1]}}
  %r = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  // expected-remark @+1 {{contiguity = [1], divisibility = [1], constancy = [64]}}
  %ms = tile.splat %start : tensor<64xi32>
  // expected-remark @+1 {{contiguity = [64], divisibility = [1], constancy = [1]}}
  %o = arith.addi %ms, %r : tensor<64xi32>
  // expected-remark @+1 {{contiguity = [64], divisibility = [8], constancy = [2]}}
  %oh = tile.hint %o {contiguity = array<i64: 64>, divisibility = array<i64: 8>, constancy = array<i64: 2>} : tensor<64xi32>
  // expected-remark @+1 {{contiguity = [1], divisibility = [4], constancy = [1], constant = 4}}
  %c4 = arith.constant 4 : i32
  // expected-remark @+1 {{contiguity = [1], divisibility = [1073741824], constancy = [1], constant = 0}}
  %c0 = arith.constant 0 : i32
  // The assumption holds from %s's definition on, here too.
  // expected-remark @+1 {{contiguity = [1], divisibility = [4], constancy = [1]}}
  %rem = arith.remsi %s, %c4 : i32
  // expected-remark @+1 {{contiguity = [1], divisibility = [1], constancy = [1]}}
  %ok = arith.cmpi eq, %rem, %c0 : i32
  tile.assume %ok
  // expected-remark @+1 {{contiguity = [1], divisibility = [4], constancy = [64]}}
  %ss = tile.splat %s : tensor<64xi32>
  return
}

// A tensor argument is unknown in each of its dimensions (it was read as a
// scalar's one dimension, and a select of it read past its facts).
func.func @tensor_argument(%x: tensor<16x32xi32>, %m: tensor<16x32xi1>) {
  // expected-remark @+1 {{contiguity = [1, 1], divisibility = [1073741824, 1073741824], constancy = [16, 32], constant = 0}}
  %c = arith.constant dense<0> : tensor<16x32xi32>
  // expected-remark @+1 {{contiguity = [1, 1], divisibility = [1, 1], constancy = [1, 1]}}
  %s = arith.select %m, %x, %c : tensor<16x32xi1>, tensor<16x32xi32>
  return
}
