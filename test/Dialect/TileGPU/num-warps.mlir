// RUN: not tile-opt %s --tilegpu-assign-layouts=num-warps=3 2>&1 | FileCheck %s
// The option is printed as a number.
// CHECK: error: num-warps must be a power of two, not 3{{$}}
module {
}
