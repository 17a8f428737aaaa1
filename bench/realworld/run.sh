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
#            test_core.py), a spread sample;
#   vllm     vLLM's tests of its Triton kernels (attention, mamba, FLA,
#            quantization, LoRA, sampling), the package unbuilt
#            (drivers/vllm_shims.py);
#   sglang   SGLang's tests of its Triton kernels (attention, FLA, mamba,
#            KV cache, MoE, speculative decoding), likewise
#            (drivers/sglang_shims.py).
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

# pytest under the capture hook, within $seconds on $jobs workers; $shims
# names a project's shims plugin, loaded before the hook. Its last line is
# printed.
capture_pytest() {
  timeout "$seconds" python3 -m pytest -q -n "$jobs" ${shims:+-p "$shims"} -p triton_capture \
    -p no:cacheprovider "$@" > "$out/pytest.log" 2>&1
  echo "pytest: exit $? ($(tail -1 "$out/pytest.log"))"
}

case $corpus in
liger)
  # The ops' own tests; the backends for other vendors and DSLs (cute,
  # cutile, Ascend) and whole-model tests are not Triton kernels of theirs.
  cd "$checkout"
  export PYTHONPATH="$checkout/src:$checkout:$here"
  tests=$(ls test/transformers/test_*.py | grep -v -E \
    'cute|cutile|monkey_patch|trainer|auto_model|test_transformers|flex_attention|mm_int8int2')
  capture_pytest --timeout 90 $tests
  ;;
unsloth)
  export PYTHONPATH="$here"
  timeout "$seconds" python3 "$here/drivers/unsloth_ops.py" "$checkout" \
    > "$out/driver.log" 2>&1
  echo "driver: exit $? ($(tail -1 "$out/driver.log"))"
  cd "$checkout/unsloth/kernels/moe"
  export PYTHONPATH="$checkout/unsloth/kernels/moe:$here:$here/drivers"
  shims=unsloth_shims capture_pytest --timeout 120 tests/test_grouped_gemm.py
  ;;
flaggems)
  cd "$checkout"
  # Its pointwise kernels are generated into ~/.flaggems/code_cache and
  # read globals FlagGems puts there: those are captured with them.
  export PYTHONPATH="$checkout/src:$here:$here/drivers" CAPTURE_SAMPLE=${CAPTURE_SAMPLE:-3000} \
    CAPTURE_SOURCE_ROOT="$checkout"
  shims=flaggems_shims capture_pytest --timeout 90 --quick tests/test_*.py
  imports=(-I "$checkout/src")
  ;;
triton)
  cd "$checkout/python/test"
  export PYTHONPATH="$here" CAPTURE_SAMPLE=${CAPTURE_SAMPLE:-1280}
  capture_pytest --timeout 90 --rootdir . unit/language/test_core.py
  ;;
vllm)
  # Its tests of kernels whose modules import only torch, Triton and vLLM's
  # thin helpers; those of CUDA extension ops, ROCm, XPU, FlashInfer and
  # Helion are left out. Fewest items first: the attention, layer-norm and
  # LoRA tests parametrize thousands of shapes, so $CAPTURE_SAMPLE of the
  # ~9,400 items are kept, spread over them (every file keeps some).
  cd "$checkout"
  export PYTHONPATH="$checkout:$here:$here/drivers" CAPTURE_SAMPLE=${CAPTURE_SAMPLE:-3000}
  tests="tests/v1/spec_decode/test_eagle_step_kernel.py
    tests/kernels/test_fused_recurrent_packed_decode.py
    tests/kernels/attention/test_pack_unpack_triton.py
    tests/kernels/attention/test_lightning_attn.py
    tests/kernels/test_mhc_kernels.py
    tests/kernels/test_fused_sigmoid_gating_delta_rule.py
    tests/kernels/attention/test_triton_prefill_attention.py
    tests/quantization/test_per_token_kv_cache.py
    tests/kernels/moe/test_silu_mul_per_token_group_quant_fp8_colmajor.py
    tests/kernels/test_fused_gdn_post_conv.py
    tests/kernels/mamba/test_mamba_ssm_ssd.py
    tests/kernels/attention/test_triton_decode_attention.py
    tests/kernels/quantization/test_per_token_group_quant.py
    tests/quantization/test_turboquant.py
    tests/v1/sample/test_topk_topp_sampler.py
    tests/kernels/mamba/test_causal_conv1d.py
    tests/kernels/quantization/test_triton_scaled_mm.py
    tests/kernels/quantization/test_awq_triton.py
    tests/kernels/attention/test_prefix_prefill.py
    tests/kernels/test_fla_layernorm_guard.py
    tests/kernels/attention/test_merge_attn_states.py
    tests/kernels/attention/test_triton_unified_attention.py
    tests/lora/test_punica_ops_fp8.py"
  shims=vllm_shims capture_pytest --noconftest --timeout 90 $tests
  # The kernels import vllm.triton_utils and their siblings.
  imports=(-I "$checkout")
  ;;
sglang)
  # Likewise: its tests of Triton kernels (sglang.kernels.ops, jit_kernel's
  # Triton ones), not of its CUDA JIT kernels, sgl_kernel, ROCm or NPU;
  # fewest items first (the mamba ones take longest).
  cd "$checkout"
  export PYTHONPATH="$checkout/python:$checkout:$here:$here/drivers"
  tests="test/registered/attention/test_create_kvindices.py
    test/registered/unit/layers/test_mamba_state_scatter_triton.py
    test/registered/quant/test_awq_dequant.py
    test/registered/unit/mem_cache/test_triton_kernel_layout.py
    test/registered/attention/test_trtllm_mha_page_table.py
    test/registered/kernels/test_spec_topk1.py
    test/registered/layers/mamba/test_mamba_slot_fused.py
    test/registered/kernels/test_dsa_transform_index.py
    test/registered/kernels/test_gather_spec_extras.py
    test/registered/attention/test_gdn_noncontiguous_stride.py
    test/registered/attention/test_verify_splitkv.py
    test/registered/kernels/test_dsa_metadata.py
    test/registered/lora/test_virtual_experts_kernels.py
    test/registered/attention/test_triton_attention_kernels.py
    test/registered/unit/mem_cache/test_store_cache_4d.py
    test/registered/jit/test_fused_verify_triton_gdn.py
    test/registered/attention/test_kda_kernels.py
    test/registered/jit/diffusion/test_group_norm_silu.py
    test/registered/attention/test_chunk_gated_delta_rule.py
    test/registered/jit/diffusion/test_varlen_pack_pad.py
    test/registered/kernels/test_sigmoid_gate_mul.py
    test/registered/kernels/test_gemma4_fused_routing.py
    test/registered/layers/mamba/test_causal_conv1d.py
    test/registered/layers/mamba/test_mamba_ssm.py"
  shims=sglang_shims capture_pytest --noconftest --timeout 90 $tests
  imports=(-I "$checkout/python")
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
