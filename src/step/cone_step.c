/* The convex cone step (Anitescu's relaxation of the velocity-level Coulomb problem): with the
 * matrices at q, the contact impulses p_i = (p_n, p_t, p_o) of the rows taking part solve
 *     minimize 1/2 p'Wp + r'p  subject to  p_i in the friction cone K_mu_i,
 *     W = J M^-1 J',  r = J v_free + (Psi_n / h, 0, 0)_i,  v_free = v + h M^-1 (tau - bias),
 * and v+ = v_free + M^-1 J' p, q+ = q + h G(q) v+ (quaternions renormalized). Its optimality
 * conditions give u = W p + r = J v+ + (Psi_n / h, 0, 0) in the dual cone, u ⊥ p: the exact
 * cone's impulses with the normal velocity condition relaxed to u_n >= mu |u_T| (a sliding body
 * lifts off by mu |u_T| h per step; docs/theory.md). One friction-cone QP per step (cdyn_coneqp,
 * interior point); planar models use two-dimensional cones (p_n, p_t). Joint limits
 * (joint_rows.h) join the QP as frictionless blocks (p_n, p_t) with mu = 0 (so p_t = 0 and
 * p_n >= 0 ⊥ g'v+ + gap / h >= 0), coupled through y = (M + h D)^-1 g. */
#include "step/contact_space.h"
#include "step/working_set.h"
#include "step/joint_rows.h"
#include "step/rigid_derivs.h"

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
 * it in its own arena (qarena, reset for each new solver), which grows to the largest solver
 * seen and then stops allocating: after warm-up a step allocates nothing of cdyn's even while
 * the contact set changes (CHOLMOD's analysis of a new pattern is SuiteSparse's memory). */
typedef struct cone_ws {
    cs_trees trees;
    int nlim;                /* joint limit rows (jr_limit_count) */
    cdyn_arena qarena;       /* the solver's memory (outlives the per-step arena) */
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
    w->nlim = jr_limit_count(s->model);
    cdyn_arena_init(&w->qarena, s->opts.allocator);
    s->ws = w;
    return CDYN_OK;
}

static void cone_destroy(cdyn_stepper *s)
{
    cone_ws *w = s->ws;
    cdyn_coneqp_solver_free(w->qp);
    cdyn_arena_destroy(&w->qarena);
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
    cdyn_coneqp_solver_free(w->qp);
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
    /* The solver outlives this step: its memory comes from its own arena, not the step's. */
    if (cdyn_arena_reset(&w->qarena) != 0)
        return cdyn_fail(r, CDYN_ENOMEM, "cone step: out of memory");
    cdyn_coneqp_options o = s->opts.coneqp;
    o.allocator = &w->qarena.as;
    cdyn_status st = cdyn_coneqp_solver_create(q, &o, &w->qp, r);
    w->qp_k = q->ncontacts;
    w->qp_dense = dense;
    return st;
}

/* The QP's data: p's rows, then each joint limit row as a block (p_n, p_t) with mu = 0 at
 * m + 2 r. Lower-triangle triplets (p's and the joint rows': g_r' y_s among them, u_r = J y_r
 * with the contact unknowns, the unused p_t entry's diagonal equal to p_n's), c, mu and dims. */
typedef struct cone_data {
    int nblk, n, ntrip;
    int *ti, *tj, *dims;
    double *tx, *c, *mu;
} cone_data;

