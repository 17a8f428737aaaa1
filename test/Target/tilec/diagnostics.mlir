// RUN: sh -c 'tilec %s --emit=ttgpu; echo "exit=$?"' 2>&1 | FileCheck %s

// A user error in tile IR: `file:line:col: error:`, the source line and a
// caret, exit status 1, and no IR dump.
// CHECK: diagnostics.mlir:[[@LINE+6]]:10: error: 'tile.program_id' op attribute 'axis' failed to satisfy constraint
// CHECK-NEXT: {{^}}    %0 = tile.program_id 5 : i32
// CHECK-NEXT: {{^}}         ^
// CHECK-NEXT: exit=1
module {
  func.func @k() {
    %0 = tile.program_id 5 : i32
    return
  }
}
