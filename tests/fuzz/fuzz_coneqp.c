/* libFuzzer target: cdyn_coneqp_solve (friction-cone QP, cone and disk problems, dense and
 * sparse H) on small problems with arbitrary numbers and options.
 * Invariants: a valid status echoed by the report; on CDYN_OK x and u finite, the certificates
 * recomputed independently by cdyn_coneqp_certify equal to the returned info and within the
 * stopping test (docs/theory.md, friction-cone QP section 6; ten times the tolerances, as the
 * test is applied to the iterate before x and u are read off it); on failure x and u untouched;
 * every allocation released. */
#include "fuzz_common.h"

#include "cdyn/coneqp.h"

#define MAX_NC 3
#define MAX_N (3 * MAX_NC)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_reader f = {data, size};
    const unsigned flags = fz_byte(&f);
    int dims[MAX_NC];
    double mu[MAX_NC], normal[MAX_NC];
    cdyn_coneqp p = {0};
    p.ncontacts = 1 + (int)(fz_byte(&f) % MAX_NC);
    p.dim = 2 + (int)(flags & 1);
    if (flags & 2) {
        for (int i = 0; i < p.ncontacts; ++i)
            dims[i] = 2 + (int)(fz_byte(&f) & 1);
        p.dims = dims;
    }
    fz_doubles(&f, mu, (size_t)p.ncontacts);
    p.mu = mu;
    if (flags & 4) {
        fz_doubles(&f, normal, (size_t)p.ncontacts);
        p.normal = normal;
    }
    const int n = cdyn_coneqp_size(&p);
    FZ_CHECK(n >= 1 && n <= MAX_N);

    /* H: the decoded lower triangle mirrored, or B B^T + shift I from a decoded B (positive
     * semidefinite unless rounding or non-finite entries break it). */
    double H[MAX_N * MAX_N], c[MAX_N];
    if (flags & 8) {
        double B[MAX_N * MAX_N];
        fz_doubles(&f, B, (size_t)n * (size_t)n);
        const double shift = fabs(fz_double(&f));
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j) {
                double s = i == j ? shift : 0.0;
                for (int k = 0; k < n; ++k)
                    s += B[i + k * n] * B[j + k * n];
                H[i + j * n] = s;
            }
    } else {
        for (int j = 0; j < n; ++j)
            for (int i = j; i < n; ++i)
                H[i + j * n] = H[j + i * n] = fz_double(&f);
    }
    fz_doubles(&f, c, (size_t)n);
    p.c = c;

    int colptr[MAX_N + 1], rowind[MAX_N * MAX_N];
    double values[MAX_N * MAX_N];
    cdyn_csc Hs;
    if (flags & 16) { /* lower triangle, structural zeros dropped except on the diagonal */
        int k = 0;
        for (int j = 0; j < n; ++j) {
            colptr[j] = k;
            for (int i = j; i < n; ++i)
                if (i == j || H[i + j * n] != 0.0) {
                    rowind[k] = i;
                    values[k++] = H[i + j * n];
                }
        }
        colptr[n] = k;
        Hs = (cdyn_csc){n, n, colptr, rowind, values};
        p.Hs = &Hs;
    } else {
        p.H = H;
    }

    cdyn_coneqp_options o;
    cdyn_coneqp_defaults(&o);
    if (flags & 32) {
        o.tol_rel = fz_double(&f);
        o.tol_abs = fz_double(&f);
    }
    if (flags & 64) {
        o.max_iter = (int)fz_byte(&f);
        o.step_fraction = fz_double(&f);
        o.check_psd = (int)(fz_byte(&f) & 1);
    }
    test_failing_alloc fa;
    fz_alloc_init(&f, &fa);
    o.allocator = &fa.allocator;

    double x[MAX_N], u[MAX_N], x0[MAX_N], u0[MAX_N];
    for (int i = 0; i < n; ++i) {
        x[i] = x0[i] = -7.0 - i;
        u[i] = u0[i] = -11.0 - i;
    }
    cdyn_coneqp_info info;
    cdyn_report r;
    cdyn_status s = cdyn_coneqp_solve(&p, &o, x, u, &info, &r);
    fz_check_report(&r, s);
    FZ_CHECK(fa.live == 0);
    if (s != CDYN_OK) {
        FZ_CHECK(memcmp(x, x0, sizeof(double) * (size_t)n) == 0);
        FZ_CHECK(memcmp(u, u0, sizeof(double) * (size_t)n) == 0);
        return 0;
    }
    FZ_CHECK(fz_all_finite((size_t)n, x) && fz_all_finite((size_t)n, u));
    cdyn_coneqp_info again;
    s = cdyn_coneqp_certify(&p, x, u, NULL, &again, &r);
    FZ_CHECK(s == CDYN_OK);
    FZ_CHECK(memcmp(&again, &info, sizeof info) == 0);

    double hx[MAX_N], hmax = 0.0;
    for (int i = 0; i < n; ++i) {
        hx[i] = 0.0;
        for (int j = 0; j < n; ++j) {
            hx[i] += H[i + j * n] * x[j];
            hmax = fmax(hmax, fabs(H[i + j * n]));
        }
    }
    const double xn = fz_norm_inf((size_t)n, x);
    const double uscale = fmax(fmax(fz_norm_inf((size_t)n, c), fz_norm_inf((size_t)n, hx)),
                               fmax(fz_norm_inf((size_t)n, u), hmax * xn));
    const double tol_rel = o.tol_rel, tol_abs = o.tol_abs;
    const double round = 8.0 * n * DBL_EPSILON * uscale;
    if (getenv("FZ_VERBOSE") != NULL) /* to read a finding: the numbers the checks use */
        fprintf(stderr, "n %d iters %d res p %g d %g dc %g gap %g fp %g fd %g tol %g %g uscale %g "
                "|x| %g\n", n, r.iterations, info.primal_residual, info.dual_residual,
                info.dual_cone_residual, info.gap, info.primal_objective, info.dual_objective,
                tol_rel, tol_abs, uscale, xn);
    FZ_CHECK(info.dual_residual <= 10.0 * (tol_abs + tol_rel * uscale) + round);
    FZ_CHECK(info.gap <= 10.0 * (tol_abs + tol_rel * fmax(fabs(info.primal_objective),
                                                          fabs(info.dual_objective))) +
                             round * xn);
    FZ_CHECK(info.primal_residual <= tol_abs + tol_rel * xn);
    FZ_CHECK(info.dual_cone_residual <= tol_abs + tol_rel * fz_norm_inf((size_t)n, u));
    return 0;
}
