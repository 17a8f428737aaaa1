#!/usr/bin/env bash
# One batch of GPU work on the device machine (see scripts/gpu-bundle.sh):
# the GPU unit tests, every example, the dot differential test against the
# interpreter and Triton, compute-sanitizer on the matmul examples, the SASS
# instruction mix of the blocked matmul, the matmul benchmark, and softmax,
# layer norm and attention against Triton. Logs go to $OUT; a short table is
# printed last. Each phase fits one device call.
#   bash bench/gpu_session.sh check|tests|language|sanitize|sanitize-hopper|gpu-check|deterministic|differential|
#                             bench|quickbench|splitk|profile|language-bench|language-bench-quick|
#                             triton-suite|launch|autotune ...
set -uo pipefail
cd "$(dirname "$0")/.."
source .gpu/unpack.sh
OUT="${OUT:-/tmp/out}"; mkdir -p "$OUT"
bin="$TILEC_GPU_ROOT/bin"
nvidia-smi -L
summary=()
note() { summary+=("$1"); echo "$1"; }

unit_tests() {
for t in "$bin"/*-tests; do
  timeout 300 "$t" > "$OUT/$(basename "$t").log" 2>&1
  rc=$?
  note "$(basename "$t"): rc=$rc $(grep -E '^\[  (PASSED|FAILED)' "$OUT/$(basename "$t").log" | tr '\n' ' ')"
done
}

check() {
unit_tests
for e in vector_add transpose dot_product normalize matmul splitk_matmul tiled_matmul; do
  timeout 300 "$bin/$e" dsl-examples > "$OUT/example_$e.log" 2>&1
  note "example $e: rc=$?"
done
tail -n 12 "$OUT"/example_matmul.log "$OUT"/example_splitk_matmul.log "$OUT"/example_tiled_matmul.log

timeout 300 python3 bench/interp_vs_cuda.py --tile-run "$bin/tile-run" \
  > "$OUT/interp_vs_cuda.log" 2>&1
note "interp vs cuda: rc=$? $(tail -n 1 "$OUT/interp_vs_cuda.log")"
grep DIFFER "$OUT/interp_vs_cuda.log" | head -20

timeout 420 python3 bench/dot_differential.py --tile-run "$bin/tile-run" --triton \
  > "$OUT/dot_differential.log" 2>&1
note "dot differential: rc=$? $(tail -n 1 "$OUT/dot_differential.log")"
grep FAIL "$OUT/dot_differential.log" | head -20

sig="*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, i32:16, 1, i32:16, i32:16, 1, i32:16, i32:16, 1, 128, 128, 32, 'tf32'"
"$bin/tilec" dsl-examples/matmul.tl --signature "$sig" --emit=cubin -o "$OUT/matmul_fp16.cubin" --time > "$OUT/compile_time.log" 2>&1
cuobjdump --dump-sass "$OUT/matmul_fp16.cubin" > "$OUT/matmul_fp16.sass"
note "SASS matmul fp16 128x128x32: $(grep -cE 'HMMA' "$OUT/matmul_fp16.sass") HMMA, $(grep -cE 'HGMMA' "$OUT/matmul_fp16.sass") HGMMA, $(grep -cE 'LDSM' "$OUT/matmul_fp16.sass") LDSM, $(grep -cE 'LDL|STL' "$OUT/matmul_fp16.sass") LDL/STL, $(grep -cE 'BAR' "$OUT/matmul_fp16.sass") BAR"
note "compile: $(tail -n 1 "$OUT/compile_time.log")"
}

language() {
  timeout 300 python3 bench/language_vs_triton.py --tile-run "$bin/tile-run" \
    > "$OUT/language_vs_triton.log" 2>&1
  note "language vs triton: rc=$? $(tail -n 1 "$OUT/language_vs_triton.log")"
  grep -E "FAIL|DIFFER|Error" "$OUT/language_vs_triton.log" | head -30
  # Which instructions each of tl's math functions becomes, both sides.
  timeout 200 python3 bench/math_ptx.py --tilec "$bin/tilec" --out "$OUT/math_ptx" \
    > "$OUT/math_ptx.log" 2>&1
  note "math ptx: rc=$?"
  cat "$OUT/math_ptx.log"
  gpu_check language
}

# compute-sanitizer runs: scripts/gpu-check.sh's sections, their summary
# lines added to this session's.
gpu_check() {
  OUT="$OUT/gpu-check" bash scripts/gpu-check.sh "$@" > "$OUT/gpu-check-$1.log" 2>&1
  note "gpu-check $*: rc=$? $(grep -E '^================ gpu-check' "$OUT/gpu-check-$1.log")"
  while read -r line; do summary+=("  $line"); done < <(
    sed -n '/^================ gpu-check/,$p' "$OUT/gpu-check-$1.log" | tail -n +2)
}

# The Hopper path (--arch sm_90a: wgmma dots kept in flight over cp.async
# rings; tf32's B copied transposed) under the three sanitizers: the
# differential test's masked, strided dot kernel at edge-heavy shapes, one
# and two warpgroups.

bench() {
  PYTHONUNBUFFERED=1 timeout 540 python3 bench/matmul.py --tilec "$bin/tilec" \
    --json "$OUT/matmul.json" "$@" > "$OUT/matmul.log" 2>&1
  note "bench/matmul.py: rc=$?"
  tail -n 14 "$OUT/matmul.log"
}

# Softmax, layer norm and attention forward, tilec against Triton on the
# same .tl files (bench/language_bench.py); extra arguments from
# LANGUAGE_BENCH_ARGS (e.g. "--only attention" where one call is too short).
language_bench() {
  PYTHONUNBUFFERED=1 timeout 560 python3 bench/language_bench.py --tilec "$bin/tilec" \
    --json "$OUT/language_bench.json" --time-limit 480 "$@" ${LANGUAGE_BENCH_ARGS:-} \
    > "$OUT/language_bench.log" 2>&1
  note "bench/language_bench.py: rc=$? $(tail -n 1 "$OUT/language_bench.log")"
  sed -n '/^| workload | unit/,/^$/p' "$OUT/language_bench.log"
}

# test/Triton's suite by tilec on the GPU and by Triton on the same .tl
# files, against the NumPy references and each other; then tilec's runs
# under compute-sanitizer (memcheck, racecheck), tilec only.
triton_suite() {
  timeout 240 python3 bench/triton_suite_vs_triton.py --tile-run "$bin/tile-run" \
    > "$OUT/triton_suite.log" 2>&1
  note "triton suite vs triton: rc=$? $(tail -n 1 "$OUT/triton_suite.log")"
  grep -E "FAIL|DIFFER|Error" "$OUT/triton_suite.log" | head -30
  gpu_check triton
}

# Random kernels, GPU against the interpreter (test/differential):
# DIFFTEST_COUNT of them from DIFFTEST_SEED.
differential() {
  timeout 580 "$bin/tile-difftest" --seed "${DIFFTEST_SEED:-1}" \
    --count "${DIFFTEST_COUNT:-10000}" --jobs 12 > "$OUT/differential.log" 2>&1
  note "differential: rc=$? $(tail -n 1 "$OUT/differential.log")"
  grep -E "FAIL|seed" "$OUT/differential.log" | head -20
}

# Deterministic split-K against the atomic form (bench/deterministic).
deterministic() {
  timeout 300 "$bin/deterministic_splitk" dsl-examples > "$OUT/deterministic.log" 2>&1
  note "deterministic split-K: rc=$?"
  cat "$OUT/deterministic.log"
}

profile() {
  timeout 500 ncu --set full --kernel-name regex:"matmul|splitk" -f -o "$OUT/matmul" \
    python3 bench/profile_matmul.py --tilec "$bin/tilec" --out "$OUT/profile" "$@" \
    > "$OUT/profile.log" 2>&1
  note "ncu profile: rc=$?"
  ncu --import "$OUT/matmul.ncu-rep" --page details > "$OUT/ncu_details.txt" 2>&1
  grep -E "^  [a-z_]+_kernel|Duration|Registers Per|Achieved Occupancy" "$OUT/ncu_details.txt" | head -60
  rm -f "$OUT/matmul.ncu-rep" "$OUT"/profile/*.cubin
  for f in "$OUT"/profile/*.sass; do
    note "$(basename "$f" .sass): $(grep -c HMMA "$f") HMMA, $(grep -c HGMMA "$f") HGMMA, $(grep -c LDSM "$f") LDSM, $(grep -cE ' LDS' "$f") LDS, $(grep -cE ' STS' "$f") STS, $(grep -cE 'FFMA' "$f") FFMA, $(grep -cE 'ATOMG|RED' "$f") atomics, $(grep -cE 'LDL|STL' "$f") LDL/STL"
  done
}

# The split-K loop kernel's SASS at the configuration that leads: its
# epilogue's atomics (RED: no old value waited for) and fences (MEMBAR).
splitk_sass() {
  local sig="*fp16:16, *fp16:16, *fp32:16, i32:16, i32:16, i32:16, i32:16, 1, i32:16, 1, i32:16, 1, 64, 64, 128, 8"
  "$bin/tilec" dsl-examples/splitk_matmul.tl --kernel splitk_kernel --arch sm_90a --num-stages 6 \
    --signature "$sig" --emit=cubin -o "$OUT/splitk.cubin" > "$OUT/splitk_compile.log" 2>&1
  cuobjdump --dump-sass "$OUT/splitk.cubin" > "$OUT/splitk.sass"
  note "SASS split-K [64,64,128,4,6,8]: $(grep -c HGMMA "$OUT/splitk.sass") HGMMA, $(grep -c UTMALDG "$OUT/splitk.sass") UTMALDG, $(grep -c 'REDG' "$OUT/splitk.sass") REDG, $(grep -c 'ATOMG' "$OUT/splitk.sass") ATOMG, $(grep -c 'MEMBAR' "$OUT/splitk.sass") MEMBAR, $(grep -cE 'LDL|STL' "$OUT/splitk.sass") LDL/STL"
  grep -E "REDG|ATOMG|MEMBAR" "$OUT/splitk.sass" | head -4
}

# Launch overhead (bench/launch_overhead.py: raw, AOT, Kernel, JIT, bound,
# Triton, cold start) and the consumer's AOT dispatcher against the JIT,
# also under memcheck.
launch() {
  timeout 300 python3 bench/launch_overhead.py --bin "$bin/launch_overhead" \
    --json "$OUT/launch_overhead.json" > "$OUT/launch_overhead.log" 2>&1
  note "launch overhead: rc=$?"
  cat "$OUT/launch_overhead.log"
  timeout 120 "$bin/aot_scale" examples/cmake-consumer/kernels > "$OUT/aot_scale.log" 2>&1
  note "aot_scale: rc=$? $(tr '\n' ' ' < "$OUT/aot_scale.log")"
  TILEC_CACHE_DIR=$(mktemp -d) timeout 300 compute-sanitizer --tool memcheck \
    "$bin/aot_scale" examples/cmake-consumer/kernels > "$OUT/aot_scale_memcheck.log" 2>&1
  note "memcheck aot_scale: rc=$? $(grep 'ERROR SUMMARY' "$OUT/aot_scale_memcheck.log")"
}

autotune() {
  timeout 300 "$bin/tile-jit-tests" --gtest_filter='Autotune*' > "$OUT/autotune_tests.log" 2>&1
  note "autotune tests: rc=$? $(grep -E '^\[  (PASSED|FAILED)' "$OUT/autotune_tests.log" | tr '\n' ' ')"
  # The buffers' fills and restores under memcheck (not the choice: the
  # sanitizer's instrumentation distorts the timings).
  TILEC_CACHE_DIR=$(mktemp -d) timeout 300 compute-sanitizer --tool memcheck \
    "$bin/tile-jit-tests" --gtest_filter='Autotune.Resets*GPU:Autotune.Restores*' \
    > "$OUT/autotune_memcheck.log" 2>&1
  note "memcheck autotune: rc=$? $(grep 'ERROR SUMMARY' "$OUT/autotune_memcheck.log")"
  timeout 500 python3 bench/autotune_vs_triton.py --tile-run "$bin/tile-run" \
    > "$OUT/autotune_vs_triton.log" 2>&1
  note "autotune vs triton: rc=$?"
  cat "$OUT/autotune_vs_triton.log"
}

for phase in "$@"; do
  case "$phase" in
    check) check ;;
    tests) unit_tests ;;
    language) language ;;
    sanitize) gpu_check examples ;;
    sanitize-hopper) gpu_check hopper ;;
    gpu-check) gpu_check all ;;
    deterministic) deterministic ;;
    differential) differential ;;
    bench) bench ;;
    quickbench) bench --quick ;;
    splitk) bench --only split-K --arch sm_90a; splitk_sass ;;
    profile) profile ;;
    language-bench) language_bench ;;
    language-bench-quick) language_bench --quick ;;
    triton-suite) triton_suite ;;
    launch) launch ;;
    autotune) autotune ;;
  esac
done
echo "================ summary"
printf '%s\n' "${summary[@]}" | tee "$OUT/summary.txt"
# The device tool brings back a few files: everything in one archive.
tar -C "$OUT" -czf /tmp/gpu_session_logs.tgz . && rm -rf "${OUT:?}"/* &&
  mv /tmp/gpu_session_logs.tgz "$OUT/logs.tgz"
