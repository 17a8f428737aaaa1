# lit configuration of tilec's FileCheck tests: every stage through tilec
# and tile-opt. Run from the build tree: lit -sv <build>/test.
import os
import shutil
import subprocess
import sys

import lit.formats

config.name = "tilec"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".tl", ".test"]
config.excludes = ["unit", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py",
                   "Inputs"]

config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tilec_obj_root, "test")

# Our tools first, then LLVM's (FileCheck, not), then the caller's PATH.
path = os.pathsep.join([config.tilec_tools_dir, config.llvm_tools_dir,
                        config.environment.get("PATH", os.environ["PATH"])])
config.environment["PATH"] = path
config.environment["FILECHECK_OPTS"] = "--enable-var-scope"
# tilec's --arch defaults to the GPU present's: the tests compile for the
# portable default wherever they run, unless they say otherwise.
config.environment["TILEC_ARCH"] = "sm_90"
for var in ["TILEC_PTXAS", "TILEC_LIBDEVICE", "CUDA_HOME", "TILEC_CACHE_DIR",
            "HOME", "TMPDIR"]:
    if var in os.environ:
        config.environment[var] = os.environ[var]

# The source tree, for tests that read its files (README.md).
config.substitutions.append(("%tilec_src_root", config.tilec_src_root))

# Tools by full path, as %name or bare words in RUN lines (not inside a path
# or an option).
tools = {"tilec": config.tilec_tools_dir, "tile-opt": config.tilec_tools_dir,
         "tile-run": config.tilec_tools_dir,
         "FileCheck": config.llvm_tools_dir, "not": config.llvm_tools_dir,
         "count": config.llvm_tools_dir}
for tool, directory in tools.items():
    full = os.path.join(directory, tool)
    config.substitutions.append(("%" + tool + r"\b", full))
    config.substitutions.append(
        (r"(?<![\w/.%-])" + tool + r"(?![\w-])", full))

# Built with TILEC_ENABLE_ASSERTIONS: assertions, and the passes' LLVM_DEBUG
# output behind tile-opt -debug-only (LLVM's name for the feature).
if config.tilec_enable_assertions:
    config.available_features.add("asserts")


def find_ptxas():
    """Same search order as tilec::findPtxas()."""
    env = os.environ.get("TILEC_PTXAS")
    if env:
        return env if os.access(env, os.X_OK) else None
    cuda = "/usr/local/cuda/bin/ptxas"
    if os.access(cuda, os.X_OK):
        return cuda
    return shutil.which("ptxas")


def have_gpu():
    if os.path.exists("/dev/nvidia0"):
        return True
    smi = shutil.which("nvidia-smi")
    if not smi:
        return False
    try:
        return subprocess.run([smi, "-L"], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL,
                              timeout=20).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


def gpu_compute_capability():
    """The first GPU's compute capability as nvidia-smi says it ("9.0"),
    or None."""
    smi = shutil.which("nvidia-smi")
    if not smi:
        return None
    try:
        out = subprocess.run([smi, "--query-gpu=compute_cap", "--format=csv,noheader"],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                             text=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return None
    lines = out.stdout.split() if out.returncode == 0 else []
    return lines[0] if lines else None


def python_with_numpy():
    """A Python that can import numpy, to write and check .npy files."""
    seen = set()
    for candidate in [sys.executable, shutil.which("python3"), "/usr/bin/python3"]:
        if not candidate or candidate in seen:
            continue
        seen.add(candidate)
        try:
            if subprocess.run([candidate, "-c", "import numpy"],
                              stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL,
                              timeout=60).returncode == 0:
                return candidate
        except (OSError, subprocess.SubprocessError):
            pass
    return None


python = python_with_numpy()
if python:
    config.available_features.add("numpy")
    config.substitutions.append(("%python", python))

ptxas = find_ptxas()
if ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))
def find_libdevice():
    """Same search order as tilec::findLibdevice()."""
    env = os.environ.get("TILEC_LIBDEVICE")
    if env:
        return env if os.path.exists(env) else None
    roots = [os.environ.get("CUDA_HOME"), "/usr/local/cuda"]
    for root in filter(None, roots):
        path = os.path.join(root, "nvvm", "libdevice", "libdevice.10.bc")
        if os.path.exists(path):
            return path
    return None


def find_cuda_tool(name):
    """A CUDA toolkit program beside ptxas, under $CUDA_HOME or on PATH."""
    roots = [os.path.dirname(ptxas)] if ptxas else []
    roots += [os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin")]
    for root in roots:
        path = os.path.join(root, name)
        if os.access(path, os.X_OK):
            return path
    return shutil.which(name)


# NVIDIA's tools that read a cubin's line info (test/Target/PTX/line-info-*).
for tool in ["nvdisasm", "compute-sanitizer"]:
    path = find_cuda_tool(tool)
    if path:
        config.available_features.add(tool)
        config.substitutions.append(("%" + tool, path))

if find_libdevice():
    config.available_features.add("libdevice")
if have_gpu():
    config.available_features.add("gpu")
    # Tests of sm_90a kernels on the GPU (wgmma, bulk copies, clusters).
    if gpu_compute_capability() == "9.0":
        config.available_features.add("hopper")

# A C compiler and CUDA's headers: the C launchers of --emit=c compile.
cuda_include = os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"),
                            "include")
c_compiler = shutil.which("cc") or shutil.which("gcc")
if c_compiler and os.path.exists(os.path.join(cuda_include, "cuda.h")):
    config.available_features.add("cuda-headers")
    config.substitutions.append(("%cc", c_compiler))
    config.substitutions.append(("%cuda_include", cuda_include))
