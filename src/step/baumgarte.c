/* Baumgarte-stabilized frictionless contact with Bortoff's contact state machine. Each contact
 * row i with gap h_i = Psi_n is FREE, CONTACT or BALLISTIC (state->mode). In CONTACT its
 * multiplier lambda_i is an unknown and the stabilized constraint
 *     hddot + alpha1 hdot + alpha0 h + alpha2 h^3 = 0,   hdot = Gamma_n v,
 *     hddot = Gamma_n vdot + (dGamma_n/dt) v
 * holds (alpha from the pair's baumgarte[3]); otherwise lambda_i = 0. With M vdot + bias =
 * tau + Gamma_C' lambda this is the linear system
 *     (Gamma_C M^-1 Gamma_C') lambda = -(dGamma/dt) v - alpha1 hdot - alpha0 h - alpha2 h^3
 *                                      - Gamma_C M^-1 (tau - bias),
 * solved densely (Cholesky of M, LU of the Schur complement) at every stage of a classical RK4
 * step on (q, v). Transitions (Bortoff, Fig. 1): FREE -> CONTACT when h <= 0; CONTACT ->
 * BALLISTIC when lambda < 0; BALLISTIC -> FREE when h > 0; BALLISTIC -> CONTACT when h <= 0 and
 * hdot < 0. They are located inside the step by bisection on the time of a single RK4 step from
 * the last event (to options.event_tol), the mode switched there, and the step continued. */
#include "step/step_internal.h"

#include "core/carve.h"
#include "core/memory.h"
#include "core/report.h"
#include "linalg/dense.h"

#include <math.h>
#include <string.h>

#define BG_MAX_EVENTS 64 /* per step: beyond this the step fails (chattering) */

typedef struct bg_ws {
    double *alpha;            /* nc x 3 */
    int *rows;                /* nc: rows in CONTACT */
    int *ipiv;                /* nc */
    double *L, *Y, *S, *rhs;  /* nv^2, nv x nc, nc^2, nc */
    double *acc, *lam;        /* nv (vdot), nc (per contact row) */
    double *qd;               /* nq */
    double *kq[4], *kv[4];    /* RK4 stages */
    double *q, *v;            /* stage point */
    double *q0, *v0;          /* start of the current interval */
    double *q1, *v1;          /* trial end */
} bg_ws;

static void bg_layout(cdyn_carve *cv, void *base, bg_ws *w, int nq, int nv, int nc)
{
    w->alpha = cdyn_carve_doubles(cv, base, 3 * (size_t)nc);
    w->rows = cdyn_carve_ints(cv, base, (size_t)nc);
    w->ipiv = cdyn_carve_ints(cv, base, (size_t)nc);
    w->L = cdyn_carve_doubles(cv, base, cdyn_carve_mul(cv, (size_t)nv, (size_t)nv));
    w->Y = cdyn_carve_doubles(cv, base, cdyn_carve_mul(cv, (size_t)nv, (size_t)nc));
    w->S = cdyn_carve_doubles(cv, base, cdyn_carve_mul(cv, (size_t)nc, (size_t)nc));
    w->rhs = cdyn_carve_doubles(cv, base, (size_t)nc);
    w->acc = cdyn_carve_doubles(cv, base, (size_t)nv);
    w->lam = cdyn_carve_doubles(cv, base, (size_t)nc);
    w->qd = cdyn_carve_doubles(cv, base, (size_t)nq);
    for (int s = 0; s < 4; s++) {
        w->kq[s] = cdyn_carve_doubles(cv, base, (size_t)nq);
        w->kv[s] = cdyn_carve_doubles(cv, base, (size_t)nv);
    }
    w->q = cdyn_carve_doubles(cv, base, (size_t)nq);
    w->v = cdyn_carve_doubles(cv, base, (size_t)nv);
    w->q0 = cdyn_carve_doubles(cv, base, (size_t)nq);
    w->v0 = cdyn_carve_doubles(cv, base, (size_t)nv);
    w->q1 = cdyn_carve_doubles(cv, base, (size_t)nq);
    w->v1 = cdyn_carve_doubles(cv, base, (size_t)nv);
}

