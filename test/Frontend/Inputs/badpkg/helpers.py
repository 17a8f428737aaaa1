import triton


@triton.jit
def ok(x):
    return x + 1
