// RUN: tile-opt %s | FileCheck %s

// A tensor map the launcher passes (an argument with its recipe) and one the
// kernel builds are both !tilegpu.tensormap, read by the same copies; the
// copying thread prefetches the first and acquires the second.
// CHECK-LABEL: func.func @maps(
// CHECK-SAME: %[[HOST:[a-z0-9]+]]: !tilegpu.tensormap {tilegpu.host_tensor_map = {base = ["arg", 0], box = [64, 64], dims = {{\[}}["arg", 2], ["i32", ["add", ["arg", 2], 64]]], element_bytes = 2 : i64, strides = {{\[}}["arg", 2]], swizzle = 128 : i64}}
// CHECK: tilegpu.tensormap_prefetch %[[HOST]]
// CHECK: %[[BUILT:.*]] = tilegpu.tensormap_create %arg1, %arg0[%arg2, %arg2] strides[%{{.*}}] {box = array<i32: 64, 64>, index = 0 : i32, swizzle = 128 : i32} via %{{.*}} : !tile.ptr<i8>, !tile.ptr<f16>, <16xi64, #shared>
// CHECK: tilegpu.tensormap_acquire %[[BUILT]]
// CHECK: tilegpu.async_tma_copy %[[HOST]][%{{.*}}, %{{.*}}], %{{.*}}, %{{.*}} : <64x64xf16, #shared1>, <1xi64, #shared>
// CHECK: tilegpu.async_tma_copy %[[BUILT]][%{{.*}}, %{{.*}}], %{{.*}}, %{{.*}} :
#bar = #tilegpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#nvmma = #tilegpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
func.func @maps(%a: !tile.ptr<f16>, %scratch: !tile.ptr<i8>, %k: i32,
                %host: !tilegpu.tensormap {tilegpu.host_tensor_map = {base = ["arg", 0], box = [64, 64], dims = [["arg", 2], ["i32", ["add", ["arg", 2], 64]]], element_bytes = 2 : i64, strides = [["arg", 2]], swizzle = 128 : i64}}) {
  tilegpu.tensormap_prefetch %host
  %stride = arith.extsi %k : i32 to i64
  %staging = tilegpu.local_alloc : () -> !tilegpu.memdesc<16xi64, #bar>
  %built = tilegpu.tensormap_create %scratch, %a[%k, %k] strides [%stride] {box = array<i32: 64, 64>, index = 0 : i32, swizzle = 128 : i32} via %staging : !tile.ptr<i8>, !tile.ptr<f16>, !tilegpu.memdesc<16xi64, #bar>
  tilegpu.tensormap_acquire %built
  %buffer = tilegpu.local_alloc : () -> !tilegpu.memdesc<64x64xf16, #nvmma>
  %barrier = tilegpu.local_alloc : () -> !tilegpu.memdesc<1xi64, #bar>
  %c0 = arith.constant 0 : i32
  tilegpu.async_tma_copy %host[%c0, %c0], %buffer, %barrier : !tilegpu.memdesc<64x64xf16, #nvmma>, !tilegpu.memdesc<1xi64, #bar>
  tilegpu.async_tma_copy %built[%c0, %c0], %buffer, %barrier : !tilegpu.memdesc<64x64xf16, #nvmma>, !tilegpu.memdesc<1xi64, #bar>
  return
}

// A bulk store: the accumulator's registers and the layout of the buffer
// they go through.
// CHECK-LABEL: func.func @store(
// CHECK: tilegpu.tensormap_prefetch %[[MAP:[a-z0-9]+]]
// CHECK: tilegpu.async_tma_store %[[MAP]][%{{.*}}, %{{.*}}], %{{.*}} {buffer = !tilegpu.memdesc<64x64xf16, #shared1>} : tensor<64x64xf16, #mma>
#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64]}>
func.func @store(%c: tensor<64x64xf16, #mma>, %m: i32,
                 %map: !tilegpu.tensormap {tilegpu.host_tensor_map = {base = ["arg", 0], box = [64, 64], dims = [64, ["arg", 1]], element_bytes = 2 : i64, strides = [64], swizzle = 128 : i64}}) {
  tilegpu.tensormap_prefetch %map
  %c0 = arith.constant 0 : i32
  tilegpu.async_tma_store %map[%c0, %m], %c {buffer = !tilegpu.memdesc<64x64xf16, #nvmma>} : tensor<64x64xf16, #mma>
  return
}
