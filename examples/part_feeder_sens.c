/* Forward sensitivities of the part feeder's IVP to the tab's corner (part_feeder_sens.h). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "part_feeder_sens.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PF_NPARAM 6 /* GEOM_POS x, y of the tab's three geometries */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* S <- A S + P E for S (nx x 2), A (nx x nx), P (nx x PF_NPARAM), all column-major; E sums the
 * parameters of one component (x or y) over the tab's geometries. work: nx x 2. */
static void propagate(int nx, const double *A, const double *P, double *S, double *work)
{
    for (int c = 0; c < 2; c++) {
        double *w = work + (size_t)c * nx;
        const double *s = S + (size_t)c * nx;
        for (int i = 0; i < nx; i++)
            w[i] = P[(size_t)c * nx + i] + P[(size_t)(2 + c) * nx + i] +
                   P[(size_t)(4 + c) * nx + i];
        if (A != NULL)
            for (int j = 0; j < nx; j++) {
                const double sj = s[j];
                if (sj == 0)
                    continue;
                const double *a = A + (size_t)j * nx;
                for (int i = 0; i < nx; i++)
                    w[i] += a[i] * sj;
            }
    }
    memcpy(S, work, sizeof(double) * 2 * (size_t)nx);
}

static int all_zero(size_t n, const double *v)
{
    for (size_t i = 0; i < n; i++)
        if (v[i] != 0)
            return 0;
    return 1;
}

int pf_run_sens(double xp, double yp, double palm_x, int nsteps, pf_result *out, double J[6],
                pf_sens_info *info)
{
    memset(info, 0, sizeof *info);
    info->refused_step = -1;
    info->normal_margin = INFINITY;
    pf_sim sim;
    if (pf_sim_open(xp, yp, palm_x, 1, &sim, out) != 0)
        return 1;
    const int nx = cdyn_step_deriv_nx(sim.s), nv = cdyn_model_nv(sim.m);
    double *A = malloc(sizeof(double) * (size_t)nx * nx);
    double *P = malloc(sizeof(double) * (size_t)nx * PF_NPARAM);
    double *S = calloc(4 * (size_t)nx, sizeof(double)), *work = S + 2 * (size_t)nx;
    const int geom[3] = {PF_GEOM_TAB, PF_GEOM_TAB_CORNER_L, PF_GEOM_TAB_CORNER_R};
    cdyn_param par[PF_NPARAM];
    for (int j = 0; j < PF_NPARAM; j++)
        par[j] = (cdyn_param){CDYN_PARAM_GEOM_POS, geom[j / 2], j % 2};
    int rc = 0;
    if (A == NULL || P == NULL || S == NULL) {
        out->st = CDYN_ENOMEM;
        snprintf(out->message, sizeof out->message, "out of memory");
        rc = 1;
    }
    cdyn_step_report sr;
    for (int k = 0; k < nsteps && rc == 0; k++) {
        const double t0 = now();
        if (pf_sim_step(&sim, NULL, out, &sr) != 0) {
            rc = 1;
            break;
        }
        const double t1 = now();
        info->time_step += t1 - t0;
        const int fresh = all_zero(2 * (size_t)nx, S);
        if (fresh && sr.nactive == 0)
            continue; /* no row, so P_k = 0, and S stays 0 */
        cdyn_step_deriv_report dr;
        cdyn_status st = cdyn_step_param_derivatives(sim.s, CDYN_DERIV_RELEASED, nx, nv,
                                                     fresh ? NULL : A, NULL, PF_NPARAM, par, P,
                                                     &dr);
        if (st != CDYN_OK) {
            info->st = st;
            info->refused_step = k;
            snprintf(info->message, sizeof info->message, "step %d (t = %.3f s, %d halvings): %s",
                     k, sim.x->t, sr.halvings, dr.solver.message);
            rc = 2;
            break;
        }
        info->deriv_steps++;
        info->degenerate += dr.degenerate > 0;
        info->normal_margin = fmin(info->normal_margin, dr.normal_margin);
        propagate(nx, fresh ? NULL : A, P, S, work);
        info->time_deriv += now() - t1;
    }
    if (rc == 0) {
        pf_sim_finish(&sim, out);
        for (int i = 0; i < 3; i++) /* planar: the tangent coordinates of q are q itself */
            for (int c = 0; c < 2; c++)
                J[2 * i + c] = S[(size_t)c * nx + i];
    }
    free(A);
    free(P);
    free(S);
    pf_sim_close(&sim);
    return rc;
}

void pf_cost_gradient(const pf_result *r, const double J[6], double g[2])
{
    /* pf_cost = dx^2 + dy^2 + w (1 + cos theta)^2 */
    const double dx = r->x - PF_TARGET_X, dy = r->y - (PF_B - PF_MASS * PF_G / (2 * PF_K));
    const double dc[3] = {2 * dx, 2 * dy,
                          -2 * PF_TURN_WEIGHT * (1 + cos(r->theta)) * sin(r->theta)};
    for (int c = 0; c < 2; c++)
        g[c] = dc[0] * J[c] + dc[1] * J[2 + c] + dc[2] * J[4 + c];
}
