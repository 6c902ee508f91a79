#include "coneqp_support.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void cq_dense_to_csc(int n, const double *H, int lower_only, test_csc *out)
{
    int nnz = 0;
    for (int j = 0; j < n; ++j)
        for (int i = lower_only ? j : 0; i < n; ++i)
            nnz += (H[i + (size_t)j * n] != 0.0 || i == j);
    out->colptr = malloc(sizeof(int) * ((size_t)n + 1));
    out->rowind = malloc(sizeof(int) * (size_t)(nnz > 0 ? nnz : 1));
    out->values = malloc(sizeof(double) * (size_t)(nnz > 0 ? nnz : 1));
    int k = 0;
    for (int j = 0; j < n; ++j) {
        out->colptr[j] = k;
        for (int i = lower_only ? j : 0; i < n; ++i) {
            const double v = H[i + (size_t)j * n];
            if (v != 0.0 || i == j) {
                out->rowind[k] = i;
                out->values[k++] = v;
            }
        }
    }
    out->colptr[n] = k;
    out->A.nrows = out->A.ncols = n;
    out->A.colptr = out->colptr;
    out->A.rowind = out->rowind;
    out->A.values = out->values;
}

/* Random orthonormal 3x3 frame (rows), by Gram-Schmidt of random vectors. */
static void random_frame(test_rng *g, double R[3][3])
{
    for (int r = 0; r < 3; ++r) {
        double nrm;
        do {
            for (int k = 0; k < 3; ++k)
                R[r][k] = test_rng_range(g, -1.0, 1.0);
            for (int q = 0; q < r; ++q) {
                double d = 0.0;
                for (int k = 0; k < 3; ++k)
                    d += R[r][k] * R[q][k];
                for (int k = 0; k < 3; ++k)
                    R[r][k] -= d * R[q][k];
            }
            nrm = sqrt(R[r][0] * R[r][0] + R[r][1] * R[r][1] + R[r][2] * R[r][2]);
        } while (nrm < 0.1);
        for (int k = 0; k < 3; ++k)
            R[r][k] /= nrm;
    }
}

static void chain(test_rng *g, int nc, const int *dims, int tangential, double **dense,
                  test_csc *lower)
{
    /* J: rows of contact i (offset off[i], dims[i] rows) act on bodies i (-R) and i+1 (+R);
     * body 0 is the ground (not a variable). Bodies have 3 translational DOF. */
    int *off = malloc(sizeof(int) * ((size_t)nc + 1)), *bd = malloc(sizeof(int) * (size_t)nc);
    const int first = tangential ? 1 : 0; /* first frame row used */
    off[0] = 0;
    for (int i = 0; i < nc; ++i) {
        bd[i] = dims[i] - first;
        off[i + 1] = off[i] + bd[i];
    }
    const int n = off[nc];
    double *R = malloc(sizeof(double) * 9 * (size_t)nc);
    double *minv = malloc(sizeof(double) * ((size_t)nc + 1));
    for (int b = 0; b <= nc; ++b)
        minv[b] = b == 0 ? 0.0 : 1.0 / test_rng_range(g, 1.0, 2.0);
    for (int i = 0; i < nc; ++i) {
        double F[3][3];
        random_frame(g, F);
        if (dims[i] == 2) { /* planar: frame in the x-y plane */
            const double th = test_rng_range(g, 0.0, 6.283185307179586);
            double P[3][3] = {{cos(th), sin(th), 0}, {-sin(th), cos(th), 0}, {0, 0, 1}};
            memcpy(F, P, sizeof F);
        }
        for (int a = 0; a < 3; ++a)
            for (int k = 0; k < 3; ++k)
                R[9 * (size_t)i + 3 * a + k] = F[a][k];
    }
    /* Block (i, j) of J M^-1 J' is nonzero for |i - j| <= 1:
     *   (i, i):   R_i (minv_i + minv_{i+1}) R_i'     (rows of contact i)
     *   (i+1, i): R_{i+1} (-minv_{i+1}) R_i'        (they share body i+1) */
    if (dense != NULL) {
        *dense = calloc((size_t)n * n, sizeof(double));
    }
    int cap = 0;
    for (int i = 0; i < nc; ++i)
        cap += bd[i] * bd[i] + (i + 1 < nc ? 2 * bd[i] * bd[i + 1] : 0);
    lower->colptr = malloc(sizeof(int) * ((size_t)n + 1));
    lower->rowind = malloc(sizeof(int) * (size_t)cap);
    lower->values = malloc(sizeof(double) * (size_t)cap);
    int k = 0;
    for (int i = 0; i < nc; ++i)
        for (int a = 0; a < bd[i]; ++a) { /* column off[i] + a */
            const int col = off[i] + a;
            lower->colptr[col] = k;
            const double *Ra = R + 9 * (size_t)i + 3 * (a + first);
            for (int jb = i; jb <= i + 1 && jb < nc; ++jb)
                for (int b = 0; b < bd[jb]; ++b) {
                    const int row = off[jb] + b;
                    if (row < col)
                        continue;
                    const double *Rb = R + 9 * (size_t)jb + 3 * (b + first);
                    const double w = jb == i ? minv[i] + minv[i + 1] : -minv[i + 1];
                    const double v = w * (Ra[0] * Rb[0] + Ra[1] * Rb[1] + Ra[2] * Rb[2]);
                    lower->rowind[k] = row;
                    lower->values[k++] = v;
                    if (dense != NULL) {
                        (*dense)[row + (size_t)col * n] = v;
                        (*dense)[col + (size_t)row * n] = v;
                    }
                }
        }
    lower->colptr[n] = k;
    lower->A.nrows = lower->A.ncols = n;
    lower->A.colptr = lower->colptr;
    lower->A.rowind = lower->rowind;
    lower->A.values = lower->values;
    free(off);
    free(bd);
    free(R);
    free(minv);
}

