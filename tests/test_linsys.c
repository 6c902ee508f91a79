/* The linear-system layer (src/linalg/linsys.h) on its own: each of the four backends solves a
 * random system to its residual bound (one and two right-hand sides, the transposed solve of the
 * LU kinds), refactors with new values, reports singular or indefinite matrices as
 * CDYN_ESINGULAR, and handles every allocation failure of create.
 * Expected values: the residual ||A x - b||_inf <= 1e-12 ||b||_inf of well-conditioned matrices
 * (diagonally dominant: kappa < 10), and exact singularity. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "linalg/linsys.h"
#include "support.h"

enum { N = 12, BAND = 2 };

/* Pattern of a band matrix (|i - j| <= BAND), all entries stored; nnz returned. */
static int band_pattern(int *colptr, int *rowind)
{
    int p = 0;
    for (int j = 0; j < N; ++j) {
        colptr[j] = p;
        for (int i = 0; i < N; ++i)
            if (abs(i - j) <= BAND)
                rowind[p++] = i;
    }
    colptr[N] = p;
    return p;
}

/* Random band values, symmetric when sym, diagonally dominant (shifted by 2 * BAND + 1). Dense
   copy into D (column-major) and the pattern-ordered values into v. */
static void band_values(test_rng *g, int sym, const int *colptr, const int *rowind, double *D,
                        double *v)
{
    memset(D, 0, sizeof(double) * N * N);
    for (int j = 0; j < N; ++j)
        for (int i = 0; i < N; ++i)
            if (abs(i - j) <= BAND && (!sym || i >= j)) {
                const double a = i == j ? 2.0 * BAND + 1.0 + test_rng_uniform(g)
                                        : test_rng_range(g, -1.0, 1.0);
                D[i + j * N] = a;
                if (sym)
                    D[j + i * N] = a;
            }
    for (int j = 0; j < N; ++j)
        for (int p = colptr[j]; p < colptr[j + 1]; ++p)
            v[p] = D[rowind[p] + j * N];
}

/* ||op(D) x - b||_inf / ||b||_inf over nrhs columns. */
static double residual(const double *D, int trans, int nrhs, const double *x, const double *b)
{
    double r = 0.0, bn = 0.0;
    for (int k = 0; k < nrhs; ++k)
        for (int i = 0; i < N; ++i) {
            double s = -b[i + k * N];
            for (int j = 0; j < N; ++j)
                s += (trans ? D[j + i * N] : D[i + j * N]) * x[j + k * N];
            r = fmax(r, fabs(s));
            bn = fmax(bn, fabs(b[i + k * N]));
        }
    return r / bn;
}

static void solve_kind(cdyn_linsys_kind kind, int klu_check)
{
    const int sym = kind == CDYN_LINSYS_DENSE_CHOL || kind == CDYN_LINSYS_CHOLMOD;
    const int sparse = kind == CDYN_LINSYS_KLU || kind == CDYN_LINSYS_CHOLMOD;
    int colptr[N + 1], rowind[N * N];
    band_pattern(colptr, rowind);
    cdyn_linsys_spec spec = cdyn_linsys_spec_default(kind, N, NULL);
    spec.colptr = sparse ? colptr : NULL;
    spec.rowind = sparse ? rowind : NULL;
    spec.klu_check = klu_check;
    cdyn_linsys *ls = NULL;
    cdyn_report r;
    assert_int_equal(cdyn_linsys_create(&spec, &ls, &r), CDYN_OK);
    assert_int_equal(cdyn_linsys_size(ls), N);
    assert_int_equal(cdyn_linsys_get_kind(ls), kind);
    test_rng g;
    test_rng_seed(&g, 21u + (unsigned)kind);
    double D[N * N], v[N * N], b[2 * N], x[2 * N];
    for (int round = 0; round < 3; ++round) { /* new values: KLU refactors after the first */
        band_values(&g, sym, colptr, rowind, D, v);
        assert_int_equal(cdyn_linsys_factor(ls, sparse ? v : D, &r), CDYN_OK);
        for (int k = 0; k < 2 * N; ++k)
            b[k] = test_rng_range(&g, -1.0, 1.0);
        for (int nrhs = 1; nrhs <= 2; ++nrhs)
            for (int trans = 0; trans <= !sym; ++trans) {
                memcpy(x, b, sizeof b);
                assert_int_equal(cdyn_linsys_solve(ls, trans, nrhs, x, &r), CDYN_OK);
                assert_true(residual(D, trans, nrhs, x, b) <= 1e-12);
            }
        if (round == 1)
            cdyn_linsys_forget(ls); /* the next factor chooses fresh pivots: same answers */
    }
    cdyn_linsys_free(ls);
}

static void test_dense_lu(void **state)
{
    (void)state;
    solve_kind(CDYN_LINSYS_DENSE_LU, 0);
}

