/* The baumgarte scheme: frictionless contact by Baumgarte-stabilized constraints with Bortoff's
 * per-row state machine FREE / CONTACT / BALLISTIC (docs/theory.md, "Baumgarte contact with a
 * state machine").
 *
 * Between events the modes are fixed and the dynamics are a smooth ODE in (q, v):
 *     qdot = G(q) v,   M vdot + h(q, v) = tau + Gamma_A^T lambda_A,
 *     Gamma_A vdot + (dGamma_A/dt) v = -(alpha1 hdot + alpha0 h + alpha2 h^3)   (rows in CONTACT)
 * with h = Psi_n and hdot = Gamma_n v; every other multiplier is 0. The multipliers come from the
 * Schur complement W lambda_A = b, W = Gamma_A M^-1 Gamma_A^T (Cholesky of M, LU of W; the
 * minimum-norm SVD solution when rows in CONTACT are dependent).
 * Integrator: classical RK4 with the step's own length (a fixed-mode piece is smooth, and RK4 is
 * exact for the free flight's constant acceleration; tests/test_step_baumgarte.c checks the
 * fourth order in contact). Events: at the end of each RK4 piece the transition conditions are
 * tested; when one holds, the instant is located by bisection on the length of a single RK4 step
 * from the piece's start (to options.event_tol), the state there is taken, the modes switch, and
 * the integration continues from there to t + h.
 * Joint limits are rows of the same machine after the contact rows (nr = nc + nl rows): row nc + l
 * has the gap h = s (q_j - bound) of limit row l (limit_rows.h), Jacobian s e_j, no dGamma/dt,
 * and the gains of the joint's limit_solref (alpha = (1/(tau zeta)^2, 2/tau, 0)).
 * Joint damping D v (part of h(q, v)) is split off (balanced Strang splitting): a step is the
 * exact flow of M vdot = -D v + c at q fixed over h/2, the RK4 pieces of the rest (force f - c)
 * with their events over h, and that flow over h/2 again (damp_half), c = f(q0, v0) the undamped
 * force at the step's start. So damping sets no limit on h, the split is second order, and in
 * the overdamped limit v relaxes to the quasi-static balance D v = c. The modes and the reported
 * multipliers are the unsplit ODE's. */
#include "step/step_internal.h"

#include "core/carve.h"
#include "core/memory.h"
#include "core/report.h"
#include "linalg/dense.h"
#include "linalg/svd.h"

#include <math.h>
#include <string.h>

/* W with a reciprocal condition number below this has (numerically) dependent rows in CONTACT,
 * e.g. a ball touching the shared end of two wall segments, or a pair declared twice: then the
 * multipliers are the minimum-norm least-squares solution with singular values below this
 * fraction of the largest dropped (the redundant constraints share the force). */
#define BMG_RANK_TOL 1e-8

typedef struct bmg_ws {
    int nq, nv, nc;
    int nr;               /* rows: the nc contact rows, then the joint-limit rows */
    const lim_rows *lim;  /* the stepper's limit rows */
    /* Every per-row array below ("nc") holds nr entries. */
    double *alpha; /* 3 nc: (alpha0, alpha1, alpha2) of each row's pair (limit rows: solref) */
    double *tau;   /* nv: the step's generalized forces (zeros for NULL) */
    double *damp;  /* nv: joint damping per dof (cdyn_model_joint_damping) */
    int ndamp;     /* nd: dofs with damping > 0 */
    int *didx;     /* nd: the damped dofs */
    double *sqd;   /* nd: sqrt(d) of each */
    double *F;     /* nv x nd: L^-1 P D^1/2, then projected off the rows in CONTACT */
    double *X;     /* nc x nd: W^+ Y^T F */
    double *C, *CU, *CVT, *cs; /* nd x nd: F^T F and its SVD */
    double *cwork; /* lc doubles */
    int lc;
    double *dy, *dt, *dc; /* nd */
    double *g;     /* nv */
    double *cf;    /* nv: c, the undamped force at the step's start, moved from the undamped part
                    * to the damping part for the step (balanced splitting) */
    double *mcc;   /* nv: M_c c */
    double *bd;    /* nc: the damping's share of the multipliers */
    double *q, *v; /* the state at the start of the current piece */
    int *mode;     /* nc */
    int *armed;    /* nc: BALLISTIC -> CONTACT may fire (its condition was false at the start) */
    int *pred, *hpred;   /* nc: transition conditions at the trial point / at the bracket's end */
    double *kq, *kv;     /* 4 nq, 4 nv: RK4 stages (stage 0 at the piece's start) */
    double *sq, *sv;     /* a stage point */
    double *tq, *tv;     /* a trial end point */
    double *hq, *hv;     /* the end of the bisection bracket */
    /* outputs of accel() at the last point it was called */
    double *vdot;          /* nv */
    double *lam;           /* nc: normal multipliers (0 outside CONTACT) */
    double *gap, *gapdot;  /* nc: h = Psi_n, hdot = Gamma_n v */
    double *gap0, *gapdot0; /* nc: the same at the start of the current piece */
    double resid;          /* max |constraint residual| over rows in CONTACT */
    int nactive;           /* rows in CONTACT */
    int solves;            /* linear solves (accel calls) during this advance */
    /* linear algebra */
    double *L;     /* nv x nv: Cholesky factor of M */
    double *Y;     /* nv x nc: Gamma_A^T, then L^-1 Gamma_A^T */
    double *W;     /* nc x nc */
    double *W2;    /* nc x nc: a copy of W for the SVD */
    double *U, *VT, *sing; /* nc x nc, nc x nc, nc: SVD of W */
    double *svwork;      /* lsvd doubles */
    int lsvd;
    double *b;     /* nc */
    double *z;     /* nv */
    double *work;  /* 4 nc (dgecon) */
    int *rows;     /* nc: the rows in CONTACT */
    int *ipiv;     /* nc */
    int *iwork;    /* nc */
    int wsvd;      /* the last accel() solved with W's SVD (dependent rows), not its LU */
    cdyn_report mrep; /* the model layer's report (it clears what it is given) */
} bmg_ws;

