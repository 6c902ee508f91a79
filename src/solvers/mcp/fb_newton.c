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
 *      fails, the line search is repeated once along -g.
 * When this stalls (no acceptable step, or a stationary point of psi that is not a solution) and
 * options.globalize is set, the proximal-perturbation restarts at the end of this file take
 * over (Billups 1995; Billups–Ferris 1997; docs/theory.md). */
#include <math.h>
#include <string.h>

#include "core/report.h"
#include "linalg/dense.h"
#include "solvers/mcp/mcp_internal.h"

/* Descent test of De Luca, Facchinei and Kanzow (1996): accept the Newton direction when
   g^T d <= -RHO ||d||^P. */
#define MCP_DESCENT_RHO 1e-8
#define MCP_DESCENT_P 2.1
/* Shifted systems tried after the unshifted one: mu0, 1e2 mu0, 1e4 mu0, 1e6 mu0. */
#define MCP_SHIFT_TRIES 4
/* Accepted steps in a row without a decrease of the merit function (in floating point) after
   which the iteration counts as stalled. */
#define MCP_FLAT_STEPS 3

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

/* F at x into F, plus the proximal term eps (x - xbar) during the restarts; nonzero when the
   callback fails or the values are not finite. */
static int eval_F(mcp_work *w, const double *x, double *F)
{
    ++w->nfev;
    if (w->p->F(w->p->ctx, x, F) != 0)
        return 1;
    if (w->eps > 0.0)
        for (int i = 0; i < w->n; ++i)
            F[i] += w->eps * (x[i] - w->xbar[i]);
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
        cdyn_status st = cdyn_mcp_linsys_factor(&w->ls, &w->J, w->jabsmax, w->da, w->db, mu);
        if (st == CDYN_ENOMEM)
            return -1;
        if (st == CDYN_OK) {
            for (int i = 0; i < n; ++i)
                w->d[i] = -w->Phi[i];
            st = cdyn_mcp_linsys_solve(&w->ls, w->d);
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
        mu = (mu == 0.0) ? w->o->lm_mu0 * fmax(1.0, cdyn_mcp_linsys_max_abs(&w->ls)) : 100.0 * mu;
    }
    return 0;
}

/* Backtracking along w->d from w->x with at most max_bt reductions, against the reference
   merit value ref. On success the accepted
   point is in xt/Ft/Phit and its merit in *psit. *trials counts trial points, *failed_evals
   those where F could not be evaluated. */
