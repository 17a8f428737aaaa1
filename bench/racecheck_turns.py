#!/usr/bin/env python3
"""A race-free PTX kernel on which compute-sanitizer's racecheck reports a
race: two groups of 128 threads take turns on named barriers 2 and 3
(bar.sync on one's own, bar.arrive on the other's, as the warpgroups of a
ping-ponged attention kernel do), then each thread stores a word to shared
memory, all 256 meet at bar.sync 1 and each reads the other group's word.

    compute-sanitizer --tool racecheck python3 bench/racecheck_turns.py --rounds 4
    compute-sanitizer --tool racecheck python3 bench/racecheck_turns.py --rounds 20

Every arrival on a turn barrier is matched by a wait, group 1 passes the
first turn and group 0 takes the last pass, and the words read are right
(the script checks them). On an H200 with compute-sanitizer 2025.3.1,
4 rounds report no hazard and 20 rounds report one, between the
store and the load across bar.sync 1: the report tilec's ping-ponged
attention (test/Triton attention fwd_d128_two_warpgroups) draws on its
epilogue, which memcheck and synccheck pass (bench/HISTORY.md).
"""
import argparse
import os
import tempfile

import cupy

PTX = r"""
.version 8.0
.target sm_90a
.address_size 64
.visible .entry turns(.param .u64 out)
{
  .reg .b32 %r<10>;
  .reg .pred %p<3>;
  .reg .b64 %rd<4>;
  .shared .align 4 .b8 words[1024];
  mov.u32 %r1, %tid.x;
  shr.u32 %r2, %r1, 7;
  setp.eq.u32 %p1, %r2, 0;
  @!%p1 bar.arrive 2, 256;
  mov.u32 %r9, 0;
TURN:
  @%p1 bar.sync 2, 256;
  @!%p1 bar.sync 3, 256;
  @%p1 bar.arrive 3, 256;
  @!%p1 bar.arrive 2, 256;
  add.u32 %r9, %r9, 1;
  setp.lt.u32 %p2, %r9, ROUNDS;
  @%p2 bra TURN;
  @%p1 bar.sync 2, 256;
  shl.b32 %r3, %r1, 2;
  mov.u32 %r4, words;
  add.u32 %r5, %r4, %r3;
  st.shared.u32 [%r5], %r1;
  bar.sync 1, 256;
  add.u32 %r6, %r1, 128;
  and.b32 %r6, %r6, 255;
  shl.b32 %r6, %r6, 2;
  add.u32 %r7, %r4, %r6;
  ld.shared.u32 %r8, [%r7];
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mul.wide.u32 %rd2, %r1, 4;
  add.u64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r8;
  ret;
}
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20, help="turns each group takes")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "turns.ptx")
        with open(path, "w") as f:
            f.write(PTX.replace("ROUNDS", str(args.rounds)))
        kernel = cupy.RawModule(path=path).get_function("turns")
        out = cupy.zeros(256, dtype=cupy.uint32)
        kernel((1,), (256,), (out,))
        cupy.cuda.runtime.deviceSynchronize()
    expected = (cupy.arange(256, dtype=cupy.uint32) + 128) % 256
    right = bool((out == expected).all())
    print(f"{args.rounds} rounds: every thread read the other group's word: {right}")
    return 0 if right else 1


if __name__ == "__main__":
    raise SystemExit(main())
