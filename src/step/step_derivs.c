/* cdyn_step_derivatives: the public entry (cdyn/deriv.h). Validates the call and the stepper's
 * last step, then hands over to the scheme's derivative (substep_derivs.c chains it over the
 * substeps of a step that needed halvings). */
#include "step/implicit_derivs.h"
#include "step/rigid_derivs.h"
#include "step/step_internal.h"

#include "core/report.h"

#include <math.h>
#include <string.h>
#include <time.h>

int cdyn_step_deriv_nx(const cdyn_stepper *s)
{
    if (s == NULL)
        return -1;
    /* the rigid schemes carry no deformation; the implicit one the contacts' and the stops' */
    return s->opts.scheme == CDYN_SCHEME_IMPLICIT_NCP ? 2 * s->nv + 3 * s->nc + s->lim.n
                                                      : 2 * s->nv;
}

static double wall(void)
{
    struct timespec t;
    if (timespec_get(&t, TIME_UTC) != TIME_UTC)
        return 0.0;
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void report_clear(cdyn_step_deriv_report *rep)
{
    memset(rep, 0, sizeof *rep);
    cdyn_report_clear(&rep->solver, "step-derivatives");
    rep->normal_margin = rep->cone_margin = rep->slip_margin = rep->limit_margin = INFINITY;
    rep->normal_row = rep->cone_row = rep->slip_row = rep->limit_row = -1;
}

/* The scheme's derivative of its last advance (substep_derivs.h: scheme_derivs_fn). */
static cdyn_status scheme_derivatives(cdyn_stepper *s, cdyn_deriv_side side, double *A,
                                      double *B, int np, const cdyn_param *params, double *P,
                                      cdyn_step_deriv_report *rep)
{
    const cdyn_scheme sch = s->opts.scheme;
    if (sch == CDYN_SCHEME_PYRAMID_LCP)
        return pyr_step_derivatives(s, side, A, B, np, params, P, rep);
    if (sch == CDYN_SCHEME_CONE_STEP || sch == CDYN_SCHEME_COULOMB_STEP)
        return cones_step_derivatives(s, sch == CDYN_SCHEME_CONE_STEP, side, A, B, np, params,
                                      P, rep);
    return ncp_step_derivatives(s, side, A, B, np, params, P, rep);
}

/* Both entries: the checks, then the scheme's derivative (of each substep, chained, when the
 * step needed halvings). */
static cdyn_status derivatives(cdyn_stepper *s, cdyn_deriv_side side, int nx, int nu, double *A,
                               double *B, int np, const cdyn_param *params, double *P,
                               cdyn_step_deriv_report *report, const char *name)
{
    cdyn_step_deriv_report local;
    cdyn_step_deriv_report *rep = report != NULL ? report : &local;
    report_clear(rep);
    cdyn_report *r = &rep->solver;
    const double t0 = wall();
    if (s == NULL)
        return cdyn_fail(r, CDYN_EINVAL, "%s: stepper is NULL", name);
    rep->nx = cdyn_step_deriv_nx(s);
    rep->nu = s->nv;
    if (A == NULL && B == NULL && P == NULL)
        return cdyn_fail(r, CDYN_EINVAL, "%s: no output asked (A, B%s NULL)", name,
                         np > 0 ? " and P" : "");
    if (nx != rep->nx || nu != rep->nu)
        return cdyn_fail(r, CDYN_EINVAL,
                         "%s: sizes nx = %d, nu = %d; the stepper's are %d (%s) and "
                         "n_v = %d", name, nx, nu, rep->nx,
                         s->opts.scheme == CDYN_SCHEME_IMPLICIT_NCP ? "2 n_v + 3 n_c + n_l"
                                                                    : "2 n_v",
                         rep->nu);
    if (np < 0 || (np > 0 && (params == NULL || P == NULL)) || (np == 0 && P != NULL))
        return cdyn_fail(r, CDYN_EINVAL, "%s: np = %d with params %s and P %s", name, np,
                         params == NULL ? "NULL" : "given", P == NULL ? "NULL" : "given");
    if (side != CDYN_DERIV_RELEASED && side != CDYN_DERIV_HELD)
        return cdyn_fail(r, CDYN_EINVAL, "%s: side = %d is not a cdyn_deriv_side", name,
                         (int)side);
    cdyn_status st = ncp_params_check(s->model, np, params, name, 0, r);
    if (st != CDYN_OK)
        return st;
    const cdyn_scheme sch = s->opts.scheme;
    const int rigid = sch == CDYN_SCHEME_PYRAMID_LCP || sch == CDYN_SCHEME_COULOMB_STEP ||
                      sch == CDYN_SCHEME_CONE_STEP;
    if (sch != CDYN_SCHEME_IMPLICIT_NCP && !rigid)
        return cdyn_fail(r, CDYN_ENOTSUP, "%s: not available for the %s scheme yet (only %s, "
                         "%s, %s and %s)", name, cdyn_scheme_str(sch),
                         cdyn_scheme_str(CDYN_SCHEME_IMPLICIT_NCP),
                         cdyn_scheme_str(CDYN_SCHEME_PYRAMID_LCP),
                         cdyn_scheme_str(CDYN_SCHEME_CONE_STEP),
                         cdyn_scheme_str(CDYN_SCHEME_COULOMB_STEP));
    if (s->last_substeps == 0)
        return cdyn_fail(r, CDYN_EINVAL, "%s: the stepper has no successful step to "
                         "differentiate (none yet, or the last one failed)", name);
    if (s->last_substeps > 1)
        st = substeps_derivatives(s, side, nx, A, B, np, params, P, scheme_derivatives, rep);
    else
        st = scheme_derivatives(s, side, A, B, np, params, P, rep);
    rep->time = wall() - t0;
    r->status = st;
    return st;
}

cdyn_status cdyn_step_derivatives(cdyn_stepper *s, cdyn_deriv_side side, int nx, int nu,
                                  double *A, double *B, cdyn_step_deriv_report *report)
{
    return derivatives(s, side, nx, nu, A, B, 0, NULL, NULL, report, "cdyn_step_derivatives");
}

cdyn_status cdyn_step_param_derivatives(cdyn_stepper *s, cdyn_deriv_side side, int nx, int nu,
                                        double *A, double *B, int np, const cdyn_param *params,
                                        double *P, cdyn_step_deriv_report *report)
{
    return derivatives(s, side, nx, nu, A, B, np, params, P, report,
                       "cdyn_step_param_derivatives");
}
