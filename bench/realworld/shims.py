"""Stand-ins for the host packages a project imports and the GPU machine
lacks (unsloth_zoo, sqlalchemy), so that its kernels' modules import
without editing the project.

stub_packages(names, values) makes every module under those top-level
names importable: each is a module whose every attribute is a Stub, an
object that can be called, subclassed, compared, iterated (as empty) and
used as a decorator (it hands the decorated function back). `values` gives
real objects for the few names whose behaviour matters at import time,
e.g. {"unsloth_zoo.utils": {"Version": packaging.version.Version}}.

bare_package(name, directory) makes a project's package importable without
running its __init__.py, where that file sets up far more than its kernels
need (unsloth's patches transformers and checks every optional package).
"""
import importlib.abc
import importlib.machinery
import sys
import types


class _StubType(type):
    def __getattr__(cls, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return Stub

    def __call__(cls, *args, **kwargs):
        # As a decorator, with or without arguments, it keeps the function.
        if len(args) == 1 and not kwargs and callable(args[0]):
            return args[0]
        return super().__call__()

    def __bool__(cls):
        return False

    def __iter__(cls):
        return iter(())

    def __getitem__(cls, key):
        return Stub


class Stub(metaclass=_StubType):
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return Stub

    def __call__(self, *args, **kwargs):
        if len(args) == 1 and not kwargs and callable(args[0]):
            return args[0]
        return Stub()

    def __bool__(self):
        return False

    def __iter__(self):
        return iter(())

    def __getitem__(self, key):
        return Stub

    def __eq__(self, other):
        return False

    def __lt__(self, other):
        return False

    __le__ = __gt__ = __ge__ = __lt__
    __hash__ = object.__hash__


class _StubModule(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return Stub


class _StubFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def __init__(self, names, values):
        self.names, self.values = set(names), values

    def find_spec(self, fullname, path=None, target=None):
        if fullname.split(".")[0] not in self.names:
            return None
        return importlib.machinery.ModuleSpec(fullname, self, is_package=True)

    def create_module(self, spec):
        module = _StubModule(spec.name)
        module.__path__ = []
        module.__dict__.update(self.values.get(spec.name, {}))
        return module

    def exec_module(self, module):
        pass


def stub_packages(names, values=None):
    """Stubs the packages among `names` that cannot be imported here."""
    missing = []
    for name in names:
        try:
            __import__(name)
        except ImportError:
            missing.append(name)
    if missing:
        sys.meta_path.insert(0, _StubFinder(missing, values or {}))
    return missing


def bare_package(name, directory, **attributes):
    """Registers package `name` at `directory` without running its
    __init__.py; its submodules import as usual."""
    module = types.ModuleType(name)
    module.__path__ = [directory]
    module.__dict__.update(attributes)
    sys.modules[name] = module
    return module
