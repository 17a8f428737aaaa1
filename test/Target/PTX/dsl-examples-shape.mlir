// Shape of the PTX of dsl-examples/vector_add.tl (no ptxas needed).
// RUN: tilec %S/../../../dsl-examples/vector_add.tl --signature "*fp32:16, *fp32:16, *fp32:16, i32:16, 1024" -o %t.ptx
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: FileCheck %s --check-prefix=JSON --input-file=%t.json
// RUN: tilec %S/../../../dsl-examples/vector_add.tl --emit=ptx --signature "*fp32:16, *fp32:16, *fp32:16, i32, 1024" | FileCheck %s --check-prefix=ANYN

// n divisible by 16: the mask is constant over runs of 4, so 1024 f32 over
// 128 threads are two predicated 16-byte accesses per operand and thread.
// CHECK: .visible .entry add_kernel(
// CHECK-COUNT-4: ld.global.v4.b32
// CHECK-NOT: ld.global
// CHECK: add{{(.rn)?}}.f32
// CHECK-COUNT-2: st.global.v4.b32
// CHECK-NOT: st.global
// CHECK: ret;

// JSON: {"kernel":"add_kernel","num_warps":4,"threads_per_block":128,"shared_bytes":0,"arch":"sm_90",
// JSON-SAME: {"name":"n_elements","type":"i32","divisibility":16}
// JSON-SAME: "constexprs":{"BLOCK_SIZE":1024}}

// n of unknown divisibility: 8 scalar accesses per operand and thread.
// ANYN: .visible .entry add_kernel(
// ANYN-NOT: .v4.
// ANYN-COUNT-16: ld.global.b32
// ANYN-NOT: ld.global
// ANYN-COUNT-8: st.global.b32
// ANYN-NOT: st.global
