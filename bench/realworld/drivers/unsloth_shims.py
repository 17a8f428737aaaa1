"""pytest plugin: unsloth's modules import with unsloth_zoo stubbed and the
unsloth package registered without its __init__.py (see shims.py)."""
import os

import packaging.version

import shims

shims.stub_packages(["unsloth_zoo"], {
    "unsloth_zoo.utils": {"Version": packaging.version.Version}})
# The moe tests run from unsloth/kernels/moe, three levels below the checkout.
_checkout = os.path.abspath(os.path.join(os.getcwd(), "..", "..", ".."))
_unsloth = shims.bare_package("unsloth", os.path.join(_checkout, "unsloth"))
shims.bare_package("unsloth.kernels", os.path.join(_checkout, "unsloth", "kernels"))
from unsloth import device_type  # noqa: E402

_unsloth.DEVICE_TYPE = device_type.DEVICE_TYPE
