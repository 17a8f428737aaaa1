#!/usr/bin/env bash
# Long fuzzing runs of tilec's libFuzzer targets (fuzz/), built with
# AddressSanitizer and UndefinedBehaviorSanitizer in build-sanitize/.
#   scripts/fuzz.sh frontend|pipeline [libFuzzer options, e.g. -runs=500000 -jobs=2]
# New inputs go to build-sanitize/fuzz/corpus/<target>; a crash, hang or
# leak is written as crash-*, timeout-* or leak-* in the current directory.
# Keep each one fixed in fuzz/regressions/ (see fuzz/README.md).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
case "${1:-}" in
  frontend) target=FrontendFuzzer ;;
  pipeline) target=PipelineFuzzer ;;
  *) echo "usage: scripts/fuzz.sh frontend|pipeline [libFuzzer options]"; exit 2 ;;
esac
shift
source "$root/scripts/setup.sh"
source "$root/scripts/sanitized-build.sh" "$target"
corpus="$sanitized/fuzz/corpus/$target"
mkdir -p "$corpus"
exec "$sanitized/bin/$target" -max_len=16384 -timeout=30 -rss_limit_mb=4096 \
  -dict="$sanitized/fuzz/tl.dict" -print_final_stats=1 "$@" "$corpus" \
  "$root/fuzz/regressions" "$root/test/Frontend" "$root/test/Interpreter" \
  "$root/test/Target" "$root/dsl-examples" "$root/bench/kernels"