static void ws_layout(cdyn_carve *cv, void *base, bmg_ws *w)
{
    const size_t nq = (size_t)w->nq, nv = (size_t)w->nv, nc = (size_t)w->nr;
    (void)cdyn_carve_ptr(cv, base, 1, sizeof(bmg_ws));
    w->alpha = cdyn_carve_doubles(cv, base, cdyn_carve_mul(cv, 3, nc));
    w->tau = cdyn_carve_doubles(cv, base, nv);
    w->damp = cdyn_carve_doubles(cv, base, nv);
    const size_t nd = (size_t)w->ndamp;
    w->didx = cdyn_carve_ints(cv, base, nd);
    w->sqd = cdyn_carve_doubles(cv, base, nd);
    w->F = cdyn_carve_doubles(cv, base, cdyn_carve_mul(cv, nv, nd));
    w->X = cdyn_carve_doubles(cv, base, cdyn_carve_mul(cv, nc, nd));
    w->C = cdyn_carve_doubles(cv, base, cdyn_carve_mul(cv, nd, nd));
    w->CU = cdyn_carve_doubles(cv, base, cdyn_carve_mul(cv, nd, nd));
    w->CVT = cdyn_carve_doubles(cv, base, cdyn_carve_mul(cv, nd, nd));
    w->cs = cdyn_carve_doubles(cv, base, nd);
    w->cwork = cdyn_carve_doubles(cv, base, (size_t)w->lc);
    w->dy = cdyn_carve_doubles(cv, base, nd);
    w->dt = cdyn_carve_doubles(cv, base, nd);
    w->dc = cdyn_carve_doubles(cv, base, nd);
    w->g = cdyn_carve_doubles(cv, base, nv);
    w->cf = cdyn_carve_doubles(cv, base, nv);
    w->mcc = cdyn_carve_doubles(cv, base, nv);
    w->bd = cdyn_carve_doubles(cv, base, nc);
    w->q = cdyn_carve_doubles(cv, base, nq);
    w->v = cdyn_carve_doubles(cv, base, nv);
    w->mode = cdyn_carve_ints(cv, base, nc);
    w->armed = cdyn_carve_ints(cv, base, nc);
    w->pred = cdyn_carve_ints(cv, base, nc);
    w->hpred = cdyn_carve_ints(cv, base, nc);
    w->kq = cdyn_carve_doubles(cv, base, cdyn_carve_mul(cv, 4, nq));
    w->kv = cdyn_carve_doubles(cv, base, cdyn_carve_mul(cv, 4, nv));
    w->sq = cdyn_carve_doubles(cv, base, nq);
    w->sv = cdyn_carve_doubles(cv, base, nv);
    w->tq = cdyn_carve_doubles(cv, base, nq);
    w->tv = cdyn_carve_doubles(cv, base, nv);
    w->hq = cdyn_carve_doubles(cv, base, nq);
    w->hv = cdyn_carve_doubles(cv, base, nv);
    w->vdot = cdyn_carve_doubles(cv, base, nv);
    w->lam = cdyn_carve_doubles(cv, base, nc);
    w->gap = cdyn_carve_doubles(cv, base, nc);
    w->gapdot = cdyn_carve_doubles(cv, base, nc);
    w->gap0 = cdyn_carve_doubles(cv, base, nc);
    w->gapdot0 = cdyn_carve_doubles(cv, base, nc);
    w->L = cdyn_carve_doubles(cv, base, cdyn_carve_mul(cv, nv, nv));
    w->Y = cdyn_carve_doubles(cv, base, cdyn_carve_mul(cv, nv, nc));
    w->W = cdyn_carve_doubles(cv, base, cdyn_carve_mul(cv, nc, nc));
    w->W2 = cdyn_carve_doubles(cv, base, cdyn_carve_mul(cv, nc, nc));
    w->U = cdyn_carve_doubles(cv, base, cdyn_carve_mul(cv, nc, nc));
    w->VT = cdyn_carve_doubles(cv, base, cdyn_carve_mul(cv, nc, nc));
    w->sing = cdyn_carve_doubles(cv, base, nc);
    w->svwork = cdyn_carve_doubles(cv, base, (size_t)w->lsvd);
    w->b = cdyn_carve_doubles(cv, base, nc);
    w->z = cdyn_carve_doubles(cv, base, nv);
    w->work = cdyn_carve_doubles(cv, base, cdyn_carve_mul(cv, 4, nc));
    w->rows = cdyn_carve_ints(cv, base, nc);
    w->ipiv = cdyn_carve_ints(cv, base, nc);
    w->iwork = cdyn_carve_ints(cv, base, nc);
}

static cdyn_step_backend baumgarte_pick(const cdyn_stepper *s)
{
    (void)s;
    return CDYN_BACKEND_DIRECT;
}

