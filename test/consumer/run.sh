#!/usr/bin/env bash
# The installed package, as another project sees it: installs tilec from
# the build directory $1 into a fresh prefix, then configures, builds and
# runs the consumer project $2 (examples/cmake-consumer) in $3 against that
# prefix alone. Then the runtime alone (TILEC_RUNTIME_ONLY, no LLVM/MLIR)
# from the source tree $4: built, installed into a prefix of its own, and
# found by a project that asks for the runtime component only.
set -euo pipefail
build=$1 consumer=$2 work=$3 root=$4
rm -rf "$work" && mkdir -p "$work"

cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
"$work/prefix/bin/tilec" --version
cmake -S "$consumer" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$work/prefix" > "$work/configure.log"
cmake --build "$work/build" > "$work/build.log"
"$work/build/jit_scale"
"$work/build/aot_scale"

cmake -S "$root" -B "$work/runtime-build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DTILEC_RUNTIME_ONLY=ON > "$work/runtime-configure.log"
cmake --build "$work/runtime-build" > "$work/runtime-build.log"
cmake --install "$work/runtime-build" --prefix "$work/runtime-prefix" \
  > "$work/runtime-install.log"
# find -quit, not `ls | grep -q`: under pipefail grep's early exit can
# fail ls with SIGPIPE.
compiler_parts=$(find "$work/runtime-prefix/lib" \( -iname '*llvm*' -o \
  -iname '*mlir*' -o -iname '*TilecCompiler*' \) -print -quit)
if [ -e "$work/runtime-prefix/include/tile/JIT.h" ] || [ -n "$compiler_parts" ]; then
  echo "the runtime-only install holds compiler parts"; exit 1
fi
mkdir -p "$work/runtime-only"
cat > "$work/runtime-only/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.20)
project(runtime_only LANGUAGES CXX)
find_package(Tilec 0.1 REQUIRED COMPONENTS runtime)
find_package(Tilec 0.1 QUIET COMPONENTS jit)
if(Tilec_FOUND OR TARGET Tilec::jit)
  message(FATAL_ERROR "a runtime-only install offers the jit component")
endif()
add_executable(devices devices.cpp)
target_link_libraries(devices PRIVATE Tilec::runtime)
CMAKE
cat > "$work/runtime-only/devices.cpp" <<'CPP'
#include "tile/Backend.h"
#include <cstdio>
int main() {
  std::printf("runtime-only consumer: kernels would run on %s\n",
              tile::backendName(tile::defaultBackend()));
}
CPP
cmake -S "$work/runtime-only" -B "$work/runtime-only/build" -G Ninja \
  -DCMAKE_PREFIX_PATH="$work/runtime-prefix" > "$work/runtime-only-configure.log"
cmake --build "$work/runtime-only/build" > "$work/runtime-only-build.log"
"$work/runtime-only/build/devices"
