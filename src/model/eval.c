/* cdyn_eval: check the state, then run forward kinematics and the requested outputs. Nothing in
 * data changes unless every check passes, and nothing is allocated. */
#include <math.h>
#include <string.h>

#include "core/report.h"
#include "model/model_internal.h"
#include "model/vec3.h"

cdyn_status cdyn_eval(const cdyn_model *m, cdyn_data *d, const double *q, const double *v,
                      unsigned flags, cdyn_report *report)
{
    return cdyn_eval_pairs(m, d, q, v, flags, NULL, report);
}

cdyn_status cdyn_eval_pairs(const cdyn_model *m, cdyn_data *d, const double *q, const double *v,
                            unsigned flags, const int *pairs, cdyn_report *report)
{
    cdyn_report_clear(report, "model");
    if (m == NULL || d == NULL || q == NULL)
        return cdyn_fail(report, CDYN_EINVAL, "model, data or q is NULL");
    if (d->model != m)
        return cdyn_fail(report, CDYN_EINVAL, "data was created for another model");
    if (flags & ~(unsigned)CDYN_EVAL_ALL)
        return cdyn_fail(report, CDYN_EINVAL, "unknown flags 0x%x", flags);
    if (flags & CDYN_EVAL_CONTACT_DOT)
        flags |= CDYN_EVAL_CONTACTS;
    if ((flags & (CDYN_EVAL_BIAS | CDYN_EVAL_CONTACT_DOT)) && v == NULL)
        return cdyn_fail(report, CDYN_EINVAL,
                         "v is NULL but the bias or Jacobian-dot terms "
                         "were requested");
    for (int i = 0; i < m->nq; ++i)
        if (!isfinite(q[i]))
            return cdyn_fail(report, CDYN_EINVAL, "q[%d] is not finite", i);
    if (v != NULL)
        for (int i = 0; i < m->nv; ++i)
            if (!isfinite(v[i]))
                return cdyn_fail(report, CDYN_EINVAL, "v[%d] is not finite", i);
    if (m->dim == 3)
        for (int k = 0; k < m->nbody; ++k) {
            const mbody *b = &m->bodies[k];
            if (b->joint != CDYN_JOINT_FREE)
                continue;
            const double *e = q + b->qadr + 3;
            const double ne = sqrt(quat_norm2(e));
            if (!(fabs(ne - 1.0) <= CDYN_QUAT_NORM_TOL))
                return cdyn_fail(report, CDYN_EINVAL,
                                 "quaternion of body %d (q[%d..%d]) has norm %g, outside 1 +- "
                                 "%g (see cdyn_model_normalize_q)",
                                 k, b->qadr + 3, b->qadr + 6, ne, CDYN_QUAT_NORM_TOL);
        }

    cdyn_model_forward_kinematics(m, d, q, v);
    d->has_v = v != NULL;
    if (v != NULL)
        memcpy(d->v, v, sizeof(double) * (size_t)m->nv);
    if (flags & CDYN_EVAL_MASS)
        cdyn_model_crba(m, d);
    if (flags & CDYN_EVAL_BIAS) {
        cdyn_model_rnea(m, d);
        cdyn_model_damping_force(m, d->v, d->bias);
    }
    if (flags & CDYN_EVAL_CONTACTS) {
        const int with_dot = (flags & CDYN_EVAL_CONTACT_DOT) != 0;
        if (m->broad && pairs == NULL)
            cdyn_model_contacts_broad(m, d, with_dot);
        else /* the broad phase off, or the caller's own subset: evaluated as asked */
            cdyn_model_contacts(m, d, with_dot, pairs);
    }
    d->valid = flags | CDYN_VALID_KIN;
    d->der_valid = 0;
    return CDYN_OK;
}
