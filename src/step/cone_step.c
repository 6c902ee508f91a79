/* The cone-step scheme (placeholder until its implementation lands: every step is refused). */
#include "step/step_internal.h"

#include "core/report.h"

static cdyn_step_backend cone_step_pick(const cdyn_stepper *s)
{
    (void)s;
    return CDYN_BACKEND_DIRECT;
}

static cdyn_status cone_step_create(cdyn_stepper *s, cdyn_report *r)
{
    (void)s;
    return cdyn_fail(r, CDYN_EINVAL, "the cone-step scheme is not implemented yet");
}

static void cone_step_destroy(cdyn_stepper *s)
{
    (void)s;
}

static cdyn_status cone_step_advance(cdyn_stepper *s, const double *tau, double h,
                                   const cdyn_state *x0, cdyn_state *x1, cdyn_step_report *rep)
{
    (void)s, (void)tau, (void)h, (void)x0, (void)x1;
    return cdyn_fail(&rep->solver, CDYN_EINVAL, "the cone-step scheme is not implemented yet");
}

const step_scheme cdyn_scheme_cone_step = {
    "cone-step", 1u << CDYN_BACKEND_DIRECT, cone_step_pick, cone_step_create, cone_step_destroy,
    cone_step_advance,
};
