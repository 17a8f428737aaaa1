"""Philox-4x32 (Salmon et al., SC'11) with Triton's constants, in NumPy:
the reference for tl.randint4x and tl.rand on counters (offset, 0, 0, 0)
and the key (seed's low and high words)."""
import numpy as np

KEY_A, KEY_B = np.uint32(0x9E3779B9), np.uint32(0xBB67AE85)
ROUND_A, ROUND_B = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)


def philox(seed, offsets, rounds=10, c1=None, c2=None, c3=None):
    """The four words; counters (offsets, c1, c2, c3), zeros where absent."""
    c0 = np.asarray(offsets).astype(np.int64).astype(np.uint32)
    c1, c2, c3 = (np.zeros_like(c0) if c is None else
                  np.broadcast_to(np.asarray(c).astype(np.int64).astype(np.uint32), c0.shape)
                  for c in (c1, c2, c3))
    s = np.uint64(np.int64(seed).astype(np.uint64))
    k0 = np.full_like(c0, np.uint32(s & np.uint64(0xFFFFFFFF)))
    k1 = np.full_like(c0, np.uint32(s >> np.uint64(32)))
    for _ in range(rounds):
        pa = ROUND_A * c0.astype(np.uint64)
        pb = ROUND_B * c2.astype(np.uint64)
        n0 = (pb >> np.uint64(32)).astype(np.uint32) ^ c1 ^ k0
        n2 = (pa >> np.uint64(32)).astype(np.uint32) ^ c3 ^ k1
        c1 = pb.astype(np.uint32)
        c3 = pa.astype(np.uint32)
        c0, c2 = n0, n2
        k0 = k0 + KEY_A
        k1 = k1 + KEY_B
    return c0, c1, c2, c3


def uniform(x):
    """A uint32 word to [0, 1) in float32, as tl.rand does."""
    x = x.view(np.int32)
    x = np.where(x < 0, -x - 1, x)
    return (x.astype(np.float32) * np.float32(4.6566127342e-10)).astype(np.float32)