static void test_dense_chol(void **state)
{
    (void)state;
    solve_kind(CDYN_LINSYS_DENSE_CHOL, 0);
}

static void test_klu_both_checks(void **state)
{
    (void)state;
    solve_kind(CDYN_LINSYS_KLU, CDYN_LINSYS_KLU_RCOND);
    solve_kind(CDYN_LINSYS_KLU, CDYN_LINSYS_KLU_GROWTH);
}

static void test_cholmod(void **state)
{
    (void)state;
    solve_kind(CDYN_LINSYS_CHOLMOD, 0);
}

/* A zero column makes every LU singular; a negative diagonal every Cholesky indefinite. */
static void test_singular_and_indefinite(void **state)
{
    (void)state;
    int colptr[N + 1], rowind[N * N];
    band_pattern(colptr, rowind);
    test_rng g;
    test_rng_seed(&g, 7);
    double D[N * N], v[N * N];
    const cdyn_linsys_kind kinds[] = {CDYN_LINSYS_DENSE_LU, CDYN_LINSYS_KLU,
                                      CDYN_LINSYS_DENSE_CHOL, CDYN_LINSYS_CHOLMOD};
    for (int k = 0; k < 4; ++k) {
        const int sym = k >= 2, sparse = k % 2 == 1;
        for (int check = 0; check <= (kinds[k] == CDYN_LINSYS_KLU); ++check) {
            cdyn_linsys_spec spec = cdyn_linsys_spec_default(kinds[k], N, NULL);
            spec.colptr = sparse ? colptr : NULL;
            spec.rowind = sparse ? rowind : NULL;
            spec.klu_check = check;
            cdyn_linsys *ls = NULL;
            cdyn_report r;
            assert_int_equal(cdyn_linsys_create(&spec, &ls, &r), CDYN_OK);
            band_values(&g, sym, colptr, rowind, D, v);
            if (sym) {
                D[5 + 5 * N] = -1.0;
            } else {
                for (int i = 0; i < N; ++i)
                    D[i + 5 * N] = 0.0;
            }
            for (int j = 0; j < N; ++j)
                for (int p = colptr[j]; p < colptr[j + 1]; ++p)
                    v[p] = D[rowind[p] + j * N];
            assert_int_equal(cdyn_linsys_factor(ls, sparse ? v : D, &r), CDYN_ESINGULAR);
            cdyn_linsys_free(ls);
        }
    }
}

static void test_invalid_spec(void **state)
{
    (void)state;
    cdyn_linsys *ls = (cdyn_linsys *)&ls;
    cdyn_report r;
    cdyn_linsys_spec spec = cdyn_linsys_spec_default(CDYN_LINSYS_DENSE_LU, 0, NULL);
    assert_int_equal(cdyn_linsys_create(&spec, &ls, &r), CDYN_EINVAL);
    assert_null(ls);
    spec = cdyn_linsys_spec_default(CDYN_LINSYS_KLU, 3, NULL); /* no pattern */
    assert_int_equal(cdyn_linsys_create(&spec, &ls, &r), CDYN_EINVAL);
    cdyn_linsys_free(NULL);
}

typedef struct alloc_ctx {
    cdyn_linsys_kind kind;
    int colptr[N + 1], rowind[N * N];
    cdyn_linsys *ls;
} alloc_ctx;

static cdyn_status alloc_run(void *ctx, const cdyn_allocator *a)
{
    alloc_ctx *c = ctx;
    c->ls = NULL;
    cdyn_linsys_spec spec = cdyn_linsys_spec_default(c->kind, N, a);
    spec.colptr = c->colptr;
    spec.rowind = c->rowind;
    return cdyn_linsys_create(&spec, &c->ls, NULL);
}

static int alloc_unchanged(void *ctx)
{
    return ((alloc_ctx *)ctx)->ls == NULL;
}

static void alloc_release(void *ctx)
{
    cdyn_linsys_free(((alloc_ctx *)ctx)->ls);
}

static void test_allocation_failures(void **state)
{
    (void)state;
    const cdyn_linsys_kind kinds[] = {CDYN_LINSYS_DENSE_LU, CDYN_LINSYS_DENSE_CHOL,
                                      CDYN_LINSYS_KLU, CDYN_LINSYS_CHOLMOD};
    for (int k = 0; k < 4; ++k) {
        alloc_ctx c;
        c.kind = kinds[k];
        band_pattern(c.colptr, c.rowind);
        const test_alloc_case tc = {"cdyn_linsys_create", alloc_run, alloc_unchanged,
                                    alloc_release, &c};
        assert_true(test_alloc_every_failure(&tc) >= 1);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dense_lu),
        cmocka_unit_test(test_dense_chol),
        cmocka_unit_test(test_klu_both_checks),
        cmocka_unit_test(test_cholmod),
        cmocka_unit_test(test_singular_and_indefinite),
        cmocka_unit_test(test_invalid_spec),
        cmocka_unit_test(test_allocation_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
