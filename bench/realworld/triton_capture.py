"""Records the launches of @triton.jit kernels as real Triton makes them, for
replay.py to run again through tile-run.

install(directory) hooks Triton's launch path (JITFunction.run): each launch
it lets through is written to directory/NNNNN/ as launch.json (the kernel's
source file and name, every argument by parameter name, the constexprs as
the autotuner's and heuristics' choices left them, the grid, num_warps,
num_stages) and, for each tensor, <name>.before.npy and <name>.after.npy:
the tensor's memory from its first element to the end of its storage, as
the kernel may address it. Launches made while the autotuner times its
configs are not recorded; nor is more than `per_specialization` launches of
one kernel with the same constexprs and dtypes, nor one whose tensors
exceed `max_bytes` (counted in skipped.json with the reason).

A kernel that is not a module-level function of its file as written (one
defined inside a test, or whose source a test rewrote, as Triton's own
test_core.py does), or whose file lies outside $CAPTURE_SOURCE_ROOT (code a
project generates at run time), is written out as a module of its own,
kernel.py in the launch's directory: its source as Triton compiled it,
after the globals, closure values and @triton.jit functions it reads
(standalone_module).

As a pytest plugin (-p triton_capture with bench/realworld on PYTHONPATH) it
installs itself into $CAPTURE_DIR, and a project's own tests become the
launches; $CAPTURE_SAMPLE=N keeps N items spread evenly over those collected.
"""
import ast
import atexit
import hashlib
import inspect
import json
import math
import os
import textwrap

import numpy as np
import torch

# Tensor dtypes numpy lacks travel as their bits, with Triton's name.
_BITS = {torch.bfloat16: (torch.int16, "bf16"),
         torch.float8_e4m3fn: (torch.uint8, "fp8e4nv"),
         torch.float8_e5m2: (torch.uint8, "fp8e5")}
_TRITON_DTYPE = {torch.float32: "fp32", torch.float16: "fp16", torch.float64: "fp64",
                 torch.int8: "i8", torch.int16: "i16", torch.int32: "i32",
                 torch.int64: "i64", torch.uint8: "u8", torch.bool: "i1",
                 torch.uint16: "u16", torch.uint32: "u32", torch.uint64: "u64"}
# The torch dtype holding a Triton dtype's values (Triton's TensorWrapper
# reinterprets a tensor as one of these, by name).
_TORCH_OF_TRITON = {"int8": torch.int8, "int16": torch.int16, "int32": torch.int32,
                    "int64": torch.int64, "uint8": torch.uint8, "uint16": torch.uint16,
                    "uint32": torch.uint32, "uint64": torch.uint64, "int1": torch.bool,
                    "fp16": torch.float16, "bf16": torch.bfloat16, "fp32": torch.float32,
                    "fp64": torch.float64, "fp8e4nv": torch.float8_e4m3fn,
                    "fp8e5": torch.float8_e5m2}

_state = {"directory": None, "count": 0, "skipped": {},
          "suspended": 0, "per_specialization": 4, "max_bytes": 64 << 20}


def _memory(t):
    """`t`'s memory from its first element to its storage's end, flat."""
    elements = t.untyped_storage().nbytes() // t.element_size() - t.storage_offset()
    return torch.as_strided(t, (max(elements, 0),), (1,), t.storage_offset())


