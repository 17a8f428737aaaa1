"""Launches a tilec kernel from its .ptx and .json through the CUDA driver
(ctypes), as the README says any host can: the parameters in
order, then the tensor maps the metadata's "tensor_maps" describe, built
here from the arguments' values (cuTensorMapEncodeTiled, as tilec's runtime
does), then, when "global_scratch_bytes" is set, each program's scratch
(each CTA's, for a stream-K kernel).

CuPy loads the module; the launch goes through cuLaunchKernel because a
tensor map is a 128-byte parameter passed by value, or, where the .json has
"cluster_dims" (each program a thread-block cluster), cuLaunchKernelEx with
the grid's CTAs (grid * cluster_dims) and the cluster as an attribute. A
stream-K kernel ("stream_k_partial_bytes") takes the grid, the programs it
splits and their cut, and a workspace, after every other parameter, and
runs as the CTAs harness.stream_k_launch gives; a persistent kernel
("persistent") takes the grid after every other parameter and runs as
many CTAs as the device holds at once."""
import ctypes
import os
import re
import struct

import cupy

from harness import stream_k_launch, stream_k_workspace_bytes

_cuda = ctypes.CDLL("libcuda.so.1")
_cuda.cuLaunchKernel.argtypes = [
    ctypes.c_void_p, ctypes.c_uint, ctypes.c_uint, ctypes.c_uint,
    ctypes.c_uint, ctypes.c_uint, ctypes.c_uint, ctypes.c_uint,
    ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p), ctypes.c_void_p]
_cuda.cuTensorMapEncodeTiled.argtypes = [
    ctypes.c_void_p, ctypes.c_int, ctypes.c_uint, ctypes.c_void_p,
    ctypes.POINTER(ctypes.c_uint64), ctypes.POINTER(ctypes.c_uint64),
    ctypes.POINTER(ctypes.c_uint32), ctypes.POINTER(ctypes.c_uint32),
    ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int]



class _LaunchAttribute(ctypes.Structure):
    """CUDA 12's CUlaunchAttribute: the id, padded to 8 bytes, and a 64-byte
    value, here CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION's (x, y, z)."""
    _fields_ = [("id", ctypes.c_int), ("pad", ctypes.c_char * 4),
                ("cluster", ctypes.c_uint * 3), ("rest", ctypes.c_char * 52)]


class _LaunchConfig(ctypes.Structure):
    """CUDA 12's CUlaunchConfig."""
    _fields_ = [("grid", ctypes.c_uint * 3), ("block", ctypes.c_uint * 3),
                ("shared", ctypes.c_uint), ("stream", ctypes.c_void_p),
                ("attrs", ctypes.POINTER(_LaunchAttribute)),
                ("num_attrs", ctypes.c_uint)]


_CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION = 4
_DATA_TYPES = {1: 0, 2: 1, 4: 2, 8: 4}  # unsigned integers of 1 to 8 bytes
_SWIZZLES = {0: 0, 32: 1, 64: 2, 128: 3}


def _read_dtypes():
    """The ABI's dtype table (abi/include/tile/DType.h's kDTypes): each
    signature name's class and the C type a host passes one value as, read
    from the header so that the table is written once."""
    header = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "abi",
                          "include", "tile", "DType.h")
    rows = re.findall(r'\{DType::\w+, "(\w+)", "\w+", DTypeClass::(\w+), \d+, \d+,\s*"(\w+)"\}',
                      open(header).read())
    if not rows:
        raise RuntimeError(f"no dtype rows in {header}")
    return {name: (cls, ctype) for name, cls, ctype in rows}


_DTYPES = _read_dtypes()
_CTYPES = {"int8_t": ctypes.c_int8, "int16_t": ctypes.c_int16, "int32_t": ctypes.c_int32,
           "int64_t": ctypes.c_int64, "uint8_t": ctypes.c_uint8, "uint16_t": ctypes.c_uint16,
           "uint32_t": ctypes.c_uint32, "uint64_t": ctypes.c_uint64, "float": ctypes.c_float,
           "double": ctypes.c_double}


