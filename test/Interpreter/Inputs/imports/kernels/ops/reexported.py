# A kernel module whose decorator comes through a project's re-export of
# Triton (`@triton.jit()` with `triton` from kernels.triton_utils), with
# parameters annotated by a module tilec cannot read (torch), as sglang's
# are: Triton takes their types from the arguments, and so does tilec. A
# project's decorator whose module tilec cannot evaluate is host code.
import torch

from kernels.hostutils import libentry
from kernels.triton_utils import BIAS, PRECISION, tl, triton


@libentry()
@triton.jit()
def masked_bias(x_ptr: torch.Tensor, y_ptr: torch.Tensor, N: tl.constexpr):
    tl.extra.cuda.gdc_wait()
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    # Two constexprs promote as scalar tensors: an int 0 and a float -inf
    # make fp32, not an int that loses the -inf.
    y = x + tl.where(offs < N // 2, 0, float("-inf"))
    tl.store(y_ptr + offs, y + BIAS if PRECISION == "ieee" else x)
    tl.extra.cuda.gdc_launch_dependents()
