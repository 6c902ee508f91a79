/* Semismooth Newton iteration on Phi(x) = 0 with an Armijo line search on the merit function
 * psi(x) = 1/2 ||Phi(x)||^2 (De Luca–Facchinei–Kanzow's scheme, with a non-monotone reference
 * value of Grippo–Lampariello–Lucidi as an option):
 *   1. stop when the natural residual of the MCP is below tol;
 *   2. H = diag(da) + diag(db) J, an element of the generalized Jacobian of Phi (on rows at a
 *      kink of the plain FB function, the B-subdifferential element of De Luca–Facchinei–Kanzow);
 *      g = H^T Phi = grad psi (psi is C^1 although Phi is not);
 *   3. d solves H d = -Phi; if H is (numerically) singular, (H + mu I) d = -Phi with growing
 *      mu; if d is not a sufficient descent direction (g'd <= -rho |d|^p, or for the unshifted
 *      direction g'd <= -|Phi|^2/2, a scale-invariant form), d = -g;
 *   4. backtrack t = 1, beta, beta^2, ... until psi(x + t d) <= ref + sigma t g^T d, where ref is
 *      the largest of the last m merit values (m = 1: plain Armijo). Trial points where F
 *      cannot be evaluated are treated like points of no decrease. If the Newton direction
 *      fails, the line search is repeated once along -g. */
#include <math.h>

#include "core/report.h"
#include "linalg/dense.h"
#include "solvers/mcp_internal.h"

/* Descent test of De Luca, Facchinei and Kanzow (1996): accept the Newton direction when
   g^T d <= -RHO ||d||^P. */
#define MCP_DESCENT_RHO 1e-8
#define MCP_DESCENT_P 2.1
/* Shifted systems tried after the unshifted one: mu0, 1e2 mu0, 1e4 mu0, 1e6 mu0. */
#define MCP_SHIFT_TRIES 4

static double half_sq(int n, const double *v)
{
    double s = 0.0;
    for (int i = 0; i < n; ++i)
        s += v[i] * v[i];
    return 0.5 * s;
}

static double dot(int n, const double *a, const double *b)
{
    double s = 0.0;
    for (int i = 0; i < n; ++i)
        s += a[i] * b[i];
    return s;
}

/* F at x into F; nonzero when the callback fails or the values are not finite. */
static int eval_F(mcp_work *w, const double *x, double *F)
{
    ++w->nfev;
    if (w->p->F(w->p->ctx, x, F) != 0)
        return 1;
    return !cdyn_dense_all_finite(w->n, F);
}

/* Newton (or shifted Newton) direction into w->d. Returns 1 when d passed the descent test
   (*gd = g^T d), 0 when the caller should use -g, or -1 when the factorization ran out of
   memory. */
static int newton_direction(mcp_work *w, double *gd)
{
    const int n = w->n;
    double mu = 0.0;
    for (int attempt = 0; attempt <= MCP_SHIFT_TRIES; ++attempt) {
        cdyn_status st = w->ls.factor(w->ls.self, &w->J, w->jabsmax, w->da, w->db, mu);
        if (st == CDYN_ENOMEM)
            return -1;
        if (st == CDYN_OK) {
            for (int i = 0; i < n; ++i)
                w->d[i] = -w->Phi[i];
            st = w->ls.solve(w->ls.self, w->d);
        }
        if (st == CDYN_OK) {
            if (!cdyn_dense_all_finite(n, w->d))
                return 0;
            const double dd = dot(n, w->d, w->d);
            *gd = dot(n, w->g, w->d);
            /* As 2 <= P <= 3, ||d||^P lies below ||d||^2 for ||d|| <= 1 and below ||d||^3
               above: passing with that bound passes the test, usually without pow. */
            if (*gd <= -MCP_DESCENT_RHO * (dd <= 1.0 ? dd : dd * sqrt(dd)))
                return 1;
            /* The test above compares quantities of different units (merit per unit of x
               against x^P) and rejects good steps when x is large and Phi small, e.g. a contact
               force of 50 N against residuals of 1e-3 m. A direction that solves H d = -Phi
               accurately has g'd = -|Phi|^2 exactly; accepting the unshifted direction when it
               achieves half of that is scale-invariant and still a sufficient descent
               (g'd <= -psi). Shifted (singular) systems keep the test above. */
            if (mu == 0.0 && *gd <= -0.5 * dot(n, w->Phi, w->Phi))
                return 1;
            return *gd <= -MCP_DESCENT_RHO * pow(sqrt(dd), MCP_DESCENT_P);
        }
        /* Singular: Levenberg–Marquardt-type shift, scaled to the entries of H. */
        mu = (mu == 0.0) ? w->o->lm_mu0 * fmax(1.0, w->ls.max_abs(w->ls.self)) : 100.0 * mu;
    }
    return 0;
}

