/* Nonsmooth block Gauss–Seidel for the frictional contact problem: contact after contact, the
 * one-contact problem with the others' reactions frozen is solved exactly (fc3d_local.c). */
#include "solvers/fc3d/fc3d_internal.h"
#include "solvers/fc3d/fc3d_solvers.h"

#include <math.h>
#include <string.h>

#include "core/memory.h"

void cdyn_fc3d_nsgs_defaults(cdyn_fc3d_nsgs_options *opts)
{
    if (opts == NULL)
        return;
    memset(opts, 0, sizeof *opts);
    opts->max_sweeps = 1000;
    opts->tol = 1e-10;
    opts->omega = 1.0;
    opts->local = CDYN_FC3D_LOCAL_AUTO;
    opts->check_every = 1;
    opts->stall_ratio = 0.999;
}

cdyn_status fc3d_nsgs_check_options(const cdyn_fc3d_nsgs_options *o, cdyn_fc3d_report *rep)
{
    if (o->max_sweeps < 0 || !(o->tol > 0.0) || !isfinite(o->tol))
        return fc3d_fail(rep, CDYN_EINVAL, "nsgs options: max_sweeps >= 0 and tol > 0 needed");
    if (!(o->omega > 0.0 && o->omega < 2.0))
        return fc3d_fail(rep, CDYN_EINVAL, "nsgs options: omega = %g must be in (0, 2)",
                         o->omega);
    if (o->local < CDYN_FC3D_LOCAL_AUTO || o->local > CDYN_FC3D_LOCAL_ENUM)
        return fc3d_fail(rep, CDYN_EINVAL, "nsgs options: unknown local solver %d", o->local);
    if (o->check_every < 1 || !(o->stall_ratio >= 0.0 && o->stall_ratio < 1.0))
        return fc3d_fail(rep, CDYN_EINVAL,
                         "nsgs options: check_every >= 1 and stall_ratio in [0, 1) needed");
    return CDYN_OK;
}

/* One sweep; -1 on success, else the contact whose diagonal block is unusable. */
static int sweep(const fc3d_sys *sys, const cdyn_fc3d_nsgs_options *o, double *r)
{
    for (int i = 0; i < sys->n; i++) {
        if (sys->diag[i] < 0)
            return i;
        double qi[3] = {sys->q[3 * i], sys->q[3 * i + 1], sys->q[3 * i + 2]};
        for (int k = sys->rowptr[i]; k < sys->rowptr[i + 1]; k++) {
            int j = sys->colind[k];
            if (j == i)
                continue;
            const double *B = sys->values + 9 * (size_t)k, *x = r + 3 * j;
            qi[0] += B[0] * x[0] + B[3] * x[1] + B[6] * x[2];
            qi[1] += B[1] * x[0] + B[4] * x[1] + B[7] * x[2];
            qi[2] += B[2] * x[0] + B[5] * x[1] + B[8] * x[2];
        }
        double *ri = r + 3 * i, x[3] = {ri[0], ri[1], ri[2]};
        int st = fc3d_local_solve(sys->values + 9 * (size_t)sys->diag[i], qi, sys->mu[i],
                                  o->local, x);
        if (st == 2)
            return i;
        if (o->omega == 1.0) {
            memcpy(ri, x, sizeof x);
        } else {
            for (int a = 0; a < 3; a++)
                ri[a] = o->omega * x[a] + (1.0 - o->omega) * ri[a];
            fc3d_project_cone(sys->mu[i], ri); /* over-relaxation may leave the cone */
        }
    }
    return -1;
}

cdyn_status fc3d_nsgs_run(const fc3d_sys *sys, const cdyn_fc3d_nsgs_options *o, double *r,
                          double *u, double *res_abs, cdyn_fc3d_report *rep)
{
    fc3d_sys_velocity(sys, r, u);
    double res = fc3d_sys_residual(sys, r, u);
    *res_abs = res;
    if (fc3d_sys_relative(sys, res) <= o->tol)
        return CDYN_OK;
    double ref = res;
    int ref_sweep = 0;
    for (int s = 1; s <= o->max_sweeps; s++) {
        int bad = sweep(sys, o, r);
        if (rep != NULL)
            rep->sweeps++;
        if (bad >= 0) {
            fc3d_sys_velocity(sys, r, u);
            *res_abs = fc3d_sys_residual(sys, r, u);
            return fc3d_fail(rep, CDYN_ESINGULAR,
                             "nsgs: the diagonal block W_%d%d is missing or has W_NN <= 0", bad,
                             bad);
        }
        if (s % o->check_every != 0 && s != o->max_sweeps)
            continue;
        fc3d_sys_velocity(sys, r, u);
        res = fc3d_sys_residual(sys, r, u);
        *res_abs = res;
        if (!isfinite(res))
            return fc3d_fail(rep, CDYN_ENUMERIC, "nsgs: the iterates overflowed at sweep %d", s);
        if (fc3d_sys_relative(sys, res) <= o->tol)
            return CDYN_OK;
        if (o->stall_ratio > 0.0 && s - ref_sweep >= 50) {
            if (res > o->stall_ratio * ref)
                return fc3d_fail(rep, CDYN_ENUMERIC,
                                 "nsgs: stalled: residual %.3g after %d sweeps, %.3g %d sweeps "
                                 "earlier",
                                 fc3d_sys_relative(sys, res), s, fc3d_sys_relative(sys, ref),
                                 s - ref_sweep);
            ref = res;
            ref_sweep = s;
        }
    }
    return fc3d_fail(rep, CDYN_ENOCONV, "nsgs: %d sweeps reached relative residual %.3g > %.3g",
                     o->max_sweeps, fc3d_sys_relative(sys, res), o->tol);
}

static cdyn_status nsgs_stage(const fc3d_sys *sys, const void *opts, double *r, double *u,
                              double *res_abs, cdyn_fc3d_report *rep)
{
    return fc3d_nsgs_run(sys, opts, r, u, res_abs, rep);
}

cdyn_status cdyn_fc3d_nsgs(const cdyn_fc3d *problem, const cdyn_fc3d_nsgs_options *opts,
                           double *r, double *u, cdyn_fc3d_report *report)
{
    fc3d_report_clear(report, "nsgs");
    cdyn_fc3d_nsgs_options o;
    if (opts != NULL)
        o = *opts;
    else
        cdyn_fc3d_nsgs_defaults(&o);
    cdyn_status st = fc3d_nsgs_check_options(&o, report);
    if (st != CDYN_OK)
        return st;
    return fc3d_run_public(problem, o.allocator, nsgs_stage, &o, r, u, report);
}
