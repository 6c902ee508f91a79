#!/usr/bin/env python3
"""Writes the small generated seed inputs of the solver fuzz targets into corpus/<target>/.
Doubles use fuzz_common.h's encoding: tag byte 0 then an int8 giving value * 4."""
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def d(v):
    return bytes([0, int(round(v * 4)) & 0xFF])


def lcp(M, q):  # M given by rows
    n = len(q)
    out = bytes([n - 1])
    for j in range(n):
        for i in range(n):
            out += d(M[i][j])
    for v in q:
        out += d(v)
    return out


LCPS = [
    ([[2, 1], [1, 2]], [-5, -6]),                         # the README problem
    ([[1]], [-1]),
    ([[0, 1], [1, 0]], [-1, -1]),                         # not a P-matrix, two solutions
    ([[1, 2, 0], [0, 1, 2], [2, 0, 1]], [-1, -1, -1]),    # cyclic
    ([[1, 0, 0], [2, 1, 0], [2, 2, 1]], [-1, -1, -1]),    # Murty's exponential example, n = 3
    ([[-1, 0], [0, -1]], [1, -1]),                        # ray
    ([[4, -1, 0, 0], [-1, 4, -1, 0], [0, -1, 4, -1], [0, 0, -1, 4]], [-1, 2, -3, 1]),
]

UCP = [
    # flags, nc, nq, nt, Wn, Wt, (Jn, Jt empty), mu, g_obj: a block on a floor, pushed
    bytes([3, 0, 1, 0]) + d(0) + d(1) + d(1) + d(0) + d(0.5) + d(0) + d(-1)
    + bytes([0, 1, 20, 4]),
    bytes([3, 1, 1, 0]) + d(0) + d(1) + d(0) + d(1) + d(1) + d(0) + d(0) + d(1) + d(0.5) + d(0.5)
    + d(0.25) + d(-1) + bytes([2, 3, 30, 4]),
]

CONEQP = [
    # flags (8: H = B B^T + shift I), nc, mu..., B, shift, c
    bytes([8, 0]) + d(0.5) + b"".join(d(v) for v in [1, 0, 0, 1]) + d(0.25) + d(-1) + d(0.5),
    bytes([9, 1]) + d(0.5) + d(1) + b"".join(d(v) for v in [1] + [0] * 6 + [1] + [0] * 6
                                          + [1] + [0] * 6 + [1] + [0] * 6 + [1] + [0] * 6
                                          + [1]) + d(0.25) + b"".join(d(v) for v in [-1, 0.5, 0.25, 1, -0.5, 0.5]),
    bytes([12, 0]) + d(1) + d(2) + b"".join(d(v) for v in [1]) + d(0.5) + d(-1),
    bytes([24, 0]) + d(0.5) + b"".join(d(v) for v in [1, 0.5, 0, 1]) + d(0) + d(-1) + d(1),
]


def write(target, seeds):
    path = os.path.join(HERE, "corpus", target)
    os.makedirs(path, exist_ok=True)
    for k, s in enumerate(seeds):
        with open(os.path.join(path, "seed%02d" % k), "wb") as f:
            f.write(s)


for target, tail in (("fuzz_lemke", bytes([0, 0])), ("fuzz_lcp_solve", bytes([0, 0, 0])),
                     ("fuzz_lcp_fb", bytes([0, 0]))):
    write(target, [lcp(M, q) + tail for M, q in LCPS])
write("fuzz_ucp", UCP)
write("fuzz_coneqp", CONEQP)
