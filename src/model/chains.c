/* Joint-space dynamics of the body tree in world coordinates (Featherstone, Rigid Body Dynamics
 * Algorithms, 2008: CRBA Sec. 6.2, RNEA Sec. 5.3, here with every quantity in world axes at the
 * world origin, so no coordinate transforms are needed between bodies).
 *   CRBA: composite inertias Ic_k = I_k + sum of the children's Ic; M_ij = S_i^T Ic_k S_j for a
 *         dof j of body k and a dof i of k or of an ancestor of k.
 *   RNEA: with vdot = 0 and the base accelerating at -g, f_k = I_k a_k + V_k x_f I_k V_k,
 *         accumulated from the leaves; h_j = S_j^T f_k. Then M vdot + h = tau. */
#include <string.h>

#include "linalg/csc.h"
#include "model/model_internal.h"
#include "model/spatial.h"

/* Position of (row, col), row >= col, in the lower-triangle CSC of M (present: the pattern holds
 * every ancestor pair). */
static int mass_pos(const cdyn_model *m, int row, int col)
{
    return cdyn_csc_find(m->mass_colptr, m->mass_rowind, row, col);
}

static void set_mass(const cdyn_model *m, cdyn_data *d, int i, int j, double val)
{
    /* i >= j */
    if (d->M != NULL) {
        d->M[i + (size_t)j * m->nv] = val;
        d->M[j + (size_t)i * m->nv] = val;
    }
    const int p = mass_pos(m, i, j);
    if (p >= 0)
        d->mass_values[p] = val;
}

void cdyn_model_crba(const cdyn_model *m, cdyn_data *d)
{
    for (int k = 0; k < m->nbody; ++k) {
        dbody *b = &d->bodies[k];
        b->cm = b->m;
        v3_copy(b->ch, b->h);
        memcpy(b->cI, b->I, sizeof(b->I));
    }
    for (int k = m->nbody - 1; k >= 0; --k) {
        const int p = m->bodies[k].parent;
        if (p < 0)
            continue;
        dbody *b = &d->bodies[k], *pb = &d->bodies[p];
        pb->cm += b->cm;
        for (int i = 0; i < 3; ++i)
            pb->ch[i] += b->ch[i];
        for (int i = 0; i < 9; ++i)
            pb->cI[i] += b->cI[i];
    }
    if (d->M != NULL)
        memset(d->M, 0, sizeof(double) * (size_t)m->nv * (size_t)m->nv);
    for (int k = 0; k < m->nbody; ++k) {
        const mbody *mb = &m->bodies[k];
        const dbody *b = &d->bodies[k];
        for (int jj = 0; jj < mb->nv; ++jj) {
            const int j = mb->vadr + jj;
            double F[6];
            sp_inertia_mul(F, b->cm, b->ch, b->cI, d->S + 6 * (size_t)j);
            for (int ii = jj; ii < mb->nv; ++ii) /* own block, lower triangle */
                set_mass(m, d, mb->vadr + ii, j, sp_dot(d->S + 6 * (size_t)(mb->vadr + ii), F));
            for (int a = mb->parent; a >= 0; a = m->bodies[a].parent)
                for (int ii = 0; ii < m->bodies[a].nv; ++ii) {
                    const int i = m->bodies[a].vadr + ii;
                    set_mass(m, d, j, i, sp_dot(d->S + 6 * (size_t)i, F));
                }
        }
    }
}

void cdyn_model_rnea(const cdyn_model *m, cdyn_data *d)
{
    for (int k = 0; k < m->nbody; ++k) {
        dbody *b = &d->bodies[k];
        double a[6], Ia[6], IV[6], c[6];
        memcpy(a, b->A, sizeof(a));
        for (int i = 0; i < 3; ++i)
            a[3 + i] -= m->gravity[i];
        sp_inertia_mul(Ia, b->m, b->h, b->I, a);
        sp_inertia_mul(IV, b->m, b->h, b->I, b->V);
        sp_cross_f(c, b->V, IV);
        for (int i = 0; i < 6; ++i)
            b->f[i] = Ia[i] + c[i];
    }
    for (int k = m->nbody - 1; k >= 0; --k) {
        const mbody *mb = &m->bodies[k];
        dbody *b = &d->bodies[k];
        for (int jj = 0; jj < mb->nv; ++jj)
            d->bias[mb->vadr + jj] = sp_dot(d->S + 6 * (size_t)(mb->vadr + jj), b->f);
        if (mb->parent >= 0) {
            double *fp = d->bodies[mb->parent].f;
            for (int i = 0; i < 6; ++i)
                fp[i] += b->f[i];
        }
    }
}