/* Backtracking along w->d from w->x. On success the accepted point is in xt/Ft/Phit and its
   merit in *psit. *trials counts trial points, *failed_evals those where F could not be
   evaluated. */
static int line_search(mcp_work *w, double gd, double *psit, int *trials, int *failed_evals)
{
    const int n = w->n;
    const cdyn_mcp_options *o = w->o;
    double ref = w->hist[0];
    for (int k = 1; k < o->nonmonotone_memory; ++k)
        ref = fmax(ref, w->hist[k]);
    double t = 1.0;
    for (int k = 0; k <= o->max_backtracks; ++k, t *= o->backtrack) {
        for (int i = 0; i < n; ++i)
            w->xt[i] = w->x[i] + t * w->d[i];
        ++*trials;
        if (eval_F(w, w->xt, w->Ft)) {
            ++*failed_evals;
            continue;
        }
        cdyn_mcp_fb_eval(n, w->l, w->u, w->xt, w->Ft, w->lambda, w->Phit, NULL, NULL);
        const double val = half_sq(n, w->Phit);
        if (val <= ref + o->armijo_sigma * t * gd) {
            *psit = val;
            return 1;
        }
    }
    return 0;
}

static void swap(double **a, double **b)
{
    double *t = *a;
    *a = *b;
    *b = t;
}

static cdyn_status finish(mcp_work *w, cdyn_report *r, int it, double nat)
{
    if (r != NULL) {
        r->iterations = it;
        r->evaluations = w->nfev + w->njev;
        r->residual = nat;
    }
    return CDYN_OK;
}

