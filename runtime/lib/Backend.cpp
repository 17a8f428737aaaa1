//===- Backend.cpp - Where kernels run ------------------------------------===//

#include "tile/Backend.h"

#include "tile/Driver.h"

tile::Backend tile::defaultBackend() {
  return cudaAvailable() ? Backend::CUDA : Backend::Interpreter;
}

const char *tile::backendName(Backend backend) {
  return backend == Backend::CUDA ? "cuda" : "interpreter";
}
