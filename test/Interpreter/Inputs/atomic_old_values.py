"""Checks the old_values runs of atomics.tl: one program adds v[i] into
counter[i % 4] for i < 13, element by element, and stores what it found."""
import numpy as np


def bf16(a):
    """Truncates: every value here is exact in bf16."""
    a = np.atleast_1d(np.asarray(a, np.float32))
    return (a.view(np.uint32) >> 16).astype(np.uint16)


def from_bf16(b):
    return (b.astype(np.uint32) << 16).view(np.float32)


def expect(counter, vals, dtype, add):
    counter = list(counter)
    old = []
    for i, v in enumerate(vals):
        if i < 13:
            old.append(counter[i % 4])
            counter[i % 4] = add(counter[i % 4], v)
        else:
            old.append(0)
    return np.array(counter, dtype), np.array(old, dtype)


for name, c, v, dtype, add in [
    ("f32", "c32", "v32", np.float32, lambda a, b: np.float32(a + b)),
    ("f16", "c16", "v16", np.float16, lambda a, b: np.float16(a + b)),
    ("i32", "ci", "vi", np.int32,
     lambda a, b: np.int32((int(a) + int(b) + 2**31) % 2**32 - 2**31)),
]:
    counter, old = expect(np.load(c + ".npy"), np.load(v + ".npy"), dtype, add)
    got_counter = np.load(name + "/counter_ptr.npy")
    got_old = np.load(name + "/old_ptr.npy")
    assert np.array_equal(got_counter, counter), (name, got_counter, counter)
    assert np.array_equal(got_old, old), (name, got_old, old)
    print(name, "ok")

# bf16: sums rounded to bf16 after each add (exact here: small quarters).
counter, old = expect(from_bf16(np.load("cb.npy")), from_bf16(np.load("vb.npy")),
                      np.float32, lambda a, b: from_bf16(bf16(np.float32(a + b)))[0])
assert np.array_equal(np.load("bf16/counter_ptr.npy"), bf16(counter))
assert np.array_equal(np.load("bf16/old_ptr.npy"), bf16(old)), np.load("bf16/old_ptr.npy")
print("bf16 ok")
