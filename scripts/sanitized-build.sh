#!/usr/bin/env bash
# Installs clang 22 and its sanitizer runtimes (Debian 12, as root) and
# builds tilec with AddressSanitizer and UndefinedBehaviorSanitizer in
# build-sanitize/, with the libFuzzer targets (fuzz/). Sourced by test.sh
# and fuzz.sh after setup.sh.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
sanitized="${TILEC_SANITIZE_BUILD_DIR:-$root/build-sanitize}"

install_packages clang-22 libclang-rt-22-dev

# LLVM's BumpPtrAllocator poisons the unused part of its slabs where the
# code that inlines it is built with ASan; Debian's MLIR libraries are not,
# and write there without unpoisoning it: ASan would report a
# use-after-poison in MLIR's dialect registration. User poisoning off, every
# other check on; for the build's own runs of tilec, ctest and the fuzzers.
export ASAN_OPTIONS="allow_user_poisoning=0:detect_leaks=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"

echo "== building tilec with -fsanitize=address,undefined in $sanitized"
CC=clang-22 CXX=clang++-22 cmake -S "$root" -B "$sanitized" -G Ninja \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG" \
  -DCMAKE_C_FLAGS_RELEASE="-O1 -DNDEBUG" -DTILEC_SANITIZE=address,undefined \
  -DTILEC_FUZZ=ON >/dev/null
ninja -C "$sanitized" "$@"
