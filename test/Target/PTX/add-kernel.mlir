// RUN: tilec %s --emit=ptx | FileCheck %s
// RUN: tilec %s --emit=ptx --arch sm_80 --name my_add -o - | FileCheck %s --check-prefix=RENAMED
// RUN: tilec %s -o %t.ptx && FileCheck %s --input-file=%t.ptx && FileCheck %s --check-prefix=JSON --input-file=%t.json
// RUN: tilec %s --emit=llvm | FileCheck %s --check-prefix=LLVMIR

// The whole pipeline on hand-written tile IR: one v4 load per operand and
// one v4 store per 4 elements.
// CHECK: .version 8.1
// CHECK: .target sm_90
// CHECK: .address_size 64
// CHECK: .visible .entry add_kernel(
// CHECK-NEXT: .param .u64 {{.*}}add_kernel_param_0,
// CHECK-NEXT: .param .u64 {{.*}}add_kernel_param_1,
// CHECK-NEXT: .param .u64 {{.*}}add_kernel_param_2,
// CHECK-NEXT: .param .u32 add_kernel_param_3
// CHECK: .reqntid 128, 1, 1
// CHECK-COUNT-4: ld.global.v4.b32
// CHECK-COUNT-2: st.global.v4.b32
// CHECK: ret;

// RENAMED: .target sm_80
// RENAMED: .visible .entry my_add(
// RENAMED-NOT: add_kernel

// JSON: {"kernel":"add_kernel","num_warps":4,"threads_per_block":128,"shared_bytes":0,"arch":"sm_90",
// JSON-SAME: "params":[{"name":"x_ptr","type":"*fp32","divisibility":16},{"name":"y_ptr","type":"*fp32","divisibility":16},{"name":"out_ptr","type":"*fp32","divisibility":16},{"name":"n","type":"i32","divisibility":16}],
// JSON-SAME: "constexprs":{}}

// LLVM IR text, not the LLVM dialect: the NVPTX triple and a PTX kernel.
// LLVMIR: target datalayout = "e-{{.*}}"
// LLVMIR: target triple = "nvptx64-nvidia-cuda"
// LLVMIR: define ptx_kernel void @add_kernel(ptr addrspace(1) {{.*}}, ptr addrspace(1) {{.*}}, ptr addrspace(1) {{.*}}, i32 {{.*}})
// LLVMIR-NOT: tile.
// LLVMIR: call {{.*}} asm sideeffect {{.*}}ld.global.v4.b32

module {
  func.func @add_kernel(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32, tile.name = "x_ptr"}, %y: !tile.ptr<f32> {tile.divisibility = 16 : i32, tile.name = "y_ptr"}, %out: !tile.ptr<f32> {tile.divisibility = 16 : i32, tile.name = "out_ptr"}, %n: i32 {tile.divisibility = 16 : i32, tile.name = "n"}) {
    %pid = tile.program_id 0 : i32
    %c1024 = arith.constant 1024 : i32
    %start = arith.muli %pid, %c1024 : i32
    %range = tile.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
    %s = tile.splat %start : tensor<1024xi32>
    %offs = arith.addi %s, %range : tensor<1024xi32>
    %ns = tile.splat %n : tensor<1024xi32>
    %mask = arith.cmpi slt, %offs, %ns : tensor<1024xi32>
    %xs = tile.splat %x : tensor<1024x!tile.ptr<f32>>
    %xp = tile.addptr %xs, %offs : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
    %xv = tile.load %xp, %mask : tensor<1024x!tile.ptr<f32>>
    %ys = tile.splat %y : tensor<1024x!tile.ptr<f32>>
    %yp = tile.addptr %ys, %offs : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
    %yv = tile.load %yp, %mask : tensor<1024x!tile.ptr<f32>>
    %sum = arith.addf %xv, %yv : tensor<1024xf32>
    %os = tile.splat %out : tensor<1024x!tile.ptr<f32>>
    %op = tile.addptr %os, %offs : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
    tile.store %op, %sum, %mask : tensor<1024x!tile.ptr<f32>>
    return
  }
}
