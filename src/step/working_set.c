/* The rigid schemes' working set of rows (working_set.h). */
#include "step/working_set.h"

#include <math.h>
#include <string.h>

#include "core/memory.h"

/* The row's normal velocity, less the dual cone's margin for the cone step. */
static double normal_margin(const cs_problem *p, int c, const double *v, int stride, int cone)
{
    double t = 0.0;
    if (cone)
        t = p->mu[c] * (p->nd == 3 ? hypot(v[stride * c + 1], v[stride * c + 2])
                                   : fabs(v[stride * c + 1]));
    return v[stride * c] - t;
}

int wset_first(const cs_problem *p, const cdyn_state *x0, int cone, int *pos)
{
    double vmax = 0.0; /* the fastest approach */
    for (int c = 0; c < p->k; c++)
        vmax = fmax(vmax, -normal_margin(p, c, p->r, p->nd, cone));
    int n = 0;
    for (int c = 0; c < p->k; c++) {
        const int i = p->rows[c];
        const int loaded = cone ? x0->mode[i] != CDYN_MODE_FREE : x0->lambda[3 * i] > 0.0;
        pos[c] = normal_margin(p, c, p->r, p->nd, cone) < vmax || loaded;
        n += pos[c];
    }
    return n;
}

cdyn_status wset_restrict(const cs_problem *p, int *pos, const cdyn_allocator *a, cs_problem *sub)
{
    const int nd = p->nd;
    int k = 0;
    for (int c = 0; c < p->k; c++)
        pos[c] = pos[c] ? k++ : -1;
    *sub = *p;
    sub->k = k;
    sub->m = nd * k;
    sub->mu = cdyn_mem_array(a, (size_t)k + 1, sizeof(double));
    sub->r = cdyn_mem_array(a, (size_t)sub->m + 1, sizeof(double));
    sub->wdiag = cdyn_mem_array(a, (size_t)sub->m + 1, sizeof(double));
    sub->ti = cdyn_mem_array(a, (size_t)p->ntrip + 1, sizeof(int));
    sub->tj = cdyn_mem_array(a, (size_t)p->ntrip + 1, sizeof(int));
    sub->tx = cdyn_mem_array(a, (size_t)p->ntrip + 1, sizeof(double));
    if (sub->mu == NULL || sub->r == NULL || sub->wdiag == NULL || sub->ti == NULL ||
        sub->tj == NULL || sub->tx == NULL)
        return CDYN_ENOMEM;
    for (int c = 0; c < p->k; c++) {
        if (pos[c] < 0)
            continue;
        sub->mu[pos[c]] = p->mu[c];
        memcpy(sub->r + nd * pos[c], p->r + nd * c, (size_t)nd * sizeof(double));
        memcpy(sub->wdiag + nd * pos[c], p->wdiag + nd * c, (size_t)nd * sizeof(double));
    }
    int nt = 0;
    for (int e = 0; e < p->ntrip; e++) {
        const int ci = pos[p->ti[e] / nd], cj = pos[p->tj[e] / nd];
        if (ci < 0 || cj < 0)
            continue;
        sub->ti[nt] = ci * nd + p->ti[e] % nd;
        sub->tj[nt] = cj * nd + p->tj[e] % nd;
        sub->tx[nt++] = p->tx[e];
    }
    sub->ntrip = nt;
    return CDYN_OK;
}

int wset_check(const cs_problem *p, int *pos, const double *imp, int stride, int cone, double *u)
{
    const int nd = p->nd;
    for (int c = 0; c < p->k; c++)
        for (int d = 0; d < 3; d++)
            u[3 * c + d] = d < nd ? p->r[c * nd + d] : 0.0;
    /* W p with W's lower-triangle triplets, each used both ways off the diagonal */
    for (int e = 0; e < p->ntrip; e++) {
        const int i = p->ti[e], j = p->tj[e], ci = pos[i / nd], cj = pos[j / nd];
        if (cj >= 0)
            u[3 * (i / nd) + i % nd] += p->tx[e] * imp[stride * cj + j % nd];
        if (i != j && ci >= 0)
            u[3 * (j / nd) + j % nd] += p->tx[e] * imp[stride * ci + i % nd];
    }
    int bad = 0;
    for (int c = 0; c < p->k; c++) {
        const int out = pos[c] < 0, unfit = out && normal_margin(p, c, u, 3, cone) < 0.0;
        bad += unfit;
        pos[c] = !out || unfit;
    }
    return bad;
}
