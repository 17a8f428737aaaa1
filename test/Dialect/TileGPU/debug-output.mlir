// The passes' debug output (LLVM_DEBUG, printed with LDBG), compiled in by
// TILEC_ENABLE_ASSERTIONS: tile-opt's -debug-only names the passes to hear
// from and -debug all of them, tilec's --debug-only the same. Without them
// nothing is printed. (A build without the option has neither flag and
// leaves this test unsupported.)
// REQUIRES: asserts
// RUN: tile-opt %s -tilegpu-assign-layouts -debug-only=tilegpu-assign-layouts -o /dev/null 2>&1 | FileCheck %s
// RUN: tile-opt %s -tilegpu-assign-layouts -debug -o /dev/null 2>&1 | FileCheck %s
// RUN: tile-opt %s -tilegpu-assign-layouts -debug-only=tilegpu-pipeline,tile-combine 2>&1 | FileCheck %s --check-prefix=QUIET
// RUN: tile-opt %s -tilegpu-assign-layouts 2>&1 | FileCheck %s --check-prefix=QUIET
// RUN: tilec %s --emit=ttgpu --debug-only=tilegpu-assign-layouts,tilegpu-remove-layout-conversions -o /dev/null 2>&1 | FileCheck %s --check-prefix=TILEC

// The loads' class (x, y and their sum, which is stored) gets 16-byte
// vectors; nothing needs a conversion.
// CHECK: [tilegpu-assign-layouts AssignLayouts.cpp:{{[0-9]+}} 1] @add_kernel: 3 layout classes
// CHECK: [tilegpu-assign-layouts {{.*}}] class of loc("{{.*}}debug-output.mlir":{{[0-9]+}}:{{[0-9]+}}) (1024, 3 accesses): #tilegpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}> from its accesses
// CHECK: [tilegpu-assign-layouts {{.*}}] @add_kernel: 0 layout conversions

// QUIET-NOT: [tilegpu-assign-layouts
// QUIET: func.func @add_kernel
// QUIET-NOT: [tilegpu-assign-layouts

// TILEC: [tilegpu-assign-layouts {{.*}}] @add_kernel: 3 layout classes
// TILEC: [tilegpu-remove-layout-conversions {{.*}}] 0 of 0 conversions removed
// TILEC-NOT: [tilegpu-pipeline
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

