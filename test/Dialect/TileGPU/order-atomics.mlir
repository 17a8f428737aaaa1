// RUN: tile-opt %s --split-input-file --tilegpu-order-atomics | FileCheck %s

// A deterministic module: the kernel whose float add sits in an scf.if gets
// the turnstiles parameter, last; the wait goes before the scf.if (every
// program passes it), the signal before the return.
// CHECK-LABEL: func.func @split_k
// CHECK-SAME: %[[T:arg[0-9]+]]: !tile.ptr<i32> {tile.name = "turnstiles", tilegpu.turnstiles})
// CHECK: tile.load
// CHECK-NEXT: tilegpu.turnstile_wait %[[T]] : !tile.ptr<i32>
// CHECK-NEXT: scf.if
// CHECK: tile.atomic_rmw add
// CHECK: tile.atomic_rmw add
// CHECK: }
// CHECK-NEXT: tilegpu.turnstile_signal %[[T]] : !tile.ptr<i32>
// CHECK-NEXT: return
// An integer add commutes exactly: nothing changes.
// CHECK-LABEL: func.func @histogram(%{{.*}}: tensor<8x!tile.ptr<i32>>, %{{.*}}: tensor<8xi32>) {
// CHECK-NOT: turnstile
// CHECK: return
module attributes {tilegpu.deterministic} {
  func.func @split_k(%p: tensor<8x!tile.ptr<f32>>, %v: tensor<8x!tile.ptr<f32>>, %c: i1) {
    %x = tile.load %v : tensor<8x!tile.ptr<f32>>
    scf.if %c {
      %0 = tile.atomic_rmw add, relaxed, gpu, %p, %x : tensor<8x!tile.ptr<f32>>
      %1 = tile.atomic_rmw add, relaxed, gpu, %p, %x : tensor<8x!tile.ptr<f32>>
    }
    return
  }
  func.func @histogram(%p: tensor<8x!tile.ptr<i32>>, %v: tensor<8xi32>) {
    %0 = tile.atomic_rmw add, relaxed, gpu, %p, %v : tensor<8x!tile.ptr<i32>>
    return
  }
}

// -----

// Without tilegpu.deterministic, float adds are left to the order the
// programs reach them.
// CHECK-LABEL: func.func @racing(%{{.*}}: tensor<8x!tile.ptr<f32>>, %{{.*}}: tensor<8xf32>) {
// CHECK-NOT: turnstile
// CHECK: return
func.func @racing(%p: tensor<8x!tile.ptr<f32>>, %v: tensor<8xf32>) {
  %0 = tile.atomic_rmw add, relaxed, gpu, %p, %v : tensor<8x!tile.ptr<f32>>
  return
}