static cdyn_step_backend bg_pick(const cdyn_stepper *s)
{
    (void)s;
    return CDYN_BACKEND_DIRECT;
}

static cdyn_status bg_create(cdyn_stepper *s, cdyn_report *r)
{
    cdyn_carve cv = {0, 0};
    bg_ws shape;
    (void)cdyn_carve_ptr(&cv, NULL, 1, sizeof(bg_ws));
    bg_layout(&cv, NULL, &shape, s->nq, s->nv, s->nc);
    if (cv.overflow)
        return cdyn_fail(r, CDYN_ETOOBIG, "baumgarte: size overflow");
    void *blk = cdyn_mem_alloc(s->opts.allocator, cv.off);
    if (blk == NULL)
        return cdyn_fail(r, CDYN_ENOMEM, "baumgarte: out of memory");
    bg_ws *w = blk;
    cdyn_carve cv2 = {0, 0};
    (void)cdyn_carve_ptr(&cv2, blk, 1, sizeof(bg_ws));
    bg_layout(&cv2, blk, w, s->nq, s->nv, s->nc);
    for (int p = 0; p < cdyn_model_npair(s->model); p++) {
        cdyn_pair_info pi;
        cdyn_model_pair_info(s->model, p, &pi);
        for (int i = pi.row; i < pi.row + pi.nrows; i++)
            memcpy(w->alpha + 3 * i, pi.baumgarte, 3 * sizeof(double));
    }
    s->ws = w;
    return CDYN_OK;
}

static void bg_destroy(cdyn_stepper *s)
{
    cdyn_mem_free(s->opts.allocator, s->ws);
    s->ws = NULL;
}

/* vdot (w->acc) and the multipliers (w->lam, 0 off CONTACT) at (q, v) for the modes. */
static cdyn_status bg_accel(cdyn_stepper *s, bg_ws *w, const double *q, const double *v,
                            const int *mode, const double *tau, cdyn_report *r)
{
    const int nv = s->nv, nc = s->nc;
    cdyn_status st = cdyn_eval(s->model, s->data, q, v, CDYN_EVAL_ALL, r);
    if (st != CDYN_OK)
        return st;
    const double *M = cdyn_data_mass(s->data), *bias = cdyn_data_bias(s->data);
    const double *Jn = cdyn_data_jacobian(s->data, CDYN_DIR_N);
    const double *jdv = cdyn_data_jacobian_dot_v(s->data, CDYN_DIR_N);
    const double *gap = cdyn_data_gap(s->data);
    memcpy(w->L, M, (size_t)nv * nv * sizeof(double));
    if (cdyn_dense_chol(nv, w->L, nv) != CDYN_OK)
        return cdyn_fail(r, CDYN_ESINGULAR, "baumgarte: M(q) is not positive definite");
    for (int j = 0; j < nv; j++)
        w->acc[j] = (tau != NULL ? tau[j] : 0.0) - bias[j];
    cdyn_dense_chol_solve(nv, w->L, nv, 1, w->acc, nv); /* free acceleration */
    int k = 0;
    for (int i = 0; i < nc; i++) {
        w->lam[i] = 0.0;
        if (mode[i] == CDYN_MODE_CONTACT)
            w->rows[k++] = i;
    }
    if (k == 0)
        return CDYN_OK;
    /* Y = M^-1 Gamma_C', S = Gamma_C Y; rhs = -(jdv + a1 hdot + a0 h + a2 h^3) - Gamma_C a_free */
    for (int c = 0; c < k; c++) {
        const int i = w->rows[c];
        double hd = 0, ga = 0;
        for (int j = 0; j < nv; j++) {
            w->Y[j + (size_t)c * nv] = Jn[i + (size_t)j * nc];
            hd += Jn[i + (size_t)j * nc] * v[j];
            ga += Jn[i + (size_t)j * nc] * w->acc[j];
        }
        const double *al = w->alpha + 3 * i, hh = gap[i];
        w->rhs[c] = -(jdv[i] + al[1] * hd + al[0] * hh + al[2] * hh * hh * hh) - ga;
    }
    cdyn_dense_chol_solve(nv, w->L, nv, k, w->Y, nv);
    for (int a = 0; a < k; a++)
        for (int b = 0; b < k; b++) {
            double acc = 0;
            for (int j = 0; j < nv; j++)
                acc += Jn[w->rows[a] + (size_t)j * nc] * w->Y[j + (size_t)b * nv];
            w->S[a + (size_t)b * k] = acc;
        }
    if (cdyn_dense_lu(k, w->S, k, w->ipiv) != CDYN_OK)
        return cdyn_fail(r, CDYN_ESINGULAR, "baumgarte: the contact constraints are dependent "
                         "(singular Gamma M^-1 Gamma')");
    cdyn_dense_lu_solve(0, k, w->S, k, w->ipiv, 1, w->rhs, k);
    for (int c = 0; c < k; c++) {
        w->lam[w->rows[c]] = w->rhs[c];
        for (int j = 0; j < nv; j++)
            w->acc[j] += w->Y[j + (size_t)c * nv] * w->rhs[c];
    }
    return CDYN_OK;
}

