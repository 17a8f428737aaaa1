#!/usr/bin/env bash
# Packs what the GPU machine needs to run tilec's binaries into .gpu/ (git
# ignores it): the tools and example programs, the compiler library,
# libLLVM and the system libraries it links (the GPU machine is not
# Debian 12 and has no LLVM), zstd-compressed, with the zstd binary to
# unpack them there. On the GPU machine, from the repository root:
#   source .gpu/unpack.sh    # -> $TILEC_GPU_ROOT/bin, LD_LIBRARY_PATH set
# A project built there against the package links with
# -Wl,--allow-shlib-undefined: libLLVM's z3 is an empty stand-in (below).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${TILEC_BUILD_DIR:-$root/build}"
out="$root/.gpu"
rm -rf "$out" && mkdir -p "$out/stage/bin" "$out/stage/lib"
cp "$build"/bin/* "$out/stage/bin/"
cp "$build"/test/unit/*/*-tests "$out/stage/bin/"
# The consumer project's programs, where the consumer test built them.
for p in jit_scale aot_scale; do
  if [ -x "$build/test/consumer/build/$p" ]; then cp "$build/test/consumer/build/$p" "$out/stage/bin/"; fi
done
cp "$build"/lib/*.so "$out/stage/lib/"
# tilec as `cmake --install` lays it out, for projects built there against
# the package (find_package(Tilec), CMAKE_PREFIX_PATH=$TILEC_GPU_ROOT/prefix):
# its headers, static libraries and CMake files, with links to the bundle's
# own shared libraries and tools in place of copies (whose RUNPATH is the
# build tree's: unpack.sh's LD_LIBRARY_PATH finds their libraries).
cmake --install "$build" --prefix "$out/stage/prefix" > /dev/null
for f in "$out"/stage/prefix/lib/*.so; do ln -sf "../../lib/${f##*/}" "$f"; done
for f in "$out"/stage/prefix/bin/*; do ln -sf "../../bin/${f##*/}" "$f"; done
# lit and LLVM's FileCheck, not and count: the lit tests run there too
# (scripts/gpu-lit.sh), those that need a GPU, nvdisasm or
# compute-sanitizer included.
# (A build without tests has no lit configuration: then none of them.)
llvm_bin="$(grep -Po '(?<=config.llvm_tools_dir = ")[^"]*' \
            "$build/test/lit.site.cfg.py" 2>/dev/null || true)"
mkdir -p "$out/stage/llvm-bin"
if [ -n "$llvm_bin" ] && [ -x "$llvm_bin/FileCheck" ]; then
  cp "$llvm_bin"/FileCheck "$llvm_bin"/not "$llvm_bin"/count "$out/stage/llvm-bin/"
  cp -r "$(dirname "$llvm_bin")/utils/lit" "$out/stage/lit"
  find "$out/stage/lit" -name __pycache__ -prune -exec rm -rf {} +
fi
strip --strip-unneeded "$out"/stage/lib/libt*.so "$out/stage/lib/libTilecCompiler.so" "$out"/stage/bin/* "$out"/stage/llvm-bin/* 2>/dev/null || true
# Every library the binaries link but libc, libm, libstdc++ and the loader.
ldd "$build/bin/tilec" "$build/lib/libTilecCompiler.so" $(ls "$out"/stage/llvm-bin/* 2>/dev/null) |
  awk '/=> \//{print $3}' | sort -u |
  grep -v -E 'libc\.so|libm\.so|ld-linux|libgcc_s|libstdc\+\+|libTilecCompiler' |
  while read -r lib; do cp -L "$lib" "$out/stage/lib/"; done
# libLLVM links z3 for the static analyzer's solver, which tilec never
# calls: an empty library of its name (symbols bind lazily, at first call)
# saves 8 MB of the 64 the device tool carries.
echo > "$out/stage/z3.c"
cc -shared -Wl,-soname,libz3.so.4 -o "$out/stage/lib/libz3.so.4" "$out/stage/z3.c"
rm "$out/stage/z3.c"
# The device tool carries 64 MiB at most: libLLVM and its ICU and z3 need
# zstd's strongest setting and a long window to fit.
tar -C "$out/stage" -cf - . | zstd -T0 -19 --long=27 -q -o "$out/tilec.tar.zst"
cp "$(command -v zstd)" "$out/zstd"
ldd "$(command -v zstd)" | awk '/=> \//{print $3}' | grep -v 'libc\.so' |
  while read -r lib; do cp -L "$lib" "$out/"; done
rm -rf "$out/stage"
cat > "$out/unpack.sh" <<'UNPACK'
# Sourced on the GPU machine from the repository root.
TILEC_GPU_ROOT=/tmp/tilec-gpu
mkdir -p "$TILEC_GPU_ROOT"
LD_LIBRARY_PATH="$PWD/.gpu" .gpu/zstd -d -q --long=27 -c .gpu/tilec.tar.zst | tar -C "$TILEC_GPU_ROOT" -xf -
export LD_LIBRARY_PATH="$TILEC_GPU_ROOT/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PATH="$TILEC_GPU_ROOT/bin:$PATH"
export TILEC_GPU_ROOT
UNPACK
du -sh "$out"/*
