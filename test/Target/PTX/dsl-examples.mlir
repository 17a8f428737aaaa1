// REQUIRES: ptxas
// The examples under dsl-examples/ compile for sm_80 and sm_90, and ptxas
// accepts the PTX.
// RUN: tilec %S/../../../dsl-examples/vector_add.tl --arch sm_80 --signature "*fp32:16, *fp32:16, *fp32:16, i32, 1024" -o %t.va80.ptx && %ptxas -arch=sm_80 %t.va80.ptx -o %t.va80.cubin
// RUN: tilec %S/../../../dsl-examples/vector_add.tl --arch sm_90 --signature "*fp32:16, *fp32:16, *fp32:16, i32, 1024" -o %t.va90.ptx && %ptxas -arch=sm_90 %t.va90.ptx -o %t.va90.cubin
// RUN: tilec %S/../../../dsl-examples/transpose.tl --arch sm_80 --signature "*fp32:16, *fp32:16, i32:16, i32:16, i32:16, i32:16, 64, 64" -o %t.tr80.ptx && %ptxas -arch=sm_80 %t.tr80.ptx -o %t.tr80.cubin
// RUN: tilec %S/../../../dsl-examples/transpose.tl --arch sm_90 --signature "*fp32:16, *fp32:16, i32:16, i32:16, i32:16, i32:16, 64, 64" -o %t.tr90.ptx && %ptxas -arch=sm_90 %t.tr90.ptx -o %t.tr90.cubin
// RUN: tilec %S/../../../dsl-examples/transpose.tl --arch sm_80 --signature "*fp32, *fp32, i32, i32, i32, i32, 32, 128" -o %t.tru80.ptx && %ptxas -arch=sm_80 %t.tru80.ptx -o %t.tru80.cubin
// RUN: tilec %S/../../../dsl-examples/transpose.tl --arch sm_90 --signature "*fp32, *fp32, i32, i32, i32, i32, 32, 128" -o %t.tru90.ptx && %ptxas -arch=sm_90 %t.tru90.ptx -o %t.tru90.cubin
// RUN: tilec %S/../../../dsl-examples/dot_product.tl --arch sm_80 --signature "*fp32:16, *fp32:16, *fp32:16, i32:16, 2048" -o %t.dot80.ptx && %ptxas -arch=sm_80 %t.dot80.ptx -o %t.dot80.cubin
// RUN: tilec %S/../../../dsl-examples/dot_product.tl --arch sm_80 --signature "*fp32, *fp32, *fp32, i32, 8" -o %t.dots80.ptx && %ptxas -arch=sm_80 %t.dots80.ptx -o %t.dots80.cubin
// RUN: tilec %S/../../../dsl-examples/normalize.tl --arch sm_80 --num-warps 8 --signature "*fp32:16, *fp32:16, i32:16, i32:16, 4096" -o %t.nz80.ptx && %ptxas -arch=sm_80 %t.nz80.ptx -o %t.nz80.cubin
// RUN: tilec %S/../../../dsl-examples/normalize.tl --arch sm_80 --signature "*fp32, *fp32, i32, i32, 128" -o %t.nzs80.ptx && %ptxas -arch=sm_80 %t.nzs80.ptx -o %t.nzs80.cubin
// RUN: tilec %S/../../../dsl-examples/dot_product.tl --arch sm_90 --signature "*fp32:16, *fp32:16, *fp32:16, i32:16, 2048" -o %t.dot90.ptx && %ptxas -arch=sm_90 %t.dot90.ptx -o %t.dot90.cubin
// RUN: tilec %S/../../../dsl-examples/dot_product.tl --arch sm_90 --signature "*fp32, *fp32, *fp32, i32, 8" -o %t.dots90.ptx && %ptxas -arch=sm_90 %t.dots90.ptx -o %t.dots90.cubin
// RUN: tilec %S/../../../dsl-examples/normalize.tl --arch sm_90 --num-warps 8 --signature "*fp32:16, *fp32:16, i32:16, i32:16, 4096" -o %t.nz90.ptx && %ptxas -arch=sm_90 %t.nz90.ptx -o %t.nz90.cubin
// RUN: tilec %S/../../../dsl-examples/normalize.tl --arch sm_90 --signature "*fp32, *fp32, i32, i32, 128" -o %t.nzs90.ptx && %ptxas -arch=sm_90 %t.nzs90.ptx -o %t.nzs90.cubin
// RUN: FileCheck %s --check-prefix=ALIGNED --input-file=%t.tr90.ptx
// RUN: FileCheck %s --check-prefix=ALIGNED --input-file=%t.tr80.ptx
// RUN: FileCheck %s --check-prefix=UNALIGNED --input-file=%t.tru90.ptx
// RUN: FileCheck %s --check-prefix=JSON --input-file=%t.tr90.json
// RUN: FileCheck %s --check-prefix=JSONU --input-file=%t.tru80.json

// Aligned 64x64 f32 transpose: 16-byte loads along rows, a trip through
// shared memory, 16-byte stores along columns.
// ALIGNED: .extern .shared .align 1024 .b8 global_smem[];
// ALIGNED: .visible .entry transpose_kernel(
// ALIGNED: ld.global.v4.b32
// ALIGNED: bar.sync{{[[:space:]]+}}0;
// ALIGNED: st.shared.b32
// ALIGNED: bar.sync{{[[:space:]]+}}0;
// ALIGNED: ld.shared.b32
// ALIGNED: st.global.v4.b32

// Unknown alignment: scalar accesses only, still through shared memory.
// UNALIGNED: .visible .entry transpose_kernel(
// UNALIGNED-NOT: .v4.
// UNALIGNED: ld.global.b32
// UNALIGNED: st.shared
// UNALIGNED: ld.shared
// UNALIGNED: st.global.b32
// UNALIGNED-NOT: .v4.

// 64 x 65 x 4 and 32 x 129 x 4 bytes of shared memory.
// JSON: {"kernel":"transpose_kernel","num_warps":4,"threads_per_block":128,"shared_bytes":16640,"arch":"sm_90"
// JSONU: {"kernel":"transpose_kernel","num_warps":4,"threads_per_block":128,"shared_bytes":16512,"arch":"sm_80"
