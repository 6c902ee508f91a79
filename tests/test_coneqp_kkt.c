/* White-box tests of the friction-cone QP's Newton-matrix backends (src/solvers/coneqp/coneqp_kkt.c)
 * and of the shifted-factorization fallback (cdyn_cq_factor / cdyn_cq_newton_solve):
 * the matrix each backend factors must be H with the rows and columns of fixed variables
 * replaced by a multiple of the identity, plus every contact's block; the reference here is
 * that definition, assembled densely by this file and applied by plain loops. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "coneqp_support.h"
#include "solvers/coneqp/coneqp_internal.h"

/* Dense reference of the Newton matrix for the current layout and blocks of w. */
static void reference_k(const cdyn_coneqp_solver *w, const double *H, double *K)
{
    const int n = w->n;
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i)
            K[i + (size_t)j * n] =
                (w->fixed[i] || w->fixed[j]) ? (i == j) * w->fixdiag : H[i + (size_t)j * n];
    for (int c = 0; c < w->nc; ++c)
        for (int a = 0; a < w->ct[c].nv; ++a)
            for (int b = 0; b < w->ct[c].nv; ++b) {
                const int ga = w->ct[c].vo + a, gb = w->ct[c].vo + b;
                if (!w->fixed[ga] && !w->fixed[gb])
                    K[ga + (size_t)gb * n] += w->blk[9 * c + a + 3 * b];
            }
}

static void test_assembly_matches_definition(void **state)
{
    (void)state;
    /* Mixed planar/spatial contacts, some frictionless (fixed tangential entries), random
     * symmetric positive definite blocks; dense and sparse backends. */
    test_rng g;
    test_rng_seed(&g, 71);
    const int nc = 9;
    int dims[9];
    double mu[9];
    for (int i = 0; i < nc; ++i) {
        dims[i] = i % 3 == 1 ? 2 : 3;
        mu[i] = i % 4 == 2 ? 0.0 : 0.5;
    }
    double *H = NULL;
    test_csc lo;
    cq_chain_delassus(&g, nc, dims, &H, &lo);
    const int n = lo.A.ncols;
    double *c = calloc((size_t)n, sizeof(double));
    double *K = malloc(sizeof(double) * (size_t)n * n), *b = malloc(sizeof(double) * n),
           *x = malloc(sizeof(double) * n);
    for (int sparse = 0; sparse < 2; ++sparse) {
        cdyn_coneqp p = {0};
        p.ncontacts = nc;
        p.dims = dims;
        p.mu = mu;
        p.c = c;
        if (sparse)
            p.Hs = &lo.A;
        else
            p.H = H;
        cdyn_coneqp_solver *w = NULL;
        cdyn_report r;
        assert_int_equal(cdyn_coneqp_solver_create(&p, NULL, &w, &r), CDYN_OK);
        cdyn_cq_layout(w, &p);
        int nfixed = 0;
        for (int j = 0; j < n; ++j)
            nfixed += w->fixed[j];
        assert_int_equal(nfixed, 2 + 2); /* contacts 2 and 6: spatial, frictionless */
        for (int i = 0; i < nc; ++i) {   /* block = B B' + I, symmetric positive definite */
            double B[9];
            for (int k = 0; k < 9; ++k)
                B[k] = test_rng_range(&g, -1.0, 1.0);
            for (int a = 0; a < 3; ++a)
                for (int bb = 0; bb < 3; ++bb) {
                    double s = a == bb;
                    for (int k = 0; k < 3; ++k)
                        s += B[a + 3 * k] * B[bb + 3 * k];
                    w->blk[9 * i + a + 3 * bb] = s;
                }
        }
        assert_int_equal(cdyn_cq_kkt_factor(w, 0.0, &r), CDYN_OK);
        reference_k(w, H, K);
        for (int j = 0; j < n; ++j)
            b[j] = test_rng_range(&g, -1.0, 1.0);
        memcpy(x, b, sizeof(double) * n);
        assert_int_equal(cdyn_cq_kkt_solve(w, x, &r), CDYN_OK);
        double res = 0.0, bn = 0.0;
        for (int i = 0; i < n; ++i) {
            double s = -b[i];
            for (int j = 0; j < n; ++j)
                s += K[i + (size_t)j * n] * x[j];
            res = fmax(res, fabs(s));
            bn = fmax(bn, fabs(b[i]));
        }
        assert_true(res <= 1e-10 * bn); /* K x = b for the reference K */
        cdyn_coneqp_solver_free(w);
    }
    free(H);
    test_csc_free(&lo);
    free(c);
    free(K);
    free(b);
    free(x);
}

static void test_shifted_factorization(void **state)
{
    (void)state;
    /* H = [[1, 1], [1, 1]] (singular) with zero blocks: K = H is singular, so the first
     * factorization fails and cdyn_cq_factor shifts; the refined solve still satisfies
     * K x = b for b = (1, 1) in the range of K (x_0 + x_1 = 1; the shift selects the
     * minimum-norm solution (1/2, 1/2), which refinement keeps). */
    const double H[4] = {1, 1, 1, 1}, c[2] = {0, 0}, mu[1] = {1.0};
    test_csc lo;
    cq_dense_to_csc(2, H, 1, &lo);
    for (int sparse = 0; sparse < 2; ++sparse) {
        cdyn_coneqp p = {0};
        p.ncontacts = 1;
        p.dim = 2;
        p.mu = mu;
        p.c = c;
        if (sparse)
            p.Hs = &lo.A;
        else
            p.H = H;
        cdyn_coneqp_solver *w = NULL;
        cdyn_report r;
        assert_int_equal(cdyn_coneqp_solver_create(&p, NULL, &w, &r), CDYN_OK);
        cdyn_cq_layout(w, &p);
        memset(w->blk, 0, 9 * sizeof(double));
        assert_int_equal(cdyn_cq_kkt_factor(w, 0.0, &r), CDYN_ESINGULAR);
        double shift = -1.0;
        assert_int_equal(cdyn_cq_factor(w, &shift, &r), CDYN_OK);
        assert_true(shift > 0.0 && shift <= 1e-12); /* 1e-13 x the largest diagonal, 1 */
        const double b[2] = {1.0, 1.0};
        double x[2];
        assert_int_equal(cdyn_cq_newton_solve(w, shift, b, x, &r), CDYN_OK);
        assert_true(fabs(x[0] + x[1] - 1.0) <= 1e-12); /* (K x)_i = x_0 + x_1 */
        assert_true(fabs(x[0] - 0.5) <= 1e-12 && fabs(x[1] - 0.5) <= 1e-12);
        cdyn_coneqp_solver_free(w);
    }
    test_csc_free(&lo);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_assembly_matches_definition),
        cmocka_unit_test(test_shifted_factorization),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
