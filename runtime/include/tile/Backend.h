//===- Backend.h - Where kernels run ----------------------------*- C++ -*-===//

#ifndef TILE_BACKEND_H
#define TILE_BACKEND_H

namespace tile {

/// Where a JIT kernel runs and where its buffers live: device memory and the
/// GPU, or host memory and tilec's CPU interpreter of the tile IR.
enum class Backend { CUDA, Interpreter };

/// CUDA when a GPU is usable, else the interpreter: what host programs that
/// must also run on machines without a GPU pick.
Backend defaultBackend();

/// "cuda" or "interpreter".
const char *backendName(Backend backend);

} // namespace tile

#endif // TILE_BACKEND_H