static cdyn_status baumgarte_create(cdyn_stepper *s, cdyn_report *r)
{
    bmg_ws shape = {0};
    shape.nq = s->nq;
    shape.nv = s->nv;
    shape.nc = s->nc;
    shape.nr = s->nc + s->lim.n;
    shape.lim = &s->lim;
    shape.lsvd = shape.nr > 0 ? cdyn_svd_full_lwork(shape.nr, shape.nr) : 0;
    double *d = cdyn_mem_alloc(s->opts.allocator, (size_t)(s->nv > 0 ? s->nv : 1) * sizeof(double));
    if (d == NULL)
        return cdyn_fail(r, CDYN_ENOMEM, "baumgarte: out of memory");
    shape.ndamp = cdyn_model_joint_damping(s->model, d);
    cdyn_mem_free(s->opts.allocator, d);
    shape.lc = shape.ndamp > 0 ? cdyn_svd_full_lwork(shape.ndamp, shape.ndamp) : 0;
    if (shape.lsvd < 0 || shape.lc < 0)
        return cdyn_fail(r, CDYN_ENOMEM, "baumgarte: SVD workspace query failed");
    cdyn_carve cv = {0, 0};
    ws_layout(&cv, NULL, &shape);
    if (cv.overflow)
        return cdyn_fail(r, CDYN_ENOMEM, "baumgarte: workspace size overflow");
    bmg_ws *w = cdyn_mem_alloc(s->opts.allocator, cv.off);
    if (w == NULL)
        return cdyn_fail(r, CDYN_ENOMEM, "baumgarte: out of memory");
    memset(w, 0, cv.off);
    *w = shape;
    cdyn_carve cv2 = {0, 0};
    ws_layout(&cv2, w, w);
    /* The builder has checked the alphas (finite, >= 0); each row takes its pair's. */
    const int npair = cdyn_model_npair(s->model);
    for (int p = 0; p < npair; ++p) {
        cdyn_pair_info pi;
        cdyn_model_pair_info(s->model, p, &pi);
        for (int i = pi.row; i < pi.row + pi.nrows; ++i)
            memcpy(w->alpha + 3 * i, pi.baumgarte, sizeof pi.baumgarte);
    }
    for (int l = 0; l < s->lim.n; ++l) { /* the contacts' solref defaults (contact_defaults.c) */
        double *a = w->alpha + 3 * (s->nc + l);
        const double tz = s->lim.tau[l] * s->lim.zeta[l];
        a[0] = 1.0 / (tz * tz);
        a[1] = 2.0 / s->lim.tau[l];
        a[2] = 0.0;
    }
    (void)cdyn_model_joint_damping(s->model, w->damp);
    for (int j = 0, k = 0; j < s->nv; ++j)
        if (w->damp[j] > 0.0) {
            w->didx[k] = j;
            w->sqd[k++] = sqrt(w->damp[j]);
        }
    s->ws = w;
    return CDYN_OK;
}

static void baumgarte_destroy(cdyn_stepper *s)
{
    cdyn_mem_free(s->opts.allocator, s->ws);
    s->ws = NULL;
}

static cdyn_status non_finite(cdyn_report *r)
{
    return cdyn_fail(r, CDYN_ENUMERIC,
                     "baumgarte: the state became non-finite (h too long for the contact's "
                     "alpha?)");
}

/* A model-layer failure, told in the step's report without clearing its counters. */
static cdyn_status model_fail(cdyn_report *r, cdyn_status st, const cdyn_report *mrep)
{
    return cdyn_fail(r, st, "baumgarte: %s", mrep->message);
}

/* Entry (i, j) of the rows' Jacobian: Gamma_n (dense, nc rows) for contact rows, s e_j for
 * limit rows. */
static double jrow(const bmg_ws *w, const double *Jn, int i, int j)
{
    if (i < w->nc)
        return Jn[i + (size_t)j * (size_t)w->nc];
    const int l = i - w->nc;
    return j == w->lim->dof[l] ? w->lim->sign[l] : 0.0;
}

static double row_dot(const bmg_ws *w, const double *Jn, int i, const double *x)
{
    if (i >= w->nc)
        return w->lim->sign[i - w->nc] * x[w->lim->dof[i - w->nc]];
    double sum = 0.0;
    for (int j = 0; j < w->nv; ++j)
        sum += Jn[i + (size_t)j * (size_t)w->nc] * x[j];
    return sum;
}

/* alpha1 hdot + alpha0 h + alpha2 h^3 of row i at the last evaluation. */
static double stabilization(const bmg_ws *w, int i)
{
    const double *a = w->alpha + 3 * i, h = w->gap[i];
    return a[1] * w->gapdot[i] + a[0] * h + a[2] * h * h * h;
}

/* b := W^-1 b with the factors of the last accel(): its LU or, for dependent rows, W^+ b
 * truncated at BMG_RANK_TOL with its SVD. Uses w->work as scratch. */
static void w_solve(bmg_ws *w, int na, double *b)
{
    if (!w->wsvd) {
        cdyn_dense_lu_solve(0, na, w->W, na, w->ipiv, 1, b, na);
        return;
    }
    double *y = w->work; /* U^T b, scaled */
    for (int k = 0; k < na; ++k) {
        double sum = 0.0;
        for (int i = 0; i < na; ++i)
            sum += w->U[i + (size_t)k * (size_t)na] * b[i];
        y[k] = w->sing[k] > BMG_RANK_TOL * w->sing[0] ? sum / w->sing[k] : 0.0;
    }
    cdyn_dense_gemv_t(na, na, 1.0, w->VT, na, y, 0.0, b);
}

/* Accelerations and multipliers at (q, v) with the modes `mode`; also the gaps and their rates
 * of every row. One cdyn_eval, one Cholesky of M and, with rows in CONTACT, one LU (or SVD)
 * of W. */
