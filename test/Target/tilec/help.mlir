// RUN: tilec --help | FileCheck %s
// RUN: tilec --version | FileCheck %s --check-prefix=VERSION
// RUN: sh -c 'tilec %s --emit=bogus; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=USAGE
// RUN: sh -c 'tilec %s --emit=cubin; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=CUBIN
// RUN: sh -c 'tilec %s --emit=c; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=EMITC
// RUN: sh -c 'tilec %s -D BLOCK; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=DASHD
// RUN: sh -c 'tilec %s.missing; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=NOFILE
// RUN: sh -c 'tilec; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=NOINPUT

// CHECK: tilec compiles a kernel written in Triton's kernel language
// CHECK: Usage: tilec [OPTIONS] file
// CHECK: --version
// CHECK: -o,--output FILE
// CHECK: --kernel NAME
// CHECK: -D NAME=VALUE
// CHECK: --num-warps N
// CHECK: --num-stages N
// CHECK: --arch ARCH {{.*}}sm_90, sm_90a or sm_80, or native: the
// CHECK: --signature SIG
// CHECK: --name ENTRY
// CHECK: --emit STAGE {{.*}}ast, tile, ttgpu, llvm, ptx (default), cubin
// CHECK: --time
// CHECK: --debug-only PASS,...
// CHECK: Output:
// CHECK: Examples:
// CHECK: tilec add.tl -o add.ptx
// CHECK: Exit status: 0 on success, 1 on a compile error

// VERSION: tilec {{[0-9.]+}} (LLVM 22

// USAGE: --emit: bogus not in {ast,tile,ttgpu,llvm,ptx,cubin,c}
// USAGE: exit=2
// CUBIN: tilec: error: --emit=cubin writes a binary: give the output file with -o
// CUBIN: exit=2
// EMITC: tilec: error: --emit=c writes FILE.h and FILE.c: give FILE with -o
// EMITC: exit=2
// DASHD: tilec: error: -D expects NAME=VALUE, not 'BLOCK'
// DASHD: exit=2
// NOFILE: tilec: error: cannot read '{{.*}}help.mlir.missing': No such file or directory
// NOFILE: exit=1
// NOINPUT: file is required
// NOINPUT: exit=2

module {
}
