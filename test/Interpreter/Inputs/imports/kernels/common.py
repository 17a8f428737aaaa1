import triton
import triton.language as tl

EPS = tl.constexpr(1e-6)


@triton.jit
def twice(x):
    return x + x


@tl.constexpr
def accum_type(dtype: tl.dtype) -> tl.dtype:
    # A constexpr function other modules import (FlagGems' cumprod reads
    # get_prod_accum_type from its own module; the same from another).
    if dtype.is_bf16() or dtype.is_fp16():
        return tl.float32
    if dtype.is_int():
        return tl.int64
    return dtype
