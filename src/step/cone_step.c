/* The convex cone step (Anitescu's relaxation of the velocity-level Coulomb problem): with the
 * matrices at q, the contact impulses p_i = (p_n, p_t, p_o) of the rows taking part solve
 *     minimize 1/2 p'Wp + r'p  subject to  p_i in the friction cone K_mu_i,
 *     W = J M^-1 J',  r = J v_free + (Psi_n / h, 0, 0)_i,  v_free = v + h M^-1 (tau - bias),
 * and v+ = v_free + M^-1 J' p, q+ = q + h G(q) v+ (quaternions renormalized). Its optimality
 * conditions give u = W p + r = J v+ + (Psi_n / h, 0, 0) in the dual cone, u ⊥ p: the exact
 * cone's impulses with the normal velocity condition relaxed to u_n >= mu |u_T| (a sliding body
 * lifts off by mu |u_T| h per step; docs/theory.md). One friction-cone QP per step (cdyn_coneqp,
 * interior point); planar models use two-dimensional cones (p_n, p_t). */
#include "step/step_internal.h"

#include "core/carve.h"
#include "core/memory.h"
#include "core/report.h"
#include "linalg/dense.h"

#include <math.h>
#include <string.h>

typedef struct cone_ws {
    int nd;       /* directions per row: 2 (planar) or 3 */
    int *rows;    /* n_c: the model rows in the problem */
    double *mu;   /* n_c */
    double *L;    /* nv x nv: Cholesky factor of M */
    double *JT;   /* nv x (nd n_c): J' of the rows, then L^-1 J' */
    double *W;    /* (nd n_c)^2 */
    double *r;    /* nd n_c */
    double *p;    /* nd n_c */
    double *vf;   /* nv */
} cone_ws;

static void cone_layout(cdyn_carve *cv, void *base, cone_ws *w, int nv, int nc, int nd)
{
    const size_t m = (size_t)nd * (size_t)nc;
    w->rows = cdyn_carve_ints(cv, base, (size_t)nc);
    w->mu = cdyn_carve_doubles(cv, base, (size_t)nc);
    w->L = cdyn_carve_doubles(cv, base, cdyn_carve_mul(cv, (size_t)nv, (size_t)nv));
    w->JT = cdyn_carve_doubles(cv, base, cdyn_carve_mul(cv, (size_t)nv, m));
    w->W = cdyn_carve_doubles(cv, base, cdyn_carve_mul(cv, m, m));
    w->r = cdyn_carve_doubles(cv, base, m);
    w->p = cdyn_carve_doubles(cv, base, m);
    w->vf = cdyn_carve_doubles(cv, base, (size_t)nv);
}

static cdyn_step_backend cone_pick(const cdyn_stepper *s)
{
    (void)s;
    return CDYN_BACKEND_CONEQP;
}

static cdyn_status cone_create(cdyn_stepper *s, cdyn_report *r)
{
    cone_ws shape;
    const int nd = s->dim == 2 ? 2 : 3;
    cdyn_carve cv = {0, 0};
    (void)cdyn_carve_ptr(&cv, NULL, 1, sizeof(cone_ws));
    cone_layout(&cv, NULL, &shape, s->nv, s->nc, nd);
    if (cv.overflow || (size_t)nd * (size_t)s->nc > 46340)
        return cdyn_fail(r, CDYN_ETOOBIG, "cone step: %d contact rows are too many for the dense "
                         "cone QP", s->nc);
    void *blk = cdyn_mem_alloc(s->opts.allocator, cv.off);
    if (blk == NULL)
        return cdyn_fail(r, CDYN_ENOMEM, "cone step: out of memory");
    cone_ws *w = blk;
    cdyn_carve cv2 = {0, 0};
    (void)cdyn_carve_ptr(&cv2, blk, 1, sizeof(cone_ws));
    cone_layout(&cv2, blk, w, s->nv, s->nc, nd);
    w->nd = nd;
    s->ws = w;
    return CDYN_OK;
}

