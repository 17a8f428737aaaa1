#!/usr/bin/env bash
# Builds tilec and runs every test: lit/FileCheck tests of each stage and
# the GoogleTest unit tests, through ctest. Tests that need ptxas or a GPU
# report themselves skipped where those are missing.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
echo "== tests"
# Say up front what will be skipped, and why.
ptxas="${TILEC_PTXAS:-$(command -v /usr/local/cuda/bin/ptxas ptxas 2>/dev/null | head -n1)}"
if [ -n "$ptxas" ] && [ -x "$ptxas" ]; then
  echo "   ptxas: $ptxas"
else
  echo "   ptxas: not found: the lit tests that need it are reported UNSUPPORTED"
fi
if [ -e /dev/nvidia0 ] || nvidia-smi -L >/dev/null 2>&1; then
  echo "   GPU: present"
else
  echo "   GPU: none: the GPU unit tests are reported Skipped; the examples run on the interpreter"
fi
cd "$build"
ctest --output-on-failure -j "$(nproc)"
