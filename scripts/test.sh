#!/usr/bin/env bash
# Builds tilec and runs every test: lit/FileCheck tests of each stage and
# the GoogleTest unit tests, through ctest. Tests that need ptxas or a GPU
# report themselves skipped where those are missing. Then builds tilec
# again with AddressSanitizer and UndefinedBehaviorSanitizer (clang 22, in
# build-sanitize/) and runs the unit tests, the lit tests and the fuzz
# targets' smoke runs there (TILEC_SKIP_SANITIZED=1 skips that part).
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
status=0
# ctest's own summary line of each build, repeated together at the end.
ctest --output-on-failure -j "$(nproc)" | tee "$build/ctest.log" || status=1
summary="build/: $(grep -E 'tests passed' "$build/ctest.log" || echo 'no summary')"

if [ "${TILEC_SKIP_SANITIZED:-0}" != 1 ]; then
  source "$root/scripts/sanitized-build.sh"
  echo "== tests under AddressSanitizer and UndefinedBehaviorSanitizer"
  # The examples and the consumer project are left to the build above:
  # what they run, the unit and lit tests run here too.
  cd "$sanitized"
  ctest --output-on-failure -j "$(nproc)" -E '^(example\.|consumer$)' |
    tee "$sanitized/ctest.log" || status=1
  summary+="; build-sanitize/: $(grep -E 'tests passed' "$sanitized/ctest.log" || echo 'no summary')"
fi
echo "== $summary"
exit $status