static cdyn_status accel(cdyn_stepper *s, const double *q, const double *v, const int *mode,
                         cdyn_report *r)
{
    bmg_ws *w = s->ws;
    const int nv = w->nv, nc = w->nc, nr = w->nr;
    int na = 0;
    for (int i = 0; i < nr; ++i)
        if (mode[i] == CDYN_MODE_CONTACT)
            w->rows[na++] = i;
    unsigned flags = CDYN_EVAL_MASS | CDYN_EVAL_BIAS | CDYN_EVAL_CONTACTS;
    if (na > 0 && w->rows[0] < nc)
        flags |= CDYN_EVAL_CONTACT_DOT;
    cdyn_status st = cdyn_eval(s->model, s->data, q, v, flags, &w->mrep);
    if (st != CDYN_OK)
        return model_fail(r, st, &w->mrep);
    w->solves++;
    w->nactive = na;
    w->resid = 0.0;
    const cdyn_data *d = s->data;
    const double *Jn = cdyn_data_jacobian(d, CDYN_DIR_N);
    if (nc > 0)
        memcpy(w->gap, cdyn_data_gap(d), (size_t)nc * sizeof(double));
    for (int l = 0; l < w->lim->n; ++l)
        w->gap[nc + l] = lim_gap(w->lim, l, q);
    for (int i = 0; i < nr; ++i) {
        w->gapdot[i] = row_dot(w, Jn, i, v);
        w->lam[i] = 0.0;
    }

    memcpy(w->L, cdyn_data_mass(d), (size_t)nv * (size_t)nv * sizeof(double));
    st = cdyn_dense_chol(nv, w->L, nv);
    if (st == CDYN_EINVAL)
        return non_finite(r);
    if (st != CDYN_OK)
        return cdyn_fail(r, CDYN_ESINGULAR, "baumgarte: the mass matrix is not positive definite");
    /* the undamped part's force: the bias holds D v, which the damping half steps take instead,
     * with c (0 until the step's start has been settled) */
    const double *bias = cdyn_data_bias(d);
    for (int j = 0; j < nv; ++j)
        w->vdot[j] = w->tau[j] - bias[j];
    if (w->ndamp > 0)
        for (int j = 0; j < nv; ++j)
            w->vdot[j] += w->damp[j] * v[j] - w->cf[j];
    if (na == 0) {
        cdyn_dense_chol_solve(nv, w->L, nv, 1, w->vdot, nv);
        return cdyn_dense_all_finite(nv, w->vdot) ? CDYN_OK : non_finite(r);
    }

    /* W lambda = -(Gamma_A M^-1 f + (dGamma/dt) v + stabilization), with Y = L^-1 Gamma_A^T,
     * z = L^-1 f: W = Y^T Y and Gamma_A M^-1 f = Y^T z. */
    const double *jd = cdyn_data_jacobian_dot_v(d, CDYN_DIR_N);
    for (int k = 0; k < na; ++k)
        for (int j = 0; j < nv; ++j)
            w->Y[j + (size_t)k * (size_t)nv] = jrow(w, Jn, w->rows[k], j);
    cdyn_dense_chol_lsolve(nv, w->L, nv, na, w->Y, nv);
    memcpy(w->z, w->vdot, (size_t)nv * sizeof(double));
    cdyn_dense_chol_lsolve(nv, w->L, nv, 1, w->z, nv);
    cdyn_dense_gemm(1, 0, na, na, nv, 1.0, w->Y, nv, w->Y, nv, 0.0, w->W, na);
    cdyn_dense_gemv_t(nv, na, -1.0, w->Y, nv, w->z, 0.0, w->b);
    for (int k = 0; k < na; ++k)
        w->b[k] -= (w->rows[k] < nc ? jd[w->rows[k]] : 0.0) + stabilization(w, w->rows[k]);
    memcpy(w->W2, w->W, (size_t)na * (size_t)na * sizeof(double));
    const double wnorm = cdyn_dense_norm1(na, na, w->W, na);
    st = cdyn_dense_lu(na, w->W, na, w->ipiv);
    if (st == CDYN_EINVAL)
        return non_finite(r);
    w->wsvd = !(st == CDYN_OK &&
                cdyn_dense_lu_rcond(na, w->W, na, wnorm, w->work, w->iwork) >= BMG_RANK_TOL);
    if (w->wsvd && cdyn_svd_full(na, na, w->W2, na, w->sing, w->U, na, w->VT, na, w->svwork,
                                 w->lsvd) != CDYN_OK)
        return cdyn_fail(r, CDYN_ENUMERIC, "baumgarte: the SVD of the contact matrix failed");
    w_solve(w, na, w->b);

    /* vdot = M^-1 (f + Gamma_A^T lambda_A). */
    for (int k = 0; k < na; ++k) {
        const int i = w->rows[k];
        w->lam[i] = w->b[k];
        for (int j = 0; j < nv; ++j)
            w->vdot[j] += jrow(w, Jn, i, j) * w->b[k];
    }
    cdyn_dense_chol_solve(nv, w->L, nv, 1, w->vdot, nv);
    if (w->ndamp > 0) { /* the modes and the report see the ODE's multiplier: plus W^-1 Gamma_A
                         * M^-1 (D v - c), the damping part's share (the piece moves without it) */
        for (int j = 0; j < nv; ++j)
            w->z[j] = w->damp[j] * v[j] - w->cf[j];
        cdyn_dense_chol_lsolve(nv, w->L, nv, 1, w->z, nv);
        cdyn_dense_gemv_t(nv, na, 1.0, w->Y, nv, w->z, 0.0, w->bd);
        w_solve(w, na, w->bd);
        for (int k = 0; k < na; ++k)
            w->lam[w->rows[k]] += w->bd[k];
    }
    if (!cdyn_dense_all_finite(nv, w->vdot) || !cdyn_dense_all_finite(nr, w->lam))
        return non_finite(r);
    for (int k = 0; k < na; ++k) {
        const int i = w->rows[k];
        const double res =
            row_dot(w, Jn, i, w->vdot) + (i < nc ? jd[i] : 0.0) + stabilization(w, i);
        w->resid = fmax(w->resid, fabs(res));
    }
    return CDYN_OK;
}

/* The transition conditions of Bortoff's state machine at the last evaluation; pred[i] = 1 when
 * row i must switch. Returns the number of rows that must. */
