#!/usr/bin/env bash
# The lit tests on the GPU machine, from the GPU bundle (scripts/gpu-bundle.sh
# ships lit, FileCheck, not and count): all of them, so that those that need
# a GPU, ptxas, nvdisasm or compute-sanitizer run where they exist (they are
# unsupported elsewhere). Extra arguments go to lit (--filter REGEX).
# Prints lit's summary last; exits with lit's status.
set -uo pipefail
cd "$(dirname "$0")/.."
if [ -z "${TILEC_GPU_ROOT:-}" ]; then
  source .gpu/unpack.sh
fi
if [ ! -d "$TILEC_GPU_ROOT/lit" ]; then
  echo "gpu-lit: the bundle has no lit: its build had no tests (TILEC_BUILD_TESTS)"
  exit 2
fi
obj="$TILEC_GPU_ROOT/obj"
mkdir -p "$obj/test"
cat > "$obj/test/lit.site.cfg.py" <<SITE
import os
config.tilec_tools_dir = "$TILEC_GPU_ROOT/bin"
config.tilec_src_root = "$PWD"
config.tilec_obj_root = "$obj"
config.llvm_tools_dir = "$TILEC_GPU_ROOT/llvm-bin"
config.tilec_enable_assertions = 1
lit_config.load_config(config, os.path.join(config.tilec_src_root, "test", "lit.cfg.py"))
SITE
# CUDA's tools (ptxas, nvdisasm, compute-sanitizer) where lit looks.
export PATH="${CUDA_HOME:-/usr/local/cuda}/bin:$PATH"
PYTHONPATH="$TILEC_GPU_ROOT/lit${PYTHONPATH:+:$PYTHONPATH}" \
  python3 -c "import sys, lit.main; sys.exit(lit.main.main())" -sv "$obj/test" "$@"
