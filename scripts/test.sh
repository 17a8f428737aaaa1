#!/usr/bin/env bash
# Builds tilec and runs every test: lit/FileCheck tests of each stage and
# the GoogleTest unit tests, through ctest. Tests that need ptxas or a GPU
# report themselves skipped where those are missing.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
echo "== tests"
# Say up front what will be skipped, and why.
# (No pipe into head here: under pipefail, head closing early can kill the
# script with SIGPIPE.)
ptxas="${TILEC_PTXAS:-}"
for candidate in /usr/local/cuda/bin/ptxas "$(command -v ptxas || true)"; do
  if [ -z "$ptxas" ] && [ -n "$candidate" ] && [ -x "$candidate" ]; then
    ptxas="$candidate"
  fi
done
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
