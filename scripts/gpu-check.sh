#!/usr/bin/env bash
# Every GPU test and example of tilec under NVIDIA's compute-sanitizer, on a
# machine with a GPU: memcheck for all of them; racecheck and synccheck too,
# since nearly all of them touch shared memory, barriers or atomics (the
# unit tests' GPU kernels, the examples, the language tests' kernels that
# exchange through shared memory, the Hopper dot and attention kernels,
# test/Triton's suite and the random differential test's kernels). Each
# run's log goes to $OUT; the last lines are a table of every run's exit
# status and the tool's error summary, and the exit status is 1 if any run
# failed or reported an error.
#   scripts/gpu-check.sh [unit|examples|language|hopper|triton|differential|all]...
# Binaries come from $TILEC_GPU_ROOT/bin (the GPU bundle: source
# .gpu/unpack.sh first) or else build/bin and build/test/unit.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-/tmp/gpu-check}"; mkdir -p "$OUT"
# On the GPU machine, the bundle (scripts/gpu-bundle.sh) where there is no
# build tree.
if [ -z "${TILEC_GPU_ROOT:-}" ] && [ ! -x build/bin/tilec ] && [ -f .gpu/unpack.sh ]; then
  source .gpu/unpack.sh
fi
if [ -n "${TILEC_GPU_ROOT:-}" ]; then
  bin="$TILEC_GPU_ROOT/bin"; tests="$bin"
else
  bin="$PWD/build/bin"; tests="$PWD/build/test/unit"
fi
if ! command -v compute-sanitizer >/dev/null; then
  echo "gpu-check: compute-sanitizer not found (CUDA's bin/ on PATH?)"; exit 2
fi
if ! nvidia-smi -L >/dev/null 2>&1; then
  echo "gpu-check: no GPU"; exit 2
fi
summary=()
failures=0
note() {
  summary+=("$1"); echo "$1"
  # rc=0 and "ERROR SUMMARY: 0 errors" (or RACECHECK's 0 hazards) pass.
  case "$1" in
    *"rc=0 "*"SUMMARY: 0 "*) ;;
    *) failures=$((failures + 1)) ;;
  esac
}
# GPU_CHECK_TOOLS="memcheck" narrows a run to some tools.
tools=(${GPU_CHECK_TOOLS:-memcheck racecheck synccheck})
# compute-sanitizer TOOL on a command: its log, then a note of its result.
check() {
  local tool="$1" name="$2"; shift 2
  local log="$OUT/${tool}_${name}.log"
  timeout 600 compute-sanitizer --tool "$tool" --error-exitcode 1 "$@" > "$log" 2>&1
  note "$tool $name: rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | tail -n 1)"
}

# The GPU unit tests (the compiler's need no GPU): each test binary whole,
# less the test that faults on purpose and the one that checks the
# autotuner picks the config that runs fastest (the tools' instrumentation
# distorts the timings it compares: under racecheck it picked a slow one). The
# tests provoke CUDA API errors on purpose too (a bad PTX, a missing
# entry): those are not reported.
unit() {
  for t in tile-runtime-tests tile-jit-tests; do
    for tool in "${tools[@]}"; do
      check "$tool" "$t" --report-api-errors no \
        "$(find "$tests" -name "$t" -type f | head -n 1)" \
        --gtest_filter='-GPU.ZZFaultSurfacesAtSynchronize:Autotune.PicksTheFastestAndRemembersOnTheGPU'
    done
  done
}

# The examples at their small sizes (splitk_matmul: with and without
# deterministic atomics).
examples() {
  for e in vector_add transpose dot_product normalize matmul splitk_matmul tiled_matmul; do
    for tool in "${tools[@]}"; do
      TILEC_EXAMPLES_SMALL=1 check "$tool" "example_$e" "$bin/$e" dsl-examples
    done
  done
}

