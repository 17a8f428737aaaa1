from .cycle_a import f
