/* The record of a step's substeps that cdyn_step keeps once a (sub)step fails, for
 * cdyn_step_derivatives (substep_derivs.h). */
#include "step/substep_derivs.h"
#include "step/step_internal.h"

#include "core/memory.h"

#include <string.h>

void substeps_begin(cdyn_stepper *s, const double *tau)
{
    substep_record *rec = &s->sub;
    rec->n = 0;
    rec->lost = 0;
    if (rec->tau == NULL)
        rec->tau = cdyn_mem_array(s->opts.allocator, (size_t)s->nv + 1, sizeof(double));
    if (rec->tau == NULL) {
        rec->lost = 1;
        return;
    }
    for (int i = 0; i < s->nv; i++)
        rec->tau[i] = tau != NULL ? tau[i] : 0.0;
}

/* Room for one more state: the arrays double, the states are created as needed and kept. */
static int grow(cdyn_stepper *s)
{
    substep_record *rec = &s->sub;
    const cdyn_allocator *a = s->opts.allocator;
    if (rec->n == rec->cap) {
        const int cap = rec->cap > 0 ? 2 * rec->cap : 4;
        cdyn_state **x = cdyn_mem_array(a, (size_t)cap, sizeof *x);
        int *k = cdyn_mem_array(a, (size_t)cap, sizeof *k);
        if (x == NULL || k == NULL) {
            cdyn_mem_free(a, x);
            cdyn_mem_free(a, k);
            return 0;
        }
        for (int i = 0; i < cap; i++)
            x[i] = i < rec->cap ? rec->x[i] : NULL;
        if (rec->cap > 0)
            memcpy(k, rec->k, (size_t)rec->cap * sizeof *k);
        cdyn_mem_free(a, rec->x);
        cdyn_mem_free(a, rec->k);
        rec->x = x;
        rec->k = k;
        rec->cap = cap;
    }
    if (rec->x[rec->n] == NULL &&
        cdyn_state_create(s->model, a, &rec->x[rec->n], NULL) != CDYN_OK)
        return 0;
    return 1;
}

void substeps_keep(cdyn_stepper *s, const cdyn_state *x, int k)
{
    substep_record *rec = &s->sub;
    if (rec->lost || !grow(s)) {
        rec->lost = 1;
        return;
    }
    cdyn_state_copy(rec->x[rec->n], x, NULL);
    rec->k[rec->n++] = k;
}

void substeps_free(cdyn_stepper *s)
{
    substep_record *rec = &s->sub;
    for (int i = 0; i < rec->cap; i++)
        cdyn_state_free(rec->x[i]);
    cdyn_mem_free(s->opts.allocator, rec->x);
    cdyn_mem_free(s->opts.allocator, rec->k);
    cdyn_mem_free(s->opts.allocator, rec->tau);
    memset(rec, 0, sizeof *rec);
}
