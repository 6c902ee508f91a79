/* The Coulomb step (Moreau–Jean velocity-level time stepping with the exact cone): with the
 * matrices at q, the contact impulses p_i = (p_n, p_t, p_o) of the rows taking part and the
 * contact velocities u = W p + r solve the 3-D frictional contact problem
 *     K_mu_i  ∋  p_i  ⊥  u_i + mu_i ||u_Ti|| e_n  ∈  K*_mu_i,
 *     W = J M^-1 J',  r = J v_free + (Psi_n / h, 0, 0)_i,  v_free = v + h M^-1 (tau - bias),
 * then v+ = v_free + M^-1 J' p and q+ = q + h G(q) v+. Unlike the cone step's convex relaxation,
 * a sliding contact keeps u_n = 0 (no lift-off): this is the one-step problem of Siconos and
 * LMGC90, solved by cdyn_fc3d_solve's chain (Gauss–Seidel warm start, semismooth Newton),
 * warm-started with the previous step's impulses, through one solver object held from step to
 * step: its workspaces and KLU's symbolic analyses (two shapes kept) are reused while the number
 * of rows and W's block pattern stay or come back, and built once for a new shape (the only
 * allocation of a step after warm-up besides KLU's numeric factors; docs/api.md). Planar rows
 * (n, t) get a decoupled third component (its W entry the row's W_tt, its r entry 0: its impulse
 * is exactly 0). Joint limits (joint_rows.h) are blocks with mu = 0 after the contacts'
 * (p_n >= 0 ⊥ g'v+ + gap / h >= 0, the tangential components decoupled at the block's own W_nn
 * with r = 0, so they stay 0), coupled through y = (M + h D)^-1 g. */
#include "step/contact_space.h"
#include "step/working_set.h"
#include "step/joint_rows.h"
#include "step/rigid_derivs.h"

#include "cdyn/fc3d.h"
#include "core/memory.h"
#include "core/report.h"
#include "linalg/csc.h"

#include <math.h>
#include <string.h>

typedef struct coulomb_ws {
    cs_trees trees;
    cdyn_fc3d_solver *fc; /* outlives the steps: memory from the stepper's allocator */
    int nlim;             /* joint limit rows (jr_limit_count) */
} coulomb_ws;

static cdyn_step_backend coulomb_pick(const cdyn_stepper *s)
{
    (void)s;
    return CDYN_BACKEND_FC3D;
}

static cdyn_status coulomb_create(cdyn_stepper *s, cdyn_report *r)
{
    const size_t nints = cs_trees_ints(s->nv, cdyn_model_nbody(s->model));
    if (nints > ((size_t)-1 - sizeof(coulomb_ws)) / sizeof(int))
        return cdyn_fail(r, CDYN_ENOMEM, "coulomb step: size overflow");
    coulomb_ws *w = cdyn_mem_alloc(s->opts.allocator, sizeof(coulomb_ws) + nints * sizeof(int));
    if (w == NULL)
        return cdyn_fail(r, CDYN_ENOMEM, "coulomb step: out of memory");
    memset(w, 0, sizeof *w);
    cs_trees_init(&w->trees, s->model, (int *)(w + 1));
    /* The solver outlives the steps: it must not take memory from the per-step arena. */
    cdyn_fc3d_options o = s->opts.fc3d;
    o.allocator = s->opts.allocator;
    cdyn_fc3d_report fr;
    cdyn_status st = cdyn_fc3d_solver_create(NULL, &o, &w->fc, &fr);
    if (st != CDYN_OK) {
        cdyn_mem_free(s->opts.allocator, w);
        return cdyn_fail(r, st, "coulomb step: %s", fr.message);
    }
    w->nlim = jr_limit_count(s->model);
    s->ws = w;
    return CDYN_OK;
}

static void coulomb_destroy(cdyn_stepper *s)
{
    coulomb_ws *w = s->ws;
    if (w != NULL)
        cdyn_fc3d_solver_free(w->fc);
    cdyn_mem_free(s->opts.allocator, s->ws);
    s->ws = NULL;
}

/* W by 3x3 blocks from p's lower-triangle triplets: the block pattern is that of a k x k
 * matrix with both (ci, cj) and (cj, ci) for every triplet, found with the CSC assembly (W is
 * symmetric, so a CSC column is a block row). Diagonal blocks always exist (each row's own
 * W_nn); a planar row's third component gets W_oo = W_tt and r_o = 0, so p_o = 0. */
