// Checked as part of the runtime (tile_runtime), which needs no LLVM and
// sits beside the compiler, not above it: this include must fail.
#include "tile/Metadata.h"
#include "tilec/Compiler.h"