# The language tests' kernels that exchange through shared memory (shapes,
# scans, combine reductions, sorts, histograms, fp8 dots).
language() {
  local work; work=$(mktemp -d)
  python3 -c "import numpy as np; np.save('$work/x.npy', np.arange(128, dtype=np.int32)); np.save('$work/o.npy', np.zeros(2048, np.int32))"
  for tool in memcheck racecheck synccheck; do
    for w in 1 4 8; do
      timeout 120 compute-sanitizer --tool "$tool" "$bin/tile-run" test/Interpreter/shapes.tl \
        --kernel shapes --num-warps $w --grid 1 --backend cuda -o "$work/out" "$work/x.npy" "$work/o.npy" \
        > "$OUT/sanitize_${tool}_shapes$w.log" 2>&1
      note "compute-sanitizer $tool shapes ($w warps): rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/sanitize_${tool}_shapes$w.log" | tail -n 1)"
    done
    # Scans and combine-function reductions exchange through shared memory.
    python3 -c "import numpy as np; np.save('$work/y.npy', np.arange(1000, dtype=np.int32) % 19 - 9); np.save('$work/p.npy', np.zeros(4002, np.int32)); np.save('$work/c.npy', np.zeros(10000, np.int32)); np.save('$work/x2.npy', np.arange(16 * 64, dtype=np.int32).reshape(16, 64) % 19 - 9)"
    timeout 120 compute-sanitizer --tool "$tool" "$bin/tile-run" test/Interpreter/combine.tl \
      --kernel long_scans -D N=1000 --num-warps 8 --grid 1 --backend cuda -o "$work/out" "$work/y.npy" "$work/p.npy" \
      > "$OUT/sanitize_${tool}_scans.log" 2>&1
    note "compute-sanitizer $tool long scans (8 warps): rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/sanitize_${tool}_scans.log" | tail -n 1)"
    timeout 120 compute-sanitizer --tool "$tool" "$bin/tile-run" test/Interpreter/combine.tl \
      --kernel combine -D R=16 -D C=64 --num-warps 4 --grid 1 --backend cuda -o "$work/out" "$work/x2.npy" "$work/c.npy" \
      > "$OUT/sanitize_${tool}_combine.log" 2>&1
    note "compute-sanitizer $tool combine 16x64 (4 warps): rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/sanitize_${tool}_combine.log" | tail -n 1)"
    # Sorts exchange across warps through shared memory; histograms count
    # with shared-memory atomics.
    python3 -c "import numpy as np; np.save('$work/s.npy', (np.arange(1024) * 7919 % 1000 - 500).astype(np.int16)); np.save('$work/so.npy', np.zeros(3 * 1024 + 16, np.int32)); np.save('$work/v.npy', np.arange(1300, dtype=np.int32) % 67 - 5); np.save('$work/h.npy', np.zeros(48, np.int32))"
    timeout 120 compute-sanitizer --tool "$tool" "$bin/tile-run" test/Interpreter/sort.tl \
      --kernel int_sorts -D N=1024 -D K=16 --num-warps 8 --grid 1 --backend cuda -o "$work/out" "$work/s.npy" "$work/so.npy" \
      > "$OUT/sanitize_${tool}_sort.log" 2>&1
    note "compute-sanitizer $tool int sort 1024 (8 warps): rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/sanitize_${tool}_sort.log" | tail -n 1)"
    timeout 120 compute-sanitizer --tool "$tool" "$bin/tile-run" test/Interpreter/sort.tl \
      --kernel counts -D BLOCK=512 -D BINS=48 --num-warps 4 --grid 3 --backend cuda -o "$work/out" "$work/v.npy" "$work/h.npy" 1300 \
      > "$OUT/sanitize_${tool}_histogram.log" 2>&1
    note "compute-sanitizer $tool histogram (4 warps): rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/sanitize_${tool}_histogram.log" | tail -n 1)"
    # fp8 dot operands cross shared memory.
    (cd "$work" && python3 "$OLDPWD/test/Interpreter/Inputs/fp8.py" make)
    timeout 120 compute-sanitizer --tool "$tool" "$bin/tile-run" test/Interpreter/fp8.tl \
      --kernel fp8_dot --grid 1 --backend cuda -o "$work/out" \
      --signature "*fp8e4nv, *fp8e4nv, *fp8e5, *fp8e5, *fp32, 32, 32, 64" \
      "$work/a.npy" "$work/b.npy" "$work/c.npy" "$work/d.npy" "$work/acc.npy" \
      > "$OUT/sanitize_${tool}_fp8.log" 2>&1
    note "compute-sanitizer $tool fp8 dot: rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/sanitize_${tool}_fp8.log" | tail -n 1)"
  done
}