static cdyn_status coulomb_blocks(cdyn_stepper *s, const cs_problem *p, const jrows *jr,
                                  cdyn_fc3d_blocks *bl, double **q3, cdyn_report *r)
{
    cdyn_allocator *as = &s->arena.as;
    const int k = p->k, nd = p->nd, nl = jr->n, kb = k + nl;
    /* p's triplets both ways, the contacts' diagonal blocks, then per joint row a: its diagonal
     * block, (a, b) both ways for b < a, (a, c) both ways for every contact c */
    const int nt0 = 2 * p->ntrip + k, nt = nt0 + nl * nl + 2 * nl * k;
    int *bi = cdyn_mem_array(as, (size_t)nt + 1, sizeof(int));
    int *bj = cdyn_mem_array(as, (size_t)nt + 1, sizeof(int));
    int *colptr = cdyn_mem_array(as, (size_t)kb + 1, sizeof(int));
    int *rowind = cdyn_mem_array(as, (size_t)nt + 1, sizeof(int));
    int *map = cdyn_mem_array(as, (size_t)nt + 1, sizeof(int));
    double *q = cdyn_mem_array(as, 3 * (size_t)kb, sizeof(double));
    if (bi == NULL || bj == NULL || colptr == NULL || rowind == NULL || map == NULL || q == NULL)
        return cdyn_fail(r, CDYN_ENOMEM, "coulomb step: out of memory");
    for (int e = 0; e < p->ntrip; e++) {
        const int ci = p->ti[e] / nd, cj = p->tj[e] / nd;
        bi[2 * e] = cj, bj[2 * e] = ci; /* block (ci, cj): CSC column ci, row cj */
        bi[2 * e + 1] = ci, bj[2 * e + 1] = cj;
    }
    for (int c = 0; c < k; c++)
        bi[2 * p->ntrip + c] = bj[2 * p->ntrip + c] = c;
    for (int a = 0, e = nt0; a < nl; a++) { /* block (R, C) as CSC row C, column R */
        bi[e] = bj[e] = k + a, e++;
        for (int b = 0; b < a; b++) {
            bi[e] = k + b, bj[e] = k + a, e++;
            bi[e] = k + a, bj[e] = k + b, e++;
        }
        for (int c = 0; c < k; c++) {
            bi[e] = c, bj[e] = k + a, e++;
            bi[e] = k + a, bj[e] = c, e++;
        }
    }
    cdyn_status st =
        cdyn_csc_pattern_from_triplets(kb, kb, nt, bi, bj, colptr, rowind, map, as, r);
    if (st != CDYN_OK)
        return st;
    const int nb = colptr[kb];
    double *val = cdyn_mem_array(as, 9 * (size_t)nb, sizeof(double));
    if (val == NULL)
        return cdyn_fail(r, CDYN_ENOMEM, "coulomb step: out of memory");
    memset(val, 0, 9 * (size_t)nb * sizeof(double));
    for (int e = 0; e < p->ntrip; e++) {
        const int i = p->ti[e], j = p->tj[e], a = i % nd, b = j % nd;
        val[9 * (size_t)map[2 * e] + a + 3 * b] += p->tx[e];
        if (i != j)
            val[9 * (size_t)map[2 * e + 1] + b + 3 * a] += p->tx[e];
    }
    for (int c = 0; c < k; c++) {
        for (int d = 0; d < 3; d++)
            q[3 * c + d] = d < nd ? p->r[c * nd + d] : 0.0;
        if (nd == 2) { /* the decoupled component at the row's own tangential scale */
            double *b = val + 9 * (size_t)map[2 * p->ntrip + c];
            b[8] = b[4] > 0.0 ? b[4] : (b[0] > 0.0 ? b[0] : 1.0);
        }
    }
    for (int a = 0, e = nt0; a < nl; a++) {
        const double *ua = jr->u + (size_t)a * p->m;
        const double waa = jr->sign[a] * jr->y[(size_t)a * s->nv + jr->dof[a]];
        double *D = val + 9 * (size_t)map[e++];
        D[0] = D[4] = D[8] = waa > 0.0 ? waa : 1.0; /* p_t, p_o decoupled, held at 0 by mu = 0 */
        for (int b = 0; b < a; b++) {
            const double wab = jr->sign[a] * jr->y[(size_t)b * s->nv + jr->dof[a]];
            val[9 * (size_t)map[e++]] = wab; /* block (a, b), entry (0, 0) */
            val[9 * (size_t)map[e++]] = wab; /* block (b, a) */
        }
        for (int c = 0; c < k; c++) {
            double *Bac = val + 9 * (size_t)map[e++], *Bca = val + 9 * (size_t)map[e++];
            for (int d = 0; d < nd; d++) {
                Bac[3 * d] = ua[c * nd + d]; /* row 0 of block (a, c) */
                Bca[d] = ua[c * nd + d];     /* column 0 of block (c, a) */
            }
        }
        q[3 * (k + a)] = jr->sign[a] * p->vfree[jr->dof[a]] + jr->val[a];
        q[3 * (k + a) + 1] = q[3 * (k + a) + 2] = 0.0;
    }
    bl->rowptr = colptr;
    bl->colind = rowind;
    bl->values = val;
    *q3 = q;
    return CDYN_OK;
}

