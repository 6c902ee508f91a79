/* The convex cone step (Anitescu's relaxation of the velocity-level Coulomb problem): with the
 * matrices at q, the contact impulses p_i = (p_n, p_t, p_o) of the rows taking part solve
 *     minimize 1/2 p'Wp + r'p  subject to  p_i in the friction cone K_mu_i,
 *     W = J M^-1 J',  r = J v_free + (Psi_n / h, 0, 0)_i,  v_free = v + h M^-1 (tau - bias),
 * and v+ = v_free + M^-1 J' p, q+ = q + h G(q) v+ (quaternions renormalized). Its optimality
 * conditions give u = W p + r = J v+ + (Psi_n / h, 0, 0) in the dual cone, u ⊥ p: the exact
 * cone's impulses with the normal velocity condition relaxed to u_n >= mu |u_T| (a sliding body
 * lifts off by mu |u_T| h per step; docs/theory.md). One friction-cone QP per step (cdyn_coneqp,
 * interior point); planar models use two-dimensional cones (p_n, p_t). */
#include "step/contact_space.h"

#include "core/memory.h"
#include "core/report.h"
#include "linalg/csc.h"

#include <math.h>
#include <string.h>

/* Up to this many unknowns the QP runs dense (LAPACK); above, sparse (CHOLMOD). */
#define CONE_DENSE_MAX 30

/* The QP solver is kept from step to step while the problem's structure (number of rows, and
 * W's sparsity pattern on the sparse path) stays the same, so that CHOLMOD's symbolic analysis
 * and the solver's workspace are reused; a new structure (contacts made or broken) re-creates
 * it, the only allocation of a step after warm-up. */
typedef struct cone_ws {
    cs_trees trees;
    cdyn_coneqp_solver *qp;
    int qp_k, qp_dense;      /* the structure qp was made for */
    int *pattern;            /* its CSC pattern: colptr (m + 1) then rowind (nnz) */
    size_t pattern_len, pattern_cap;
} cone_ws;

static cdyn_step_backend cone_pick(const cdyn_stepper *s)
{
    (void)s;
    return CDYN_BACKEND_CONEQP;
}

static cdyn_status cone_create(cdyn_stepper *s, cdyn_report *r)
{
    const size_t nints = cs_trees_ints(s->nv, cdyn_model_nbody(s->model));
    if (nints > ((size_t)-1 - sizeof(cone_ws)) / sizeof(int))
        return cdyn_fail(r, CDYN_ENOMEM, "cone step: size overflow");
    cone_ws *w = cdyn_mem_alloc(s->opts.allocator, sizeof(cone_ws) + nints * sizeof(int));
    if (w == NULL)
        return cdyn_fail(r, CDYN_ENOMEM, "cone step: out of memory");
    memset(w, 0, sizeof *w);
    cs_trees_init(&w->trees, s->model, (int *)(w + 1));
    s->ws = w;
    return CDYN_OK;
}

static void cone_destroy(cdyn_stepper *s)
{
    cone_ws *w = s->ws;
    cdyn_coneqp_free(w->qp);
    cdyn_mem_free(s->opts.allocator, w->pattern);
    cdyn_mem_free(s->opts.allocator, s->ws);
    s->ws = NULL;
}

/* Make sure ws->qp fits q's structure: keep it, or re-create it (and remember the pattern). */
static cdyn_status cone_solver_for(cdyn_stepper *s, const cdyn_coneqp *q, cdyn_report *r)
{
    cone_ws *w = s->ws;
    const int dense = q->H != NULL;
    size_t len = 0;
    if (!dense)
        len = (size_t)q->Hs->ncols + 1 + (size_t)q->Hs->colptr[q->Hs->ncols];
    if (w->qp != NULL && w->qp_k == q->ncontacts && w->qp_dense == dense &&
        (dense || (len == w->pattern_len &&
                   memcmp(w->pattern, q->Hs->colptr, ((size_t)q->Hs->ncols + 1) * sizeof(int)) ==
                       0 &&
                   memcmp(w->pattern + q->Hs->ncols + 1, q->Hs->rowind,
                          (len - q->Hs->ncols - 1) * sizeof(int)) == 0)))
        return CDYN_OK;
    cdyn_coneqp_free(w->qp);
    w->qp = NULL;
    if (len > w->pattern_cap) {
        int *grown = cdyn_mem_array(s->opts.allocator, len + len / 4, sizeof(int));
        if (grown == NULL)
            return cdyn_fail(r, CDYN_ENOMEM, "cone step: out of memory");
        cdyn_mem_free(s->opts.allocator, w->pattern);
        w->pattern = grown;
        w->pattern_cap = len + len / 4;
    }
    if (!dense) {
        memcpy(w->pattern, q->Hs->colptr, ((size_t)q->Hs->ncols + 1) * sizeof(int));
        memcpy(w->pattern + q->Hs->ncols + 1, q->Hs->rowind,
               (len - q->Hs->ncols - 1) * sizeof(int));
    }
    w->pattern_len = len;
    /* The solver outlives this step: it must not take memory from the per-step arena. */
    cdyn_coneqp_options o = s->opts.coneqp;
    o.allocator = s->opts.allocator;
    cdyn_status st = cdyn_coneqp_create(q, &o, &w->qp, r);
    w->qp_k = q->ncontacts;
    w->qp_dense = dense;
    return st;
}