static int transitions(const bmg_ws *w, const int *mode, int *pred)
{
    int n = 0;
    for (int i = 0; i < w->nr; ++i) {
        const double h = w->gap[i];
        switch (mode[i]) {
        case CDYN_MODE_FREE: pred[i] = h <= 0.0; break;
        case CDYN_MODE_CONTACT: pred[i] = w->lam[i] < 0.0; break;
        default: /* BALLISTIC */
            pred[i] = h > 0.0 || (w->armed[i] && w->gapdot[i] < 0.0);
            break;
        }
        n += pred[i];
    }
    return n;
}

/* The mode a row switches to when its condition holds. */
static int next_mode(const bmg_ws *w, int i, int mode)
{
    switch (mode) {
    case CDYN_MODE_FREE: return CDYN_MODE_CONTACT;
    case CDYN_MODE_CONTACT: return CDYN_MODE_BALLISTIC;
    default: return w->gap[i] > 0.0 ? CDYN_MODE_FREE : CDYN_MODE_CONTACT;
    }
}

/* Settle the modes at a point: FREE rows with h <= 0 enter CONTACT, CONTACT rows with lambda < 0
 * become BALLISTIC, BALLISTIC rows with h > 0 become FREE, until none changes (each row changes
 * at most twice at a fixed q, so this ends). BALLISTIC -> CONTACT fires only on the edge of its
 * condition (as in the paper's Modelica code), so it is armed here only when the condition is
 * false. Leaves accel() evaluated at (q, v) with the settled modes. */
static cdyn_status settle(cdyn_stepper *s, const double *q, const double *v, int *events,
                          cdyn_report *r)
{
    bmg_ws *w = s->ws;
    for (;;) {
        cdyn_status st = accel(s, q, v, w->mode, r);
        if (st != CDYN_OK)
            return st;
        int changed = 0;
        for (int i = 0; i < w->nr; ++i) {
            const int m = w->mode[i];
            int to = m;
            if (m == CDYN_MODE_FREE && w->gap[i] <= 0.0)
                to = CDYN_MODE_CONTACT;
            else if (m == CDYN_MODE_CONTACT && w->lam[i] < 0.0)
                to = CDYN_MODE_BALLISTIC;
            else if (m == CDYN_MODE_BALLISTIC && w->gap[i] > 0.0)
                to = CDYN_MODE_FREE;
            if (to != m) {
                w->mode[i] = to;
                ++changed;
            }
        }
        *events += changed;
        if (!changed)
            break;
    }
    for (int i = 0; i < w->nr; ++i)
        w->armed[i] = !(w->gap[i] <= 0.0 && w->gapdot[i] < 0.0);
    return CDYN_OK;
}

/* One RK4 step of length dt from (w->q, w->v) with the current modes into (oq, ov); stage 0
 * (w->kq, w->kv) must hold the derivative at the start. Ends with accel() at (oq, ov). */
static cdyn_status rk4(cdyn_stepper *s, double dt, double *oq, double *ov, cdyn_report *r)
{
    bmg_ws *w = s->ws;
    const int nq = w->nq, nv = w->nv;
    static const double c[3] = {0.5, 0.5, 1.0};
    for (int k = 1; k < 4; ++k) {
        const double *pq = w->kq + (size_t)(k - 1) * (size_t)nq;
        const double *pv = w->kv + (size_t)(k - 1) * (size_t)nv;
        for (int j = 0; j < nq; ++j)
            w->sq[j] = w->q[j] + c[k - 1] * dt * pq[j];
        for (int j = 0; j < nv; ++j)
            w->sv[j] = w->v[j] + c[k - 1] * dt * pv[j];
        if (!cdyn_dense_all_finite(nq, w->sq) || !cdyn_dense_all_finite(nv, w->sv))
            return non_finite(r);
        cdyn_status st = accel(s, w->sq, w->sv, w->mode, r);
        if (st != CDYN_OK)
            return st;
        st = cdyn_model_qdot(s->model, w->sq, w->sv, w->kq + (size_t)k * (size_t)nq, &w->mrep);
        if (st != CDYN_OK)
            return model_fail(r, st, &w->mrep);
        memcpy(w->kv + (size_t)k * (size_t)nv, w->vdot, (size_t)nv * sizeof(double));
    }
    const double *kq = w->kq, *kv = w->kv;
    for (int j = 0; j < nq; ++j)
        oq[j] = w->q[j] + dt / 6.0 *
                              (kq[j] + 2.0 * kq[nq + j] + 2.0 * kq[2 * nq + j] + kq[3 * nq + j]);
    for (int j = 0; j < nv; ++j)
        ov[j] = w->v[j] + dt / 6.0 *
                              (kv[j] + 2.0 * kv[nv + j] + 2.0 * kv[2 * nv + j] + kv[3 * nv + j]);
    if (!cdyn_dense_all_finite(nq, oq) || !cdyn_dense_all_finite(nv, ov))
        return non_finite(r);
    return accel(s, oq, ov, w->mode, r);
}

/* Stage 0 of the next piece from the last accel() at (w->q, w->v); keeps the gaps there. */
static cdyn_status start_piece(cdyn_stepper *s, cdyn_report *r)
{
    bmg_ws *w = s->ws;
    if (w->nr > 0) {
        memcpy(w->gap0, w->gap, (size_t)w->nr * sizeof(double));
        memcpy(w->gapdot0, w->gapdot, (size_t)w->nr * sizeof(double));
    }
    memcpy(w->kv, w->vdot, (size_t)w->nv * sizeof(double));
    const cdyn_status st = cdyn_model_qdot(s->model, w->q, w->v, w->kq, &w->mrep);
    return st == CDYN_OK ? CDYN_OK : model_fail(r, st, &w->mrep);
}

