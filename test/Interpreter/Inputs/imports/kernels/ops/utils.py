import operator  # host-side modules: tilec reads none of them

import torch
import triton
import triton.language as tl

try:
    # typical import path with dispatch available
    from triton.language.extra.libdevice import rsqrt
except ModuleNotFoundError:
    # for working with NGC containers
    from triton.language.extra.cuda.libdevice import rsqrt

from ..common import EPS

BLOCK = tl.constexpr(64)


def calculate_settings(n):
    return triton.next_power_of_2(n), 4


@triton.jit
def scale_by(x, factor):
    return x * factor


@triton.jit
def inverse_rms(x, N: tl.constexpr):
    return rsqrt(tl.sum(x * x, axis=0) / N + EPS)
