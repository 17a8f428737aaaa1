# Host code a kernel module imports a decorator from (FlagGems'
# flag_gems.utils.libentry): built by calls tilec does not evaluate.
import functools


def make_entry():
    return functools.partial


libentry = make_entry()
