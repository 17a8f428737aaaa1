"""pytest plugin: vLLM's Triton kernels and their tests import without vLLM
installed or built (see shims.py).

- vllm and vllm.model_executor are registered bare: their __init__.py
  pull in the engine (and through the model parameters, distributed).
- vllm._version stands in for the file setuptools-scm writes at build time.
- vllm._C and the other compiled extensions are empty modules: importing
  them registers vLLM's CUDA ops, which this machine does not have; a test
  that calls one fails there, after the Triton launches before it. The two
  queries w8a8_utils makes at import (is CUTLASS's fp8 GEMM built?) answer
  no, as they would for a build without CUTLASS.
- vllm.config (the engine's pydantic configuration; pydantic is absent)
  and vllm._aiter_ops (ROCm's AITER ops) are stubbed: the kernels'
  modules name them in signatures and defaults but never compute with them.
- zmq (vllm.utils.network_utils's messaging) is stubbed where missing.
- vllm.platforms is registered bare, since its __init__.py detects the
  platform through the installed package's metadata; current_platform is
  vLLM's own CudaPlatform, which answers from torch and NVML.
"""
import importlib.machinery
import os
import sys
import types

import shims

# run.sh runs the tests from the checkout.
_root = os.path.join(os.getcwd(), "vllm")
_version = "0.0.0.dev0+g9aaf83ef5"


class _PrefixStubFinder(shims._StubFinder):
    """Stubs every module at or below the given dotted names."""

    def find_spec(self, fullname, path=None, target=None):
        if not any(fullname == n or fullname.startswith(n + ".") for n in self.names):
            return None
        return importlib.machinery.ModuleSpec(fullname, self, is_package=True)


def _module(name, **attributes):
    module = types.ModuleType(name)
    module.__dict__.update(attributes)
    sys.modules[name] = module
    return module


shims.bare_package("vllm", _root, __version__=_version,
                   __version_tuple__=(0, 0, 0, "dev0", "g9aaf83ef5"))
_module("vllm._version", __version__=_version,
        __version_tuple__=(0, 0, 0, "dev0", "g9aaf83ef5"))
for _ext in ("_C", "_C_stable_libtorch", "_moe_C", "_rocm_C", "_flashmla_C",
             "_flashmla_extension_C"):
    _module("vllm." + _ext)
shims.bare_package("vllm.model_executor", os.path.join(_root, "model_executor"))
sys.meta_path.insert(0, _PrefixStubFinder(["vllm.config", "vllm._aiter_ops"], {}))
shims.stub_packages(["zmq"])

_platforms = shims.bare_package("vllm.platforms", os.path.join(_root, "platforms"))
from vllm.platforms.interface import CpuArchEnum, Platform, PlatformEnum  # noqa: E402
from vllm.platforms.cuda import CudaPlatform  # noqa: E402

_platforms.__dict__.update(
    current_platform=CudaPlatform(), CpuArchEnum=CpuArchEnum, Platform=Platform,
    PlatformEnum=PlatformEnum)

from vllm import _custom_ops  # noqa: E402

_custom_ops.cutlass_scaled_mm_supports_fp8 = lambda cuda_device_capability: False
_custom_ops.cutlass_scaled_mm_supports_block_fp8 = lambda cuda_device_capability: False