/* One classical RK4 step of length dt from (w->q0, w->v0) with fixed modes into (w->q1, w->v1). */
static cdyn_status bg_rk4(cdyn_stepper *s, bg_ws *w, double dt, const int *mode,
                          const double *tau, cdyn_report *r)
{
    const int nq = s->nq, nv = s->nv;
    static const double c[4] = {0.0, 0.5, 0.5, 1.0};
    for (int st_i = 0; st_i < 4; st_i++) {
        for (int j = 0; j < nq; j++)
            w->q[j] = w->q0[j] + (st_i ? c[st_i] * dt * w->kq[st_i - 1][j] : 0.0);
        for (int j = 0; j < nv; j++)
            w->v[j] = w->v0[j] + (st_i ? c[st_i] * dt * w->kv[st_i - 1][j] : 0.0);
        cdyn_status st = bg_accel(s, w, w->q, w->v, mode, tau, r);
        if (st != CDYN_OK)
            return st;
        memcpy(w->kv[st_i], w->acc, (size_t)nv * sizeof(double));
        if ((st = cdyn_model_qdot(s->model, w->q, w->v, w->kq[st_i], NULL)) != CDYN_OK)
            return cdyn_fail(r, st, "baumgarte: G(q) v failed");
    }
    for (int j = 0; j < nq; j++)
        w->q1[j] = w->q0[j] + dt / 6 * (w->kq[0][j] + 2 * w->kq[1][j] + 2 * w->kq[2][j] +
                                         w->kq[3][j]);
    for (int j = 0; j < nv; j++)
        w->v1[j] = w->v0[j] + dt / 6 * (w->kv[0][j] + 2 * w->kv[1][j] + 2 * w->kv[2][j] +
                                         w->kv[3][j]);
    return CDYN_OK;
}

/* The first transition due at (q1, v1) under the modes, as the row's new mode in *to; -1 when
 * none. Needs the multipliers at (q1, v1): evaluated here. */
static int bg_transition(cdyn_stepper *s, bg_ws *w, const int *mode, const double *tau, int *to,
                         cdyn_status *st, cdyn_report *r)
{
    *st = bg_accel(s, w, w->q1, w->v1, mode, tau, r);
    if (*st != CDYN_OK)
        return -1;
    const double *gap = cdyn_data_gap(s->data);
    const double *Jn = cdyn_data_jacobian(s->data, CDYN_DIR_N);
    for (int i = 0; i < s->nc; i++) {
        double hd = 0;
        for (int j = 0; j < s->nv; j++)
            hd += Jn[i + (size_t)j * s->nc] * w->v1[j];
        switch (mode[i]) {
        case CDYN_MODE_CONTACT:
            if (w->lam[i] < 0) {
                *to = CDYN_MODE_BALLISTIC;
                return i;
            }
            break;
        case CDYN_MODE_BALLISTIC:
            if (gap[i] > 0) {
                *to = CDYN_MODE_FREE;
                return i;
            }
            if (gap[i] <= 0 && hd < 0) {
                *to = CDYN_MODE_CONTACT;
                return i;
            }
            break;
        default: /* FREE, and the modes of other schemes read as FREE */
            if (gap[i] <= 0) {
                *to = CDYN_MODE_CONTACT;
                return i;
            }
            break;
        }
    }
    return -1;
}

