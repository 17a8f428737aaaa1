#!/usr/bin/env bash
# The main job: build tilec, compile every dsl-example to PTX with tilec,
# and run the C++ host programs, which JIT-compile the same .tl files and
# check the results against the CPU: on the GPU, or on tilec's interpreter
# where there is none.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
out="$build/examples"
mkdir -p "$out"

echo "== tilec: .tl -> PTX (+ .json metadata)"
"$build/bin/tilec" "$root/dsl-examples/vector_add.tl" -o "$out/vector_add.ptx" \
  --signature "*fp32:16, *fp32:16, *fp32:16, i32, 1024"
"$build/bin/tilec" "$root/dsl-examples/transpose.tl" -o "$out/transpose.ptx" \
  --signature "*fp32:16, *fp32:16, i32, i32, i32, i32, 64, 64"
"$build/bin/tilec" "$root/dsl-examples/dot_product.tl" -o "$out/dot_product.ptx" \
  --signature "*fp32:16, *fp32:16, *fp32:16, i32:16, 2048"
"$build/bin/tilec" "$root/dsl-examples/normalize.tl" -o "$out/normalize.ptx" \
  --num-warps 8 --signature "*fp32:16, *fp32:16, i32:16, i32:16, 4096"
"$build/bin/tilec" "$root/dsl-examples/matmul.tl" -o "$out/matmul.ptx" \
  --signature "*fp16:16, *fp16:16, *fp16:16, i32, i32, i32:16, i32, i32:16, 1, i32, i32:16, 1, i32, i32:16, 1, 128, 128, 32, 'tf32'"
"$build/bin/tilec" "$root/dsl-examples/tiled_matmul.tl" -o "$out/tiled_matmul.ptx" \
  --signature "*fp32, *fp32, *fp32, i32, 3"
for f in "$out"/*.ptx; do
  echo "   $f: $(grep -c '' "$f") lines, entry $(grep -m1 -o '\.entry [a-z_]*' "$f")"
done

echo "== host programs (JIT; on the interpreter when there is no GPU)"
"$build/bin/vector_add" "$root/dsl-examples"
"$build/bin/transpose" "$root/dsl-examples"
"$build/bin/dot_product" "$root/dsl-examples"
"$build/bin/normalize" "$root/dsl-examples"
"$build/bin/matmul" "$root/dsl-examples"
"$build/bin/splitk_matmul" "$root/dsl-examples"
"$build/bin/tiled_matmul" "$root/dsl-examples"