# The Hopper path (--arch sm_90a: wgmma dots kept in flight over cp.async
# and bulk-copy rings, bulk stores, attention) at edge-heavy shapes.
hopper() {
  local work; work=$(mktemp -d)
  python3 -c "
import numpy as np
r = np.random.default_rng(1)
for t in ('float16', 'float32'):
    np.save('$work/a_%s.npy' % t, r.standard_normal(200 * 1000).astype(t))
    np.save('$work/b_%s.npy' % t, r.standard_normal(1000 * 300).astype(t))
# fp8 e4m3 bits: exponents below the top one (finite values).
np.save('$work/a_uint8.npy', r.integers(0, 0x70, 200 * 1000).astype(np.uint8))
np.save('$work/b_uint8.npy', r.integers(0, 0x70, 1000 * 300).astype(np.uint8))
np.save('$work/c.npy', np.zeros(200 * 300, np.float32))
# 16-byte aligned rows (K and N multiples of 16): tiles by the copy engine,
# the result by bulk stores.
for t in ('float16', 'float32'):
    np.save('$work/a16_%s.npy' % t, r.standard_normal(200 * 1008).astype(t))
    np.save('$work/b16_%s.npy' % t, r.standard_normal(1008 * 304).astype(t))
np.save('$work/c16.npy', np.zeros(200 * 304, np.float32))
for n in 'qkv':
    np.save('$work/%s.npy' % n, r.standard_normal(2 * 200 * 64).astype('float16'))
np.save('$work/o.npy', np.zeros(2 * 200 * 64, np.float16))
np.save('$work/l.npy', np.zeros(2 * 200, np.float32))"
  local ints="200 300 1000 200000 1000 1 300000 300 1 60000 300 1"
  for tool in memcheck racecheck synccheck; do
    for cfg in "fp16 64 64 32 4" "fp16 128 128 32 4" "fp16 128 128 64 8" "fp32 128 128 32 8" \
               "fp8e4nv 128 128 64 8"; do
      set -- $cfg
      local np_t; np_t=$(case "$1" in fp16) echo float16 ;; fp32) echo float32 ;; *) echo uint8 ;; esac)
      local log="$OUT/sanitize_hopper_${tool}_$1_$2x$3x$4.log"
      timeout 200 compute-sanitizer --tool "$tool" --error-exitcode 1 "$bin/tile-run" \
        bench/differential/dot.tl --kernel dot_kernel --arch sm_90a --num-warps "$5" \
        --grid "$(( (200 + $2 - 1) / $2 )),$(( (300 + $3 - 1) / $3 )),1" --backend cuda -o "$work/out" \
        --signature "*$1, *$1, *fp32$(printf ', i32%.0s' $ints), $2, $3, $4, 'tf32'" \
        "$work/a_$np_t.npy" "$work/b_$np_t.npy" "$work/c.npy" $ints > "$log" 2>&1
      note "compute-sanitizer $tool sm_90a dot $1 $2x$3x$4 w$5: rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | tail -n 1)"
    done
    for cfg in "fp16 128 128 64 8" "fp32 128 128 32 8" "fp16 64 64 32 4"; do
      set -- $cfg
      local np_t; np_t=$(case "$1" in fp16) echo float16 ;; *) echo float32 ;; esac)
      local log="$OUT/sanitize_hopper_${tool}_aligned_$1_$2x$3x$4.log"
      timeout 200 compute-sanitizer --tool "$tool" --error-exitcode 1 "$bin/tile-run" \
        bench/differential/dot.tl --kernel dot_kernel --arch sm_90a --num-warps "$5" \
        --grid "$(( (200 + $2 - 1) / $2 )),$(( (304 + $3 - 1) / $3 )),1" --backend cuda -o "$work/out" \
        --signature "*$1:16, *$1:16, *fp32:16, i32, i32:16, i32:16, i32:16, i32:16, 1, i32:16, i32:16, 1, i32:16, i32:16, 1, $2, $3, $4, 'tf32'" \
        "$work/a16_$np_t.npy" "$work/b16_$np_t.npy" "$work/c16.npy" 200 304 1008 201600 1008 306432 304 60800 304 > "$log" 2>&1
      note "compute-sanitizer $tool sm_90a aligned dot (bulk stores) $1 $2x$3x$4 w$5: rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | tail -n 1)"
    done
    # Attention forward: the queries stored once before the loop, the
    # probabilities fed to the second wgmma from registers; a ragged
    # N_CTX (200 keys: the last block masked), causal or not. With 16-byte
    # aligned pointers and strides (":16") the keys and values come by
    # bulk copies from the launcher's 4-D maps (head and batch outermost).
    for aligned in "" ":16"; do
      for causal in 0 1; do
        local log="$OUT/sanitize_hopper_${tool}_attention_causal${causal}${aligned:+_aligned}.log"
        local p="*fp16$aligned" s="i32$aligned"
        timeout 200 compute-sanitizer --tool "$tool" --error-exitcode 1 "$bin/tile-run" \
          test/Triton/attention.tl --kernel attention_fwd --arch sm_90a --num-warps 8 \
          --grid 2,2,1 --backend cuda -o "$work/out" \
          --signature "$p, $p, $p, fp32, $p, *fp32$aligned, $s, $s, $s, i32, i32, 64, 128, 64, $causal" \
          "$work/q.npy" "$work/k.npy" "$work/v.npy" 0.125 "$work/o.npy" "$work/l.npy" \
          $((2 * 200 * 64)) $((200 * 64)) 64 2 200 > "$log" 2>&1
        note "compute-sanitizer $tool sm_90a attention causal=$causal${aligned:+ aligned}: rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | tail -n 1)"
      done
    done
  done
}