void cq_chain_delassus(test_rng *g, int nc, const int *dims, double **dense, test_csc *lower)
{
    chain(g, nc, dims, 0, dense, lower);
}

void cq_chain_delassus_tangential(test_rng *g, int nc, const int *dims, double **dense,
                                  test_csc *lower)
{
    chain(g, nc, dims, 1, dense, lower);
}

int cq_nvars(const cdyn_coneqp *p)
{
    int n = 0;
    for (int i = 0; i < p->ncontacts; ++i)
        n += (p->dims ? p->dims[i] : p->dim) - (p->normal != NULL);
    return n;
}

static double nrm(int len, const double *v)
{
    double s = 0.0;
    for (int k = 0; k < len; ++k)
        s += v[k] * v[k];
    return sqrt(s);
}

void cq_kkt_check(const cdyn_coneqp *p, const double *x, const double *u, cq_kkt *out)
{
    const int n = cq_nvars(p);
    double *g = malloc(sizeof(double) * (size_t)n);
    if (p->H != NULL) {
        for (int i = 0; i < n; ++i) {
            double s = 0.0;
            for (int j = 0; j < n; ++j)
                s += p->H[i + (size_t)j * n] * x[j];
            g[i] = s;
        }
    } else {
        test_csc_mul_symlower(p->Hs, x, g);
    }
    double xhx = 0.0, cx = 0.0, cmax = 0.0;
    for (int j = 0; j < n; ++j) {
        xhx += x[j] * g[j];
        cx += p->c[j] * x[j];
        cmax = fmax(cmax, fabs(p->c[j]));
        g[j] += p->c[j];
    }
    memset(out, 0, sizeof *out);
    out->obj = 0.5 * xhx + cx;
    out->scale = fmax(1.0, cmax);
    int o = 0;
    for (int i = 0; i < p->ncontacts; ++i) {
        const int d = p->dims ? p->dims[i] : p->dim;
        const double mu = p->mu[i];
        double term = 0.0;
        if (p->normal == NULL) {
            const double xt = nrm(d - 1, x + o + 1), gt = nrm(d - 1, g + o + 1);
            out->primal = fmax(out->primal, fmax(0.0, fmax(xt - mu * x[o], -x[o])));
            out->dual = fmax(out->dual, fmax(0.0, mu * gt - g[o]));
            for (int k = 0; k < d; ++k)
                term += x[o + k] * g[o + k];
            if (u != NULL) {
                out->udual = fmax(out->udual, fmax(0.0, mu * nrm(d - 1, u + o + 1) - u[o]));
                for (int k = 0; k < d; ++k)
                    out->ugap += x[o + k] * u[o + k];
            }
            o += d;
        } else {
            const double r = mu * p->normal[i];
            out->primal = fmax(out->primal, fmax(0.0, nrm(d - 1, x + o) - r));
            for (int k = 0; k < d - 1; ++k)
                term += x[o + k] * g[o + k];
            term += r * nrm(d - 1, g + o);
            if (u != NULL) {
                for (int k = 0; k < d - 1; ++k)
                    out->ugap += x[o + k] * u[o + k];
                out->ugap += r * nrm(d - 1, u + o);
            }
            o += d - 1;
        }
        out->comp = fmax(out->comp, fabs(term));
        out->gap += term;
    }
    if (u != NULL)
        for (int j = 0; j < n; ++j)
            out->uerr = fmax(out->uerr, fabs(u[j] - g[j]));
    free(g);
}

double cq_distance_bound(const cq_kkt *k, int n, double lambda_min)
{
    const double r2 = k->uerr * sqrt((double)n); /* ||r||_2 <= sqrt(n) ||r||_inf */
    return (r2 + sqrt(r2 * r2 + 2.0 * lambda_min * fmax(k->ugap, 0.0))) / lambda_min;
}

/* Euclidean projection onto {||y_t|| <= m y_n}; m = INFINITY: the half-space y_n >= 0. */
void cq_proj_cone(int d, double m, const double *v, double *y)
{
    double vt = 0.0;
    for (int k = 1; k < d; ++k)
        vt += v[k] * v[k];
    vt = sqrt(vt);
    if (isinf(m)) {
        memcpy(y, v, sizeof(double) * (size_t)d);
        y[0] = fmax(v[0], 0.0);
    } else if (vt <= m * v[0]) {
        memcpy(y, v, sizeof(double) * (size_t)d);
    } else if (m * vt <= -v[0]) {
        memset(y, 0, sizeof(double) * (size_t)d);
    } else {
        y[0] = (v[0] + m * vt) / (1.0 + m * m);
        for (int k = 1; k < d; ++k)
            y[k] = m * y[0] * v[k] / vt;
    }
}
