/* libFuzzer target: the frictional contact solvers (cdyn_fc3d_solve, _nsgs, _newton with both
 * formulations, dense and by blocks) on small problems decoded from the fuzzer's bytes,
 * including NaN, Inf, huge and tiny values, negative mu and malformed block structures.
 * Invariants: a valid status echoed by the report; CDYN_EINVAL exactly when cdyn_fc3d_check
 * rejects the problem (or the start is not finite); on CDYN_OK the natural-map residual
 * recomputed by cdyn_fc3d_residual is within the tolerance and u = W r + q as returned; on
 * failure r and u untouched; nothing leaks (the allocator may fail). */
#include "fuzz_common.h"

#include "cdyn/fc3d.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FZ_MAXN 6

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_reader f = {data, size};
    const int n = 1 + (int)(fz_byte(&f) % FZ_MAXN), m = 3 * n;
    const unsigned mode = fz_byte(&f);
    double W[9 * FZ_MAXN * FZ_MAXN], q[3 * FZ_MAXN], mu[FZ_MAXN], r[3 * FZ_MAXN];
    fz_doubles(&f, W, (size_t)m * (size_t)m);
    if (mode & 1) { /* symmetrize: W from mechanics is symmetric, often PSD (W = B B') */
        for (int i = 0; i < m; i++)
            for (int j = 0; j < i; j++)
                W[i + m * j] = W[j + m * i];
    }
    fz_doubles(&f, q, (size_t)m);
    for (int i = 0; i < n; i++)
        mu[i] = (mode & 2) ? fabs(fz_double(&f)) : fz_double(&f);
    if (mode & 4)
        fz_doubles(&f, r, (size_t)m);
    else
        memset(r, 0, sizeof r);
    /* blocks: every block of the dense matrix, or a structure decoded from bytes */
    int rowptr[FZ_MAXN + 1], colind[FZ_MAXN * FZ_MAXN];
    double values[9 * FZ_MAXN * FZ_MAXN];
    int k = 0;
    rowptr[0] = 0;
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++) {
            if ((mode & 8) && fz_byte(&f) % 3 == 0)
                continue;
            colind[k] = (mode & 16) ? (int)(fz_byte(&f) % (unsigned)(n + 1)) - (j == 0) : j;
            for (int b = 0; b < 3; b++)
                for (int a = 0; a < 3; a++)
                    values[9 * k + a + 3 * b] = W[(3 * i + a) + m * (3 * j + b)];
            k++;
        }
        rowptr[i + 1] = k;
    }
    cdyn_fc3d_blocks bl = {rowptr, colind, values};
    cdyn_fc3d p = {n, (mode & 32) ? NULL : W, (mode & 32) ? &bl : NULL, q, mu};
    test_failing_alloc fa;
    fz_alloc_init(&f, &fa);
    const unsigned which = fz_byte(&f) % 5;
    const double tol = 1e-8;
    double r0[3 * FZ_MAXN], u[3 * FZ_MAXN], u0[3 * FZ_MAXN];
    memcpy(r0, r, sizeof r);
    for (int j = 0; j < m; j++)
        u[j] = u0[j] = 12345.0;
    cdyn_fc3d_report rep;
    cdyn_status s;
    if (which == 0) {
        cdyn_fc3d_options o;
        cdyn_fc3d_defaults(&o);
        o.tol = tol;
        o.nsgs.max_sweeps = 200;
        o.allocator = &fa.allocator;
        s = cdyn_fc3d_solve(&p, &o, r, u, &rep);
    } else if (which == 1) {
        cdyn_fc3d_nsgs_options o;
        cdyn_fc3d_nsgs_defaults(&o);
        o.tol = tol;
        o.max_sweeps = 200;
        o.allocator = &fa.allocator;
        s = cdyn_fc3d_nsgs(&p, &o, r, u, &rep);
    } else {
        cdyn_fc3d_newton_options o;
        cdyn_fc3d_newton_defaults(&o);
        o.tol = tol;
        o.formulation = which == 2 ? CDYN_FC3D_ALART_CURNIER : CDYN_FC3D_FISCHER_BURMEISTER;
        o.linear = which == 4 ? CDYN_FC3D_LINEAR_SPARSE : CDYN_FC3D_LINEAR_AUTO;
        o.allocator = &fa.allocator;
        s = cdyn_fc3d_newton(&p, &o, r, u, &rep);
    }
    FZ_CHECK(fz_status_valid(s) && rep.status == s);
    FZ_CHECK(memchr(rep.message, '\0', sizeof rep.message) != NULL);
    FZ_CHECK(memchr(rep.method, '\0', sizeof rep.method) != NULL);
    cdyn_fc3d_report cr;
    const int valid = cdyn_fc3d_check(&p, &cr) == CDYN_OK && fz_all_finite((size_t)m, r0);
    if (valid != (s != CDYN_EINVAL))
        fprintf(stderr, "which %u mode %u n %d: status %d (%s), check %d (%s)\n", which, mode, n,
                (int)s, rep.message, (int)cdyn_fc3d_check(&p, &cr), cr.message);
    FZ_CHECK(valid == (s != CDYN_EINVAL));
    if (s == CDYN_OK) {
        double w[3 * FZ_MAXN], rel = NAN;
        FZ_CHECK(cdyn_fc3d_residual(&p, r, w, NULL, &rel) == CDYN_OK);
        FZ_CHECK(rel <= tol);
        for (int j = 0; j < m; j++)
            FZ_CHECK(u[j] == w[j]);
    } else {
        FZ_CHECK(memcmp(r, r0, sizeof r) == 0);
        FZ_CHECK(memcmp(u, u0, (size_t)m * sizeof(double)) == 0);
    }
    FZ_CHECK(fa.live == 0);
    return 0;
}