static void cone_destroy(cdyn_stepper *s)
{
    cdyn_mem_free(s->opts.allocator, s->ws);
    s->ws = NULL;
}

/* The rows in the problem (active in the model's sense) and their friction coefficients. */
static int cone_rows(const cdyn_stepper *s, cone_ws *w)
{
    const int *active = cdyn_data_active(s->data);
    int k = 0;
    for (int i = 0; i < s->nc; i++) {
        if (!active[i])
            continue;
        cdyn_contact c;
        cdyn_pair_info pi;
        cdyn_data_contact(s->data, i, &c);
        cdyn_model_pair_info(s->model, c.pair, &pi);
        w->rows[k] = i;
        w->mu[k] = pi.mu;
        k++;
    }
    return k;
}

/* Forces (impulse / h) per row and modes: FREE when the normal velocity condition u_n (a
 * velocity) exceeds what the normal impulse contributes to it, W_nn p_n (the interior point
 * leaves p_n u_n small, not zero); SLIP when the relative tangential velocity at the end of the
 * step is not zero (above 1e-6 of the velocity scale: the interior point's accuracy), STICK
 * otherwise. */
static void cone_outputs(const cdyn_stepper *s, const cone_ws *w, int k, double h, cdyn_state *x1)
{
    const int nv = s->nv, nc = s->nc, nd = w->nd;
    const double *Jt = cdyn_data_jacobian(s->data, CDYN_DIR_T);
    const double *Jo = cdyn_data_jacobian(s->data, CDYN_DIR_O);
    const int m = nd * k;
    double vscale = 1;
    for (int j = 0; j < nv; j++)
        vscale = fmax(vscale, fabs(x1->v[j]));
    for (int c = 0; c < k; c++) {
        const int i = w->rows[c];
        for (int d = 0; d < nd; d++)
            x1->lambda[3 * i + d] = w->p[c * nd + d] / h;
        const double un = w->r[c * nd], wnn = w->W[(size_t)c * nd * (m + 1)];
        if (wnn * w->p[c * nd] <= un) {
            x1->mode[i] = CDYN_MODE_FREE;
            continue;
        }
        double ut = 0, uo = 0;
        for (int j = 0; j < nv; j++) {
            ut += Jt[i + (size_t)j * nc] * x1->v[j];
            uo += Jo[i + (size_t)j * nc] * x1->v[j];
        }
        x1->mode[i] = hypot(ut, uo) > 1e-6 * vscale ? CDYN_MODE_SLIP : CDYN_MODE_STICK;
    }
}

