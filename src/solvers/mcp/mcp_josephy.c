/* Josephy–Newton iterations from a stall point of the FB iteration (options.globalize).
 *
 * Semismooth Newton on the FB function reads the active set off the current iterate; where a
 * complementarity pair sits near its kink (a contact with force ~0 and gap ~0, a friction row at
 * the cone's edge) it can cycle between the two sides, and the merit function then stalls at a
 * point that is not a solution. Josephy's method (the linearization PATH is built on) lets the
 * linear problem choose the active set instead: each iteration solves the linear MCP
 *   x in [l, u]  _|_  F(x_k) + J(x_k) (x - x_k)
 * exactly, by Lemke's method on its Schur complement onto the bounded variables, and steps to
 * its solution. Locally it converges quadratically whatever the pairs' sides.
 *
 * Bounds it takes: free (-inf, inf), fixed (l = u) and lower [l, inf); anything else (an upper
 * bound) leaves the stage to the restarts. Linear algebra through the iteration's own factor /
 * solve: with H = diag(da) + diag(db) J, da = 1, db = 0 on the bounded and fixed rows and
 * da = 0, db = row scale on the free rows, H y = r gives y = d on the bounded and fixed rows and
 * J_free d = r_free / scale on the free ones, so that the Schur columns cost one solve each.
 * The iterations are unguarded (as the polish's): nothing is kept unless the natural residual
 * reaches tol. Its workspace, Lemke's included, is carved with the solver's (options.globalize),
 * so a reusable solver still allocates nothing per run. */
#include <math.h>
#include <string.h>

#include "cdyn/lcp.h"
#include "core/carve.h"
#include "core/report.h"
#include "linalg/dense.h"
#include "solvers/mcp/mcp_internal.h"

/* Josephy–Newton iterations per stage. */
#define JOSEPHY_ITER 12
/* Bounded variables beyond which the dense Schur complement and Lemke's O(nb^3) pivoting cost
   more than the restarts. */
#define JOSEPHY_MAX_BOUNDED 256

enum { JV_FREE, JV_FIXED, JV_LOWER };

/* The kind of one bound pair. */
static int kind_of(double l, double u)
{
    if (l == u)
        return JV_FIXED;
    if (isinf(l) && l < 0 && isinf(u) && u > 0)
        return JV_FREE;
    if (isfinite(l) && isinf(u) && u > 0)
        return JV_LOWER;
    return -1;
}

/* The kind of every variable into kind (n); the number of lower-bounded ones, or -1 when some
   bound is of another kind. */
static int classify(const mcp_work *w, int *kind)
{
    int nb = 0;
    for (int i = 0; i < w->n; ++i) {
        if ((kind[i] = kind_of(w->l[i], w->u[i])) < 0)
            return -1;
        nb += kind[i] == JV_LOWER;
    }
    return nb;
}

int cdyn_mcp_josephy_bounded(const cdyn_mcp *p)
{
    int nb = 0;
    for (int i = 0; i < p->n; ++i) {
        const double l = p->lower != NULL ? p->lower[i] : 0.0;
        const double u = p->upper != NULL ? p->upper[i] : INFINITY;
        const int k = kind_of(l, u);
        nb += k == JV_LOWER || k == JV_FIXED; /* fixed ones may be released in a later run */
    }
    return nb <= JOSEPHY_MAX_BOUNDED ? nb : 0;
}

/* Lemke's workspace for nb unknowns (lemke.c: 2 nb^2 + 9 nb doubles, the tableau nb (nb + 1)
   for nb <= 8, and 12 nb + 4 ints), rounded up. */
static size_t lemke_doubles(int nb)
{
    const size_t b = (size_t)nb;
    return 2 * b * b + (nb <= 8 ? b * (b + 1) : 0) + 16 * b + 4;
}

void cdyn_mcp_josephy_carve(mcp_work *w, cdyn_carve *cv, void *block)
{
    const int nb = w->jnb;
    if (nb <= 0)
        return;
    const size_t n = (size_t)w->n, b = (size_t)nb;
    w->jdoubles = cdyn_carve_doubles(cv, block, b * b + 3 * b + 2 * n + lemke_doubles(nb));
    w->jints = cdyn_carve_ints(cv, block, 3 * n);
}

