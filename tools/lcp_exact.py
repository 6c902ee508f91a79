#!/usr/bin/env python3
"""Exact reference results for LCP files (Siconos format), independent of the C library.

Everything is computed in rational arithmetic (fractions.Fraction, no rounding):
- every complementary basis is enumerated and each distinct basic solution z >= 0 with
  w = M z + q >= 0 printed (bases with a singular principal submatrix are skipped, so a
  continuum of solutions shows up through its vertices);
- whether M is a P-matrix (all principal minors positive);
- what Lemke's method with the covering vector of ones and the lexicographic ratio rule does:
  solution or ray, and the number of pivots (the first, z0-entering pivot included).
The expectations in tests/test_lcp_fixtures.c were taken from this program's output.

Usage: tools/lcp_exact.py FILE...
"""
import itertools
import sys
from fractions import Fraction


def read_lcp(path):
    tokens = open(path).read().split()
    n = int(tokens[0])
    # n, storage code, rows, cols, rows, cols; then M column by column, then q.
    pos = 6
    values = [Fraction(t) for t in tokens[pos:pos + n * n]]
    pos += n * n
    q = [Fraction(t) for t in tokens[pos:pos + n]]
    M = [[values[i + j * n] for j in range(n)] for i in range(n)]
    return n, M, q


def solve_exact(A, b):
    """Gauss-Jordan elimination in rationals; None when A is singular."""
    n = len(A)
    T = [row[:] + [b[i]] for i, row in enumerate(A)]
    for c in range(n):
        p = next((r for r in range(c, n) if T[r][c] != 0), None)
        if p is None:
            return None
        T[c], T[p] = T[p], T[c]
        for r in range(n):
            if r != c and T[r][c] != 0:
                f = T[r][c] / T[c][c]
                T[r] = [x - f * y for x, y in zip(T[r], T[c])]
    return [T[i][n] / T[i][i] for i in range(n)]


def basic_solutions(n, M, q):
    found = []
    for mask in range(1 << n):
        alpha = [i for i in range(n) if mask >> i & 1]
        z = [Fraction(0)] * n
        if alpha:
            x = solve_exact([[M[i][j] for j in alpha] for i in alpha], [-q[i] for i in alpha])
            if x is None:
                continue
            for k, i in enumerate(alpha):
                z[i] = x[k]
        w = [q[i] + sum(M[i][j] * z[j] for j in range(n)) for i in range(n)]
        if min(z) >= 0 and min(w) >= 0 and z not in found:
            found.append(z)
    return found


def determinant(A):
    n = len(A)
    T = [row[:] for row in A]
    det = Fraction(1)
    for c in range(n):
        p = next((r for r in range(c, n) if T[r][c] != 0), None)
        if p is None:
            return Fraction(0)
        if p != c:
            T[c], T[p] = T[p], T[c]
            det = -det
        det *= T[c][c]
        for r in range(c + 1, n):
            f = T[r][c] / T[c][c]
            T[r] = [x - f * y for x, y in zip(T[r], T[c])]
    return det


def is_p_matrix(n, M):
    return all(determinant([[M[i][j] for j in a] for i in a]) > 0
               for k in range(1, n + 1) for a in itertools.combinations(range(n), k))


def lemke(n, M, q, max_pivots=100000):
    """Lemke with covering vector e and the lexicographic rule on the tableau
    B^-1 [I, -M, -e | q] (columns: w, z, z0; basic variables start as w)."""
    if min(q) >= 0:
        return "solution", [Fraction(0)] * n, 0
    z0 = 2 * n
    T = [[Fraction(int(i == j)) for j in range(n)] + [-M[i][j] for j in range(n)]
         + [Fraction(-1), q[i]] for i in range(n)]
    basis = list(range(n))

    def lex_key(r, col):
        return [T[r][-1] / T[r][col]] + [T[r][j] / T[r][col] for j in range(n)]

    entering = z0
    row = max(range(n), key=lambda r: lex_key(r, entering))  # most negative q (lexicographic)
    pivots = 0
    while pivots < max_pivots:
        p = T[row][entering]
        T[row] = [x / p for x in T[row]]
        for i in range(n):
            if i != row and T[i][entering] != 0:
                f = T[i][entering]
                T[i] = [x - f * y for x, y in zip(T[i], T[row])]
        leaving, basis[row] = basis[row], entering
        pivots += 1
        if leaving == z0:
            z = [Fraction(0)] * n
            for i, b in enumerate(basis):
                if n <= b < 2 * n:
                    z[b - n] = T[i][-1]
            return "solution", z, pivots
        entering = leaving + n if leaving < n else leaving - n
        rows = [i for i in range(n) if T[i][entering] > 0]
        if not rows:
            return "ray", None, pivots
        row = min(rows, key=lambda r: lex_key(r, entering))
    return "pivot limit", None, pivots


def main(paths):
    for path in paths:
        n, M, q = read_lcp(path)
        sols = basic_solutions(n, M, q)
        print(f"{path}: n = {n}, P-matrix: {'yes' if is_p_matrix(n, M) else 'no'}, "
              f"{len(sols)} basic solution(s)")
        for z in sols:
            print("  z = (" + ", ".join(str(v) for v in z) + ")")
        outcome, z, pivots = lemke(n, M, q)
        print(f"  Lemke: {outcome} after {pivots} pivot(s)"
              + ("" if z is None else ", z = (" + ", ".join(str(v) for v in z) + ")"))


if __name__ == "__main__":
    main(sys.argv[1:])