static cdyn_status cone_advance(cdyn_stepper *s, const double *tau, double h, const cdyn_state *x0,
                                cdyn_state *x1, cdyn_step_report *rep)
{
    cone_ws *w = s->ws;
    const int nv = s->nv, nc = s->nc, nd = w->nd;
    cdyn_report *r = &rep->solver;
    cdyn_status st = cdyn_eval(s->model, s->data, x0->q, x0->v,
                               CDYN_EVAL_MASS | CDYN_EVAL_BIAS | CDYN_EVAL_CONTACTS, r);
    if (st != CDYN_OK)
        return st;
    const double *M = cdyn_data_mass(s->data), *bias = cdyn_data_bias(s->data);
    const double *gap = cdyn_data_gap(s->data);
    const double *J[3] = {cdyn_data_jacobian(s->data, CDYN_DIR_N),
                          cdyn_data_jacobian(s->data, CDYN_DIR_T),
                          cdyn_data_jacobian(s->data, CDYN_DIR_O)};
    memcpy(w->L, M, (size_t)nv * nv * sizeof(double));
    if ((st = cdyn_dense_chol(nv, w->L, nv)) != CDYN_OK)
        return cdyn_fail(r, CDYN_ESINGULAR, "cone step: M(q) is not positive definite");

    /* v_free = v + h M^-1 (tau - bias). */
    for (int j = 0; j < nv; j++)
        w->vf[j] = h * ((tau != NULL ? tau[j] : 0.0) - bias[j]);
    cdyn_dense_chol_solve(nv, w->L, nv, 1, w->vf, nv);
    for (int j = 0; j < nv; j++)
        w->vf[j] += x0->v[j];

    const int k = cone_rows(s, w), m = nd * k;
    rep->nactive = k;
    memset(x1->delta, 0, 3 * (size_t)nc * sizeof(double));
    memset(x1->lambda, 0, 3 * (size_t)nc * sizeof(double));
    for (int i = 0; i < nc; i++)
        x1->mode[i] = CDYN_MODE_FREE;
    memcpy(x1->v, w->vf, (size_t)nv * sizeof(double));
    if (k > 0) {
        /* J' column c*nd + d is row rows[c] of Gamma_d. */
        for (int c = 0; c < k; c++)
            for (int d = 0; d < nd; d++)
                for (int j = 0; j < nv; j++)
                    w->JT[j + (size_t)(c * nd + d) * nv] = J[d][w->rows[c] + (size_t)j * nc];
        for (int c = 0; c < m; c++) {
            double acc = 0;
            for (int j = 0; j < nv; j++)
                acc += w->JT[j + (size_t)c * nv] * w->vf[j];
            w->r[c] = acc;
        }
        for (int c = 0; c < k; c++)
            w->r[c * nd] += gap[w->rows[c]] / h;
        cdyn_dense_chol_lsolve(nv, w->L, nv, m, w->JT, nv); /* Y = L^-1 J' */
        cdyn_dense_gemm(1, 0, m, m, nv, 1.0, w->JT, nv, w->JT, nv, 0.0, w->W, m);

        cdyn_coneqp p = {0};
        p.ncontacts = k;
        p.dim = nd;
        p.mu = w->mu;
        p.H = w->W;
        p.c = w->r;
        cdyn_report qr;
        st = cdyn_coneqp_solve(&p, &s->opts.coneqp, w->p, NULL, NULL, &qr);
        r->iterations += qr.iterations;
        r->residual = qr.residual;
        cdyn_report_method(r, qr.method);
        if (st != CDYN_OK)
            return cdyn_fail(r, st, "cone step: %s", qr.message);
        /* v+ = v_free + M^-1 J' p (J from the data: JT now holds L^-1 J'). */
        for (int j = 0; j < nv; j++) {
            double acc = 0;
            for (int c = 0; c < k; c++)
                for (int d = 0; d < nd; d++)
                    acc += J[d][w->rows[c] + (size_t)j * nc] * w->p[c * nd + d];
            w->vf[j] = acc;
        }
        cdyn_dense_chol_solve(nv, w->L, nv, 1, w->vf, nv);
        for (int j = 0; j < nv; j++)
            x1->v[j] += w->vf[j];
        for (int c = 0; c < k; c++) /* u_n = (W p + r)_n */
            for (int e = 0; e < m; e++)
                w->r[c * nd] += w->W[c * nd + (size_t)e * m] * w->p[e];
        cone_outputs(s, w, k, h, x1);
    }
    /* q+ = q + h G(q) v+; the checks of these calls passed in cdyn_eval above. */
    cdyn_report mr;
    st = cdyn_model_qdot(s->model, x0->q, x1->v, w->vf, &mr);
    if (st != CDYN_OK)
        return cdyn_fail(r, st, "cone step: %s", mr.message);
    for (int j = 0; j < s->nq; j++)
        x1->q[j] = x0->q[j] + h * w->vf[j];
    st = cdyn_model_normalize_q(s->model, x1->q, &mr);
    return st == CDYN_OK ? CDYN_OK : cdyn_fail(r, st, "cone step: %s", mr.message);
}

const step_scheme cdyn_scheme_cone_step = {
    "cone-step", 1u << CDYN_BACKEND_CONEQP, cone_pick, cone_create, cone_destroy, cone_advance,
};