static cdyn_status cone_data_build(cdyn_stepper *s, const cs_problem *p, const jrows *jr,
                                   cone_data *cd, cdyn_report *r)
{
    const int nl = jr->n, m = p->m;
    cd->nblk = p->k + nl;
    cd->n = m + 2 * nl;
    const size_t cap = (size_t)p->ntrip + (size_t)nl * (nl + 1) / 2 + (size_t)nl * m + nl + 1;
    cd->ti = cdyn_mem_array(&s->arena.as, cap, sizeof(int));
    cd->tj = cdyn_mem_array(&s->arena.as, cap, sizeof(int));
    cd->tx = cdyn_mem_array(&s->arena.as, cap, sizeof(double));
    cd->dims = cdyn_mem_array(&s->arena.as, (size_t)cd->nblk + 1, sizeof(int));
    cd->c = cdyn_mem_array(&s->arena.as, (size_t)cd->n + 1, sizeof(double));
    cd->mu = cdyn_mem_array(&s->arena.as, (size_t)cd->nblk + 1, sizeof(double));
    if (cd->ti == NULL || cd->tj == NULL || cd->tx == NULL || cd->dims == NULL || cd->c == NULL ||
        cd->mu == NULL)
        return cdyn_fail(r, CDYN_ENOMEM, "cone step: out of memory");
    int e = 0;
    for (; e < p->ntrip; e++) {
        cd->ti[e] = p->ti[e];
        cd->tj[e] = p->tj[e];
        cd->tx[e] = p->tx[e];
    }
    for (int a = 0; a < m; a++)
        cd->c[a] = p->r[a];
    for (int c = 0; c < p->k; c++) {
        cd->dims[c] = p->nd;
        cd->mu[c] = p->mu[c];
    }
    for (int a = 0; a < nl; a++) {
        const int ia = m + 2 * a, da = jr->dof[a];
        const double *ua = jr->u + (size_t)a * m;
        for (int i = 0; i < m; i++)
            if (ua[i] != 0.0) {
                cd->ti[e] = ia, cd->tj[e] = i, cd->tx[e++] = ua[i];
            }
        double haa = 0;
        for (int b = 0; b <= a; b++) {
            const double v = jr->sign[a] * jr->y[(size_t)b * s->nv + da]; /* g_a' y_b */
            if (b == a)
                haa = v;
            if (v != 0.0 || b == a) {
                cd->ti[e] = ia, cd->tj[e] = m + 2 * b, cd->tx[e++] = v;
            }
        }
        cd->ti[e] = ia + 1, cd->tj[e] = ia + 1, cd->tx[e++] = haa; /* p_t: held at 0 by mu = 0 */
        cd->c[ia] = jr->sign[a] * p->vfree[da] + jr->val[a];
        cd->c[ia + 1] = 0.0;
        cd->dims[p->k + a] = 2;
        cd->mu[p->k + a] = 0.0;
    }
    cd->ntrip = e;
    return CDYN_OK;
}

/* Solve the QP of cd into imp (cd->n values): dense H for small problems, CSC otherwise. */
static cdyn_status cone_solve(cdyn_stepper *s, const cone_data *cd, double *imp, cdyn_report *r)
{
    cdyn_coneqp q = {0};
    q.ncontacts = cd->nblk;
    q.dim = cd->dims[0];
    q.dims = cd->dims;
    q.mu = cd->mu;
    q.c = cd->c;
    cdyn_csc H = {0};
    const size_t m = (size_t)cd->n;
    if (cd->n <= CONE_DENSE_MAX) {
        double *D = cdyn_mem_array(&s->arena.as, m * m, sizeof(double));
        if (D == NULL)
            return cdyn_fail(r, CDYN_ENOMEM, "cone step: out of memory");
        memset(D, 0, m * m * sizeof(double));
        for (int e = 0; e < cd->ntrip; e++) {
            D[cd->ti[e] + cd->tj[e] * m] += cd->tx[e];
            if (cd->ti[e] != cd->tj[e])
                D[cd->tj[e] + cd->ti[e] * m] += cd->tx[e];
        }
        q.H = D;
    } else {
        int *colptr = cdyn_mem_array(&s->arena.as, m + 1, sizeof(int));
        int *rowind = cdyn_mem_array(&s->arena.as, (size_t)cd->ntrip, sizeof(int));
        int *map = cdyn_mem_array(&s->arena.as, (size_t)cd->ntrip, sizeof(int));
        double *val = cdyn_mem_array(&s->arena.as, (size_t)cd->ntrip, sizeof(double));
        if (colptr == NULL || rowind == NULL || map == NULL || val == NULL)
            return cdyn_fail(r, CDYN_ENOMEM, "cone step: out of memory");
        cdyn_status st = cdyn_csc_pattern_from_triplets(cd->n, cd->n, cd->ntrip, cd->ti, cd->tj,
                                                        colptr, rowind, map, &s->arena.as, r);
        if (st != CDYN_OK)
            return st;
        cdyn_csc_values_from_triplets(cd->ntrip, map, cd->tx, colptr[cd->n], val);
        H.nrows = H.ncols = cd->n;
        H.colptr = colptr;
        H.rowind = rowind;
        H.values = val;
        q.Hs = &H;
    }
    cdyn_report qr;
    cdyn_status st = cone_solver_for(s, &q, &qr);
    if (st == CDYN_OK)
        st = cdyn_coneqp_solver_solve(((cone_ws *)s->ws)->qp, &q, imp, NULL, NULL, &qr);
    r->iterations += qr.iterations;
    r->residual = qr.residual;
    cdyn_report_method(r, qr.method);
    return st == CDYN_OK ? CDYN_OK : cdyn_fail(r, st, "cone step: %s", qr.message);
}