# test/Triton's kernels, each on tile-run against its NumPy reference.
triton() {
  for tool in "${tools[@]}"; do
    timeout 900 python3 bench/triton_suite_vs_triton.py --tile-run "$bin/tile-run" \
      --no-triton --sanitize "$tool" > "$OUT/${tool}_triton_suite.log" 2>&1
    local rc=$?
    # The suite prints its own count; a sanitizer error fails the kernel.
    note "$tool triton suite: rc=$rc $( [ $rc = 0 ] && echo 'SUMMARY: 0 failures: ')$(tail -n 1 "$OUT/${tool}_triton_suite.log")"
  done
}

# Random kernels (test/differential), GPU against the interpreter, with
# sentinels after every buffer.
differential() {
  for tool in "${tools[@]}"; do
    check "$tool" differential "$bin/tile-difftest" --seed 9000 --count 40
  done
}

sections=("$@")
[ ${#sections[@]} -eq 0 ] && sections=(all)
for section in "${sections[@]}"; do
  case "$section" in
    unit|examples|language|hopper|triton|differential) "$section" ;;
    all) unit; examples; language; hopper; triton; differential ;;
    *) echo "gpu-check: unknown section '$section'"; exit 2 ;;
  esac
done
echo "================ gpu-check: ${#summary[@]} runs, $failures failed"
printf '%s\n' "${summary[@]}" | tee "$OUT/gpu-check-summary.txt"
[ "$failures" -eq 0 ]
