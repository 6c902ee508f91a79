/* Bad input and failure modes of the friction-cone QP: every case returns the documented
 * status with a message, leaves x and u unchanged, writes NaN into info on argument errors, and
 * leaks nothing (the sanitizer build checks malloc; the failing allocator counts live blocks).
 *
 * What is checked on H: dense H must be finite and symmetric to 1e-10 max|H_ij| (entry by
 * entry); a sparse Hs must be a valid CSC matrix of size n with finite values, and if it
 * stores entries above the diagonal they must mirror the lower triangle (same pattern, values
 * to 1e-10 max|H_ij|). Positive semidefiniteness (opts.check_psd, default on): H + 1e-10
 * max|H_ij| I, restricted to the variables that are not fixed at 0, must have a Cholesky
 * factor; an eigenvalue below about -1e-10 max|H_ij| is rejected. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cdyn/coneqp.h"
#include "coneqp_support.h"

/* A valid 2-contact spatial cone problem (n = 6), and its sparse twin. */
typedef struct fixture {
    double H[36], c[6], mu[2], ln[2];
    test_csc lo;
    cdyn_coneqp dense, sparse;
} fixture;

static void make_fixture(fixture *f)
{
    memset(f, 0, sizeof *f);
    for (int i = 0; i < 6; ++i) {
        f->H[i + 6 * i] = 2.0;
        if (i + 1 < 6)
            f->H[i + 1 + 6 * i] = f->H[i + 6 * (i + 1)] = -0.5;
        f->c[i] = i % 3 == 0 ? -1.0 : 0.3;
    }
    f->mu[0] = 0.5;
    f->mu[1] = 0.8;
    f->ln[0] = 1.0;
    f->ln[1] = 2.0;
    cq_dense_to_csc(6, f->H, 1, &f->lo);
    cdyn_coneqp p = {0};
    p.ncontacts = 2;
    p.dim = 3;
    p.mu = f->mu;
    p.c = f->c;
    p.H = f->H;
    f->dense = p;
    p.H = NULL;
    p.Hs = &f->lo.A;
    f->sparse = p;
}

static void free_fixture(fixture *f)
{
    test_csc_free(&f->lo);
}

/* Expect st with a message containing needle; x, u untouched; info NaN (argument errors). */
static void expect_fail(const cdyn_coneqp *p, const cdyn_coneqp_options *o, cdyn_status st,
                        const char *needle, int info_nan)
{
    double x[8] = {4, 4, 4, 4, 4, 4, 4, 4}, u[8] = {5, 5, 5, 5, 5, 5, 5, 5};
    cdyn_coneqp_info info;
    memset(&info, 0, sizeof info);
    cdyn_report r;
    const cdyn_status got = cdyn_coneqp_solve(p, o, x, u, &info, &r);
    assert_int_equal(got, st);
    assert_int_equal(r.status, st);
    assert_true(strlen(r.message) > 0);
    if (needle != NULL && strstr(r.message, needle) == NULL) {
        print_error("message '%s' lacks '%s'\n", r.message, needle);
        fail();
    }
    for (int i = 0; i < 8; ++i)
        assert_true(x[i] == 4 && u[i] == 5);
    if (info_nan)
        assert_true(isnan(info.primal_residual) && isnan(info.dual_residual) && isnan(info.gap) &&
                    isnan(info.primal_objective));
    /* report may be NULL */
    assert_int_equal(cdyn_coneqp_solve(p, o, x, u, NULL, NULL), st);
}

