"""What the benchmarks share that needs no GPU and no Python packages:
compiling a .tl kernel with the tilec binary to PTX and its launch metadata,
reading a kernel's parameter list, and the specialization tilec's JIT gives a
launch's arguments (abi/include/tile/Specialization.h), written as its
--signature, so that the benchmarks time the kernel a tilec user gets."""
import ast
import json
import os
import subprocess
import time

# The widest access the compiler makes: a pointer's alignment past it
# changes no code (tile/Specialization.h).
MAX_USEFUL_ALIGNMENT = 16
# A row's (a stride's) alignment past an L2 sector changes no code.
MAX_USEFUL_ROW_ALIGNMENT = 32
# The largest hint a signature entry carries.
MAX_HINT = 16


def _power_of_two_divisor(value, cap):
    divisor = 1
    while divisor < cap and value % (divisor * 2) == 0:
        divisor *= 2
    return divisor


def integer_hint(value, narrowest_bytes=1):
    """An integer argument's hint, as tilec's JIT gives it: 1 where it equals
    1 (a constant of the kernel), else its largest power-of-two divisor up to
    32 bytes of the launch's narrowest pointer elements and up to 16; 0 for
    none. Triton stops at "divisible by 16": a stride of 5000 fp16 elements
    promises it nothing, here 8 (16 bytes)."""
    if value == 1:
        return 1
    cap = min(MAX_HINT, MAX_USEFUL_ROW_ALIGNMENT // narrowest_bytes)
    divisor = _power_of_two_divisor(value, cap)
    return divisor if divisor > 1 else 0


def pointer_hint(address, element_bytes):
    """A pointer's hint: its alignment in bytes up to 16, 0 where that is no
    more than its element's own."""
    alignment = _power_of_two_divisor(address, MAX_USEFUL_ALIGNMENT)
    return alignment if alignment > element_bytes else 0


def _typed(kind, hint):
    return "1" if hint == 1 else kind + (f":{hint}" if hint else "")


def specialize(ints, narrowest_bytes=1):
    """tilec's specialization of integer arguments beside pointers whose
    narrowest element has `narrowest_bytes`: the signature's entries and the
    values still passed at launch (those equal to 1 become constants)."""
    entries = [_typed("i32" if -2**31 <= v < 2**31 else "i64",
                      integer_hint(v, narrowest_bytes)) for v in ints]
    return entries, [v for v in ints if v != 1]


MAX_MODEL_CLUSTER_SPLIT = 4  # tile::kMaxModelClusterSplit


def may_cluster_split_k(programs, multiprocessors, capability):
    """tile::mayClusterSplitK (abi/include/tile/Grid.h): sm_90+ and no more
    programs than SMs."""
    return capability >= 90 and 0 < programs <= multiprocessors


def cluster_split_k(programs, multiprocessors, capability, capacity=None):
    """The CTAs per program the JIT's cost model picks for a launch of
    `programs` (tile::chooseClusterSplitK): the largest of 4, 3 and 2 whose
    clusters all run at once, `capacity[S]` of them (the kernel's
    cuOccupancyMaxActiveClusters; unknown: one CTA an SM), else 1."""
    if not may_cluster_split_k(programs, multiprocessors, capability):
        return 1
    for ctas in range(MAX_MODEL_CLUSTER_SPLIT, 1, -1):
        known = capacity[ctas] if capacity else 0
        if programs <= (known or multiprocessors // ctas):
            return ctas
    return 1


MAX_STREAM_K_PIECES = 3  # tile::kMaxStreamKPieces
MAX_STREAM_K_PARTS = 8  # tile::kMaxStreamKParts


def stream_k_launch(programs, resident_ctas):
    """tile::chooseStreamK: (ctas, split programs, parts, head parts) of a
    stream-K kernel's launch of `programs` programs on a GPU that holds
    `resident_ctas` of its CTAs at once (split 0: a CTA a program). The
    programs of a last wave that leaves as many slots idle are cut into `parts` parts, the first `head`
    run by the program's CTA and each other by one of the CTAs after the
    grid's, as the cut whose head or busiest piece CTA ends first (a
    partial costing 1/32 of a K loop) says, where it saves a tenth of the
    grid's time."""
    none = (programs, 0, 0, 0)
    if not programs or not resident_ctas:
        return none
    waves = -(-programs // resident_ctas)
    last = programs - (waves - 1) * resident_ctas
    idle = resident_ctas - last
    if last > idle:
        return none
    best_time, best_scale, best = 1, 1, none
    for parts in range(2, MAX_STREAM_K_PARTS + 1):
        for head in range(max(1, parts - MAX_STREAM_K_PIECES), parts):
            pieces = last * (parts - head)
            ctas = min(idle, pieces)
            if not ctas:
                continue
            time = max(32 * head + (parts - head) * parts,
                       -(-pieces // ctas) * (32 + parts))
            if time * best_scale < best_time * 32 * parts:
                best_time, best_scale = time, 32 * parts
                best = (programs + ctas, last, parts, head)
    if 10 * (best_scale - best_time) < waves * best_scale:
        return none
    return best


def stream_k_workspace_bytes(meta, pieces):
    """KernelMetadata::streamKWorkspaceBytes: a zeroed flag a piece, padded
    to 128 bytes, then a partial accumulator a piece."""
    return -(-4 * pieces // 128) * 128 + pieces * meta["stream_k_partial_bytes"]


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
           "torch.int16": "i16", "torch.uint16": "u16", "torch.int8": "i8",
           "torch.uint8": "u8", "torch.float64": "fp64", "torch.bool": "i1",
           "torch.float8_e4m3fn": "fp8e4nv", "torch.float8_e5m2": "fp8e5"}
ELEMENT_BYTES = {"fp32": 4, "fp16": 2, "bf16": 2, "i32": 4, "i64": 8, "i8": 1,
                 "u8": 1, "fp64": 8, "fp8e4nv": 1, "fp8e5": 1, "i16": 2,
                 "u16": 2, "i1": 1}


def _pointee(value):
    """A tensor's (or Pointer's) element type in tilec's names and bytes."""
    dtype = str(value.dtype)
    name = _DTYPES.get(dtype, dtype)
    if name not in ELEMENT_BYTES:
        raise TypeError(f"no tilec dtype for {dtype}")
    return name, ELEMENT_BYTES[name]


def _is_pointer(value):
    return not isinstance(value, (bool, int, float, Constexpr))


def _entry(value, narrowest_bytes):
    """A runtime argument's type as tilec's JIT specializes it: a tensor by
    its real alignment (a Pointer stand-in as a fresh, 16-byte aligned
    allocation), an integer by its divisor or as the constant 1, a float as
    fp32."""
    if isinstance(value, bool):
        raise TypeError("a bool argument must be a Constexpr")
    if isinstance(value, int):
        return _typed("i32" if -2**31 <= value < 2**31 else "i64",
                      integer_hint(value, narrowest_bytes))
    if isinstance(value, float):
        return "fp32"
    name, size = _pointee(value)
    address = value.data_ptr() if hasattr(value, "data_ptr") else 0
    hint = pointer_hint(address, size)
    return f"*{name}" + (f":{hint}" if hint else "")


def signature(values):
    """tilec's --signature for a launch with these arguments in parameter
    order (Constexpr for the constexpr parameters)."""
    narrowest = min([_pointee(v)[1] for v in values if _is_pointer(v)] or [1])
    return ", ".join(
        (str(v.value) if not isinstance(v.value, str) else repr(v.value))
        if isinstance(v, Constexpr) else _entry(v, narrowest) for v in values)


def entry_args(values):
    """The arguments that stay parameters of tilec's PTX entry: Triton's
    specialization makes constexprs and integers equal to 1 constants."""
    return [v for v in values if not isinstance(v, Constexpr) and
            not (isinstance(v, int) and not isinstance(v, bool) and v == 1)]
