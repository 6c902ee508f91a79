/* libFuzzer target: cdyn_ucp_solve (Pang-Trinkle-Lo quasistatic UCP) on small problems with
 * arbitrary numbers, every escape rule and arbitrary seeds.
 * Invariants: a valid status echoed by the report; on CDYN_OK every output finite and x^T y
 * within the documented rule comp_tol * max(1, ||x|| ||y||) recomputed from the returned x and
 * y; on failure the outputs untouched; the same input solved twice gives the same status and
 * bit-identical outputs (same seed, same run); every allocation released. */
#include "fuzz_common.h"

#include "cdyn/ucp.h"

#define MAX_NC 3
#define MAX_NQ 3
#define MAX_NT 3
#define NOUT (6 * MAX_NC + 4 * MAX_NC + MAX_NQ + 2 * MAX_NT)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static cdyn_ucp_solution carve(double *o, int nc, int nq, int nt)
{
    cdyn_ucp_solution s;
    s.x = o, o += 3 * nc;
    s.y = o, o += 3 * nc;
    s.c_n = o, o += nc;
    s.c_t = o, o += nc;
    s.v_n = o, o += nc;
    s.v_t = o, o += nc;
    s.qdot = o, o += nq;
    s.theta_dot = o, o += nt;
    s.tau = o;
    return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_reader f = {data, size};
    const unsigned flags = fz_byte(&f);
    const int nc = 1 + (int)(fz_byte(&f) % MAX_NC);
    const int nq = 1 + (int)(fz_byte(&f) % MAX_NQ);
    const int nt = (int)(fz_byte(&f) % (MAX_NT + 1));
    double Wn[MAX_NQ * MAX_NC], Wt[MAX_NQ * MAX_NC], Jn[MAX_NC * MAX_NT], Jt[MAX_NC * MAX_NT];
    double mu[MAX_NC], theta_dot[MAX_NT], tau[MAX_NT], g_obj[MAX_NQ], g_man[MAX_NT];
    int alpha[MAX_NT];
    fz_doubles(&f, Wn, (size_t)(nq * nc));
    fz_doubles(&f, Wt, (size_t)(nq * nc));
    fz_doubles(&f, Jn, (size_t)(nc * nt));
    fz_doubles(&f, Jt, (size_t)(nc * nt));
    fz_doubles(&f, mu, (size_t)nc);
    for (int k = 0; k < nt; ++k)
        alpha[k] = (int)(fz_byte(&f) & 1);
    fz_doubles(&f, theta_dot, (size_t)nt);
    fz_doubles(&f, tau, (size_t)nt);
    fz_doubles(&f, g_obj, (size_t)nq);
    fz_doubles(&f, g_man, (size_t)nt);

    cdyn_ucp_problem p = {0};
    p.nc = nc;
    p.nq = nq;
    p.ntheta = nt;
    p.Wn = Wn;
    p.Wt = Wt;
    p.Jn = nt > 0 ? Jn : NULL;
    p.Jt = nt > 0 ? Jt : NULL;
    p.mu = mu;
    p.alpha = (flags & 1) ? NULL : alpha;
    p.theta_dot = theta_dot;
    p.tau = tau;
    p.g_obj = g_obj;
    p.g_man = (flags & 2) ? NULL : g_man;

    if (getenv("FZ_VERBOSE") != NULL) { /* to read a finding: the decoded problem */
        fprintf(stderr, "nc %d nq %d nt %d flags %u\n", nc, nq, nt, flags);
        for (int k = 0; k < nq * nc; ++k)
            fprintf(stderr, "Wn[%d] %.17g Wt[%d] %.17g\n", k, Wn[k], k, Wt[k]);
        for (int k = 0; k < nc * nt; ++k)
            fprintf(stderr, "Jn[%d] %.17g Jt[%d] %.17g\n", k, Jn[k], k, Jt[k]);
        for (int k = 0; k < nc; ++k)
            fprintf(stderr, "mu[%d] %.17g\n", k, mu[k]);
        for (int k = 0; k < nt; ++k)
            fprintf(stderr, "alpha %d theta_dot %.17g tau %.17g g_man %.17g\n", alpha[k],
                    theta_dot[k], tau[k], g_man[k]);
        for (int k = 0; k < nq; ++k)
            fprintf(stderr, "g_obj[%d] %.17g\n", k, g_obj[k]);
    }
    cdyn_ucp_options o;
    cdyn_ucp_defaults(&o);
    o.escape = (cdyn_ucp_escape)(fz_byte(&f) % 4);
    o.seed = fz_byte(&f);
    o.max_pairs = 1 + (int)(fz_byte(&f) % 64); /* keeps a run short */
    o.max_restarts = (int)(fz_byte(&f) % 8);
    if (flags & 4)
        o.comp_tol = fz_double(&f);
    if (getenv("FZ_VERBOSE") != NULL)
        fprintf(stderr, "escape %d seed %d max_pairs %d max_restarts %d comp_tol %g\n",
                (int)o.escape, (int)o.seed, o.max_pairs, o.max_restarts, o.comp_tol);
    test_failing_alloc fa;
    fz_alloc_init(&f, &fa);
    o.allocator = &fa.allocator;

    double out[2][NOUT], out0[NOUT];
    for (int k = 0; k < NOUT; ++k)
        out[0][k] = out[1][k] = out0[k] = -7.0 - k;
    cdyn_status s[2];
    for (int run = 0; run < 2; ++run) {
        cdyn_ucp_solution sol = carve(out[run], nc, nq, nt);
        cdyn_ucp_stats stats;
        cdyn_report r;
        const int fail_after = fa.fail_after;
        test_failing_alloc_init(&fa, fail_after);
        s[run] = cdyn_ucp_solve(&p, &o, &sol, &stats, &r);
        fz_check_report(&r, s[run]);
        FZ_CHECK(fa.live == 0);
        if (s[run] != CDYN_OK) {
            FZ_CHECK(memcmp(out[run], out0, sizeof out0) == 0);
            continue;
        }
        const int used = 10 * nc + nq + 2 * nt;
        if (getenv("FZ_VERBOSE") != NULL) /* to read a finding */
            for (int k = 0; k < used; ++k)
                fprintf(stderr, "out[%d] = %g\n", k, out[run][k]);
        FZ_CHECK(fz_all_finite((size_t)used, out[run]));
        double xty = 0.0;
        for (int k = 0; k < 3 * nc; ++k)
            xty += sol.x[k] * sol.y[k];
        const double xn = fz_norm_inf((size_t)(3 * nc), sol.x);
        const double yn = fz_norm_inf((size_t)(3 * nc), sol.y);
        const double round = 8.0 * 3 * nc * DBL_EPSILON * xn * yn;
        FZ_CHECK(fabs(xty) <= o.comp_tol * fmax(1.0, xn * yn) + round);
    }
    FZ_CHECK(s[0] == s[1]);
    FZ_CHECK(memcmp(out[0], out[1], sizeof out0) == 0);
    return 0;
}
