/* The billiard shot planner (billiard_shot_plan.h). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "billiard_shot_plan.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "billiard_ball.h"

struct shot_planner {
    const cdyn_model *m;
    cdyn_stepper *s;
    cdyn_state *x;
    int N, nv, nx;
    double h, T, target[SHOT_NR];
    double *A;        /* N blocks of nx x nx, column-major: A_k */
    double *lam, *lw; /* nx x SHOT_NR each: the adjoint */
    double *q0;       /* nq: the model's default configuration (identity orientation) */
    char message[CDYN_REPORT_TEXT + 64];
};

static double now(void) /* CPU seconds of this process */
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

shot_planner *shot_planner_create(const cdyn_model *model, int N, double h, const double *target,
                                  double mcp_tol, char *message, size_t size)
{
    shot_planner *P = calloc(1, sizeof *P);
    cdyn_report rep = {0};
    cdyn_step_options o;
    cdyn_step_defaults(&o, CDYN_SCHEME_IMPLICIT_NCP);
    o.h = h;
    if (mcp_tol > 0)
        o.mcp.tol = mcp_tol;
    if (P == NULL || N < 1 || cdyn_stepper_create(model, &o, &P->s, &rep) != CDYN_OK ||
        cdyn_state_create(model, NULL, &P->x, &rep) != CDYN_OK) {
        snprintf(message, size, "%s", P == NULL ? "out of memory" : N < 1 ? "N < 1" : rep.message);
        shot_planner_free(P);
        return NULL;
    }
    P->m = model;
    P->N = N;
    P->h = h;
    P->T = N * h;
    memcpy(P->target, target, sizeof P->target);
    P->nv = cdyn_model_nv(model);
    P->nx = cdyn_step_deriv_nx(P->s);
    P->A = malloc(sizeof(double) * (size_t)N * P->nx * P->nx);
    P->lam = malloc(sizeof(double) * (size_t)P->nx * SHOT_NR);
    P->lw = malloc(sizeof(double) * (size_t)P->nx * SHOT_NR);
    P->q0 = malloc(sizeof(double) * (size_t)P->x->nq);
    if (P->A == NULL || P->lam == NULL || P->lw == NULL || P->q0 == NULL) {
        snprintf(message, size, "out of memory");
        shot_planner_free(P);
        return NULL;
    }
    memcpy(P->q0, P->x->q, sizeof(double) * (size_t)P->x->nq);
    return P;
}

void shot_planner_free(shot_planner *P)
{
    if (P == NULL)
        return;
    cdyn_state_free(P->x);
    cdyn_stepper_free(P->s);
    free(P->A);
    free(P->lam);
    free(P->lw);
    free(P->q0);
    free(P);
}

const char *shot_planner_message(const shot_planner *P)
{
    return P->message;
}

/* The state's coordinates the residual reads (rows of C) and the launch sets (columns of E):
 * for the free ball q = (x, y, z, quaternion), v = (v_x, v_y, v_z, w_x, w_y, w_z), tangent dq
 * first, then v. */
static int c_index(const shot_planner *P, int i)
{
    return i < 2 ? i : P->nv + (i - 2);
}

static int e_index(const shot_planner *P, int j)
{
    return P->nv + (j < 2 ? j : j + 1);
}

static void launch(shot_planner *P, const double *p)
{
    cdyn_state *x = P->x;
    x->t = 0;
    memcpy(x->q, P->q0, sizeof(double) * (size_t)x->nq);
    memset(x->v, 0, sizeof(double) * (size_t)x->nv);
    memset(x->delta, 0, sizeof(double) * 3 * (size_t)x->nc);
    memset(x->lambda, 0, sizeof(double) * 3 * (size_t)x->nc);
    memset(x->mode, 0, sizeof(int) * (size_t)x->nc);
    x->q[2] = BALL_R; /* touching the table */
    for (int j = 0; j < SHOT_NP; j++)
        x->v[e_index(P, j) - P->nv] = p[j];
}

static void csv_line(const shot_planner *P, FILE *csv, int tag)
{
    const cdyn_state *x = P->x;
    /* contact point's velocity v + w x (0, 0, -R) */
    const double st = x->v[0] - BALL_R * x->v[4], so = x->v[1] + BALL_R * x->v[3];
    fprintf(csv, "%d,%.4f,%.10f,%.10f,%.10f,%.10f,%.3e,%d\n", tag, x->t, x->q[0], x->q[1],
            x->v[0], x->v[1], hypot(st, so), x->mode[0]);
}

