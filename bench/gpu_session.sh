#!/usr/bin/env bash
# One batch of GPU work on the device machine (see scripts/gpu-bundle.sh):
# the GPU unit tests, every example, the dot differential test against the
# interpreter and Triton, compute-sanitizer on the matmul examples, the SASS
# instruction mix of the blocked matmul, the matmul benchmark, and softmax,
# layer norm and attention against Triton. Logs go to $OUT; a short table is
# printed last. Each phase fits one device call.
#   bash bench/gpu_session.sh check|tests|language|sanitize|sanitize-hopper|bench|quickbench|splitk|profile|
#                             language-bench|language-bench-quick|triton-suite|launch|autotune ...
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
  # The language tests' kernels that touch shared memory, under the
  # sanitizers.
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

sanitize() {
  for tool in memcheck racecheck synccheck; do
    for e in tiled_matmul matmul splitk_matmul; do
      TILEC_EXAMPLES_SMALL=1 timeout 300 compute-sanitizer --tool "$tool" "$bin/$e" dsl-examples \
        > "$OUT/sanitize_${tool}_$e.log" 2>&1
      note "compute-sanitizer $tool $e: rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/sanitize_${tool}_$e.log" | tail -n 1)"
    done
  done
}

# The Hopper path (--arch sm_90a: wgmma dots kept in flight over cp.async
# rings; tf32's B copied transposed) under the three sanitizers: the
# differential test's masked, strided dot kernel at edge-heavy shapes, one
# and two warpgroups.
sanitize_hopper() {
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
  for tool in memcheck racecheck; do
    timeout 150 python3 bench/triton_suite_vs_triton.py --tile-run "$bin/tile-run" \
      --no-triton --sanitize "$tool" > "$OUT/triton_suite_$tool.log" 2>&1
    note "triton suite under $tool: rc=$? $(tail -n 1 "$OUT/triton_suite_$tool.log")"
    grep -E "FAIL" "$OUT/triton_suite_$tool.log" | head -10
  done
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
    sanitize) sanitize ;;
    sanitize-hopper) sanitize_hopper ;;
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