static void test_null_and_sizes(void **state)
{
    (void)state;
    fixture f;
    make_fixture(&f);
    expect_fail(NULL, NULL, CDYN_EINVAL, "NULL", 1);
    double x[6];
    cdyn_report r;
    assert_int_equal(cdyn_coneqp_solve(&f.dense, NULL, NULL, NULL, NULL, &r), CDYN_EINVAL);
    assert_non_null(strstr(r.message, "x"));
    for (int s = 0; s < 2; ++s) {
        cdyn_coneqp p = s ? f.sparse : f.dense;
        p.ncontacts = 0;
        expect_fail(&p, NULL, CDYN_EINVAL, "ncontacts", 1);
        p.ncontacts = -3;
        expect_fail(&p, NULL, CDYN_EINVAL, "ncontacts", 1);
        p = s ? f.sparse : f.dense;
        p.dim = 4;
        expect_fail(&p, NULL, CDYN_EINVAL, "dim", 1);
        p.dim = 1;
        expect_fail(&p, NULL, CDYN_EINVAL, "dim", 1);
        const int bad_dims[2] = {3, 1};
        p.dim = 3;
        p.dims = bad_dims;
        expect_fail(&p, NULL, CDYN_EINVAL, "dims[1]", 1);
        p = s ? f.sparse : f.dense;
        p.mu = NULL;
        expect_fail(&p, NULL, CDYN_EINVAL, "mu", 1);
        p = s ? f.sparse : f.dense;
        p.c = NULL;
        expect_fail(&p, NULL, CDYN_EINVAL, "c", 1);
    }
    /* both / neither H */
    cdyn_coneqp p = f.dense;
    p.Hs = &f.lo.A;
    expect_fail(&p, NULL, CDYN_EINVAL, "exactly one", 1);
    p.H = NULL;
    p.Hs = NULL;
    expect_fail(&p, NULL, CDYN_EINVAL, "exactly one", 1);
    /* Hs of the wrong size: a valid 4x4 matrix for a 6-variable problem */
    test_csc small;
    test_laplacian_1d(4, 1, &small);
    p = f.sparse;
    p.Hs = &small.A;
    expect_fail(&p, NULL, CDYN_EINVAL, "4 x 4", 1);
    test_csc_free(&small);
    /* the disk variant has n = 4 for the same contacts: the 6x6 matrix no longer fits */
    p = f.sparse;
    p.normal = f.ln;
    expect_fail(&p, NULL, CDYN_EINVAL, "n = 4", 1);
    assert_int_equal(cdyn_coneqp_size(&p), 4);
    assert_int_equal(cdyn_coneqp_size(&f.dense), 6);
    assert_int_equal(cdyn_coneqp_size(NULL), -1);
    (void)x;
    free_fixture(&f);
}