def _scalar(kind, value):
    """A scalar parameter of signature type `kind` holding `value`, packed as
    the ABI's C type: fp16 and bf16 as their bits."""
    cls, ctype = _DTYPES[kind]
    if cls == "Float" and ctype == "uint16_t":
        if kind == "fp16":
            return ctypes.c_uint16(struct.unpack("<H", struct.pack("<e", value))[0])
        bits = struct.unpack("<I", struct.pack("<f", value))[0]  # bf16: nearest even
        return ctypes.c_uint16((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16)
    if cls == "Float" and ctype == "uint8_t":
        raise LaunchError(f"a {kind} scalar: pass fp8 values through a buffer")
    return _CTYPES[ctype](value if cls == "Float" else int(value))


class LaunchError(RuntimeError):
    """A driver call failed: the message names it, the error and the kernel."""


def _check(result, call, kernel):
    if result:
        name = ctypes.c_char_p()
        _cuda.cuGetErrorName(result, ctypes.byref(name))
        raise LaunchError(f"{call} failed for kernel {kernel}: "
                          f"{(name.value or b'?').decode()} ({result})")


def _wrap(value, bits):
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >> (bits - 1) else value


def evaluate(expr, values, grid=(1, 1, 1)):
    """A recipe (tile/Metadata.h's HostExpr) on the parameters' values and
    the launch's grid."""
    if isinstance(expr, int):
        return expr
    op, *operands = expr
    if op == "arg":
        return values[operands[0]]
    if op == "grid":
        return grid[operands[0]]
    args = [evaluate(e, values, grid) for e in operands]
    if op == "i32":
        return _wrap(args[0], 32)
    a, b = args
    if op in ("div", "ceildiv", "rem") and b == 0:
        return 0
    quotient = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)
    result = {"add": lambda: a + b, "sub": lambda: a - b, "mul": lambda: a * b,
              "div": lambda: quotient,
              "ceildiv": lambda: quotient + (1 if a != quotient * b and
                                             (a < 0) == (b < 0) else 0),
              "rem": lambda: a - quotient * b,
              "min": lambda: min(a, b), "max": lambda: max(a, b)}[op]()
    return _wrap(result, 64)


def encode_tensor_map(info, values, grid, kernel, index):
    """The 128 bytes of the map `info` describes for these values; zeros
    for an empty tensor, as the runtime passes."""
    tensor_map = (ctypes.c_uint8 * 128)()
    dims = [evaluate(d, values, grid) for d in info["dims"]]
    if min(dims) <= 0:
        return tensor_map
    rank = len(dims)
    strides = [evaluate(s, values, grid) * info["element_bytes"] for s in info["strides"]]
    _check(_cuda.cuTensorMapEncodeTiled(
        tensor_map, _DATA_TYPES[info["element_bytes"]], rank,
        ctypes.c_void_p(evaluate(info["base"], values, grid)),
        (ctypes.c_uint64 * rank)(*dims), (ctypes.c_uint64 * max(1, rank - 1))(*strides),
        (ctypes.c_uint32 * rank)(*info["box"]), (ctypes.c_uint32 * rank)(*([1] * rank)),
        0, _SWIZZLES[info["swizzle"]], 0, 0),
        f"cuTensorMapEncodeTiled(tensor map {index})", kernel)
    return tensor_map


def co_resident_clusters(function, meta, ctas):
    """How many clusters of `ctas` CTAs of the kernel (`function`, a
    cupy.RawModule function, and its metadata) the device runs at once:
    cuOccupancyMaxActiveClusters; None where the driver cannot say."""
    query = getattr(_cuda, "cuOccupancyMaxActiveClusters", None)
    if query is None:
        return None
    query.argtypes = [ctypes.POINTER(ctypes.c_int), ctypes.c_void_p,
                      ctypes.POINTER(_LaunchConfig)]
    attribute = _LaunchAttribute(id=_CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION,
                                 cluster=(ctypes.c_uint * 3)(ctas, 1, 1))
    config = _LaunchConfig(grid=(ctypes.c_uint * 3)(ctas, 1, 1),
                           block=(ctypes.c_uint * 3)(meta["threads_per_block"], 1, 1),
                           shared=meta["shared_bytes"], attrs=ctypes.pointer(attribute),
                           num_attrs=1)
    count = ctypes.c_int(0)
    handle = ctypes.c_void_p(getattr(function, "kernel", function).ptr)
    if query(ctypes.byref(count), handle, ctypes.byref(config)):
        return None
    return count.value


def resident_ctas(function, meta):
    """How many CTAs of the kernel the device holds at once: SMs times
    cuOccupancyMaxActiveBlocksPerMultiprocessor, as tilec's runtime reads
    it for stream-K."""
    query = _cuda.cuOccupancyMaxActiveBlocksPerMultiprocessor
    query.argtypes = [ctypes.POINTER(ctypes.c_int), ctypes.c_void_p, ctypes.c_int,
                      ctypes.c_size_t]
    blocks = ctypes.c_int(0)
    handle = ctypes.c_void_p(getattr(function, "kernel", function).ptr)
    _check(query(ctypes.byref(blocks), handle, meta["threads_per_block"],
                 meta["shared_bytes"]),
           "cuOccupancyMaxActiveBlocksPerMultiprocessor", meta["kernel"])
    sms = cupy.cuda.Device().attributes["MultiProcessorCount"]
    return blocks.value * sms