/* The least value over [0, dt] of the cubic Hermite interpolant of a gap with values h0, h1 and
 * rates d0, d1 at the ends of a piece: the gap along the piece to O(dt^4), so that a penetration
 * that comes and goes inside one piece is seen. */
static double hermite_min(double h0, double d0, double h1, double d1, double dt)
{
    const double m0 = d0 * dt, m1 = d1 * dt;
    /* H(s) = h0 + m0 s + c2 s^2 + c3 s^3 on s in [0, 1] */
    const double c2 = 3.0 * (h1 - h0) - 2.0 * m0 - m1, c3 = 2.0 * (h0 - h1) + m0 + m1;
    double lo = fmin(h0, h1);
    /* H'(s) = m0 + 2 c2 s + 3 c3 s^2 = 0 */
    double roots[2];
    int nr = 0;
    if (c3 != 0.0) {
        const double disc = c2 * c2 - 3.0 * c3 * m0;
        if (disc >= 0.0) {
            const double sq = sqrt(disc);
            roots[nr++] = (-c2 + sq) / (3.0 * c3);
            roots[nr++] = (-c2 - sq) / (3.0 * c3);
        }
    } else if (c2 != 0.0) {
        roots[nr++] = -m0 / (2.0 * c2);
    }
    for (int k = 0; k < nr; ++k)
        if (roots[k] > 0.0 && roots[k] < 1.0)
            lo = fmin(lo, h0 + roots[k] * (m0 + roots[k] * (c2 + roots[k] * c3)));
    return lo;
}

/* After a piece of length dt from the gaps kept by start_piece to the last accel(): the step
 * fails when a row went deeper than options.max_penetration (docs/api.md, "Baumgarte"). */
static cdyn_status check_depth(const cdyn_stepper *s, double t, double dt, cdyn_report *r)
{
    const bmg_ws *w = s->ws;
    const double bound = s->opts.max_penetration;
    for (int i = 0; i < w->nr; ++i) {
        const double d = -hermite_min(w->gap0[i], w->gapdot0[i], w->gap[i], w->gapdot[i], dt);
        if (d > bound && i >= w->nc) {
            int body = 0, upper = 0;
            cdyn_model_limit_row(s->model, i - w->nc, &body, &upper);
            return cdyn_fail(r, CDYN_EPENETRATION,
                             "baumgarte: the %s limit of body %d was passed by %.3g (rad or m) "
                             "between t = %.9g and %.9g s, beyond max_penetration = %g (gains "
                             "alpha0 %g, alpha1 %g from its limit_solref)",
                             upper ? "upper" : "lower", body, d, t, t + dt, bound,
                             w->alpha[3 * i], w->alpha[3 * i + 1]);
        }
        if (d > bound) {
            cdyn_contact ct;
            cdyn_data_contact(s->data, i, &ct);
            return cdyn_fail(r, CDYN_EPENETRATION,
                             "baumgarte: contact row %d (pair %d) went %.3g m deep between t = "
                             "%.9g and %.9g s, beyond max_penetration = %g m (gains alpha0 %g, "
                             "alpha1 %g, alpha2 %g: too weak for the impact, or zero)",
                             i, ct.pair, d, t, t + dt, bound, w->alpha[3 * i],
                             w->alpha[3 * i + 1], w->alpha[3 * i + 2]);
        }
    }
    return CDYN_OK;
}

/* x := Mc x = M^-1 (x + Gamma_A^T mu), mu = -W^+ Y^T L^-1 x, with the factors of the last
 * accel(): the response to a force with the rows in CONTACT held (Mc = M^-1 - M^-1 Gamma_A^T
 * W^+ Gamma_A M^-1, symmetric positive semidefinite). Uses w->z and w->bd. */
static void mc_apply(bmg_ws *w, const double *Jn, double *x)
{
    const int nv = w->nv, na = w->nactive;
    if (na > 0) {
        memcpy(w->z, x, (size_t)nv * sizeof(double));
        cdyn_dense_chol_lsolve(nv, w->L, nv, 1, w->z, nv);
        cdyn_dense_gemv_t(nv, na, -1.0, w->Y, nv, w->z, 0.0, w->bd);
        w_solve(w, na, w->bd);
        for (int k = 0; k < na; ++k)
            for (int j = 0; j < nv; ++j)
                x[j] += jrow(w, Jn, w->rows[k], j) * w->bd[k];
    }
    cdyn_dense_chol_solve(nv, w->L, nv, 1, x, nv);
}

/* (x + expm1(-x)) / x^2 for x >= 0: its series sum_k (-x)^k / (k + 2)! below 1/2, where the
 * difference would cancel. */
static double psi2(double x)
{
    if (x >= 0.5)
        return (x + expm1(-x)) / (x * x);
    double term = 0.5, sum = 0.5;
    for (int k = 1; k < 24; ++k) {
        term *= -x / (k + 2);
        sum += term;
    }
    return sum;
}

