"""pytest plugin: SGLang's Triton kernels and their tests import without
SGLang installed (see shims.py).

- sglang is registered bare: its __init__.py patches transformers and
  loads the frontend language; its kernels and sglang.srt import as usual,
  and sglang.srt.platforms finds CUDA through torch by itself.
- sglang.test.test_utils, the test harness (servers, evals, CI retries),
  is stood in for by the four names the kernels' tests take from it.
- Host packages the machine lacks are stubbed: orjson, pybase64,
  starlette, IPython, pydantic, dill, zmq (serialization, HTTP, notebooks,
  messaging in sglang.utils and sglang.srt.utils, called by no kernel).
- msgspec, where missing, gets a Struct made with dataclasses: the kernel
  registry (sglang.kernels.spec) declares its records as frozen Structs
  and builds them at import time.
"""
import dataclasses
import os
import sys
import types
import unittest

import shims

# run.sh runs the tests from the checkout.
_root = os.path.join(os.getcwd(), "python", "sglang")


class _Struct:
    """msgspec.Struct as a dataclass: keyword options (frozen=...) apply."""

    def __init_subclass__(cls, frozen=False, **options):
        super().__init_subclass__()
        dataclasses.dataclass(frozen=frozen, eq=options.get("eq", True))(cls)


shims.stub_packages(["msgspec"], {"msgspec": {"Struct": _Struct, "field": dataclasses.field}})
shims.stub_packages(["orjson", "pybase64", "starlette", "IPython", "pydantic", "dill", "zmq"])
shims.bare_package("sglang", _root)


def _env_flag(name):
    return os.environ.get(name, "false").lower() in ("1", "true", "yes")


def _empty_gpu_cache():
    import torch

    if hasattr(torch, "accelerator") and hasattr(torch.accelerator, "empty_cache"):
        torch.accelerator.empty_cache()
    elif torch.cuda.is_available():
        torch.cuda.empty_cache()


_test_utils = types.ModuleType("sglang.test.test_utils")
_test_utils.__dict__.update(
    CustomTestCase=unittest.TestCase,
    is_in_ci=lambda: _env_flag("SGLANG_IS_IN_CI"),
    is_in_amd_ci=lambda: _env_flag("SGLANG_IS_IN_CI_AMD"),
    empty_gpu_cache=_empty_gpu_cache)
sys.modules["sglang.test.test_utils"] = _test_utils
