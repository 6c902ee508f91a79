/* Viscous joint damping: the generalized force -d_j v_j of each damped dof (cdyn_body_desc
 * .damping). It is part of h(q, v), so it enters cdyn_data_bias, the inverse dynamics of
 * cdyn_eval_derivatives and its d/dv (a diagonal D), and through them every scheme
 * (docs/theory.md, "Joint damping"). */
#include "linalg/csc.h"
#include "model/model_internal.h"

void cdyn_model_damping_force(const cdyn_model *m, const double *v, double *out)
{
    for (int k = 0; k < m->nbody; ++k) {
        const mbody *b = &m->bodies[k];
        if (b->nv == 1 && b->damping != 0.0)
            out[b->vadr] += b->damping * v[b->vadr];
    }
}

void cdyn_model_damping_dv(const cdyn_model *m, cdyn_data *d)
{
    for (int k = 0; k < m->nbody; ++k) {
        const mbody *b = &m->bodies[k];
        if (b->nv == 1 && b->damping != 0.0) {
            /* (j, j) is in the pattern: a dof lies on its own root-to-leaf path */
            const int p = cdyn_csc_find(m->der_colptr, m->der_rowind, b->vadr, b->vadr);
            if (p >= 0)
                d->der_v[p] += b->damping;
        }
    }
}
