/* Finite-difference Jacobians of the MCP function: one F call per column (dense) or per
 * column color (sparse pattern, Curtis–Powell–Reid grouping). */
#include <float.h>
#include <math.h>

#include "linalg/dense.h"
#include "solvers/mcp/mcp_internal.h"

void cdyn_mcp_fd_color(int n, const int *colptr, const int *rowind, int *color, int *ncolors,
                       int *mark)
{
    /* Greedy, one color at a time: sweep the uncolored columns and take every column whose rows
       are not yet used by this color. O(colors * nnz), run once per solve. */
    for (int j = 0; j < n; ++j) {
        color[j] = -1;
        mark[j] = -1;
    }
    int colored = 0, c = 0;
    while (colored < n) {
        for (int j = 0; j < n; ++j) {
            if (color[j] >= 0)
                continue;
            int free = 1;
            for (int k = colptr[j]; k < colptr[j + 1] && free; ++k)
                free = mark[rowind[k]] != c;
            if (!free)
                continue;
            color[j] = c;
            ++colored;
            for (int k = colptr[j]; k < colptr[j + 1]; ++k)
                mark[rowind[k]] = c;
        }
        ++c;
    }
    *ncolors = c;
}

void cdyn_mcp_fd_setup(const cdyn_mcp *p, double fd_step, int *color, int *mark, mcp_fd *fd)
{
    fd->step = fd_step > 0.0 ? fd_step : sqrt(DBL_EPSILON);
    if (p->colptr != NULL) {
        cdyn_mcp_fd_color(p->n, p->colptr, p->rowind, color, &fd->ncolors, mark);
        fd->color = color;
    }
}

static double step_for(double xj, double rel)
{
    return rel * fmax(1.0, fabs(xj));
}

/* F at fd->xp into fd->Fp; nonzero when the callback fails or returns NaN/Inf. */
static int eval_at(const cdyn_mcp *p, const mcp_fd *fd, int *nfev)
{
    ++*nfev;
    if (p->F(p->ctx, fd->xp, fd->Fp) != 0)
        return 1;
    return !cdyn_dense_all_finite(p->n, fd->Fp);
}

/* Perturb the columns selected by (color == c), or column c itself when color is NULL, by
   sign * step; returns nonzero when F fails there. */
static int perturb_and_eval(const cdyn_mcp *p, const mcp_fd *fd, const double *x, int c,
                            double sign, int *nfev)
{
    const int n = p->n;
    for (int j = 0; j < n; ++j) {
        fd->xp[j] = x[j];
        if (fd->color ? fd->color[j] == c : j == c)
            fd->xp[j] = x[j] + sign * step_for(x[j], fd->step);
    }
    return eval_at(p, fd, nfev);
}

cdyn_status cdyn_mcp_fd_jacobian(const cdyn_mcp *p, const mcp_fd *fd, const double *x,
                                 const double *F0, mcp_jac *J, int *nfev)
{
    const int n = p->n;
    const int groups = J->sparse ? fd->ncolors : n;
    for (int c = 0; c < groups; ++c) {
        /* Forward step first; a failed evaluation (e.g. at a bound of F's domain) is retried
           backwards. */
        if (perturb_and_eval(p, fd, x, c, 1.0, nfev) && perturb_and_eval(p, fd, x, c, -1.0, nfev))
            return CDYN_ENUMERIC;
        if (!J->sparse) {
            /* The step actually taken is xp - x (rounding), which is what we divide by. */
            const double h = fd->xp[c] - x[c];
            double *col = J->values + (size_t)c * n;
            for (int i = 0; i < n; ++i)
                col[i] = (fd->Fp[i] - F0[i]) / h;
            continue;
        }
        for (int j = 0; j < n; ++j) {
            if (fd->color[j] != c)
                continue;
            const double h = fd->xp[j] - x[j];
            for (int k = J->colptr[j]; k < J->colptr[j + 1]; ++k)
                J->values[k] = (fd->Fp[J->rowind[k]] - F0[J->rowind[k]]) / h;
        }
    }
    return CDYN_OK;
}