def _buffer_view(obj):
    """A flat tensor over the memory of a tensor-like argument (an object
    with data_ptr() and a torch or Triton dtype that reinterprets a base
    tensor: Triton's TensorWrapper, `base`; FlagGems' StridedBuffer, `_base`), from
    its pointer to the end of the base's storage; None if it has no base
    tensor to find."""
    base = getattr(obj, "_base", None)
    if base is None:
        base = getattr(obj, "base", None)
    dtype = obj.dtype
    if not isinstance(dtype, torch.dtype):  # a Triton dtype
        dtype = _TORCH_OF_TRITON.get(getattr(dtype, "name", None))
    if not isinstance(base, torch.Tensor) or dtype is None:
        return None
    storage = base.untyped_storage()
    offset = obj.data_ptr() - storage.data_ptr()
    itemsize = dtype.itemsize
    if offset < 0 or offset % itemsize:
        return None
    count = (storage.nbytes() - offset) // itemsize
    return torch.empty(0, dtype=dtype, device=base.device).set_(
        storage, offset // itemsize, (count,), (1,))


def _to_numpy(t):
    flat = _memory(t).detach()
    if flat.dtype in _BITS:
        flat = flat.view(_BITS[flat.dtype][0])
    return flat.cpu().numpy()


def _dtype_name(t):
    return _BITS[t.dtype][1] if t.dtype in _BITS else _TRITON_DTYPE.get(t.dtype, str(t.dtype))


def _constexpr(value):
    """A constexpr's value as launch.json keeps it: {"kind", "value"}."""
    import triton.language as tl
    if value is None or isinstance(value, (bool, int, float, str)):
        return {"kind": type(value).__name__, "value": value}
    if isinstance(value, tl.dtype):
        # As the dtype's repr spells it: triton.language.fp32.
        return {"kind": "dtype", "value": "triton.language." + value.name}
    if isinstance(value, tl.constexpr):
        return _constexpr(value.value)
    if isinstance(value, (tuple, list)):
        return {"kind": "tuple", "value": [_constexpr(v) for v in value]}
    fn = getattr(value, "fn", None)
    if fn is not None and hasattr(fn, "__name__"):
        return {"kind": "function", "value": fn.__name__}
    return {"kind": "unknown", "value": repr(value)}


def _python_literal(value):
    """`value` as Python source, or None where it has no literal form."""
    import triton.language as tl
    if isinstance(value, tl.constexpr):
        inner = _python_literal(value.value)
        return None if inner is None else f"tl.constexpr({inner})"
    if isinstance(value, tl.dtype):
        return "tl." + value.name
    if isinstance(value, float) and not math.isfinite(value):
        return f"float('{value}')"
    if value is None or isinstance(value, (bool, int, float, str)):
        return repr(value)
    if isinstance(value, (tuple, list)):
        items = [_python_literal(v) for v in value]
        if None in items:
            return None
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    return None


def _is_module_level(fn):
    """Whether `fn` (a JITFunction) is a module-level function whose source
    in its file is what Triton compiles, in the project's checkout where
    $CAPTURE_SOURCE_ROOT names it (a project's generated code, such as
    FlagGems' pointwise kernels, may read globals its host code put in the
    module after loading it)."""
    py = fn.fn
    if "<locals>" in py.__qualname__ or py.__closure__:
        return False
    root = os.environ.get("CAPTURE_SOURCE_ROOT")
    source = inspect.getsourcefile(py) or ""
    if root and not os.path.abspath(source).startswith(os.path.abspath(root) + os.sep):
        return False
    try:
        written = textwrap.dedent(inspect.getsource(py))
    except (OSError, TypeError):
        return False
    return fn.src.strip() in written


def standalone_module(fn):
    """A module's source holding JITFunction `fn` as Triton compiles it and
    every global, closure value and @triton.jit function it reads."""
    from triton.runtime.jit import JITFunction
    import types
    header = ["import triton", "import triton.language as tl"]
    definitions, seen, bound = [], set(), {"triton", "tl"}

    def bind(name, value):
        if name in bound:
            return
        if isinstance(value, types.ModuleType):
            header.append(f"import {value.__name__}" if name == value.__name__
                          else f"import {value.__name__} as {name}")
        elif isinstance(value, JITFunction):
            visit(value)
            if value.fn.__name__ != name:
                definitions.append(f"{name} = {value.fn.__name__}")
        elif callable(value) and getattr(value, "__module__", "").startswith("triton"):
            header.append(f"from {value.__module__} import {value.__name__} as {name}")
        else:
            literal = _python_literal(value)
            if literal is None:
                return
            definitions.append(f"{name} = {literal}")
        bound.add(name)

    def visit(jit_fn):
        if id(jit_fn) in seen:
            return
        seen.add(id(jit_fn))
        py = jit_fn.fn
        env = dict(py.__globals__)
        if py.__closure__:
            env.update((n, c.cell_contents) for n, c in
                       zip(py.__code__.co_freevars, py.__closure__))
        names = sorted({node.id for node in ast.walk(ast.parse(jit_fn.src))
                        if isinstance(node, ast.Name)})
        for name in names:
            if name in env:
                bind(name, env[name])
        definitions.append("\n@triton.jit\n" + jit_fn.src.strip() + "\n")
        bound.add(py.__name__)

    visit(fn)
    return "\n".join(header + [""] + definitions) + "\n"


def _claim(specialization):
    """Whether this launch is among the first `per_specialization` of its
    kernel and specialization, across every process capturing into the
    directory (pytest-xdist's workers): each claims a marker file."""
    digest = hashlib.sha1(repr(specialization).encode()).hexdigest()
    markers = os.path.join(_state["directory"], "claimed")
    os.makedirs(markers, exist_ok=True)
    for n in range(_state["per_specialization"]):
        try:
            os.close(os.open(os.path.join(markers, f"{digest}.{n}"),
                             os.O_CREAT | os.O_EXCL))
            return True
        except FileExistsError:
            continue
    return False


def _skip(reason):
    _state["skipped"][reason] = _state["skipped"].get(reason, 0) + 1


def _holds_device_pointers(t):
    """Whether an integer tensor of 64 bits holds addresses of this
    process's CUDA memory: a table of pointers the kernel loads through
    (FlagGems' block_diag), which a replay in another process cannot give
    memory at those addresses."""
    if t.dtype not in (torch.int64, torch.uint64) or not 0 < t.numel() <= 1 << 16:
        return False
    values = t.detach().reshape(-1).view(torch.int64).cpu()
    values = values[(values >= 1 << 32) & (values < 1 << 50)][:64].tolist()
    if not values:
        return False
    segments = [(s["address"], s["address"] + s["total_size"])
                for s in torch.cuda.memory_snapshot()]
    return any(a <= v < b for v in values for a, b in segments)


def _record(fn, args, kwargs, grid):
    params = fn.params
    names = [p.name for p in params]
    values = dict(zip(names, args))
    options = {}
    for key, value in kwargs.items():
        (values if key in names else options)[key] = value
    for p in params:
        if p.name not in values and p.default is not inspect.Parameter.empty:
            values[p.name] = p.default
    if callable(grid):
        grid = grid(dict(values, **options))
    grid = tuple(int(g) for g in grid) + (1,) * (3 - len(grid))

    entries, tensors, key = [], {}, []
    total = 0
    for p in params:
        value = values.get(p.name)
        if p.is_constexpr:
            entries.append({"name": p.name, "constexpr": _constexpr(value)})
            key.append(repr(entries[-1]["constexpr"]))
        elif isinstance(value, torch.Tensor):
            if _holds_device_pointers(value):
                return _skip("a tensor of device pointers")
            total += _memory(value).numel() * value.element_size()
            tensors[p.name] = value
            entries.append({"name": p.name, "tensor": _dtype_name(value)})
            key.append(entries[-1]["tensor"])
        elif type(value).__name__ == "TensorDescriptor":
            # A host descriptor: its base's memory, and its shape, strides
            # and block as tile-run's tensordesc parameter takes them.
            base = value.base
            total += _memory(base).numel() * base.element_size()
            tensors[p.name] = base
            entries.append({"name": p.name, "descriptor": {
                "dtype": _dtype_name(base), "shape": [int(d) for d in value.shape],
                "strides": [int(d) for d in value.strides],
                "block": [int(d) for d in value.block_shape]}})
            key.append(repr(entries[-1]["descriptor"]["block"]) + _dtype_name(base))
        elif callable(getattr(value, "data_ptr", None)) and hasattr(value, "dtype"):
            view = _buffer_view(value)
            if view is None:
                entries.append({"name": p.name, "other": type(value).__name__})
                key.append(type(value).__name__)
                continue
            total += view.numel() * view.element_size()
            tensors[p.name] = view
            entries.append({"name": p.name, "tensor": _dtype_name(view)})
            key.append(entries[-1]["tensor"])
        elif value is None or isinstance(value, (bool, int, float)):
            entries.append({"name": p.name, "scalar": _constexpr(value)})
            key.append(type(value).__name__)
        else:
            entries.append({"name": p.name, "other": type(value).__name__})
            key.append(type(value).__name__)
    if total > _state["max_bytes"]:
        return _skip("tensors over the size limit")
    pointers = {}
    for name, t in tensors.items():
        start = t.data_ptr()
        end = start + _memory(t).numel() * t.element_size()
        for other, (s, e) in pointers.items():
            if start < e and s < end:
                return _skip("aliased tensor arguments")
        pointers[name] = (start, end)
    source = inspect.getsourcefile(fn.fn)
    standalone = None if _is_module_level(fn) else standalone_module(fn)
    if not _claim((source, fn.fn.__name__, fn.src, tuple(key))):
        return _skip("specialization already captured")

    directory = os.path.join(_state["directory"], "%d-%05d" % (os.getpid(), _state["count"]))
    _state["count"] += 1
    os.makedirs(directory)
    for name, t in tensors.items():
        np.save(os.path.join(directory, name + ".before.npy"), _to_numpy(t))
    if standalone is not None:
        with open(os.path.join(directory, "kernel.py"), "w") as f:
            f.write(standalone)
        source = "kernel.py"
    record = {"file": source, "kernel": fn.fn.__name__, "module": fn.fn.__module__,
              "grid": list(grid), "num_warps": options.get("num_warps", 4),
              "num_stages": options.get("num_stages", 3),
              "options": {k: repr(v) for k, v in options.items()
                          if k not in ("num_warps", "num_stages")},
              "params": entries}
    return directory, record, tensors


def _finish(captured):
    directory, record, tensors = captured
    torch.cuda.synchronize()
    for name, t in tensors.items():
        np.save(os.path.join(directory, name + ".after.npy"), _to_numpy(t))
    with open(os.path.join(directory, "launch.json"), "w") as f:
        json.dump(record, f, indent=1)


def install(directory, per_specialization=4, max_bytes=64 << 20):
    from triton.runtime import autotuner
    from triton.runtime.jit import JITFunction

    _state.update(directory=directory, per_specialization=per_specialization,
                  max_bytes=max_bytes)
    os.makedirs(directory, exist_ok=True)
    run = JITFunction.run

    def recording_run(self, *args, **kwargs):
        captured = None
        if not kwargs.get("warmup") and not _state["suspended"]:
            try:
                captured = _record(self, args, kwargs, kwargs.get("grid"))
            except Exception as e:  # the harness must never break the project
                _skip("capture failed: " + type(e).__name__)
        result = run(self, *args, **kwargs)
        if captured:
            _finish(captured)
        return result

    JITFunction.run = recording_run
    bench = autotuner.Autotuner._bench

    def quiet_bench(self, *args, **kwargs):
        _state["suspended"] += 1
        try:
            return bench(self, *args, **kwargs)
        finally:
            _state["suspended"] -= 1

    autotuner.Autotuner._bench = quiet_bench

    def write_skipped():
        with open(os.path.join(directory, "skipped.%d.json" % os.getpid()), "w") as f:
            json.dump(_state["skipped"], f, indent=1)

    atexit.register(write_skipped)


def pytest_configure(config):
    install(os.environ["CAPTURE_DIR"],
            int(os.environ.get("CAPTURE_PER_SPECIALIZATION", "4")))


def pytest_collection_modifyitems(config, items):
    sample = int(os.environ.get("CAPTURE_SAMPLE", "0"))
    if 0 < sample < len(items):
        step = len(items) / sample
        items[:] = [items[int(i * step)] for i in range(sample)]
