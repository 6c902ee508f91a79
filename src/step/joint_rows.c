/* Joint-space rows of the rigid schemes: see joint_rows.h. */
#include "step/joint_rows.h"

#include "core/memory.h"
#include "core/report.h"

#include <string.h>

int jr_friction_count(const cdyn_model *m)
{
    int n = 0;
    const int nb = cdyn_model_nbody(m);
    for (int b = 0; b < nb; b++) {
        cdyn_body_info bi;
        cdyn_model_body_info(m, b, &bi);
        n += bi.nv == 1 && bi.friction > 0;
    }
    return n;
}

static void *arena_array(cdyn_stepper *s, size_t count, size_t elem)
{
    return cdyn_mem_array(&s->arena.as, count == 0 ? 1 : count, elem);
}

cdyn_status jr_friction_build(cdyn_stepper *s, const cs_trees *t, const cs_problem *p, double h,
                              jrows *j, cdyn_report *r)
{
    const int nv = s->nv, nb = cdyn_model_nbody(s->model);
    memset(j, 0, sizeof *j);
    j->n = jr_friction_count(s->model);
    j->dof = arena_array(s, (size_t)j->n, sizeof(int));
    j->bound = arena_array(s, (size_t)j->n, sizeof(double));
    j->y = arena_array(s, (size_t)nv * j->n, sizeof(double));
    j->u = arena_array(s, (size_t)p->m * j->n, sizeof(double));
    double *scratch = arena_array(s, (size_t)t->max_tree, sizeof(double));
    if (j->dof == NULL || j->bound == NULL || j->y == NULL || j->u == NULL || scratch == NULL)
        return cdyn_fail(r, CDYN_ENOMEM, "joint rows: out of memory");
    int n = 0;
    for (int b = 0; b < nb; b++) {
        cdyn_body_info bi;
        cdyn_model_body_info(s->model, b, &bi);
        if (!(bi.nv == 1 && bi.friction > 0))
            continue;
        j->dof[n] = bi.vadr;
        j->bound[n] = h * bi.friction;
        double *y = j->y + (size_t)n * nv;
        memset(y, 0, (size_t)nv * sizeof(double));
        y[bi.vadr] = 1.0;
        cs_solve_mass(t, p, y, scratch);
        if (p->m > 0)
            cs_contact_velocity(s, p, y, j->u + (size_t)n * p->m);
        n++;
    }
    return CDYN_OK;
}

void jr_apply(const jrows *j, int nv, const double *f, double *v)
{
    for (int r = 0; r < j->n; r++)
        if (f[r] != 0.0)
            for (int i = 0; i < nv; i++)
                v[i] += f[r] * j->y[(size_t)r * nv + i];
}
