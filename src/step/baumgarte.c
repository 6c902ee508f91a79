/* The baumgarte scheme (placeholder until its implementation lands: every step is refused). */
#include "step/step_internal.h"

#include "core/report.h"

static cdyn_step_backend baumgarte_pick(const cdyn_stepper *s)
{
    (void)s;
    return CDYN_BACKEND_DIRECT;
}

static cdyn_status baumgarte_create(cdyn_stepper *s, cdyn_report *r)
{
    (void)s;
    return cdyn_fail(r, CDYN_EINVAL, "the baumgarte scheme is not implemented yet");
}

static void baumgarte_destroy(cdyn_stepper *s)
{
    (void)s;
}

static cdyn_status baumgarte_advance(cdyn_stepper *s, const double *tau, double h,
                                   const cdyn_state *x0, cdyn_state *x1, cdyn_step_report *rep)
{
    (void)s, (void)tau, (void)h, (void)x0, (void)x1;
    return cdyn_fail(&rep->solver, CDYN_EINVAL, "the baumgarte scheme is not implemented yet");
}

const step_scheme cdyn_scheme_baumgarte = {
    "baumgarte", 1u << CDYN_BACKEND_DIRECT, baumgarte_pick, baumgarte_create, baumgarte_destroy,
    baumgarte_advance,
};
