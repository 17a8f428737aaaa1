# Kernels of a package whose imports fail in each way a user meets: each
# error names the module, the name and the import's line, where the kernel
# uses the name (test/Frontend/imports-errors.tl).
import numpy as np
import torch
import triton
import triton.language as tl

from ... import beyond
from .broken import g
from .cycle_a import f
from .helpers import missing_name, ok
from .nothere import h


@triton.jit
def uses_ok(x_ptr):
    tl.store(x_ptr, ok(1.0))


@triton.jit
def uses_cycle(x_ptr):
    tl.store(x_ptr, f(1.0))


@triton.jit
def uses_broken(x_ptr):
    tl.store(x_ptr, g(1.0))


@triton.jit
def uses_missing(x_ptr):
    tl.store(x_ptr, missing_name(1.0))


@triton.jit
def uses_nothere(x_ptr):
    tl.store(x_ptr, h(1.0))


@triton.jit
def uses_beyond(x_ptr):
    tl.store(x_ptr, beyond(1.0))


@triton.jit
def uses_numpy(x_ptr):
    tl.store(x_ptr, np.float32(1.0))