/* Forces (impulse / h) per row and modes. With u = J v+ + (Psi_n / h, 0, 0): FREE when the
 * row's dual-cone condition u_n - mu |u_T| (zero while its friction acts, the relaxation's
 * complementarity) exceeds what the row's own impulse contributes, W_nn p_n (the interior point
 * leaves the products small, not zero); else SLIP when the tangential velocity u_T exceeds 1e-6
 * of the velocity scale max(1, |v+|_inf) (the interior point's accuracy), else STICK. */
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
        const double ut = hypot(u[c * nd + 1], nd == 3 ? u[c * nd + 2] : 0.0);
        if (p->wdiag[c * nd] * imp[c * nd] <= u[c * nd] - p->mu[c] * ut)
            x1->mode[i] = CDYN_MODE_FREE;
        else
            x1->mode[i] = ut > 1e-6 * vscale ? CDYN_MODE_SLIP : CDYN_MODE_STICK;
    }
}

/* The contact rows alone (no joint rows): the QP on a working set of rows, grown by the rows
 * left out whose velocity lies outside the dual cone (p = 0 is not optimal for them) until none
 * does; then the answer meets the optimality conditions of the whole QP (working_set.h).
 * imp: p.m values. */
static cdyn_status cone_working_set(cdyn_stepper *s, const cs_problem *p, const cdyn_state *x0,
                                    double *imp, cdyn_step_report *rep)
{
    cdyn_allocator *as = &s->arena.as;
    cdyn_report *r = &rep->solver;
    const jrows none = {0, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    const int nd = p->nd;
    int *pos = cdyn_mem_array(as, (size_t)p->k, sizeof(int));
    double *isub = cdyn_mem_array(as, (size_t)p->m, sizeof(double));
    double *u3 = cdyn_mem_array(as, 3 * (size_t)p->k, sizeof(double));
    if (pos == NULL || isub == NULL || u3 == NULL)
        return cdyn_fail(r, CDYN_ENOMEM, "cone step: out of memory");
    wset_first(p, x0, 1, pos);
    for (;;) {
        cs_problem sub;
        if (wset_restrict(p, pos, as, &sub) != CDYN_OK)
            return cdyn_fail(r, CDYN_ENOMEM, "cone step: out of memory");
        if (sub.k > 0) {
            cone_data cd = {0, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL};
            cdyn_status st = cone_data_build(s, &sub, &none, &cd, r);
            if (st == CDYN_OK)
                st = cone_solve(s, &cd, isub, r);
            if (st != CDYN_OK && st != CDYN_ENOMEM && sub.k < p->k) {
                /* The interior point can stall on a part where it converges on the whole
                   (the pile of bench_step.c, step 23): the whole problem, as without a set. */
                for (int c = 0; c < p->k; c++)
                    pos[c] = 1;
                continue;
            }
            if (st != CDYN_OK)
                return st;
        }
        for (int c = 0; c < p->k; c++) {
            if (pos[c] >= 0)
                memcpy(imp + nd * c, isub + nd * pos[c], (size_t)nd * sizeof(double));
            else
                memset(imp + nd * c, 0, (size_t)nd * sizeof(double));
        }
        rep->working_rounds++;
        if (wset_check(p, pos, isub, nd, 1, u3) == 0)
            return CDYN_OK;
    }
}

static cdyn_status cone_advance(cdyn_stepper *s, const double *tau, double h, const cdyn_state *x0,
                                cdyn_state *x1, cdyn_step_report *rep)
{
    cone_ws *w = s->ws;
    cdyn_report *r = &rep->solver;
    cs_problem p;
    s->rlast.ok = 0;
    s->rlast.k = 0;
    cdyn_status st = cs_begin(s, &w->trees, tau, h, x0, x1, &p, rep);
    if (st != CDYN_OK)
        return st;
    cdyn_report_method(r, "cone-step");
    jrows jr = {0, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    if (w->nlim > 0 && (st = jr_build(s, &w->trees, &p, x0->q, h, &jr, r)) != CDYN_OK)
        return st;
    if (s->opts.restitution)
        jr_restitution(&jr, &p, x0->v, h); /* the limit rows' (contacts here are inelastic) */
    if (p.k > 0 || jr.n > 0) {
        const int n = p.m + 2 * jr.n; /* the QP's unknowns (cone_data_build) */
        double *imp = cdyn_mem_array(&s->arena.as, (size_t)n + (size_t)jr.n, sizeof(double));
        double *u = cdyn_mem_array(&s->arena.as, (size_t)p.m + 1, sizeof(double));
        if (imp == NULL || u == NULL)
            return cdyn_fail(r, CDYN_ENOMEM, "cone step: out of memory");
        if (jr.n > 0) { /* joint limit rows couple to every contact (jr.u): solved whole */
            cone_data cd = {0, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL};
            if ((st = cone_data_build(s, &p, &jr, &cd, r)) != CDYN_OK)
                return st;
            if ((st = cone_solve(s, &cd, imp, r)) != CDYN_OK)
                return st;
        } else if ((st = cone_working_set(s, &p, x0, imp, rep)) != CDYN_OK) {
            return st;
        }
        if (cs_apply_impulses(s, &w->trees, &p, imp, x1->v) != CDYN_OK)
            return cdyn_fail(r, CDYN_ENOMEM, "cone step: out of memory");
        double *fj = imp + n; /* the joint rows' impulses p_n */
        for (int a = 0; a < jr.n; a++)
            fj[a] = imp[p.m + 2 * a];
        jr_apply(&jr, s->nv, fj, x1->v);
        jr_limit_forces(&jr, fj, h, x1);
        if (rigid_keep_limits(s, &jr, fj) != 0)
            return cdyn_fail(r, CDYN_ENOMEM, "cone step: out of memory");
        cs_contact_velocity(s, &p, x1->v, u);
        const double *gap = cdyn_data_gap(s->data);
        for (int c = 0; c < p.k; c++)
            u[c * p.nd] += gap[p.rows[c]] / h;
        cone_outputs(s, &p, imp, u, h, x1);
        rigid_keep_rows(s, &p, imp);
    }
    st = cs_finish(s, x0, h, x1, r);
    s->rlast.nd = p.nd;
    if (st == CDYN_OK && rigid_keep(s, tau, h, x0, x1) != 0)
        return cdyn_fail(r, CDYN_ENOMEM, "cone step: out of memory");
    return st;
}

const step_scheme cdyn_scheme_cone_step = {
    "cone-step", 1u << CDYN_BACKEND_CONEQP, cone_pick, cone_create, cone_destroy, cone_advance,
};
