# A module of a namespace package (no __init__.py), found through
# TILEC_PATH.
import triton


@triton.jit
def add_one(x):
    return x + 1