def bind(function, meta, grid, args):
    """A launch of `function` (a cupy.RawModule function) with `args` (ints,
    floats, or device addresses for pointer parameters), its parameters
    packed once; returns it as a callable for timing loops. Its scratch and
    a stream-K kernel's workspace are allocated once, for one stream at a
    time: calls on two streams at once would share them."""
    kernel = meta["kernel"]
    grid = tuple(grid) + (1,) * (3 - len(grid))
    slots, values = [], []
    for param, arg in zip(meta["params"], args):
        kind = param["type"]
        slots.append(ctypes.c_uint64(arg) if kind.startswith("*") else _scalar(kind, arg))
        values.append(int(arg) if not isinstance(arg, float) else 0)
    for i, info in enumerate(meta.get("tensor_maps", [])):
        slots.append(encode_tensor_map(info, values, grid, kernel, i))
    programs = grid[0] * grid[1] * grid[2]
    ctas, split, parts, head = programs, 0, 0, 0
    if meta.get("stream_k_partial_bytes", 0):
        ctas, split, parts, head = stream_k_launch(programs, resident_ctas(function, meta))
    scratch = workspace = None
    if meta.get("global_scratch_bytes", 0):
        # A part per CTA: a stream-K kernel's CTAs, not its programs.
        scratch = cupy.empty(ctas * meta["global_scratch_bytes"], dtype=cupy.uint8)
        slots.append(ctypes.c_uint64(scratch.data.ptr))
    flags = 0
    if meta.get("stream_k_partial_bytes", 0):
        # The grid's programs, the last ones cut into parts whose pieces
        # CTAs after the grid's run (harness.stream_k_launch), and the
        # workspace whose flags each launch zeroes.
        pieces = split * (parts - head)
        workspace = cupy.empty(max(1, stream_k_workspace_bytes(meta, pieces)), dtype=cupy.uint8)
        flags = 4 * pieces
        slots += [ctypes.c_uint32(v) for v in tuple(grid) + (split, parts, head)]
        slots.append(ctypes.c_uint64(workspace.data.ptr))
        grid = (ctas, 1, 1)
    elif meta.get("persistent"):
        # The CTAs the device holds at once, each running the programs its
        # number apart, passed the grid.
        slots += [ctypes.c_uint32(v) for v in grid]
        grid = (min(programs, resident_ctas(function, meta)), 1, 1)
    params = (ctypes.c_void_p * max(1, len(slots)))(
        *[ctypes.cast(ctypes.pointer(s), ctypes.c_void_p) for s in slots])
    # A RawKernel wraps the driver's function (cupy.cuda.Function).
    handle = ctypes.c_void_p(getattr(function, "kernel", function).ptr)
    threads, shared = meta["threads_per_block"], meta["shared_bytes"]

    cluster = tuple(meta.get("cluster_dims", (1, 1, 1)))
    ctas = tuple(grid)
    if cluster != (1, 1, 1):
        # Each program a cluster: the grid in CTAs, the scratch still per
        # program. (Older drivers lack cuLaunchKernelEx: CUDA 12.)
        ctas = tuple(g * c for g, c in zip(grid, cluster))
    elif grid[0] % meta.get("cluster_programs", 1) == 0:
        # Neighbouring programs a cluster, sharing the copies of a tile
        # they both read; a CTA a program still.
        cluster = (meta.get("cluster_programs", 1), 1, 1)
    if cluster != (1, 1, 1):
        launch_ex = _cuda.cuLaunchKernelEx
        launch_ex.argtypes = [ctypes.POINTER(_LaunchConfig), ctypes.c_void_p,
                              ctypes.POINTER(ctypes.c_void_p), ctypes.c_void_p]
        attribute = _LaunchAttribute(id=_CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION,
                                     cluster=(ctypes.c_uint * 3)(*cluster))
        config = _LaunchConfig(
            grid=(ctypes.c_uint * 3)(*ctas),
            block=(ctypes.c_uint * 3)(threads, 1, 1), shared=shared,
            attrs=ctypes.pointer(attribute), num_attrs=1)

        def launch_clusters():
            keep = (slots, scratch, attribute)
            config.stream = cupy.cuda.get_current_stream().ptr
            _check(launch_ex(ctypes.byref(config), handle, params, None),
                   "cuLaunchKernelEx", kernel)
            return keep
        return launch_clusters

    def launch():
        keep = (slots, scratch, workspace)  # alive as long as the launch is
        stream = cupy.cuda.get_current_stream().ptr
        if flags:
            cupy.cuda.runtime.memsetAsync(workspace.data.ptr, 0, flags, stream)
        _check(_cuda.cuLaunchKernel(handle, *grid, threads, 1, 1, shared,
                                    ctypes.c_void_p(stream), params, None),
               "cuLaunchKernel", kernel)
        return keep
    return launch
