/* Calls a C launcher (add_kernel: *fp32:16, *fp32:16, *fp32:16, i32:16)
   with each launch it refuses before it touches the driver, printing the
   CUresult and add_kernel_last_error(): C99 and C++ alike, no GPU needed. */
#include "add.h"

#include <stdio.h>

static void report(const char *what, CUresult r) {
  printf("%s: %d %s\n", what, (int)r, add_kernel_last_error());
}

int main(void) {
  CUdeviceptr x = 0x100000, y = 0x200000, out = 0x300000;
  report("empty grid", add_kernel(NULL, 0, 1, 1, x, y, out, 1024));
  report("grid y", add_kernel(NULL, 1, 65536, 1, x, y, out, 1024));
  report("grid x", add_kernel(NULL, 2147483648u, 1, 1, x, y, out, 1024));
  report("misaligned", add_kernel(NULL, 1, 1, 1, x + 4, y, out, 1024));
  report("divisibility", add_kernel(NULL, 1, 1, 1, x, y, out, 1000));
  report("null", add_kernel(NULL, 4, 1, 1, x, 0, out, 1024));
  return 0;
}