/* Lemke's allocator: the one carved block, handed out once at a time. */
typedef struct one_block {
    void *block;
    size_t size;
    int taken;
} one_block;

static void *one_block_alloc(void *ctx, size_t size)
{
    one_block *o = ctx;
    if (o->taken || size > o->size)
        return NULL;
    o->taken = 1;
    return o->block;
}

static void one_block_release(void *ctx, void *ptr)
{
    one_block *o = ctx;
    if (ptr == o->block)
        o->taken = 0;
}

typedef struct josephy_ws {
    int *kind, *bidx, *basis;
    double *M, *q, *z, *wv, *r, *y;
    cdyn_allocator lemke_alloc;
} josephy_ws;

/* The right-hand side for the linearization at x (F = F(x)) with the bounded variables at
   z (NULL: 0): free rows -scale F, fixed rows l - x, bounded rows z + l - x. */
static void rhs(const mcp_work *w, const josephy_ws *s, const double *x, const double *F,
                const double *rowmax, const double *z, double *r)
{
    for (int i = 0, b = 0; i < w->n; ++i) {
        if (s->kind[i] == JV_FREE)
            r[i] = -F[i] * (rowmax[i] > 0.0 ? 1.0 / rowmax[i] : 1.0);
        else
            r[i] = w->l[i] - x[i] + (s->kind[i] == JV_LOWER && z != NULL ? z[b++] : 0.0);
    }
}

/* One Josephy–Newton step at x (F = F(x), J = J(x) in w->J) into d. 1 done, 0 failed (H
   singular, Lemke without a certified answer), -1 out of memory. */
static int josephy_step(mcp_work *w, josephy_ws *s, int nb, const double *x, const double *F,
                        double *d)
{
    const int n = w->n;
    double *rowmax = w->g;
    cdyn_mcp_row_scales(w, rowmax);
    for (int i = 0; i < n; ++i) {
        const int fr = s->kind[i] == JV_FREE;
        w->da[i] = fr ? 0.0 : 1.0;
        w->db[i] = fr ? (rowmax[i] > 0.0 ? 1.0 / rowmax[i] : 1.0) : 0.0;
    }
    const cdyn_status st = cdyn_mcp_linsys_factor(&w->ls, &w->J, w->jabsmax, w->da, w->db, 0.0);
    if (st == CDYN_ENOMEM)
        return -1;
    if (st != CDYN_OK)
        return 0;
    /* y0: the step with every bounded variable at its bound; q = (F + J y0) on the bounded rows */
    rhs(w, s, x, F, rowmax, NULL, d);
    if (cdyn_mcp_linsys_solve(&w->ls, d) != CDYN_OK || !cdyn_dense_all_finite(n, d))
        return 0;
    cdyn_mcp_jac_mult(&w->J, d, s->y);
    for (int b = 0; b < nb; ++b)
        s->q[b] = F[s->bidx[b]] + s->y[s->bidx[b]];
    /* column j of the Schur complement: J times the step's change per unit of z_j */
    for (int j = 0; j < nb; ++j) {
        memset(s->r, 0, sizeof(double) * (size_t)n);
        s->r[s->bidx[j]] = 1.0;
        if (cdyn_mcp_linsys_solve(&w->ls, s->r) != CDYN_OK || !cdyn_dense_all_finite(n, s->r))
            return 0;
        cdyn_mcp_jac_mult(&w->J, s->r, s->y);
        for (int b = 0; b < nb; ++b)
            s->M[(size_t)j * nb + b] = s->y[s->bidx[b]];
    }
    if (!cdyn_dense_all_finite((size_t)nb * nb, s->M) || !cdyn_dense_all_finite(nb, s->q))
        return 0;
    /* warm basis: the variables off their bound at x */
    for (int b = 0; b < nb; ++b) {
        const int i = s->bidx[b];
        s->basis[b] = x[i] - w->l[i] > F[i];
    }
    /* Lemke from that basis, then cold (within the one call) */
    cdyn_lemke_options lo;
    cdyn_lemke_defaults(&lo);
    lo.allocator = &s->lemke_alloc;
    lo.warm_basis = s->basis;
    const cdyn_lcp lcp = {nb, s->M, s->q};
    if (cdyn_lemke(&lcp, &lo, s->z, s->wv, NULL) != CDYN_OK)
        return 0;
    rhs(w, s, x, F, rowmax, s->z, d);
    return cdyn_mcp_linsys_solve(&w->ls, d) == CDYN_OK && cdyn_dense_all_finite(n, d);
}