static void test_nonfinite_data(void **state)
{
    (void)state;
    const double bad[3] = {NAN, INFINITY, -INFINITY};
    for (int b = 0; b < 3; ++b) {
        fixture f;
        make_fixture(&f);
        f.H[7] = bad[b]; /* H(1,1) */
        expect_fail(&f.dense, NULL, CDYN_EINVAL, "H(1,1)", 1);
        f.H[7] = 2.0;
        f.lo.values[2] = bad[b];
        expect_fail(&f.sparse, NULL, CDYN_EINVAL, "Hs", 1);
        f.lo.values[2] = 2.0;
        f.c[4] = bad[b];
        expect_fail(&f.dense, NULL, CDYN_EINVAL, "c[4]", 1);
        expect_fail(&f.sparse, NULL, CDYN_EINVAL, "c[4]", 1);
        f.c[4] = 0.3;
        f.mu[1] = bad[b];
        expect_fail(&f.dense, NULL, CDYN_EINVAL, "mu[1]", 1);
        f.mu[1] = 0.8;
        cdyn_coneqp p = f.dense;
        double H4[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
        p.H = H4;
        p.normal = f.ln;
        f.ln[0] = bad[b];
        expect_fail(&p, NULL, CDYN_EINVAL, "normal[0]", 1);
        free_fixture(&f);
    }
}

static void test_negative_mu_and_infeasible_disk(void **state)
{
    (void)state;
    fixture f;
    make_fixture(&f);
    f.mu[0] = -0.1;
    expect_fail(&f.dense, NULL, CDYN_EINVAL, "mu[0]", 1);
    expect_fail(&f.sparse, NULL, CDYN_EINVAL, "mu[0]", 1);
    f.mu[0] = 0.5;
    /* disk radius mu * lambda_n < 0: no tangential force fits */
    double H4[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    cdyn_coneqp p = f.dense;
    p.H = H4;
    p.normal = f.ln;
    f.ln[1] = -0.5;
    expect_fail(&p, NULL, CDYN_EINFEASIBLE, "contact 1", 1);
    /* with mu = 0 the same normal force gives radius 0: feasible, x_1 = 0 */
    f.mu[1] = 0.0;
    double x[4], u[4];
    cdyn_report r;
    assert_int_equal(cdyn_coneqp_solve(&p, NULL, x, u, NULL, &r), CDYN_OK);
    assert_true(x[2] == 0.0 && x[3] == 0.0);
    /* radius overflow */
    f.mu[1] = 1e200;
    f.ln[1] = 1e200;
    expect_fail(&p, NULL, CDYN_EINVAL, "overflows", 1);
    free_fixture(&f);
}

static void test_not_symmetric(void **state)
{
    (void)state;
    fixture f;
    make_fixture(&f);
    f.H[1 + 6 * 0] = -0.4; /* H(1,0) != H(0,1) = -0.5 */
    expect_fail(&f.dense, NULL, CDYN_EINVAL, "not symmetric", 1);
    /* within 1e-10 max|H_ij| is accepted */
    f.H[1 + 6 * 0] = -0.5 + 1e-12;
    double x[6];
    cdyn_report r;
    assert_int_equal(cdyn_coneqp_solve(&f.dense, NULL, x, NULL, NULL, &r), CDYN_OK);
    f.H[1 + 6 * 0] = -0.5;
    /* sparse full storage with a different upper value, and with an unmatched upper entry */
    test_csc full;
    cq_dense_to_csc(6, f.H, 0, &full);
    cdyn_coneqp p = f.sparse;
    p.Hs = &full.A;
    assert_int_equal(cdyn_coneqp_solve(&p, NULL, x, NULL, NULL, &r), CDYN_OK);
    full.values[1] = -0.45; /* column 0 holds rows 0, 1: entry (1,0) of the lower part */
    expect_fail(&p, NULL, CDYN_EINVAL, "not symmetric", 1);
    test_csc_free(&full);
    double Hu[36];
    memcpy(Hu, f.H, sizeof Hu);
    Hu[0 + 6 * 5] = 0.1; /* upper entry (0, 5) without (5, 0) */
    cq_dense_to_csc(6, Hu, 0, &full);
    p.Hs = &full.A;
    expect_fail(&p, NULL, CDYN_EINVAL, "not symmetric", 1);
    test_csc_free(&full);
    free_fixture(&f);
}

static void test_not_psd(void **state)
{
    (void)state;
    fixture f;
    make_fixture(&f);
    /* negative diagonal entry, and an indefinite matrix with a positive diagonal:
     * [[2, 3], [3, 2]] has eigenvalues 5 and -1 */
    f.H[14] = -1.0;
    expect_fail(&f.dense, NULL, CDYN_EINVAL, "positive semidefinite", 1);
    f.H[14] = 2.0;
    f.H[1] = f.H[6] = 3.0;
    expect_fail(&f.dense, NULL, CDYN_EINVAL, "positive semidefinite", 1);
    test_csc lo;
    cq_dense_to_csc(6, f.H, 1, &lo);
    cdyn_coneqp p = f.sparse;
    p.Hs = &lo.A;
    expect_fail(&p, NULL, CDYN_EINVAL, "positive semidefinite", 1);
    test_csc_free(&lo);
    /* PSD but singular is fine: H = v v' with v = (1, 1, 1, 1, 1, 1), c in int K* */
    double H1[36];
    for (int k = 0; k < 36; ++k)
        H1[k] = 1.0;
    const double c1[6] = {1.0, 0.1, 0.0, 1.0, 0.0, -0.1};
    p = f.dense;
    p.H = H1;
    p.c = c1;
    double x[6];
    cdyn_report r;
    assert_int_equal(cdyn_coneqp_solve(&p, NULL, x, NULL, NULL, &r), CDYN_OK);
    /* an indefinite H only on fixed variables does not matter (frictionless contact: its
     * tangential entries are fixed at 0) */
    memcpy(H1, f.H, sizeof H1);
    H1[1] = H1[6] = -0.5;
    H1[7] = -3.0; /* H(1,1): a tangential entry of contact 0 */
    const double mu0[2] = {0.0, 0.8};
    p = f.dense;
    p.H = H1;
    p.mu = mu0;
    assert_int_equal(cdyn_coneqp_solve(&p, NULL, x, NULL, NULL, &r), CDYN_OK);
    /* ... but it does once the contact has friction */
    p.mu = f.mu;
    expect_fail(&p, NULL, CDYN_EINVAL, "positive semidefinite", 1);
    free_fixture(&f);
}

static void test_malformed_sparse(void **state)
{
    (void)state;
    fixture f;
    make_fixture(&f);
    /* unsorted rows in column 0 */
    const int r0 = f.lo.rowind[0];
    f.lo.rowind[0] = f.lo.rowind[1];
    f.lo.rowind[1] = r0;
    expect_fail(&f.sparse, NULL, CDYN_EINVAL, "Hs: CSC row indices", 1);
    f.lo.rowind[1] = f.lo.rowind[0];
    f.lo.rowind[0] = r0;
    f.lo.rowind[2] = 17; /* out of range */
    expect_fail(&f.sparse, NULL, CDYN_EINVAL, "out of range", 1);
    free_fixture(&f);
}

static void test_bad_options(void **state)
{
    (void)state;
    fixture f;
    make_fixture(&f);
    cdyn_coneqp_options o;
    const struct {
        int field;
        double v;
    } cases[] = {{0, -1e-9}, {0, NAN}, {1, -1.0}, {1, INFINITY}, {2, 0}, {2, -5},
                 {3, 0.0},   {3, 1.0}, {3, NAN},  {3, 1.5},      {4, 0}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        cdyn_coneqp_defaults(&o);
        switch (cases[k].field) {
        case 0:
            o.tol_rel = cases[k].v;
            break;
        case 1:
            o.tol_abs = cases[k].v;
            break;
        case 2:
            o.max_iter = (int)cases[k].v;
            break;
        case 3:
            o.step_fraction = cases[k].v;
            break;
        default:
            o.tol_rel = 0.0;
            o.tol_abs = 0.0;
        }
        expect_fail(&f.dense, &o, CDYN_EINVAL, NULL, 1);
        expect_fail(&f.sparse, &o, CDYN_EINVAL, NULL, 1);
    }
    cdyn_coneqp_defaults(NULL); /* harmless */
    free_fixture(&f);
}

static void test_iteration_limit(void **state)
{
    (void)state;
    fixture f;
    make_fixture(&f);
    cdyn_coneqp_options o;
    cdyn_coneqp_defaults(&o);
    o.max_iter = 1;
    for (int s = 0; s < 2; ++s) {
        double x[6] = {4, 4, 4, 4, 4, 4};
        cdyn_coneqp_info info;
        cdyn_report r;
        assert_int_equal(cdyn_coneqp_solve(s ? &f.sparse : &f.dense, &o, x, NULL, &info, &r),
                         CDYN_ENOCONV);
        assert_non_null(strstr(r.message, "iteration limit"));
        assert_int_equal(r.iterations, 1);
        assert_true(x[0] == 4 && x[5] == 4);
        /* info describes the last iterate: finite, and it is inside the cones */
        assert_true(isfinite(info.dual_residual) && isfinite(info.gap));
        assert_true(info.primal_residual == 0.0 && info.dual_cone_residual == 0.0);
    }
    free_fixture(&f);
}

static void test_solver_object_errors(void **state)
{
    (void)state;
    fixture f;
    make_fixture(&f);
    cdyn_report r;
    cdyn_coneqp_solver *s = (cdyn_coneqp_solver *)&r; /* must be overwritten with NULL */
    assert_int_equal(cdyn_coneqp_solver_create(&f.dense, NULL, NULL, &r), CDYN_EINVAL);
    cdyn_coneqp bad = f.dense;
    bad.dim = 5;
    assert_int_equal(cdyn_coneqp_solver_create(&bad, NULL, &s, &r), CDYN_EINVAL);
    assert_null(s);
    double x[6] = {4, 4, 4, 4, 4, 4};
    assert_int_equal(cdyn_coneqp_solver_solve(NULL, &f.dense, x, NULL, NULL, &r), CDYN_EINVAL);
    /* create allows missing values; run does not */
    cdyn_coneqp pat = f.sparse;
    pat.mu = NULL;
    pat.c = NULL;
    cdyn_csc nov = f.lo.A;
    nov.values = NULL;
    pat.Hs = &nov;
    assert_int_equal(cdyn_coneqp_solver_create(&pat, NULL, &s, &r), CDYN_OK);
    assert_int_equal(cdyn_coneqp_solver_solve(s, &pat, x, NULL, NULL, &r), CDYN_EINVAL);
    assert_int_equal(cdyn_coneqp_solver_solve(s, &f.sparse, x, NULL, NULL, &r), CDYN_OK);
    /* structure mismatches */
    double y[6] = {4, 4, 4, 4, 4, 4};
    assert_int_equal(cdyn_coneqp_solver_solve(s, &f.dense, y, NULL, NULL, &r), CDYN_EINVAL);
    assert_non_null(strstr(r.message, "structure"));
    const int dims[3] = {2, 2, 2};
    cdyn_coneqp other = f.sparse;
    other.ncontacts = 3;
    other.dims = dims;
    const double mu3[3] = {1, 1, 1};
    other.mu = mu3;
    assert_int_equal(cdyn_coneqp_solver_solve(s, &other, y, NULL, NULL, &r), CDYN_EINVAL);
    other = f.sparse;
    const double H2[36] = {2, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0,
                           0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 2};
    test_csc diag;
    cq_dense_to_csc(6, H2, 1, &diag);
    other.Hs = &diag.A;
    assert_int_equal(cdyn_coneqp_solver_solve(s, &other, y, NULL, NULL, &r), CDYN_EINVAL);
    assert_non_null(strstr(r.message, "pattern"));
    for (int i = 0; i < 6; ++i)
        assert_true(y[i] == 4);
    test_csc_free(&diag);
    cdyn_coneqp_solver_free(s);
    cdyn_coneqp_solver_free(NULL);
    free_fixture(&f);
}

static void test_certify(void **state)
{
    (void)state;
    fixture f;
    make_fixture(&f);
    /* A hand-checkable pair: x = (1, 0.3, 0.4, 0, 0, 0) (contact 0 on the boundary of mu = 0.5
     * since ||(0.3, 0.4)|| = 0.5), u = (1, 0, 0, 2, 0, 0) (in K*). Hx + c from the tridiagonal
     * H: row 0: 2*1 - 0.5*0.3 - 1 = 0.85; row 1: -0.5 + 0.6 - 0.2 + 0.3 = 0.2;
     * row 2: -0.15 + 0.8 + 0.3 = 0.95; row 3: -0.2 - 1 = -1.2; rows 4, 5: 0.3. */
    const double x[6] = {1, 0.3, 0.4, 0, 0, 0}, u[6] = {1, 0, 0, 2, 0, 0};
    cdyn_coneqp_info info;
    cdyn_report r;
    for (int s = 0; s < 2; ++s) {
        assert_int_equal(cdyn_coneqp_certify(s ? &f.sparse : &f.dense, x, u, NULL, &info, &r),
                         CDYN_OK);
        assert_true(fabs(info.primal_residual) <= 1e-15);
        assert_true(info.dual_cone_residual == 0.0);
        assert_true(fabs(info.dual_residual - 3.2) <= 1e-14); /* |(-1.2) - 2| */
        assert_true(fabs(info.gap - 1.0) <= 1e-15);           /* x'u = 1 */
        /* 1/2 x'Hx + c'x = 1/2 (0.85 + 1, 0.2 - 0.3, 0.95 - 0.3) . (1, .3, .4) + (-1 + .09 + .12)
         */
        const double xhx = 1.85 * 1 + (-0.1) * 0.3 + 0.65 * 0.4;
        assert_true(fabs(info.primal_objective - (0.5 * xhx - 0.79)) <= 1e-14);
        assert_true(fabs(info.dual_objective + 0.5 * xhx) <= 1e-14);
    }
    /* u = NULL means u = Hx + c: dual residual 0 */
    assert_int_equal(cdyn_coneqp_certify(&f.dense, x, NULL, NULL, &info, &r), CDYN_OK);
    assert_true(info.dual_residual == 0.0);
    /* violations are measured: x outside the cone, u outside K* */
    const double xo[6] = {1, 3, 4, -1, 0, 0}, uo[6] = {1, 4, 0, 0, 0, 0};
    assert_int_equal(cdyn_coneqp_certify(&f.dense, xo, uo, NULL, &info, &r), CDYN_OK);
    assert_true(fabs(info.primal_residual - 4.5) <= 1e-15);    /* ||(3,4)|| - 0.5 */
    assert_true(fabs(info.dual_cone_residual - 1.0) <= 1e-15); /* 0.5 * 4 - 1 */
    /* errors */
    const double xn[6] = {NAN, 0, 0, 0, 0, 0};
    assert_int_equal(cdyn_coneqp_certify(&f.dense, xn, u, NULL, &info, &r), CDYN_EINVAL);
    assert_int_equal(cdyn_coneqp_certify(&f.dense, NULL, u, NULL, &info, &r), CDYN_EINVAL);
    assert_int_equal(cdyn_coneqp_certify(&f.dense, x, u, NULL, NULL, &r), CDYN_EINVAL);
    test_failing_alloc fa;
    test_failing_alloc_init(&fa, 0);
    assert_int_equal(cdyn_coneqp_certify(&f.dense, x, u, &fa.allocator, &info, &r), CDYN_ENOMEM);
    assert_int_equal(fa.live, 0);
    free_fixture(&f);
}

static void test_failing_allocator(void **state)
{
    (void)state;
    fixture f;
    make_fixture(&f);
    for (int variant = 0; variant < 3; ++variant) {
        int succeeded = 0;
        for (int k = 0; k < 40 && !succeeded; ++k) {
            test_failing_alloc fa;
            test_failing_alloc_init(&fa, k);
            cdyn_coneqp_options o;
            cdyn_coneqp_defaults(&o);
            o.allocator = &fa.allocator;
            cdyn_coneqp p = variant == 0 ? f.dense : f.sparse;
            double H4[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
            test_csc lo4;
            lo4.colptr = NULL;
            if (variant == 2) { /* sparse disk problem */
                cq_dense_to_csc(4, H4, 1, &lo4);
                p.Hs = &lo4.A;
                p.normal = f.ln;
            }
            double x[6] = {4, 4, 4, 4, 4, 4}, u[6] = {5, 5, 5, 5, 5, 5};
            cdyn_report r;
            cdyn_coneqp_info info;
            const cdyn_status st = cdyn_coneqp_solve(&p, &o, x, u, &info, &r);
            assert_int_equal(fa.live, 0);
            if (st == CDYN_OK) {
                succeeded = 1;
                assert_true(k >= 4); /* solver, contacts, fixed flags, vectors at least */
            } else {
                assert_int_equal(st, CDYN_ENOMEM);
                assert_true(strlen(r.message) > 0);
                for (int i = 0; i < 6; ++i)
                    assert_true(x[i] == 4 && u[i] == 5);
                assert_true(isnan(info.gap));
            }
            if (lo4.colptr != NULL)
                test_csc_free(&lo4);
        }
        assert_true(succeeded);
    }
    free_fixture(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_null_and_sizes),
        cmocka_unit_test(test_nonfinite_data),
        cmocka_unit_test(test_negative_mu_and_infeasible_disk),
        cmocka_unit_test(test_not_symmetric),
        cmocka_unit_test(test_not_psd),
        cmocka_unit_test(test_malformed_sparse),
        cmocka_unit_test(test_bad_options),
        cmocka_unit_test(test_iteration_limit),
        cmocka_unit_test(test_solver_object_errors),
        cmocka_unit_test(test_certify),
        cmocka_unit_test(test_failing_allocator),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