/* The damping half step: the exact flow over dt of the damping part of the split vector field at
 * the point of the last accel() (q fixed, so M, Gamma_A and D are constant), with the step's
 * force c (w->cf, balanced splitting: the undamped part's RK4 pieces take f - c):
 *     M vdot = -D v + c + Gamma_A^T mu,  Gamma_A vdot = 0       (the rows in CONTACT),
 * i.e. vdot = -K v + Mc c with K = Mc D. The rows in CONTACT keep their rate Gamma_A v (a half
 * step creates no approach velocity into a closed contact or stop); with c = 0 and that rate 0,
 * v^T M v never grows, and the flow is bounded uniformly in dt otherwise. With D = P Dd P^T
 * (P the nd damped dofs), A = Mc P Dd^1/2, B = Dd^1/2 P^T, exp(-t A B) = I + A phi(B A) B and
 * its integral t I + A Psi(B A) B (phi(x) = expm1(-t x) / x, Psi(x) = -t^2 psi2(t x)):
 *     v+ = v + t Mc c + A V (phi(Lambda) V^T B v + Psi(Lambda) V^T B Mc c),
 * V Lambda V^T = C = B A = F^T F, F = Pi L^-1 P Dd^1/2 (Pi projects off range(Y), Y = L^-1
 * Gamma_A^T): an nd x nd eigenproblem (the SVD of the PSD C). Exact at any dt, so no stability
 * limit; as the damping dominates, v tends to the balance of D v and c, the quasi-static motion
 * (docs/theory.md, "Joint damping"). Then the rows' modes are settled at the new velocity, an
 * armed BALLISTIC row that now approaches entering CONTACT (its edge; settle would disarm it),
 * and accel() is left evaluated there. */
static cdyn_status damp_half(cdyn_stepper *s, double dt, int *events, cdyn_report *r)
{
    bmg_ws *w = s->ws;
    const int nv = w->nv, nd = w->ndamp, na = w->nactive;
    const double *Jn = cdyn_data_jacobian(s->data, CDYN_DIR_N);
    /* F = L^-1 P Dd^1/2, then F - Y W^+ Y^T F */
    memset(w->F, 0, (size_t)nv * (size_t)nd * sizeof(double));
    for (int k = 0; k < nd; ++k)
        w->F[w->didx[k] + (size_t)k * (size_t)nv] = w->sqd[k];
    cdyn_dense_chol_lsolve(nv, w->L, nv, nd, w->F, nv);
    if (na > 0) {
        cdyn_dense_gemm(1, 0, na, nd, nv, 1.0, w->Y, nv, w->F, nv, 0.0, w->X, na);
        for (int k = 0; k < nd; ++k)
            w_solve(w, na, w->X + (size_t)k * (size_t)na);
        cdyn_dense_gemm(0, 0, nv, nd, na, -1.0, w->Y, nv, w->X, na, 1.0, w->F, nv);
    }
    cdyn_dense_gemm(1, 0, nd, nd, nv, 1.0, w->F, nv, w->F, nv, 0.0, w->C, nd);
    if (!cdyn_dense_all_finite(nd * nd, w->C))
        return non_finite(r);
    if (cdyn_svd_full(nd, nd, w->C, nd, w->cs, w->CU, nd, w->CVT, nd, w->cwork, w->lc) != CDYN_OK)
        return cdyn_fail(r, CDYN_ENUMERIC, "baumgarte: the SVD of the damping matrix failed");
    /* dy = V (phi(Lambda) V^T B v + Psi(Lambda) V^T B Mc c) (C is PSD: its right singular
     * vectors are its eigenvectors, its singular values its eigenvalues) */
    memcpy(w->mcc, w->cf, (size_t)nv * sizeof(double));
    mc_apply(w, Jn, w->mcc);
    for (int k = 0; k < nd; ++k) {
        w->dy[k] = w->sqd[k] * w->v[w->didx[k]];
        w->g[k] = w->sqd[k] * w->mcc[w->didx[k]]; /* (g as nd scratch) */
    }
    cdyn_dense_gemv(nd, nd, 1.0, w->CVT, nd, w->dy, 0.0, w->dt);
    cdyn_dense_gemv(nd, nd, 1.0, w->CVT, nd, w->g, 0.0, w->dc);
    for (int k = 0; k < nd; ++k) {
        const double lam = w->cs[k];
        w->dt[k] = w->dt[k] * (lam > 0.0 ? expm1(-dt * lam) / lam : -dt) -
                   w->dc[k] * dt * dt * psi2(dt * lam);
    }
    cdyn_dense_gemv_t(nd, nd, 1.0, w->CVT, nd, w->dt, 0.0, w->dy);
    /* v += t Mc c + Mc g with g = P Dd^1/2 dy */
    memset(w->g, 0, (size_t)nv * sizeof(double));
    for (int k = 0; k < nd; ++k)
        w->g[w->didx[k]] = w->sqd[k] * w->dy[k];
    mc_apply(w, Jn, w->g);
    for (int j = 0; j < nv; ++j)
        w->v[j] += dt * w->mcc[j] + w->g[j];
    if (!cdyn_dense_all_finite(nv, w->v))
        return non_finite(r);
    for (int i = 0; i < w->nr; ++i)
        if (w->mode[i] == CDYN_MODE_BALLISTIC && w->armed[i] && row_dot(w, Jn, i, w->v) < 0.0) {
            w->mode[i] = CDYN_MODE_CONTACT;
            ++*events;
        }
    return settle(s, w->q, w->v, events, r);
}