int cdyn_mcp_josephy(mcp_work *w, cdyn_report *r)
{
    const int n = w->n;
    const cdyn_mcp_options *o = w->o;
    if (w->jac_fixed || w->jnb <= 0)
        return 0; /* a linear problem is its own linearization; no workspace carved */
    josephy_ws s = {.kind = w->jints, .bidx = w->jints + n, .basis = w->jints + 2 * n};
    const int nb = classify(w, s.kind);
    if (nb <= 0 || nb > w->jnb)
        return 0;
    s.M = w->jdoubles;
    s.q = s.M + (size_t)nb * nb;
    s.z = s.q + nb;
    s.wv = s.z + nb;
    s.r = s.wv + nb;
    s.y = s.r + n;
    one_block lemke_block = {s.y + n, lemke_doubles(nb) * sizeof(double), 0};
    s.lemke_alloc = (cdyn_allocator){one_block_alloc, one_block_release, &lemke_block};
    for (int i = 0, b = 0; i < n; ++i)
        if (s.kind[i] == JV_LOWER)
            s.bidx[b++] = i;
    int result = 0;

    const int stall_it = w->iters;
    double *x = w->xt, *F = w->Ft; /* the stage's iterate; w->x, w->F keep the stall point */
    memcpy(x, w->x, sizeof(double) * (size_t)n);
    memcpy(F, w->F, sizeof(double) * (size_t)n);
    for (int it = 0; it < JOSEPHY_ITER; ++it) {
        if (cdyn_mcp_jac_eval(w->p, o->jacobian_fd, &w->fd, x, F, &w->J, &w->nfev, &w->njev,
                              &w->jabsmax) != CDYN_OK)
            break;
        cdyn_mcp_floor_update(w);
        const int st = josephy_step(w, &s, nb, x, F, w->d);
        if (st < 0)
            result = -1;
        if (st <= 0)
            break;
        double *xn = w->Phit, *Fn = w->tmp;
        for (int i = 0; i < n; ++i) {
            const double v = x[i] + w->d[i];
            xn[i] = v < w->l[i] ? w->l[i] : v > w->u[i] ? w->u[i] : v;
        }
        if (cdyn_mcp_raw_F(w, xn, Fn))
            break;
        ++w->iters;
        cdyn_mcp_swap(&w->xt, &w->Phit);
        cdyn_mcp_swap(&w->Ft, &w->tmp);
        x = w->xt;
        F = w->Ft;
        const double nat = cdyn_mcp_natural_residual(n, w->l, w->u, x, F);
        if (!(cdyn_mcp_excess(w, x, F) <= o->tol))
            continue;
        cdyn_mcp_swap(&w->x, &w->xt);
        cdyn_mcp_swap(&w->F, &w->Ft);
        w->F_raw = 1;
        if (r != NULL) {
            r->iterations = w->iters;
            r->evaluations = w->nfev + w->njev;
            r->residual = nat;
        }
        cdyn_report_method(r, w->lambda == 1.0 ? "fb-newton+josephy"
                                               : "fb-newton-penalized+josephy");
        cdyn_fail(r, CDYN_OK, "Newton stalled after %d iterations; solved by %d Josephy-Newton "
                  "iterations (linear MCPs by Lemke; natural residual %.3g)", stall_it, it + 1,
                  nat);
        result = 1;
        break;
    }
    if (result == 0)
        w->iters = stall_it;
    return result;
}