static int line_search(mcp_work *w, double gd, double ref, int max_bt, double *psit, int *trials,
                       int *failed_evals)
{
    const int n = w->n;
    const cdyn_mcp_options *o = w->o;
    double t = 1.0;
    for (int k = 0; k <= max_bt; ++k, t *= o->backtrack) {
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

static cdyn_status finish(mcp_work *w, cdyn_report *r, int it, double nat)
{
    if (r != NULL) {
        r->iterations = it;
        r->evaluations = w->nfev + w->njev;
        r->residual = nat;
    }
    return CDYN_OK;
}

/* The natural residual of the MCP itself at w->x (returned) and its excess over the rows'
   rounding floors (*exc, the stopping test's); during the restarts w->F includes the proximal
   term, and F itself is evaluated into tmp. */
static double natural_residual(mcp_work *w, double *exc)
{
    const double *F = w->F;
    if (w->eps != 0.0) {
        if (cdyn_mcp_raw_F(w, w->x, w->tmp))
            return *exc = INFINITY;
        F = w->tmp;
    }
    const double nat = cdyn_mcp_natural_residual(w->n, w->l, w->u, w->x, F);
    *exc = cdyn_mcp_excess_from(w, w->x, F, nat);
    return nat;
}

/* How a Newton run ended. */
enum {
    RUN_SOLVED,    /* natural residual of the MCP <= tol */
    RUN_SUBSOLVED, /* restarts: the perturbed problem's natural residual <= subtol */
    RUN_STALLED,   /* stagnation (CDYN_ENOCONV) */
    RUN_LIMIT,     /* the run's iteration limit (CDYN_ENOCONV) */
    RUN_REJECTED,  /* trial run: a unit Newton step was not accepted */
    RUN_FEVAL,     /* F failed at every trial point of a line search (CDYN_ENUMERIC) */
    RUN_ERROR      /* anything else that ends the call */
};

typedef struct run_ctl {
    double subtol; /* w->eps > 0: stop when the perturbed problem's residual is <= subtol */
    int max_iter;  /* iterations of this run */
    int unit_only; /* trial run: unit Newton steps only; the first one rejected ends the run */
    int end;       /* out: RUN_* */
    double nat;    /* out: natural residual of the MCP at w->x */
} run_ctl;

/* Newton iterations from w->x, with w->F (including the proximal term when w->eps > 0)
   already evaluated there. w->iters counts the iterations of the whole call. */
static cdyn_status run(mcp_work *w, run_ctl *c, cdyn_report *r)
{
    const int n = w->n;
    const cdyn_mcp_options *o = w->o;
    const double eps = w->eps;
    cdyn_mcp_fb_eval(n, w->l, w->u, w->x, w->F, w->lambda, w->Phi, NULL, NULL);
    double psi = half_sq(n, w->Phi);
    double exc;
    double nat = natural_residual(w, &exc);
    double subres = eps > 0.0 ? cdyn_mcp_natural_residual(n, w->l, w->u, w->x, w->F) : nat;
    w->hist[0] = psi;
    for (int k = 1; k < o->nonmonotone_memory; ++k)
        w->hist[k] = -INFINITY;

    int flat = 0; /* accepted steps in a row that left psi >= ref */
    for (int it = 0;; ++it) {
        finish(w, r, w->iters, nat);
        c->nat = nat;
        c->end = RUN_ERROR;
        if (exc <= o->tol) {
            c->end = RUN_SOLVED;
            w->F_raw = eps == 0.0; /* w->F is then the callback's value at w->x */
            return CDYN_OK;
        }
        if (eps > 0.0 && subres <= c->subtol) {
            c->end = RUN_SUBSOLVED;
            return CDYN_OK;
        }
        if (it >= c->max_iter) {
            c->end = RUN_LIMIT;
            return cdyn_fail(r, CDYN_ENOCONV,
                             "iteration limit (%d) reached; natural residual %.3g > tol %.3g",
                             c->max_iter, nat, o->tol);
        }

        cdyn_status jst = CDYN_OK;
        const double *F0 = w->F;
        if (eps > 0.0 && o->jacobian_fd) {
            /* Differences of the user's F need F itself at x, without the proximal term. */
            if (cdyn_mcp_raw_F(w, w->x, w->tmp)) {
                finish(w, r, w->iters, nat);
                return cdyn_fail(r, CDYN_ENUMERIC, "F failed or returned NaN/Inf at iteration %d",
                                 w->iters);
            }
            F0 = w->tmp;
        }
        if (w->jac_fixed)
            ++w->njev; /* the LCP's M: nothing to evaluate, still counted as a Jacobian call */
        else
            jst = cdyn_mcp_jac_eval(w->p, o->jacobian_fd, &w->fd, w->x, F0, &w->J, &w->nfev,
                                    &w->njev, &w->jabsmax);
        if (jst == CDYN_OK)
            cdyn_mcp_floor_update(w);
        if (jst != CDYN_OK) {
            finish(w, r, w->iters, nat);
            if (w->iters == 0)
                return cdyn_fail(r, CDYN_EINVAL,
                                 "Jacobian evaluation failed or returned NaN/Inf at the "
                                 "starting point");
            return cdyn_fail(r, CDYN_ENUMERIC,
                             "Jacobian evaluation failed or returned NaN/Inf at iteration %d",
                             w->iters);
        }
        const int kinks =
            cdyn_mcp_fb_eval(n, w->l, w->u, w->x, w->F, w->lambda, w->Phi, w->da, w->db);
        if (kinks > 0 && w->lambda == 1.0) {
            /* The B-subdifferential element along z (d is free scratch here). Phi_i = 0 on
               the kink rows, so g below does not depend on this choice. */
            cdyn_mcp_fb_kinks(n, w->l, w->u, w->x, w->F, w->tmp);
            cdyn_mcp_jac_mult(&w->J, w->tmp, w->d);
            if (eps > 0.0)
                for (int i = 0; i < n; ++i)
                    w->d[i] += eps * w->tmp[i]; /* (J + eps I) z */
            cdyn_mcp_fb_kink_factors(n, w->l, w->u, w->x, w->F, w->d, w->da, w->db);
        }
        /* The perturbed map's H = diag(da) + diag(db) (J + eps I) in the form the linear
           solvers take: diag(da + eps db) + diag(db) J. */
        if (eps > 0.0)
            for (int i = 0; i < n; ++i)
                w->da[i] += eps * w->db[i];
        for (int i = 0; i < n; ++i)
            w->tmp[i] = w->db[i] * w->Phi[i];
        cdyn_mcp_jac_mult_t(&w->J, w->tmp, w->g);
        for (int i = 0; i < n; ++i)
            w->g[i] += w->da[i] * w->Phi[i];

        double gd = 0.0;
        const int newton = newton_direction(w, &gd);
        if (newton < 0) {
            finish(w, r, w->iters, nat);
            return cdyn_fail(r, CDYN_ENOMEM, "out of memory in the sparse factorization");
        }
        if (c->unit_only && !newton) {
            c->end = RUN_REJECTED;
            return CDYN_ENOCONV;
        }
        const double gg = dot(n, w->g, w->g);
        if (!newton) {
            for (int i = 0; i < n; ++i)
                w->d[i] = -w->g[i];
            gd = -gg;
        }
        double psit = 0.0;
        int trials = 0, failed_evals = 0;
        const int max_bt = c->unit_only ? 0 : o->max_backtracks;
        double ref = w->hist[0];
        for (int k = 1; k < o->nonmonotone_memory; ++k)
            ref = fmax(ref, w->hist[k]);
        int ok = gg > 0.0 && line_search(w, gd, ref, max_bt, &psit, &trials, &failed_evals);
        if (!ok && c->unit_only) {
            c->end = RUN_REJECTED;
            return CDYN_ENOCONV;
        }
        if (!ok && newton && gg > 0.0) {
            for (int i = 0; i < n; ++i)
                w->d[i] = -w->g[i];
            ok = line_search(w, -gg, ref, max_bt, &psit, &trials, &failed_evals);
        }
        if (!ok) {
            finish(w, r, w->iters, nat);
            c->end = RUN_STALLED;
            if (gg == 0.0)
                return cdyn_fail(r, CDYN_ENOCONV,
                                 "stagnation: stationary point of the merit function that is "
                                 "not a solution (natural residual %.3g)",
                                 nat);
            if (failed_evals == trials) {
                c->end = RUN_FEVAL;
                return cdyn_fail(r, CDYN_ENUMERIC,
                                 "F failed or returned NaN/Inf at all %d line-search trial "
                                 "points of iteration %d",
                                 trials, it);
            }
            return cdyn_fail(r, CDYN_ENOCONV,
                             "stagnation: the line search found no sufficient decrease at "
                             "iteration %d (merit %.3g, gradient norm %.3g, natural residual "
                             "%.3g; F failed at %d of %d trial points)",
                             it, psi, sqrt(gg), nat, failed_evals, trials);
        }
        cdyn_mcp_swap(&w->x, &w->xt);
        cdyn_mcp_swap(&w->F, &w->Ft);
        cdyn_mcp_swap(&w->Phi, &w->Phit);
        psi = psit;
        w->hist[(it + 1) % o->nonmonotone_memory] = psi;
        ++w->iters;
        nat = natural_residual(w, &exc);
        subres = eps > 0.0 ? cdyn_mcp_natural_residual(n, w->l, w->u, w->x, w->F) : nat;
        if (o->progress != NULL && o->progress(o->progress_ctx, w->iters, nat) != 0 &&
            exc > o->tol) {
            finish(w, r, w->iters, nat);
            c->nat = nat;
            return cdyn_fail(r, CDYN_ENOCONV,
                             "stopped by the progress callback after %d iterations (natural "
                             "residual %.3g)",
                             w->iters, nat);
        }
        /* Armijo accepts a step that does not decrease psi below ref only when sigma t g'd is
           lost in rounding: the iterate sits at a stationary point in floating point, and
           would stay there until the iteration limit. */
        flat = psit >= ref ? flat + 1 : 0;
        if (flat >= MCP_FLAT_STEPS && exc > o->tol && !(eps > 0.0 && subres <= c->subtol)) {
            finish(w, r, w->iters, nat);
            c->nat = nat;
            c->end = RUN_STALLED;
            return cdyn_fail(r, CDYN_ENOCONV,
                             "stagnation: %d steps in a row left the merit function unchanged "
                             "(a stationary point in floating point; natural residual %.3g)",
                             flat, nat);
        }
    }
}

/* ---- Natural-map polish ------------------------------------------------------------------
 * Where the FB iteration stalls next to a solution, the merit function can refuse the very step
 * that solves the problem: on the implicit contact step (docs/theory.md) a sliding row near the
 * cone's edge takes one Newton step that raises the residual a thousandfold and the next that
 * reaches rounding. Semismooth Newton on the natural map Phi(x) = x - mid(l, u, x - F(x)) is
 * locally quadratic without any line search: each iteration fixes the variables whose
 * projection lands on a bound (d_i = bound - x_i) and solves J d = -F on the others, i.e. an
 * active-set Newton step with the active set read off afresh. A few unguarded iterations from
 * the stall point are tried before the restarts (both options.globalize); nothing is accepted
 * unless the natural residual reaches tol (the certificate then checks it again), and a failed
 * polish leaves x and F as they were. */
#define POLISH_ITER 8

/* 1 when solved (x, F hold the solution), 0 otherwise (x, F unchanged; J, da, db, d, g of the
   polish's iterates), -1 out of memory. */
static int polish_steps(mcp_work *w, cdyn_report *r)
{
    const int n = w->n;
    const cdyn_mcp_options *o = w->o;
    double *x = w->xt, *F = w->Ft; /* the polish's iterate; w->x, w->F keep the stall point */
    const int stall_it = w->iters;
    memcpy(x, w->x, sizeof(double) * (size_t)n);
    memcpy(F, w->F, sizeof(double) * (size_t)n);
    for (int it = 0; it < POLISH_ITER; ++it) {
        if (!w->jac_fixed &&
            cdyn_mcp_jac_eval(w->p, o->jacobian_fd, &w->fd, x, F, &w->J, &w->nfev, &w->njev,
                              &w->jabsmax) != CDYN_OK)
            return 0;
        cdyn_mcp_floor_update(w);
        /* Rows of J scaled to a largest entry of 1: the rows' units differ (a stiffness of
           1e7 next to entries of 1), and the factorization's singularity test reads the
           condition number, which the scaling makes about the problem, not its units. */
        double *rowmax = w->g;
        cdyn_mcp_row_scales(w, rowmax);
        for (int i = 0; i < n; ++i) {
            const double z = x[i] - F[i];
            const int lower = w->l[i] == w->u[i] || z <= w->l[i], upper = z >= w->u[i];
            const double sc = rowmax[i] > 0.0 ? 1.0 / rowmax[i] : 1.0;
            w->da[i] = lower || upper ? 1.0 : 0.0;
            w->db[i] = lower || upper ? 0.0 : sc;
            w->d[i] = lower ? w->l[i] - x[i] : upper ? w->u[i] - x[i] : -F[i] * sc;
        }
        const cdyn_status st = cdyn_mcp_linsys_factor(&w->ls, &w->J, w->jabsmax, w->da, w->db, 0.0);
        if (st == CDYN_ENOMEM)
            return -1;
        if (st != CDYN_OK || cdyn_mcp_linsys_solve(&w->ls, w->d) != CDYN_OK ||
            !cdyn_dense_all_finite(n, w->d))
            return 0;
        double *xn = w->Phit, *Fn = w->tmp;
        for (int i = 0; i < n; ++i) {
            const double v = x[i] + w->d[i];
            xn[i] = v < w->l[i] ? w->l[i] : v > w->u[i] ? w->u[i] : v;
        }
        if (cdyn_mcp_raw_F(w, xn, Fn))
            return 0;
        ++w->iters;
        cdyn_mcp_swap(&w->xt, &w->Phit);
        cdyn_mcp_swap(&w->Ft, &w->tmp);
        x = w->xt;
        F = w->Ft;
        const double nat = cdyn_mcp_natural_residual(n, w->l, w->u, x, F);
        if (cdyn_mcp_excess_from(w, x, F, nat) <= o->tol) {
            cdyn_mcp_swap(&w->x, &w->xt);
            cdyn_mcp_swap(&w->F, &w->Ft);
            w->F_raw = 1;
            finish(w, r, w->iters, nat);
            cdyn_report_method(r, w->lambda == 1.0 ? "fb-newton+polish"
                                                   : "fb-newton-penalized+polish");
            cdyn_fail(r, CDYN_OK, "Newton stalled after %d iterations; solved by %d natural-map "
                      "Newton iterations (natural residual %.3g)", stall_it, it + 1, nat);
            return 1;
        }
    }
    return 0;
}

/* The polish; after a failed one J is evaluated again at the stall point, where the restarts
   read it (first_weight). 1, 0 or -1 as polish_steps, and 0 also when J fails there. */
static int polish(mcp_work *w, cdyn_report *r)
{
    const int stall_it = w->iters;
    int st = polish_steps(w, r);
    if (st != 0)
        return st;
    w->iters = stall_it; /* the steps of a polish that failed are not the iteration's (their
                            evaluations are counted) */
    st = cdyn_mcp_josephy(w, r);
    if (st != 0)
        return st;
    if (w->jac_fixed)
        return 0;
    if (cdyn_mcp_jac_eval(w->p, w->o->jacobian_fd, &w->fd, w->x, w->F, &w->J, &w->nfev,
                          &w->njev, &w->jabsmax) != CDYN_OK)
        w->jabsmax = INFINITY;
    else
        cdyn_mcp_floor_update(w);
    return 0;
}

/* ---- Proximal-perturbation restarts ---------------------------------------------------------
 * After Billups (1995, ch. 3) and Billups–Ferris (QPCOMP, 1997): at the point xbar where the
 * iteration stalled, solve the perturbed MCP(F + eps (x - xbar), l, u) by the same iteration
 * from xbar. Its solution becomes the next center; from each new center a trial of unit Newton
 * steps on the MCP itself ends the restarts when it reaches tol. A perturbed problem that is
 * solved shrinks eps, one that is not grows it (and restarts from the same center): for large
 * eps the perturbed map is strongly monotone near xbar and its solution a short projected step
 * xbar - F(xbar)/eps, which moves against F even where the merit function is stationary. The
 * constants are ours (docs/theory.md gives the reasons and the measurements). */

/* A perturbed problem is solved to max(tol, GLOB_THETA * the center's natural residual). */
#define GLOB_THETA 0.1
/* Iterations per perturbed problem, and unit steps per trial. */
#define GLOB_SUB_ITER 20
#define GLOB_TRIAL_ITER 10
/* eps after a solved / a failed perturbed problem. */
#define GLOB_SHRINK 0.25
#define GLOB_GROW 10.0
/* Give up when eps exceeds this multiple of its first value (the steps are then negligible). */
#define GLOB_MAX_GROWTH 1e12
/* And after this many perturbed problems whatever happens: runs that end without an accepted
   step (a perturbed problem solved at its start, a trial whose first unit step is rejected)
   consume none of the iteration budget, so the budget alone need not end the restarts (found
   by fuzzing: a smoke run of fuzz_lcp_fb spun here for minutes). */
#define GLOB_MAX_RESTARTS 200

/* First weight at the stall point: twice a Gershgorin bound on how negative the symmetric part
   of J = F'(xbar) can be, so that J + eps I is positive definite there (the perturbed map is
   locally strongly monotone, and for such maps stationary points of the FB merit function are
   solutions), and at least 0.1 max |J_ij| (a stall where J already passes, e.g. a failed line
   search, still needs a step of its own scale). d and tmp are scratch. */
static double first_weight(mcp_work *w)
{
    const int n = w->n;
    const mcp_jac *J = &w->J;
    double *diag = w->d, *rad = w->tmp;
    for (int i = 0; i < n; ++i)
        diag[i] = rad[i] = 0.0;
    double jmax = 0.0;
    for (int j = 0; j < n; ++j) {
        const int k0 = J->sparse ? J->colptr[j] : 0;
        const int k1 = J->sparse ? J->colptr[j + 1] : n;
        for (int k = k0; k < k1; ++k) {
            const int i = J->sparse ? J->rowind[k] : k;
            const double v = J->sparse ? J->values[k] : J->values[(size_t)j * n + k];
            jmax = fmax(jmax, fabs(v));
            if (i == j) {
                diag[j] += v;
            } else {
                /* |(J_ij + J_ji)/2| <= (|J_ij| + |J_ji|)/2, shared by rows i and j */
                rad[i] += 0.5 * fabs(v);
                rad[j] += 0.5 * fabs(v);
            }
        }
    }
    double deficit = 0.0;
    for (int i = 0; i < n; ++i)
        deficit = fmax(deficit, rad[i] - diag[i]);
    const double eps = fmax(2.0 * deficit, 0.1 * jmax);
    return (eps > 0.0 && isfinite(eps)) ? eps : 1.0;
}

/* The restarts after the plain run ended with `why` (RUN_STALLED or RUN_LIMIT) at a point of
   natural residual nat_stall. */
static cdyn_status globalize(mcp_work *w, cdyn_report *r, int why, double nat_stall)
{
    const size_t bytes = (size_t)w->n * sizeof(double);
    const cdyn_mcp_options *o = w->o;
    char first[CDYN_REPORT_TEXT] = "";
    if (r != NULL)
        memcpy(first, r->message, sizeof first);
    const int stall_it = w->iters;
    memcpy(w->xbar, w->x, bytes);
    memcpy(w->Fbar, w->F, bytes);
    double natc = nat_stall;
    /* With max_iter = 0 no Jacobian was ever evaluated, and the loop below ends at once. */
    double eps = o->max_iter > 0 ? first_weight(w) : 0.0;
    const double eps_max = GLOB_MAX_GROWTH * eps;
    int restarts = 0;
    run_ctl c = {0.0, 0, 0, RUN_ERROR, nat_stall};
    cdyn_status st = CDYN_ENOCONV;
    for (;;) {
        const int left = o->max_iter - (w->iters - stall_it);
        if (left <= 0 || !(eps <= eps_max) || restarts >= GLOB_MAX_RESTARTS)
            break;
        ++restarts;
        /* The perturbed problem from the center, where F + eps (x - xbar) = F(xbar). */
        w->eps = eps;
        memcpy(w->x, w->xbar, bytes);
        memcpy(w->F, w->Fbar, bytes);
        c = (run_ctl){fmax(o->tol, GLOB_THETA * natc), left < GLOB_SUB_ITER ? left : GLOB_SUB_ITER,
                      0, RUN_ERROR, natc};
        st = run(w, &c, r);
        if (c.end == RUN_SOLVED)
            break;
        if (c.end == RUN_ERROR) {
            w->eps = 0.0;
            return st;
        }
        if (c.end != RUN_SUBSOLVED) {
            eps *= GLOB_GROW;
            continue;
        }
        /* Its solution is the next center (with F itself there), and the start of a trial. */
        if (cdyn_mcp_raw_F(w, w->x, w->Fbar)) {
            w->eps = 0.0;
            finish(w, r, w->iters, natc);
            return cdyn_fail(r, CDYN_ENUMERIC,
                             "F failed or returned NaN/Inf at a restart's center");
        }
        memcpy(w->xbar, w->x, bytes);
        memcpy(w->F, w->Fbar, bytes);
        natc = c.nat;
        w->eps = 0.0;
        /* The weight that makes the map monotone near the new center by the same bound, from
           J of the perturbed problem's last iteration (the trial may move J elsewhere). */
        const double floor_eps = first_weight(w);
        const int left2 = o->max_iter - (w->iters - stall_it);
        c = (run_ctl){0.0, left2 < GLOB_TRIAL_ITER ? left2 : GLOB_TRIAL_ITER, 1, RUN_ERROR, natc};
        st = run(w, &c, r);
        if (c.end == RUN_SOLVED)
            break;
        if (c.end == RUN_ERROR)
            return st;
        eps = fmax(GLOB_SHRINK * eps, floor_eps);
    }
    w->eps = 0.0;
    if (c.end != RUN_SOLVED) {
        finish(w, r, w->iters, natc);
        return cdyn_fail(r, CDYN_ENOCONV,
                         "%s; %d proximal-perturbation restarts failed too (natural residual "
                         "%.3g)",
                         first, restarts, natc);
    }
    finish(w, r, w->iters, c.nat);
    cdyn_report_method(r, w->lambda == 1.0 ? "fb-newton+proximal" : "fb-newton-penalized+proximal");
    return cdyn_fail(r, CDYN_OK,
                     "Newton %s after %d iterations (natural residual %.3g); solved by %d "
                     "proximal-perturbation restarts in %d more",
                     why == RUN_LIMIT ? "reached its iteration limit" : "stalled", stall_it,
                     nat_stall, restarts, w->iters - stall_it);
}

/* The iteration without the certificate: a run, and the restarts when it stalls. */
static cdyn_status newton(mcp_work *w, cdyn_report *r)
{
    const cdyn_mcp_options *o = w->o;
    w->eps = 0.0;
    w->iters = 0;
    w->floor_ok = 0;
    if (eval_F(w, w->x, w->F)) {
        finish(w, r, 0, NAN);
        return cdyn_fail(r, CDYN_EINVAL, "F failed or returned NaN/Inf at the starting point");
    }
    run_ctl c = {0.0, o->max_iter, 0, RUN_ERROR, NAN};
    const cdyn_status st = run(w, &c, r);
    /* A stall, or the iteration limit: on the problems we know, Newton that has not converged
       by then creeps along with tiny steps (docs/theory.md). */
    if ((c.end != RUN_STALLED && c.end != RUN_LIMIT) || !o->globalize)
        return st;
    const int pol = polish(w, r);
    if (pol != 0)
        return pol > 0 ? CDYN_OK
                       : cdyn_fail(r, CDYN_ENOMEM, "out of memory in the sparse factorization");
    return globalize(w, r, c.end, c.nat);
}

/* Newton runs from the projected point when the certificate fails, at most this many. */
#define CERT_ROUNDS 3

/* The certificate behind CDYN_OK (issue 18; DESIGN.md "OK means certified"): the answer
 * projected onto [l, u], F evaluated afresh there (the user's F, no proximal term), and the
 * natural residual at that point <= tol. The iteration stops on the natural residual at its
 * iterate, which may lie outside the box (F(x) = a x + 1 on x >= 0 from below ends at
 * x = -5e-11 with residual 5e-11), and F may be singular at the projection (Mathiesen's F at
 * p1 = 0). A failing projected point where F can be evaluated starts another Newton run; after
 * CERT_ROUNDS, or without iterations left, CDYN_EINACCURATE with the projected point in w->x and
 * its residual in the report. F failing (or non-finite) at the projected point: CDYN_ENUMERIC. */
cdyn_status cdyn_mcp_fb_newton(mcp_work *w, cdyn_report *r)
{
    const int n = w->n;
    const cdyn_mcp_options *o = w->o;
    w->F_raw = 0;
    cdyn_status st = newton(w, r);
    for (int round = 1; st == CDYN_OK; ++round) {
        int moved = 0;
        for (int i = 0; i < n; ++i) {
            const double lo = w->x[i] > w->l[i] ? w->x[i] : w->l[i];
            w->xt[i] = lo < w->u[i] ? lo : w->u[i];
            moved |= w->xt[i] != w->x[i];
        }
        /* F at exactly this point, from the callback, is already at hand when the iterate lies
           in the box and the last run had no proximal term: evaluating again gives the same. */
        if (!moved && w->F_raw)
            memcpy(w->Ft, w->F, sizeof(double) * (size_t)n);
        else if (cdyn_mcp_raw_F(w, w->xt, w->Ft)) {
            finish(w, r, w->iters, NAN);
            return cdyn_fail(r, CDYN_ENUMERIC,
                             "F failed or returned NaN/Inf at the answer projected onto its "
                             "bounds (natural residual %.3g before the projection)",
                             r != NULL ? r->residual : NAN);
        }
        const double nat = cdyn_mcp_natural_residual(n, w->l, w->u, w->xt, w->Ft);
        const double exc = cdyn_mcp_excess_from(w, w->xt, w->Ft, nat);
        cdyn_mcp_swap(&w->x, &w->xt);
        cdyn_mcp_swap(&w->F, &w->Ft);
        finish(w, r, w->iters, nat);
        if (exc <= o->tol)
            return CDYN_OK;
        const int left = o->max_iter - w->iters;
        if (round >= CERT_ROUNDS || left <= 0 || !isfinite(nat))
            return cdyn_fail(r, CDYN_EINACCURATE,
                             "the answer projected onto its bounds has natural residual %.3g > "
                             "tol %.3g with F evaluated there; x holds that point",
                             nat, o->tol);
        run_ctl c = {0.0, left, 0, RUN_ERROR, nat};
        st = run(w, &c, r);
    }
    return st;
}
