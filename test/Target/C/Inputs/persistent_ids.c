/* Launches persistent-launcher.tl's ids_kernel through its C launcher on
   a grid of far more programs than the GPU holds at once, and checks that
   every program ran once with its own ids and the grid's extents. */
#include "ids.h"

#include <stdio.h>
#include <stdlib.h>

int main(void) {
  const unsigned gx = 300, gy = 7, gz = 5;
  const size_t programs = (size_t)gx * gy * gz;
  CUdevice device;
  CUcontext context;
  CUdeviceptr out;
  if (cuInit(0) != CUDA_SUCCESS || cuDeviceGet(&device, 0) != CUDA_SUCCESS ||
      cuDevicePrimaryCtxRetain(&context, device) != CUDA_SUCCESS ||
      cuCtxSetCurrent(context) != CUDA_SUCCESS ||
      cuMemAlloc(&out, 16 * programs) != CUDA_SUCCESS ||
      cuMemsetD32(out, 0xFFFFFFFFu, 4 * programs) != CUDA_SUCCESS) {
    printf("no CUDA context or memory\n");
    return 2;
  }
  CUresult r = ids_kernel(NULL, gx, gy, gz, out);
  if (r == CUDA_SUCCESS)
    r = cuCtxSynchronize();
  if (r != CUDA_SUCCESS) {
    printf("ids_kernel: CUDA error %d\n", (int)r);
    return 1;
  }
  int *ids = (int *)malloc(16 * programs);
  if (!ids || cuMemcpyDtoH(ids, out, 16 * programs) != CUDA_SUCCESS)
    return 2;
  size_t wrong = 0;
  for (unsigned z = 0; z < gz; ++z)
    for (unsigned y = 0; y < gy; ++y)
      for (unsigned x = 0; x < gx; ++x) {
        const int *p = ids + 4 * (((size_t)z * gy + y) * gx + x);
        wrong += p[0] != (int)x || p[1] != (int)y || p[2] != (int)z ||
                 p[3] != (int)programs;
      }
  /* Past a persistent kernel's 2^30 programs: refused. */
  CUresult refused = ids_kernel(NULL, 1u << 16, 1u << 15, 1, out);
  printf("%zu of %zu programs wrong; 2^31 programs: %s\n", wrong, programs,
         refused == CUDA_ERROR_INVALID_VALUE ? "refused" : "launched");
  free(ids);
  return wrong != 0 || refused != CUDA_ERROR_INVALID_VALUE;
}
