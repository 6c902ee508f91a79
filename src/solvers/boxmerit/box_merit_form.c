/* The two box-constrained reformulations of an MCP as 1/2 ||R(y)||^2 over a box: the
 * Fischer–Burmeister residual of fb_function.c over [l, u], and the slack ("natural") residual
 * of Buffo–Maciel / Andreani et al. See box_merit_internal.h for the layout and
 * docs/theory.md for the formulas. */
#include <math.h>
#include <string.h>

#include "solvers/boxmerit/box_merit_internal.h"

static int is_fixed(const bm_layout *lay, int i) { return lay->l[i] == lay->u[i]; }

void cdyn_bm_layout_init(bm_layout *lay, int n, const double *l, const double *u, int kind, int *wi,
                         int *zi)
{
    lay->n = n;
    lay->kind = kind;
    lay->l = l;
    lay->u = u;
    lay->wi = wi;
    lay->zi = zi;
    if (kind == CDYN_BOX_MERIT_FB) {
        lay->N = lay->m = lay->neq = n;
        return;
    }
    int ns = 0, neq = 0;
    for (int i = 0; i < n; ++i) {
        wi[i] = zi[i] = -1;
        if (is_fixed(lay, i))
            continue;
        ++neq;
        if (isfinite(l[i]))
            wi[i] = n + ns++;
        if (isfinite(u[i]))
            zi[i] = n + ns++;
    }
    lay->neq = neq;
    lay->N = n + ns;
    lay->m = neq + ns;
}

void cdyn_bm_box(const bm_layout *lay, double *lo, double *up)
{
    for (int i = 0; i < lay->n; ++i) {
        lo[i] = lay->l[i];
        up[i] = lay->u[i];
    }
    for (int k = lay->n; k < lay->N; ++k) {
        lo[k] = 0.0;
        up[k] = INFINITY;
    }
}

void cdyn_bm_init_slacks(const bm_layout *lay, const double *F, double *y)
{
    if (lay->kind == CDYN_BOX_MERIT_FB)
        return;
    for (int i = 0; i < lay->n; ++i) {
        if (lay->wi[i] >= 0)
            y[lay->wi[i]] = fmax(F[i], 0.0);
        if (lay->zi[i] >= 0)
            y[lay->zi[i]] = fmax(-F[i], 0.0);
    }
}

void cdyn_bm_residual(const bm_layout *lay, const double *y, const double *F, double *R, double *da,
                      double *db)
{
    const int n = lay->n;
    if (lay->kind == CDYN_BOX_MERIT_FB) {
        cdyn_mcp_fb_eval(n, lay->l, lay->u, y, F, 1.0, R, da, db);
        return;
    }
    int row = 0;
    for (int i = 0; i < n; ++i) {
        if (is_fixed(lay, i))
            continue;
        double r = F[i];
        if (lay->wi[i] >= 0) {
            const int k = lay->wi[i];
            r -= y[k];
            R[lay->neq + (k - n)] = (y[i] - lay->l[i]) * y[k];
        }
        if (lay->zi[i] >= 0) {
            const int k = lay->zi[i];
            r += y[k];
            R[lay->neq + (k - n)] = (lay->u[i] - y[i]) * y[k];
        }
        R[row++] = r;
    }
}

void cdyn_bm_jacobian(const bm_layout *lay, const double *y, const double *J, const double *da,
                      const double *db, double *JR)
{
    const int n = lay->n, m = lay->m, N = lay->N;
    if (lay->kind == CDYN_BOX_MERIT_FB) {
        for (int j = 0; j < n; ++j)
            for (int i = 0; i < n; ++i)
                JR[i + (size_t)j * n] = db[i] * J[i + (size_t)j * n] + (i == j ? da[i] : 0.0);
        return;
    }
    memset(JR, 0, (size_t)m * (size_t)N * sizeof(double));
    int row = 0;
    for (int i = 0; i < n; ++i) {
        if (is_fixed(lay, i))
            continue;
        for (int j = 0; j < n; ++j)
            JR[row + (size_t)j * m] = J[i + (size_t)j * n];
        if (lay->wi[i] >= 0) {
            const int k = lay->wi[i], c = lay->neq + (k - n);
            JR[row + (size_t)k * m] = -1.0;
            /* d/dx_i and d/dw_i of (x_i - l_i) w_i */
            JR[c + (size_t)i * m] = y[k];
            JR[c + (size_t)k * m] = y[i] - lay->l[i];
        }
        if (lay->zi[i] >= 0) {
            const int k = lay->zi[i], c = lay->neq + (k - n);
            JR[row + (size_t)k * m] = 1.0;
            /* d/dx_i and d/dz_i of (u_i - x_i) z_i */
            JR[c + (size_t)i * m] = -y[k];
            JR[c + (size_t)k * m] = lay->u[i] - y[i];
        }
        ++row;
    }
}