/* Forces (impulse / h) and modes, as the cone step decides them: FREE when the normal velocity
 * u_n is at least what the row's own impulse contributes, W_nn p_n (so p_n = 0 and u_n >= 0);
 * SLIP when the tangential velocity exceeds 1e-8 of the velocity scale max(1, |v+|_inf) (the
 * solver stops at relative residual 1e-10), else STICK. */
static void coulomb_outputs(const cdyn_stepper *s, const cs_problem *p, const double *imp,
                            const double *u, double h, cdyn_state *x1)
{
    double vscale = 1;
    for (int j = 0; j < s->nv; j++)
        vscale = fmax(vscale, fabs(x1->v[j]));
    for (int c = 0; c < p->k; c++) {
        const int i = p->rows[c];
        for (int d = 0; d < p->nd; d++)
            x1->lambda[3 * i + d] = imp[3 * c + d] / h;
        if (p->wdiag[c * p->nd] * imp[3 * c] <= u[3 * c])
            x1->mode[i] = CDYN_MODE_FREE;
        else
            x1->mode[i] = hypot(u[3 * c + 1], u[3 * c + 2]) > 1e-8 * vscale ? CDYN_MODE_SLIP
                                                                            : CDYN_MODE_STICK;
    }
}

/* One fc3d solve of the contact rows of p with the joint rows jr: impulses and velocities (3 per
 * row of p, then per joint row) into imp and u, warm-started with imp. */
static cdyn_status coulomb_fc3d(cdyn_stepper *s, const cs_problem *p, const jrows *jr,
                                double *imp, double *u, cdyn_step_report *rep)
{
    coulomb_ws *w = s->ws;
    cdyn_report *r = &rep->solver;
    const int kb = p->k + jr->n;
    cdyn_fc3d_blocks bl;
    double *q3 = NULL;
    cdyn_status st = coulomb_blocks(s, p, jr, &bl, &q3, r);
    if (st != CDYN_OK)
        return st;
    double *mu = cdyn_mem_array(&s->arena.as, (size_t)kb, sizeof(double));
    if (mu == NULL)
        return cdyn_fail(r, CDYN_ENOMEM, "coulomb step: out of memory");
    for (int c = 0; c < kb; c++)
        mu[c] = c < p->k ? p->mu[c] : 0.0;
    cdyn_fc3d fp = {kb, NULL, &bl, q3, mu};
    cdyn_fc3d_report fr;
    const int shapes = cdyn_fc3d_solver_shapes(w->fc);
    st = cdyn_fc3d_solver_solve(w->fc, &fp, imp, u, &fr);
    rep->analyses += cdyn_fc3d_solver_shapes(w->fc) - shapes; /* a new shape was built */
    r->iterations += fr.sweeps + fr.newton_iterations;
    r->residual = fr.residual_rel;
    cdyn_report_method(r, fr.method);
    if (st != CDYN_OK)
        return cdyn_fail(r, st, "coulomb step: %s", fr.message);
    return CDYN_OK;
}

/* The contact rows alone (no joint rows): solved on a working set of rows, grown by the rows
 * left out that the answer would push into each other, until none is (working_set.h). imp
 * (3 per row of p) holds the warm start and receives the impulses, u the velocities. */
