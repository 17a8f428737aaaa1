"""What the benchmarks share that needs no GPU and no Python packages:
compiling a .tl kernel with the tilec binary to PTX and its launch metadata,
reading a kernel's parameter list, and Triton's specialization of a launch's
arguments written as tilec's --signature (so that both compile the same
kernel)."""
import ast
import json
import os
import subprocess
import time


def specialize(ints):
    """Triton's JIT specialization of integer arguments: divisible by 16, or
    equal to 1 (then a constant, no longer a parameter); the signature's
    entries and the values still passed at launch."""
    entry = lambda v: "i32:16" if v % 16 == 0 else ("1" if v == 1 else "i32")
    return [entry(v) for v in ints], [v for v in ints if entry(v) != "1"]


class CompileError(RuntimeError):
    """tilec rejected the kernel; the message is its diagnostics."""


def compile_tl(tilec, path, ptx, signature, num_warps=4, options=()):
    """Compiles `path` to `ptx` (and the .json beside it); returns the
    metadata and the wall time of the whole tilec process in ms."""
    os.makedirs(os.path.dirname(os.path.abspath(ptx)), exist_ok=True)
    start = time.perf_counter()
    result = subprocess.run([tilec, path, "-o", ptx, "--signature", signature,
                             "--num-warps", str(num_warps)] + list(options),
                            capture_output=True, text=True)
    compile_ms = (time.perf_counter() - start) * 1e3
    if result.returncode:
        raise CompileError(result.stderr.strip() or
                           f"tilec exited with status {result.returncode}")
    with open(ptx[:-4] + ".json") as f:
        return json.load(f), compile_ms


def kernel_params(path, kernel):
    """The parameters of the @triton.jit function `kernel` in `path`, in
    order, as (name, is_constexpr)."""
    tree = ast.parse(open(path).read(), path)
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == kernel:
            return [(a.arg, a.annotation is not None and
                     "constexpr" in ast.unparse(a.annotation))
                    for a in node.args.args]
    raise LookupError(f"{path} has no function {kernel}")


class Pointer:
    """Stands for a tensor argument where no tensor exists (compiling
    without a GPU): only its element type matters to the signature."""

    def __init__(self, dtype):
        self.dtype = dtype


class Constexpr:
    def __init__(self, value):
        self.value = value


# torch dtypes by their str(), Pointer's by tilec's own names.
_DTYPES = {"torch.float32": "fp32", "torch.float16": "fp16",
           "torch.bfloat16": "bf16", "torch.int32": "i32", "torch.int64": "i64",
           "torch.int8": "i8", "torch.uint8": "u8", "torch.float64": "fp64"}


def _entry(value):
    """A runtime argument's type as Triton's JIT specializes it: pointers
    16-byte aligned (fresh allocations are), integers divisible by 16 or
    equal to 1 (then a constant), floats fp32."""
    if isinstance(value, bool):
        raise TypeError("a bool argument must be a Constexpr")
    if isinstance(value, int):
        kind = "i32" if -2**31 <= value < 2**31 else "i64"
        return "1" if value == 1 else kind + (":16" if value % 16 == 0 else "")
    if isinstance(value, float):
        return "fp32"
    dtype = str(value.dtype)
    return f"*{_DTYPES.get(dtype, dtype)}:16"


def signature(values):
    """tilec's --signature for a launch with these arguments in parameter
    order (Constexpr for the constexpr parameters)."""
    return ", ".join(
        (str(v.value) if not isinstance(v.value, str) else repr(v.value))
        if isinstance(v, Constexpr) else _entry(v) for v in values)


def entry_args(values):
    """The arguments that stay parameters of tilec's PTX entry: Triton's
    specialization makes constexprs and integers equal to 1 constants."""
    return [v for v in values if not isinstance(v, Constexpr) and
            not (isinstance(v, int) and not isinstance(v, bool) and v == 1)]