static cdyn_status baumgarte_advance(cdyn_stepper *s, const double *tau, double h,
                                     const cdyn_state *x0, cdyn_state *x1, cdyn_step_report *rep)
{
    bmg_ws *w = s->ws;
    cdyn_report *r = &rep->solver;
    const int nq = w->nq, nv = w->nv, nc = w->nc, nr = w->nr;
    const double tol = s->opts.event_tol;
    const int max_events = 64 + 8 * nr; /* located per step; more means chatter */
    cdyn_report_method(r, "baumgarte-direct");
    w->solves = 0;
    memcpy(w->q, x0->q, (size_t)nq * sizeof(double));
    memcpy(w->v, x0->v, (size_t)nv * sizeof(double));
    for (int j = 0; j < nv; ++j)
        w->tau[j] = tau != NULL ? tau[j] : 0.0;
    for (int i = 0; i < nc; ++i) { /* a touching mode of another scheme counts as CONTACT */
        const int m = x0->mode[i];
        w->mode[i] = (m == CDYN_MODE_STICK || m == CDYN_MODE_SLIP) ? CDYN_MODE_CONTACT : m;
    }
    /* a stop reported acting (by any scheme) is in CONTACT; FREE rows already pressed enter
     * CONTACT when settled, and leave through BALLISTIC as contacts do */
    for (int l = 0; l < x0->nl; ++l)
        w->mode[nc + l] = x0->limit_mode[l] != CDYN_LIMIT_FREE ? CDYN_MODE_CONTACT : CDYN_MODE_FREE;

    int events = 0, located = 0;
    if (w->ndamp > 0)
        memset(w->cf, 0, (size_t)nv * sizeof(double));
    cdyn_status st = settle(s, w->q, w->v, &events, r);
    if (st == CDYN_OK && w->ndamp > 0) { /* Strang: damping h/2, the undamped step, damping h/2;
                                          * c = the undamped force here (tau - h_RNEA) */
        const double *bias = cdyn_data_bias(s->data);
        for (int j = 0; j < nv; ++j)
            w->cf[j] = w->tau[j] - bias[j] + w->damp[j] * w->v[j];
        st = damp_half(s, 0.5 * h, &events, r);
    }
    double t = 0.0;
    while (st == CDYN_OK && t < h) {
        const double dt = h - t;
        st = start_piece(s, r);
        if (st == CDYN_OK)
            st = rk4(s, dt, w->tq, w->tv, r);
        if (st != CDYN_OK)
            break;
        if (transitions(w, w->mode, w->pred) == 0) {
            memcpy(w->q, w->tq, (size_t)nq * sizeof(double));
            memcpy(w->v, w->tv, (size_t)nv * sizeof(double));
            st = check_depth(s, x0->t + t, dt, r);
            break; /* accel() was last called at the end point with the final modes */
        }
        if (++located > max_events) {
            st = cdyn_fail(r, CDYN_ENOCONV,
                           "baumgarte: more than %d mode changes in one step (chatter); a "
                           "shorter step may resolve them", max_events);
            break;
        }
        /* Bisection on the piece's length: lo has no transition, hi has one. */
        double lo = 0.0, hi = dt;
        memcpy(w->hq, w->tq, (size_t)nq * sizeof(double));
        memcpy(w->hv, w->tv, (size_t)nv * sizeof(double));
        memcpy(w->hpred, w->pred, (size_t)nr * sizeof(int));
        while (hi - lo > tol) {
            const double mid = lo + 0.5 * (hi - lo);
            if (!(mid > lo && mid < hi))
                break; /* the bracket is as narrow as doubles allow */
            st = rk4(s, mid, w->tq, w->tv, r);
            if (st != CDYN_OK)
                break;
            if (transitions(w, w->mode, w->pred) > 0) {
                hi = mid;
                memcpy(w->hq, w->tq, (size_t)nq * sizeof(double));
                memcpy(w->hv, w->tv, (size_t)nv * sizeof(double));
                memcpy(w->hpred, w->pred, (size_t)nr * sizeof(int));
            } else {
                lo = mid;
            }
        }
        if (st != CDYN_OK)
            break;
        /* Switch at hi (the first instant found where a condition holds). */
        memcpy(w->q, w->hq, (size_t)nq * sizeof(double));
        memcpy(w->v, w->hv, (size_t)nv * sizeof(double));
        st = accel(s, w->q, w->v, w->mode, r); /* gaps at hi, for BALLISTIC's target */
        if (st == CDYN_OK)
            st = check_depth(s, x0->t + t, hi, r);
        for (int i = 0; st == CDYN_OK && i < nr; ++i)
            if (w->hpred[i]) {
                w->mode[i] = next_mode(w, i, w->mode[i]);
                ++events;
            }
        t = hi == dt ? h : t + hi;
        if (st == CDYN_OK && cdyn_model_normalize_q(s->model, w->q, &w->mrep) != CDYN_OK)
            st = model_fail(r, CDYN_ENUMERIC, &w->mrep);
        if (st == CDYN_OK)
            st = settle(s, w->q, w->v, &events, r);
    }
    if (st == CDYN_OK && w->ndamp > 0)
        st = damp_half(s, 0.5 * h, &events, r);
    r->iterations += w->solves;
    r->evaluations += w->solves;
    if (st != CDYN_OK)
        return st;
    if (cdyn_model_normalize_q(s->model, w->q, &w->mrep) != CDYN_OK)
        return model_fail(r, CDYN_ENUMERIC, &w->mrep);

    memcpy(x1->q, w->q, (size_t)nq * sizeof(double));
    memcpy(x1->v, w->v, (size_t)nv * sizeof(double));
    for (int i = 0; i < nc; ++i) {
        x1->mode[i] = w->mode[i];
        x1->lambda[3 * i] = w->lam[i];
        x1->lambda[3 * i + 1] = x1->lambda[3 * i + 2] = 0.0;
        x1->delta[3 * i] = x1->delta[3 * i + 1] = x1->delta[3 * i + 2] = 0.0;
    }
    for (int l = 0; l < x1->nl; ++l) {
        const int on = w->mode[nc + l] == CDYN_MODE_CONTACT;
        x1->limit_mode[l] = on ? lim_acting(&s->lim, l) : CDYN_LIMIT_FREE;
        x1->limit_lambda[l] = on ? w->lam[nc + l] : 0.0;
        x1->limit_delta[l] = 0.0;
    }
    r->residual = w->resid;
    rep->events += events;
    rep->nactive = w->nactive;
    return CDYN_OK;
}

const step_scheme cdyn_scheme_baumgarte = {
    "baumgarte", 1u << CDYN_BACKEND_DIRECT, baumgarte_pick, baumgarte_create, baumgarte_destroy,
    baumgarte_advance,
};
