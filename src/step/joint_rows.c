/* Joint-space rows of the rigid schemes: see joint_rows.h. */
#include "step/joint_rows.h"

#include "core/memory.h"
#include "core/report.h"

#include <math.h>
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

int jr_limit_count(const cdyn_model *m)
{
    int n = 0;
    const int nb = cdyn_model_nbody(m);
    for (int b = 0; b < nb; b++) {
        cdyn_body_info bi;
        cdyn_model_body_info(m, b, &bi);
        if (bi.nv == 1 && bi.limited)
            n += isfinite(bi.lower) + isfinite(bi.upper);
    }
    return n;
}

static void *arena_array(cdyn_stepper *s, size_t count, size_t elem)
{
    return cdyn_mem_array(&s->arena.as, count == 0 ? 1 : count, elem);
}

/* Row n: its dof, sign and value, y and u. */
static void add_row(cdyn_stepper *s, const cs_trees *t, const cs_problem *p, jrows *j, int dof,
                    double sign, double val, double rest, double *scratch)
{
    const int nv = s->nv, n = j->n;
    j->dof[n] = dof;
    j->sign[n] = sign;
    j->val[n] = val;
    j->rest[n] = rest;
    j->newton[n] = 0;
    double *y = j->y + (size_t)n * nv;
    memset(y, 0, (size_t)nv * sizeof(double));
    y[dof] = sign;
    cs_solve_mass(t, p, y, scratch);
    if (p->m > 0)
        cs_contact_velocity(s, p, y, j->u + (size_t)n * p->m);
    j->n++;
}

cdyn_status jr_build(cdyn_stepper *s, const cs_trees *t, const cs_problem *p, const double *q0,
                     double h, jrows *j, cdyn_report *r)
{
    const int nv = s->nv, nb = cdyn_model_nbody(s->model);
    memset(j, 0, sizeof *j);
    const int cap = jr_friction_count(s->model) + jr_limit_count(s->model);
    j->dof = arena_array(s, (size_t)cap, sizeof(int));
    j->sign = arena_array(s, (size_t)cap, sizeof(double));
    j->val = arena_array(s, (size_t)cap, sizeof(double));
    j->rest = arena_array(s, (size_t)cap, sizeof(double));
    j->y = arena_array(s, (size_t)nv * cap, sizeof(double));
    j->u = arena_array(s, (size_t)p->m * cap, sizeof(double));
    j->newton = arena_array(s, (size_t)cap, sizeof(int));
    double *scratch = arena_array(s, (size_t)t->max_tree, sizeof(double));
    if (j->dof == NULL || j->sign == NULL || j->val == NULL || j->rest == NULL || j->y == NULL ||
        j->u == NULL || j->newton == NULL || scratch == NULL)
        return cdyn_fail(r, CDYN_ENOMEM, "joint rows: out of memory");
    for (int kind = JR_FRICTION; kind <= JR_LIMIT; kind++) {
        for (int b = 0; b < nb; b++) {
            cdyn_body_info bi;
            cdyn_model_body_info(s->model, b, &bi);
            if (bi.nv != 1)
                continue;
            const int dof = bi.vadr;
            const double qj = q0[bi.qadr];
            const double e = bi.limit_restitution;
            if (kind == JR_FRICTION && bi.friction > 0)
                add_row(s, t, p, j, dof, 1.0, h * bi.friction, 0.0, scratch);
            if (kind == JR_LIMIT && bi.limited && isfinite(bi.lower))
                add_row(s, t, p, j, dof, 1.0, (qj - bi.lower) / h, e, scratch);
            if (kind == JR_LIMIT && bi.limited && isfinite(bi.upper))
                add_row(s, t, p, j, dof, -1.0, (bi.upper - qj) / h, e, scratch);
        }
        if (kind == JR_FRICTION)
            j->nfric = j->n;
    }
    return CDYN_OK;
}

double jr_newton_target(double e, double u0, double ufree)
{
    const double a = fmax(0.0, u0 - ufree), eu2 = e * e * u0 * u0;
    return eu2 / (a + sqrt(a * a + eu2));
}

void jr_restitution(jrows *j, const cs_problem *p, const double *v0, double h)
{
    for (int r = j->nfric; r < j->n; r++) {
        const double e = j->rest[r], u0 = j->sign[r] * v0[j->dof[r]];
        const double uf = j->sign[r] * p->vfree[j->dof[r]];
        if (e > 0 && u0 < 0 && j->val[r] * h + h * uf <= 0) { /* gap + h u_free <= 0 */
            j->val[r] = -jr_newton_target(e, u0, uf);
            j->newton[r] = 1;
        }
    }
}

void jr_apply(const jrows *j, int nv, const double *f, double *v)
{
    for (int r = 0; r < j->n; r++)
        if (f[r] != 0.0)
            for (int i = 0; i < nv; i++)
                v[i] += f[r] * j->y[(size_t)r * nv + i];
}

void jr_limit_forces(const jrows *j, const double *f, double h, cdyn_state *x)
{
    for (int l = 0; l < j->n - j->nfric && l < x->nl; l++)
        x->limit_lambda[l] = f[j->nfric + l] / h;
}