static cdyn_status coulomb_working_set(cdyn_stepper *s, const cs_problem *p,
                                       const cdyn_state *x0, double *imp, double *u,
                                       cdyn_step_report *rep)
{
    cdyn_allocator *as = &s->arena.as;
    const jrows none = {0, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    int *pos = cdyn_mem_array(as, (size_t)p->k, sizeof(int));
    double *isub = cdyn_mem_array(as, 3 * (size_t)p->k, sizeof(double));
    double *usub = cdyn_mem_array(as, 3 * (size_t)p->k, sizeof(double));
    if (pos == NULL || isub == NULL || usub == NULL)
        return cdyn_fail(&rep->solver, CDYN_ENOMEM, "coulomb step: out of memory");
    wset_first(p, x0, 0, pos);
    for (;;) {
        cs_problem sub;
        if (wset_restrict(p, pos, as, &sub) != CDYN_OK)
            return cdyn_fail(&rep->solver, CDYN_ENOMEM, "coulomb step: out of memory");
        for (int c = 0; c < p->k; c++) /* the warm start: the last step's or last round's */
            if (pos[c] >= 0)
                memcpy(isub + 3 * pos[c], imp + 3 * c, 3 * sizeof(double));
        if (sub.k > 0) {
            cdyn_status st = coulomb_fc3d(s, &sub, &none, isub, usub, rep);
            if (st != CDYN_OK)
                return st;
        }
        for (int c = 0; c < p->k; c++) {
            if (pos[c] >= 0)
                memcpy(imp + 3 * c, isub + 3 * pos[c], 3 * sizeof(double));
            else
                imp[3 * c] = imp[3 * c + 1] = imp[3 * c + 2] = 0.0;
        }
        rep->working_rounds++;
        if (wset_check(p, pos, isub, 3, 0, u) == 0)
            return CDYN_OK;
    }
}

static cdyn_status coulomb_advance(cdyn_stepper *s, const double *tau, double h,
                                   const cdyn_state *x0, cdyn_state *x1, cdyn_step_report *rep)
{
    coulomb_ws *w = s->ws;
    cdyn_report *r = &rep->solver;
    cs_problem p;
    s->rlast.ok = 0;
    s->rlast.k = 0;
    cdyn_status st = cs_begin(s, &w->trees, tau, h, x0, x1, &p, rep);
    if (st != CDYN_OK)
        return st;
    cdyn_report_method(r, "coulomb-step");
    jrows jr = {0, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    if (w->nlim > 0 && (st = jr_build(s, &w->trees, &p, x0->q, h, &jr, r)) != CDYN_OK)
        return st;
    if (s->opts.restitution)
        jr_restitution(&jr, &p, x0->v, h); /* the limit rows' (contacts here are inelastic) */
    if (p.k > 0 || jr.n > 0) {
        const int kb = p.k + jr.n;
        double *imp = cdyn_mem_array(&s->arena.as, 3 * (size_t)kb, sizeof(double));
        double *u = cdyn_mem_array(&s->arena.as, 3 * (size_t)kb, sizeof(double));
        double *imp2 = cdyn_mem_array(&s->arena.as, (size_t)p.m + (size_t)jr.n + 1,
                                      sizeof(double));
        if (imp == NULL || u == NULL || imp2 == NULL)
            return cdyn_fail(r, CDYN_ENOMEM, "coulomb step: out of memory");
        for (int c = 0; c < p.k; c++) /* warm start: the last step's impulses */
            for (int d = 0; d < 3; d++)
                imp[3 * c + d] = d < p.nd ? x0->lambda[3 * p.rows[c] + d] * h : 0.0;
        for (int i = 3 * p.k; i < 3 * kb; i++) /* joint rows: from 0 (their forces are not kept) */
            imp[i] = 0.0;
        /* Joint limit rows couple to every contact (jr->u): their problems are solved whole. */
        st = jr.n > 0 ? coulomb_fc3d(s, &p, &jr, imp, u, rep)
                      : coulomb_working_set(s, &p, x0, imp, u, rep);
        if (st != CDYN_OK)
            return st;
        for (int c = 0; c < p.k; c++)
            for (int d = 0; d < p.nd; d++)
                imp2[c * p.nd + d] = imp[3 * c + d];
        if (cs_apply_impulses(s, &w->trees, &p, imp2, x1->v) != CDYN_OK)
            return cdyn_fail(r, CDYN_ENOMEM, "coulomb step: out of memory");
        double *fj = imp2 + p.m; /* the joint rows' normal impulses */
        for (int a = 0; a < jr.n; a++)
            fj[a] = imp[3 * (p.k + a)];
        jr_apply(&jr, s->nv, fj, x1->v);
        jr_limit_forces(&jr, fj, h, x1);
        if (rigid_keep_limits(s, &jr, fj) != 0)
            return cdyn_fail(r, CDYN_ENOMEM, "coulomb step: out of memory");
        coulomb_outputs(s, &p, imp, u, h, x1);
        rigid_keep_rows(s, &p, imp2);
    }
    st = cs_finish(s, x0, h, x1, r);
    s->rlast.nd = p.nd;
    if (st == CDYN_OK && rigid_keep(s, tau, h, x0, x1) != 0)
        return cdyn_fail(r, CDYN_ENOMEM, "coulomb step: out of memory");
    return st;
}

const step_scheme cdyn_scheme_coulomb_step = {
    "coulomb-step", 1u << CDYN_BACKEND_FC3D, coulomb_pick, coulomb_create, coulomb_destroy,
    coulomb_advance,
};
