/* Pieces of the FB iteration's workspace shared by its stages (fb_newton.c, the polish and the
 * restarts; mcp_josephy.c): F without the proximal term, row scales of J, the rows' rounding
 * floors and the stopping test's excess over them. */
#include <float.h>
#include <math.h>

#include "linalg/dense.h"
#include "solvers/mcp/mcp_internal.h"

/* max_j |J_ij| of each row into rowmax (n). */
void cdyn_mcp_row_scales(const mcp_work *w, double *rowmax)
{
    const int n = w->n;
    for (int i = 0; i < n; ++i)
        rowmax[i] = 0.0;
    for (int j = 0; j < n; ++j) {
        const int k0 = w->J.sparse ? w->J.colptr[j] : 0;
        const int k1 = w->J.sparse ? w->J.colptr[j + 1] : n;
        for (int k = k0; k < k1; ++k) {
            const int i = w->J.sparse ? w->J.rowind[k] : k;
            const double v = fabs(w->J.sparse ? w->J.values[k] : w->J.values[(size_t)j * n + k]);
            rowmax[i] = v > rowmax[i] ? v : rowmax[i];
        }
    }
}

void cdyn_mcp_swap(double **a, double **b)
{
    double *t = *a;
    *a = *b;
    *b = t;
}

/* F itself (without the proximal term) at x into out; nonzero when F fails there. Evaluated,
 * not recovered as (F + eps (x - xbar)) - eps (x - xbar): with a large eps that difference
 * loses F entirely (found by fuzzing: z = 0 reported with residual 0 where it was 27). */
int cdyn_mcp_raw_F(mcp_work *w, const double *x, double *out)
{
    ++w->nfev;
    return w->p->F(w->p->ctx, x, out) != 0 || !cdyn_dense_all_finite(w->n, out);
}

/* The rounding level of each row: F_i is a sum of terms whose sizes |J_ij x_j| and |F_i|
 * indicate, and cannot be computed closer to 0 than a few ulps of the largest. A stiff contact
 * row of 7.5e6 N/m at positions of 0.3 m has a floor of 5e-10 N, above the default tol: there
 * Newton alternated between residuals of 1e-10 and 2e-10 until it gave up (docs/theory.md,
 * "When a step counts as solved"). The floor is taken at the point tested, with the latest
 * Jacobian of the call (a scale, not part of the residual). */
#define MCP_FLOOR_ULPS 16.0

void cdyn_mcp_floor_update(mcp_work *w)
{
    w->floor_ok = 1;
}

/* The floors of the rows into fl (n): 16 eps (|F_i| + sum_j |J_ij x_j|). */
static void row_floors(const mcp_work *w, const double *x, const double *F, double *fl)
{
    const int n = w->n;
    const double *Jv = w->J.values;
    for (int i = 0; i < n; ++i)
        fl[i] = fabs(F[i]);
    for (int j = 0; j < n; ++j) {
        const double xj = fabs(x[j]);
        if (xj == 0.0)
            continue;
        if (w->J.sparse) {
            for (int k = w->J.colptr[j]; k < w->J.colptr[j + 1]; ++k)
                fl[w->J.rowind[k]] += fabs(Jv[k]) * xj;
        } else {
            const double *col = Jv + (size_t)j * n;
            for (int i = 0; i < n; ++i)
                fl[i] += fabs(col[i]) * xj;
        }
    }
    for (int i = 0; i < n; ++i)
        fl[i] = isfinite(fl[i]) ? MCP_FLOOR_ULPS * DBL_EPSILON * fl[i] : 0.0;
}

/* The excess given the plain natural residual nat at (x, F): the floors are read only when
   nat alone fails the test (they cannot lift a passing point above tol). */
double cdyn_mcp_excess_from(mcp_work *w, const double *x, const double *F, double nat)
{
    if (!(nat > w->o->tol) || !w->floor_ok)
        return nat;
    row_floors(w, x, F, w->floor);
    return cdyn_mcp_natural_excess(w->n, w->l, w->u, x, F, w->floor);
}

double cdyn_mcp_excess(mcp_work *w, const double *x, const double *F)
{
    return cdyn_mcp_excess_from(w, x, F, cdyn_mcp_natural_residual(w->n, w->l, w->u, x, F));
}

