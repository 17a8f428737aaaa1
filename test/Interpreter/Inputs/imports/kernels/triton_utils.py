# A module that re-exports Triton, choosing at import time, as vllm's
# vllm.triton_utils does; kernels import `triton` and `tl` from it.
from kernels.common import EPS

HAS_TRITON = EPS is not None

if HAS_TRITON:
    import triton
    import triton.language as tl
else:
    triton = None
    tl = None

# Bound in both branches of an `if` tilec cannot evaluate: the first
# alternative that resolves, as for imports (fla's _MERGE_DOT_PRECISION).
if HAS_TRITON:
    PRECISION = tl.constexpr("ieee")
else:
    PRECISION = tl.constexpr("tf32")

# A computed value an `if` sets (IS_HIP = False / if hip: IS_HIP = True)
# leaves the unconditional default first: tilec cannot evaluate the
# condition, and the default is what most hosts get.
BIAS = 1.0
if HAS_TRITON:
    BIAS = 2.0
