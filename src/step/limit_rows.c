/* The joint-limit rows of a model: see limit_rows.h. */
#include "step/limit_rows.h"

#include "core/memory.h"
#include "core/report.h"

#include <math.h>
#include <string.h>

cdyn_status lim_rows_create(const cdyn_model *m, const cdyn_allocator *a, lim_rows *l,
                            cdyn_report *r)
{
    memset(l, 0, sizeof *l);
    const int n = cdyn_model_limit_rows(m);
    if (n == 0)
        return CDYN_OK;
    /* doubles first, then the ints */
    double *blk = cdyn_mem_alloc(a, (size_t)n * (4 * sizeof(double) + 2 * sizeof(int)));
    if (blk == NULL)
        return cdyn_fail(r, CDYN_ENOMEM, "joint limits: out of memory");
    l->sign = blk;
    l->bound = blk + n;
    l->tau = blk + 2 * (size_t)n;
    l->zeta = blk + 3 * (size_t)n;
    l->dof = (int *)(void *)(blk + 4 * (size_t)n);
    l->qadr = l->dof + n;
    for (int k = 0; k < n; k++) {
        int body = 0, upper = 0;
        cdyn_body_info bi;
        cdyn_model_limit_row(m, k, &body, &upper);
        cdyn_model_body_info(m, body, &bi);
        l->dof[k] = bi.vadr;
        l->qadr[k] = bi.qadr;
        l->sign[k] = upper ? -1.0 : 1.0;
        l->bound[k] = upper ? bi.upper : bi.lower;
        l->tau[k] = bi.limit_solref[0];
        l->zeta[k] = bi.limit_solref[1];
    }
    l->n = n;
    return CDYN_OK;
}

void lim_rows_free(lim_rows *l, const cdyn_allocator *a)
{
    if (l->n > 0)
        cdyn_mem_free(a, l->sign);
    memset(l, 0, sizeof *l);
}

void lim_modes_from_position(const lim_rows *l, cdyn_state *x)
{
    for (int k = 0; k < l->n; k++) {
        const double tol = 1e-9 * fmax(1.0, fabs(l->bound[k]));
        x->limit_mode[k] = lim_gap(l, k, x->q) <= tol ? lim_acting(l, k) : CDYN_LIMIT_FREE;
        x->limit_delta[k] = 0.0;
    }
}
