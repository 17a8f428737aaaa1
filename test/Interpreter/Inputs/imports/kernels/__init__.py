# A package whose __init__ re-exports its submodules' names, as projects'
# do (`from liger_kernel.ops import ...`).
from .ops.utils import BLOCK as DEFAULT_BLOCK
from .ops.utils import scale_by