cdyn_status cdyn_mcp_fb_newton(mcp_work *w, cdyn_report *r)
{
    const int n = w->n;
    const cdyn_mcp_options *o = w->o;
    if (eval_F(w, w->x, w->F)) {
        finish(w, r, 0, NAN);
        return cdyn_fail(r, CDYN_EINVAL, "F failed or returned NaN/Inf at the starting point");
    }
    cdyn_mcp_fb_eval(n, w->l, w->u, w->x, w->F, w->lambda, w->Phi, NULL, NULL);
    double psi = half_sq(n, w->Phi);
    double nat = cdyn_mcp_natural_residual(n, w->l, w->u, w->x, w->F);
    w->hist[0] = psi;
    for (int k = 1; k < o->nonmonotone_memory; ++k)
        w->hist[k] = -INFINITY;

    for (int it = 0;; ++it) {
        finish(w, r, it, nat);
        if (nat <= o->tol)
            return CDYN_OK;
        if (it >= o->max_iter)
            return cdyn_fail(r, CDYN_ENOCONV,
                             "iteration limit (%d) reached; natural residual %.3g > tol %.3g",
                             o->max_iter, nat, o->tol);

        cdyn_status jst = CDYN_OK;
        if (w->jac_fixed)
            ++w->njev; /* the LCP's M: nothing to evaluate, still counted as a Jacobian call */
        else
            jst = cdyn_mcp_jac_eval(w->p, o->jacobian_fd, &w->fd, w->x, w->F, &w->J, &w->nfev,
                                    &w->njev, &w->jabsmax);
        if (jst != CDYN_OK) {
            finish(w, r, it, nat);
            if (it == 0)
                return cdyn_fail(r, CDYN_EINVAL,
                                 "Jacobian evaluation failed or returned NaN/Inf at the "
                                 "starting point");
            return cdyn_fail(r, CDYN_ENUMERIC,
                             "Jacobian evaluation failed or returned NaN/Inf at iteration %d", it);
        }
        const int kinks =
            cdyn_mcp_fb_eval(n, w->l, w->u, w->x, w->F, w->lambda, w->Phi, w->da, w->db);
        if (kinks > 0 && w->lambda == 1.0) {
            /* The B-subdifferential element along z (d is free scratch here). Phi_i = 0 on
               the kink rows, so g below does not depend on this choice. */
            cdyn_mcp_fb_kinks(n, w->l, w->u, w->x, w->F, w->tmp);
            cdyn_mcp_jac_mult(&w->J, w->tmp, w->d);
            cdyn_mcp_fb_kink_factors(n, w->l, w->u, w->x, w->F, w->d, w->da, w->db);
        }
        for (int i = 0; i < n; ++i)
            w->tmp[i] = w->db[i] * w->Phi[i];
        cdyn_mcp_jac_mult_t(&w->J, w->tmp, w->g);
        for (int i = 0; i < n; ++i)
            w->g[i] += w->da[i] * w->Phi[i];

        double gd = 0.0;
        const int newton = newton_direction(w, &gd);
        if (newton < 0) {
            finish(w, r, it, nat);
            return cdyn_fail(r, CDYN_ENOMEM, "out of memory in the sparse factorization");
        }
        const double gg = dot(n, w->g, w->g);
        if (!newton) {
            for (int i = 0; i < n; ++i)
                w->d[i] = -w->g[i];
            gd = -gg;
        }
        double psit = 0.0;
        int trials = 0, failed_evals = 0;
        int ok = gg > 0.0 && line_search(w, gd, &psit, &trials, &failed_evals);
        if (!ok && newton && gg > 0.0) {
            for (int i = 0; i < n; ++i)
                w->d[i] = -w->g[i];
            ok = line_search(w, -gg, &psit, &trials, &failed_evals);
        }
        if (!ok) {
            finish(w, r, it, nat);
            if (gg == 0.0)
                return cdyn_fail(r, CDYN_ENOCONV,
                                 "stagnation: stationary point of the merit function that is "
                                 "not a solution (natural residual %.3g)",
                                 nat);
            if (failed_evals == trials)
                return cdyn_fail(r, CDYN_ENUMERIC,
                                 "F failed or returned NaN/Inf at all %d line-search trial "
                                 "points of iteration %d",
                                 trials, it);
            return cdyn_fail(r, CDYN_ENOCONV,
                             "stagnation: the line search found no sufficient decrease at "
                             "iteration %d (merit %.3g, gradient norm %.3g, natural residual "
                             "%.3g; F failed at %d of %d trial points)",
                             it, psi, sqrt(gg), nat, failed_evals, trials);
        }
        swap(&w->x, &w->xt);
        swap(&w->F, &w->Ft);
        swap(&w->Phi, &w->Phit);
        psi = psit;
        w->hist[(it + 1) % o->nonmonotone_memory] = psi;
        nat = cdyn_mcp_natural_residual(n, w->l, w->u, w->x, w->F);
        if (o->progress != NULL && o->progress(o->progress_ctx, it + 1, nat) != 0 && nat > o->tol) {
            finish(w, r, it + 1, nat);
            return cdyn_fail(r, CDYN_ENOCONV,
                             "stopped by the progress callback after %d iterations (natural "
                             "residual %.3g)",
                             it + 1, nat);
        }
    }
}