cdyn_status shot_rollout(shot_planner *P, const double *p, double *r, double *J, shot_margins *mg,
                         FILE *csv, int tag, double *t_step, double *t_deriv)
{
    const int nx = P->nx, N = P->N;
    shot_margins g = {INFINITY, INFINITY, INFINITY, 0, -1};
    launch(P, p);
    if (csv != NULL)
        csv_line(P, csv, tag);
    for (int k = 0; k < N; k++) {
        cdyn_step_report sr;
        double t0 = now();
        cdyn_status st = cdyn_step(P->s, NULL, P->x, &sr);
        double t1 = now();
        if (t_step != NULL)
            *t_step += t1 - t0;
        if (st != CDYN_OK) {
            snprintf(P->message, sizeof P->message, "step %d: %s", k, sr.solver.message);
            return st;
        }
        if (csv != NULL)
            csv_line(P, csv, tag);
        if (g.roll_step < 0 && P->x->mode[0] == CDYN_MODE_STICK)
            g.roll_step = k;
        if (J == NULL)
            continue;
        cdyn_step_deriv_report dr;
        st = cdyn_step_derivatives(P->s, CDYN_DERIV_RELEASED, nx, P->nv,
                                   P->A + (size_t)k * nx * nx, NULL, &dr);
        if (t_deriv != NULL)
            *t_deriv += now() - t1;
        if (st != CDYN_OK) {
            snprintf(P->message, sizeof P->message, "derivatives of step %d: %s", k,
                     dr.solver.message);
            return st;
        }
        g.slip = fmin(g.slip, dr.slip_margin);
        g.cone = fmin(g.cone, dr.cone_margin);
        g.normal = fmin(g.normal, dr.normal_margin);
        g.degenerate += dr.degenerate > 0;
    }
    const double w[SHOT_NR] = {1, 1, P->T, P->T};
    for (int i = 0; i < SHOT_NR; i++) {
        const int c = c_index(P, i);
        const double xv = i < 2 ? P->x->q[c] : P->x->v[c - P->nv];
        r[i] = w[i] * (xv - P->target[i]);
    }
    if (J != NULL) {
        /* Lambda_N = (W C)^T, then Lambda_k = A_k^T Lambda_{k+1} down to k = 0 */
        double *lam = P->lam, *lw = P->lw;
        memset(lam, 0, sizeof(double) * (size_t)nx * SHOT_NR);
        for (int i = 0; i < SHOT_NR; i++)
            lam[(size_t)i * nx + c_index(P, i)] = w[i];
        for (int k = N - 1; k >= 0; k--) {
            const double *A = P->A + (size_t)k * nx * nx;
            for (int i = 0; i < SHOT_NR; i++)
                for (int a = 0; a < nx; a++) {
                    double s = 0;
                    for (int b = 0; b < nx; b++)
                        s += A[(size_t)a * nx + b] * lam[(size_t)i * nx + b]; /* A(b, a) */
                    lw[(size_t)i * nx + a] = s;
                }
            double *t = lam;
            lam = lw;
            lw = t;
        }
        for (int i = 0; i < SHOT_NR; i++)
            for (int j = 0; j < SHOT_NP; j++)
                J[i * SHOT_NP + j] = lam[(size_t)i * nx + e_index(P, j)];
    }
    if (mg != NULL)
        *mg = g;
    return CDYN_OK;
}

cdyn_status shot_fd_jacobian(shot_planner *P, const double *p, double eps_v, double *J)
{
    for (int j = 0; j < SHOT_NP; j++) {
        const double eps = j < 2 ? eps_v : eps_v / BALL_R;
        double pp[SHOT_NP], rp[SHOT_NR], rm[SHOT_NR];
        memcpy(pp, p, sizeof pp);
        pp[j] = p[j] + eps;
        cdyn_status st = shot_rollout(P, pp, rp, NULL, NULL, NULL, 0, NULL, NULL);
        pp[j] = p[j] - eps;
        if (st == CDYN_OK)
            st = shot_rollout(P, pp, rm, NULL, NULL, NULL, 0, NULL, NULL);
        if (st != CDYN_OK)
            return st;
        for (int i = 0; i < SHOT_NR; i++)
            J[i * SHOT_NP + j] = (rp[i] - rm[i]) / (2 * eps);
    }
    return CDYN_OK;
}