/* Solve the QP of p into imp (m values): dense H for small problems, CSC otherwise. */
static cdyn_status cone_solve(cdyn_stepper *s, const cs_problem *p, double *imp, cdyn_report *r)
{
    cdyn_coneqp q = {0};
    q.ncontacts = p->k;
    q.dim = p->nd;
    q.mu = p->mu;
    q.c = p->r;
    cdyn_csc H = {0};
    const size_t m = (size_t)p->m;
    if (p->m <= CONE_DENSE_MAX) {
        double *D = cdyn_mem_array(&s->arena.as, m * m, sizeof(double));
        if (D == NULL)
            return cdyn_fail(r, CDYN_ENOMEM, "cone step: out of memory");
        memset(D, 0, m * m * sizeof(double));
        for (int e = 0; e < p->ntrip; e++) {
            D[p->ti[e] + p->tj[e] * m] += p->tx[e];
            if (p->ti[e] != p->tj[e])
                D[p->tj[e] + p->ti[e] * m] += p->tx[e];
        }
        q.H = D;
    } else {
        int *colptr = cdyn_mem_array(&s->arena.as, m + 1, sizeof(int));
        int *rowind = cdyn_mem_array(&s->arena.as, (size_t)p->ntrip, sizeof(int));
        int *map = cdyn_mem_array(&s->arena.as, (size_t)p->ntrip, sizeof(int));
        double *val = cdyn_mem_array(&s->arena.as, (size_t)p->ntrip, sizeof(double));
        if (colptr == NULL || rowind == NULL || map == NULL || val == NULL)
            return cdyn_fail(r, CDYN_ENOMEM, "cone step: out of memory");
        cdyn_status st = cdyn_csc_pattern_from_triplets(p->m, p->m, p->ntrip, p->ti, p->tj, colptr,
                                                        rowind, map, &s->arena.as, r);
        if (st != CDYN_OK)
            return st;
        cdyn_csc_values_from_triplets(p->ntrip, map, p->tx, colptr[p->m], val);
        H.nrows = H.ncols = p->m;
        H.colptr = colptr;
        H.rowind = rowind;
        H.values = val;
        q.Hs = &H;
    }
    cdyn_report qr;
    cdyn_status st = cone_solver_for(s, &q, &qr);
    if (st == CDYN_OK)
        st = cdyn_coneqp_run(((cone_ws *)s->ws)->qp, &q, imp, NULL, NULL, &qr);
    r->iterations += qr.iterations;
    r->residual = qr.residual;
    cdyn_report_method(r, qr.method);
    return st == CDYN_OK ? CDYN_OK : cdyn_fail(r, st, "cone step: %s", qr.message);
}

/* Forces (impulse / h) per row and modes. With u = J v+ + (Psi_n / h, 0, 0): FREE when the
 * normal condition u_n exceeds what the row's own impulse contributes, W_nn p_n (the interior
 * point leaves p_n u_n small, not zero); else SLIP when the tangential velocity u_T exceeds
 * 1e-6 of the velocity scale max(1, |v+|_inf) (the interior point's accuracy), else STICK. */
static void cone_outputs(const cdyn_stepper *s, const cs_problem *p, const double *imp,
                         const double *u, double h, cdyn_state *x1)
{
    const int nd = p->nd;
    double vscale = 1;
    for (int j = 0; j < s->nv; j++)
        vscale = fmax(vscale, fabs(x1->v[j]));
    for (int c = 0; c < p->k; c++) {
        const int i = p->rows[c];
        for (int d = 0; d < nd; d++)
            x1->lambda[3 * i + d] = imp[c * nd + d] / h;
        if (p->wdiag[c * nd] * imp[c * nd] <= u[c * nd])
            x1->mode[i] = CDYN_MODE_FREE;
        else
            x1->mode[i] = hypot(u[c * nd + 1], nd == 3 ? u[c * nd + 2] : 0.0) > 1e-6 * vscale
                              ? CDYN_MODE_SLIP
                              : CDYN_MODE_STICK;
    }
}

static cdyn_status cone_advance(cdyn_stepper *s, const double *tau, double h, const cdyn_state *x0,
                                cdyn_state *x1, cdyn_step_report *rep)
{
    cone_ws *w = s->ws;
    cdyn_report *r = &rep->solver;
    cs_problem p;
    cdyn_status st = cs_begin(s, &w->trees, tau, h, x0, x1, &p, rep);
    if (st != CDYN_OK)
        return st;
    cdyn_report_method(r, "cone-step");
    if (p.k > 0) {
        double *imp = cdyn_mem_array(&s->arena.as, (size_t)p.m, sizeof(double));
        double *u = cdyn_mem_array(&s->arena.as, (size_t)p.m, sizeof(double));
        if (imp == NULL || u == NULL)
            return cdyn_fail(r, CDYN_ENOMEM, "cone step: out of memory");
        if ((st = cone_solve(s, &p, imp, r)) != CDYN_OK)
            return st;
        if (cs_apply_impulses(s, &w->trees, &p, imp, x1->v) != CDYN_OK)
            return cdyn_fail(r, CDYN_ENOMEM, "cone step: out of memory");
        cs_contact_velocity(s, &p, x1->v, u);
        const double *gap = cdyn_data_gap(s->data);
        for (int c = 0; c < p.k; c++)
            u[c * p.nd] += gap[p.rows[c]] / h;
        cone_outputs(s, &p, imp, u, h, x1);
    }
    return cs_finish(s, x0, h, x1, r);
}

const step_scheme cdyn_scheme_cone_step = {
    "cone-step", 1u << CDYN_BACKEND_CONEQP, cone_pick, cone_create, cone_destroy, cone_advance,
};