static cdyn_status bg_advance(cdyn_stepper *s, const double *tau, double h, const cdyn_state *x0,
                              cdyn_state *x1, cdyn_step_report *rep)
{
    bg_ws *w = s->ws;
    const int nq = s->nq, nv = s->nv, nc = s->nc;
    cdyn_report *r = &rep->solver;
    cdyn_report_method(r, "baumgarte-rk4");
    int *mode = x1->mode;
    for (int i = 0; i < nc; i++)
        mode[i] = x0->mode[i] == CDYN_MODE_CONTACT || x0->mode[i] == CDYN_MODE_BALLISTIC
                      ? x0->mode[i]
                      : CDYN_MODE_FREE;
    memcpy(w->q0, x0->q, (size_t)nq * sizeof(double));
    memcpy(w->v0, x0->v, (size_t)nv * sizeof(double));
    double t = 0.0; /* time advanced within the step */
    cdyn_status st = CDYN_OK;
    for (;;) {
        const double rest = h - t;
        if ((st = bg_rk4(s, w, rest, mode, tau, r)) != CDYN_OK)
            return st;
        r->iterations++;
        int to = 0;
        int row = bg_transition(s, w, mode, tau, &to, &st, r);
        if (st != CDYN_OK)
            return st;
        if (row < 0)
            break; /* no event before t + rest */
        /* Bisection on the length of one RK4 step from the interval's start: the earliest time
         * at which some transition is due, to event_tol. */
        double lo = 0.0, hi = rest;
        while (hi - lo > s->opts.event_tol) {
            const double mid = 0.5 * (lo + hi);
            if ((st = bg_rk4(s, w, mid, mode, tau, r)) != CDYN_OK)
                return st;
            r->iterations++;
            int to2 = 0;
            const int row2 = bg_transition(s, w, mode, tau, &to2, &st, r);
            if (st != CDYN_OK)
                return st;
            if (row2 >= 0)
                hi = mid, row = row2, to = to2;
            else
                lo = mid;
        }
        if ((st = bg_rk4(s, w, hi, mode, tau, r)) != CDYN_OK)
            return st;
        memcpy(w->q0, w->q1, (size_t)nq * sizeof(double));
        memcpy(w->v0, w->v1, (size_t)nv * sizeof(double));
        t += hi;
        mode[row] = to;
        if (++rep->events > BG_MAX_EVENTS)
            return cdyn_fail(r, CDYN_ENOCONV, "baumgarte: more than %d mode changes in one step "
                             "(chattering); take a smaller h", BG_MAX_EVENTS);
        if (h - t <= s->opts.event_tol)
            break;
    }
    if (t < h) {
        memcpy(x1->q, w->q1, (size_t)nq * sizeof(double));
        memcpy(x1->v, w->v1, (size_t)nv * sizeof(double));
    } else {
        memcpy(x1->q, w->q0, (size_t)nq * sizeof(double));
        memcpy(x1->v, w->v0, (size_t)nv * sizeof(double));
    }
    cdyn_report mr;
    if ((st = cdyn_model_normalize_q(s->model, x1->q, &mr)) != CDYN_OK)
        return cdyn_fail(r, st, "baumgarte: %s", mr.message);
    /* The multipliers at the end of the step, in the final modes. */
    if ((st = bg_accel(s, w, x1->q, x1->v, mode, tau, r)) != CDYN_OK)
        return st;
    memset(x1->delta, 0, 3 * (size_t)nc * sizeof(double));
    memset(x1->lambda, 0, 3 * (size_t)nc * sizeof(double));
    int nactive = 0;
    for (int i = 0; i < nc; i++) {
        x1->lambda[3 * i] = w->lam[i];
        nactive += mode[i] == CDYN_MODE_CONTACT;
    }
    rep->nactive = nactive;
    return CDYN_OK;
}

const step_scheme cdyn_scheme_baumgarte = {
    "baumgarte", 1u << CDYN_BACKEND_DIRECT, bg_pick, bg_create, bg_destroy, bg_advance,
};
