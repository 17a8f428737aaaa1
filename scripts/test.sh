#!/usr/bin/env bash
# Builds tilec and runs every test: lit/FileCheck tests of each stage and
# the GoogleTest unit tests, through ctest. Tests that need ptxas or a GPU
# report themselves skipped where those are missing.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
echo "== tests"
cd "$build"
ctest --output-on-failure -j "$(nproc)"
