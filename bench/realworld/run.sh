#!/usr/bin/env bash
# Captures one corpus's launches under real Triton and replays them through
# tile-run (interpreter and GPU), on the GPU machine:
#
#   bench/realworld/run.sh CORPUS CHECKOUT TILE_RUN OUT [SECONDS]
#
# CORPUS names how its code is driven:
#   liger    Liger-Kernel's ops tests (test/transformers);
#   unsloth  unsloth's kernels through their entry points
#            (drivers/unsloth_ops.py) and its grouped-GEMM MoE tests;
#   flaggems FlagGems' op tests (tests/test_*.py, --quick), a spread sample;
#   triton   Triton's own language tests (python/test/unit/language/
#            test_core.py), a spread sample.
# Packages the GPU machine lacks are stubbed (shims.py), never edited in.
# CHECKOUT is the project's public repository, read in
# place and never copied into tilec. Launches go to $OUT/capture, the
# table to stdout and $OUT/replay.log, every result to $OUT/results.json,
# mismatching launches with tile-run's buffers to $OUT/failures. SECONDS
# bounds the capture (default 300): the tests run in parallel and each
# kernel specialization is captured once, so the first minutes hold most
# of what a corpus launches. $JOBS sets pytest's workers and the replay's
# parallel tile-runs (default 16 and 14), for runs side by side.
set -uo pipefail
corpus=$1 checkout=$(cd "$2" && pwd) tile_run=$3 out=$4 seconds=${5:-300}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mkdir -p "$out"
export CAPTURE_DIR="$out/capture" CAPTURE_PER_SPECIALIZATION=1 PYTHONUNBUFFERED=1
imports=()
jobs=${JOBS:-16}

case $corpus in
liger)
  # The ops' own tests; the backends for other vendors and DSLs (cute,
  # cutile, Ascend) and whole-model tests are not Triton kernels of theirs.
  cd "$checkout"
  export PYTHONPATH="$checkout/src:$checkout:$here"
  tests=$(ls test/transformers/test_*.py | grep -v -E \
    'cute|cutile|monkey_patch|trainer|auto_model|test_transformers|flex_attention|mm_int8int2')
  timeout "$seconds" python3 -m pytest -q -n "$jobs" -p triton_capture \
    -p no:cacheprovider --timeout 90 $tests > "$out/pytest.log" 2>&1
  echo "pytest: exit $? ($(tail -1 "$out/pytest.log"))"
  ;;
unsloth)
  export PYTHONPATH="$here"
  timeout "$seconds" python3 "$here/drivers/unsloth_ops.py" "$checkout" \
    > "$out/driver.log" 2>&1
  echo "driver: exit $? ($(tail -1 "$out/driver.log"))"
  cd "$checkout/unsloth/kernels/moe"
  export PYTHONPATH="$checkout/unsloth/kernels/moe:$here:$here/drivers"
  timeout "$seconds" python3 -m pytest -q -n "$jobs" -p unsloth_shims -p triton_capture \
    -p no:cacheprovider --timeout 120 tests/test_grouped_gemm.py > "$out/pytest.log" 2>&1
  echo "pytest: exit $? ($(tail -1 "$out/pytest.log"))"
  ;;
flaggems)
  cd "$checkout"
  # Its pointwise kernels are generated into ~/.flaggems/code_cache and
  # read globals FlagGems puts there: those are captured with them.
  export PYTHONPATH="$checkout/src:$here:$here/drivers" CAPTURE_SAMPLE=${CAPTURE_SAMPLE:-3000} \
    CAPTURE_SOURCE_ROOT="$checkout"
  timeout "$seconds" python3 -m pytest -q -n "$jobs" -p flaggems_shims -p triton_capture \
    -p no:cacheprovider --timeout 90 --quick tests/test_*.py > "$out/pytest.log" 2>&1
  echo "pytest: exit $? ($(tail -1 "$out/pytest.log"))"
  imports=(-I "$checkout/src")
  ;;
triton)
  cd "$checkout/python/test"
  export PYTHONPATH="$here" CAPTURE_SAMPLE=${CAPTURE_SAMPLE:-1280}
  timeout "$seconds" python3 -m pytest -q -n "$jobs" -p triton_capture -p no:cacheprovider \
    --timeout 90 --rootdir . unit/language/test_core.py > "$out/pytest.log" 2>&1
  echo "pytest: exit $? ($(tail -1 "$out/pytest.log"))"
  ;;
*)
  echo "unknown corpus $corpus" >&2
  exit 2
  ;;
esac

python3 "$here/replay.py" --tile-run "$tile_run" --project "$corpus=$CAPTURE_DIR" "${imports[@]}" \
  --jobs "${JOBS:-14}" --interp-timeout 60 --json "$out/results.json" --keep-failures "$out/failures" \
  > "$out/replay.log" 2>&1
sed -n '/^== /,$p' "$out/replay.log"
