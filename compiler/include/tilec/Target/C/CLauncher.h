//===- CLauncher.h - Kernels as C sources with typed launchers --*- C++ -*-===//
//
// Ahead of time, a kernel becomes a C header and source (`tilec --emit=c`)
// that a program compiles in and calls like any C function:
//
//   CUresult add_kernel(CUstream stream, unsigned grid_x, unsigned grid_y,
//                       unsigned grid_z, CUdeviceptr x_ptr, CUdeviceptr y_ptr,
//                       CUdeviceptr out_ptr, int32_t n);
//
// The source embeds the cubin (where ptxas was there to make one) and the
// PTX (which newer GPUs JIT-compile), and needs nothing but the CUDA
// driver: it includes <cuda.h> for its types and loads libcuda.so.1 with
// dlopen on the first launch, so a program starts on a machine without a
// GPU and its launches return the driver's error. It builds the tensor
// maps the metadata describes from the launch's arguments, allocates the
// programs' global scratch in stream order, and launches on the caller's
// stream in the context current on the calling thread (device 0's
// primary context where there is none), loading its image into each
// context once. A kernel whose programs run as thread-block clusters (the
// metadata's cluster_dims) launches with cuLaunchKernelEx, the grid's CTAs
// multiplied by the cluster, checked against CUDA's limits first. Several
// specializations share a dispatcher that calls the one assuming the most
// the arguments meet.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TARGET_C_CLAUNCHER_H
#define TILEC_TARGET_C_CLAUNCHER_H

#include "tile/Metadata.h"

#include <string>
#include <vector>

namespace tilec {

/// The header and source of a kernel's C launcher.
struct CLauncher {
  std::string header;
  std::string source;
};

/// One compiled specialization of a kernel.
struct CSpecialization {
  tile::KernelMetadata metadata;
  std::string ptx;
  /// Empty where ptxas was not there: the driver compiles the PTX at load.
  std::vector<char> cubin;
};

/// The launcher of a kernel, named after its entry. With one
/// specialization, `name(...)` launches it. With several (Triton's
/// link.py), each gets `name_specN(...)` and `name(...)` dispatches to the
/// first whose assumptions the arguments meet: pointer alignments, integer
/// divisibilities and integers specialized to 1 (left out of that
/// specialization's parameters). `headerName` is what the source includes;
/// `origin` says where the kernel came from, for the banner. Throws
/// tile::Error for a parameter type C cannot pass, or specializations that
/// differ in more than their arguments' assumptions.
CLauncher emitCLauncher(const std::vector<CSpecialization> &specializations,
                        const std::string &headerName,
                        const std::string &origin);

} // namespace tilec

#endif // TILEC_TARGET_C_CLAUNCHER_H
