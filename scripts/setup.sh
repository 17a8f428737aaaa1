#!/usr/bin/env bash
# Installs what tilec builds with (Debian 12, as root) and configures and
# builds it in build/. Sourced by examples.sh and test.sh.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${TILEC_BUILD_DIR:-$root/build}"

# apt-get installs what of the packages is missing (also sanitized-build.sh's).
install_packages() {
  local missing=() p
  for p in "$@"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "== installing: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q
    apt-get install -y -q --no-install-recommends "${missing[@]}"
  fi
}
install_packages cmake ninja-build ccache g++ python3-numpy \
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools \
  libzstd-dev libcli11-dev libgtest-dev nlohmann-json3-dev

echo "== building tilec in $build"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
ninja -C "$build"