/* Solve the n x n symmetric positive definite S x = b (row-major, Cholesky in place);
 * 0 when S is not positive definite. */
static int spd_solve(int n, double *S, double *b)
{
    for (int j = 0; j < n; j++) {
        double d = S[j * n + j];
        for (int k = 0; k < j; k++)
            d -= S[j * n + k] * S[j * n + k];
        if (!(d > 0))
            return 0;
        S[j * n + j] = sqrt(d);
        for (int i = j + 1; i < n; i++) {
            double s = S[i * n + j];
            for (int k = 0; k < j; k++)
                s -= S[i * n + k] * S[j * n + k];
            S[i * n + j] = s / S[j * n + j];
        }
    }
    for (int i = 0; i < n; i++) { /* L y = b */
        for (int k = 0; k < i; k++)
            b[i] -= S[i * n + k] * b[k];
        b[i] /= S[i * n + i];
    }
    for (int i = n - 1; i >= 0; i--) { /* L^T x = y */
        for (int k = i + 1; k < n; k++)
            b[i] -= S[k * n + i] * b[k];
        b[i] /= S[i * n + i];
    }
    return 1;
}

static double half_sq(const double *r)
{
    double s = 0;
    for (int i = 0; i < SHOT_NR; i++)
        s += r[i] * r[i];
    return 0.5 * s;
}

static void log_entry(shot_log *log, const double *p, double cost, double mu)
{
    const int n = log->n++;
    log->cost[n] = cost;
    log->norm[n] = sqrt(2 * cost);
    log->mu[n] = mu;
    memcpy(log->p[n], p, sizeof log->p[n]);
}

cdyn_status shot_optimize(shot_planner *P, double *p, double tol, shot_log *log)
{
    double r[SHOT_NR], J[SHOT_NR * SHOT_NP], rt[SHOT_NR], Jt[SHOT_NR * SHOT_NP];
    memset(log, 0, sizeof *log);
    cdyn_status st = shot_rollout(P, p, r, J, NULL, NULL, 0, NULL, NULL);
    log->rollouts = 1;
    if (st != CDYN_OK)
        return st;
    double cost = half_sq(r), mu = 1e-3;
    log_entry(log, p, cost, mu);
    int trials = 0;
    while (sqrt(2 * cost) > tol && log->n <= SHOT_MAX_ITER && trials < 4 * SHOT_MAX_ITER) {
        trials++;
        /* (J^T J + mu diag(J^T J)) dp = -J^T r */
        double S[SHOT_NP * SHOT_NP], g[SHOT_NP], dmax = 0;
        for (int a = 0; a < SHOT_NP; a++) {
            g[a] = 0;
            for (int i = 0; i < SHOT_NR; i++)
                g[a] -= J[i * SHOT_NP + a] * r[i];
            for (int b = 0; b < SHOT_NP; b++) {
                double s = 0;
                for (int i = 0; i < SHOT_NR; i++)
                    s += J[i * SHOT_NP + a] * J[i * SHOT_NP + b];
                S[a * SHOT_NP + b] = s;
            }
            dmax = fmax(dmax, S[a * SHOT_NP + a]);
        }
        for (int a = 0; a < SHOT_NP; a++)
            S[a * SHOT_NP + a] += mu * fmax(S[a * SHOT_NP + a], 1e-12 * dmax);
        if (!spd_solve(SHOT_NP, S, g)) {
            mu *= 10;
            continue;
        }
        double pt[SHOT_NP];
        for (int a = 0; a < SHOT_NP; a++)
            pt[a] = p[a] + g[a];
        st = shot_rollout(P, pt, rt, Jt, NULL, NULL, 0, NULL, NULL);
        log->rollouts++;
        if (st != CDYN_OK || !(half_sq(rt) < cost)) {
            mu *= 10; /* a failed or worse trial: a shorter, steeper step */
            continue;
        }
        memcpy(p, pt, sizeof pt);
        memcpy(r, rt, sizeof r);
        memcpy(J, Jt, sizeof J);
        cost = half_sq(r);
        mu = fmax(mu / 10, 1e-9);
        log_entry(log, p, cost, mu);
    }
    if (sqrt(2 * cost) > tol) {
        snprintf(P->message, sizeof P->message,
                 "|r| = %.3g m after %d iterations (%d rollouts), tolerance %.3g m",
                 sqrt(2 * cost), log->n - 1, log->rollouts, tol);
        return CDYN_ENOCONV;
    }
    return CDYN_OK;
}
