#include "lcp_problems.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* M := B B^T / n + 0.1 I, B uniform in [-1, 1]; plain loops (no BLAS) so the benchmarks can use
 * this file with only the public library. */
static void random_spd(test_rng *rng, int n, double *M)
{
    const size_t nn = (size_t)n * (size_t)n;
    double *B = malloc(sizeof(double) * nn);
    for (size_t k = 0; k < nn; ++k)
        B[k] = test_rng_range(rng, -1.0, 1.0);
    memset(M, 0, sizeof(double) * nn);
    for (int k = 0; k < n; ++k)
        for (int j = 0; j < n; ++j) {
            const double bjk = B[j + (size_t)k * n] / n;
            for (int i = 0; i < n; ++i)
                M[i + (size_t)j * n] += B[i + (size_t)k * n] * bjk;
        }
    for (int i = 0; i < n; ++i)
        M[i + (size_t)i * n] += 0.1;
    free(B);
}

static void random_q(test_rng *rng, int n, double *q)
{
    for (int i = 0; i < n; ++i)
        q[i] = test_rng_range(rng, -1.0, 1.0);
}

void lcpgen_spd(test_rng *rng, int n, double *M, double *q)
{
    random_spd(rng, n, M);
    random_q(rng, n, q);
}

void lcpgen_pmatrix(test_rng *rng, int n, double *M, double *q)
{
    random_spd(rng, n, M);
    const double s = 1.0 / sqrt((double)n);
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < j; ++i) {
            const double a = s * test_rng_range(rng, -1.0, 1.0);
            M[i + (size_t)j * n] += a;
            M[j + (size_t)i * n] -= a;
        }
    random_q(rng, n, q);
}

int lcpgen_pyramid_size(int nc)
{
    return 6 * nc;
}

/* ---- friction pyramid -------------------------------------------------------------- */

typedef struct pyr_row {
    int body[2];     /* -1: ground (or unused) */
    double j[2][6];  /* coefficients on each body's (linear, angular) velocity */
} pyr_row;

static void random_unit(test_rng *rng, double *u)
{
    double r2;
    do {
        for (int a = 0; a < 3; ++a)
            u[a] = test_rng_range(rng, -1.0, 1.0);
        r2 = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
    } while (r2 > 1.0 || r2 < 1e-4);
    const double r = sqrt(r2);
    for (int a = 0; a < 3; ++a)
        u[a] /= r;
}

static void cross(const double *a, const double *b, double *c)
{
    c[0] = a[1] * b[2] - a[2] * b[1];
    c[1] = a[2] * b[0] - a[0] * b[2];
    c[2] = a[0] * b[1] - a[1] * b[0];
}

/* Row of the relative velocity along u at a contact with lever arms ra (body a), rb (body b). */
static void jac_row(pyr_row *row, int a, int b, const double *ra, const double *rb,
                    const double *u, double sign)
{
    double c[3];
    row->body[0] = a;
    row->body[1] = b;
    cross(ra, u, c);
    for (int k = 0; k < 3; ++k) {
        row->j[0][k] = sign * u[k];
        row->j[0][3 + k] = sign * c[k];
    }
    cross(rb, u, c);
    for (int k = 0; k < 3; ++k) {
        row->j[1][k] = -sign * u[k];
        row->j[1][3 + k] = -sign * c[k];
    }
}

/* (G Minv G^T)[r1, r2], summed over the bodies the two rows share. */
static double delassus(const pyr_row *r1, const pyr_row *r2, const double *minv)
{
    double s = 0.0;
    for (int a = 0; a < 2; ++a)
        for (int b = 0; b < 2; ++b)
            if (r1->body[a] >= 0 && r1->body[a] == r2->body[b]) {
                const double *mi = minv + 6 * r1->body[a];
                for (int k = 0; k < 6; ++k)
                    s += r1->j[a][k] * mi[k] * r2->j[b][k];
            }
    return s;
}

static double row_times(const pyr_row *r, const double *v)
{
    double s = 0.0;
    for (int a = 0; a < 2; ++a)
        if (r->body[a] >= 0)
            for (int k = 0; k < 6; ++k)
                s += r->j[a][k] * v[6 * r->body[a] + k];
    return s;
}

void lcpgen_pyramid(test_rng *rng, int nc, double mu, double *M, double *q)
{
    const int n = 6 * nc, nrows = 5 * nc, nb = nc / 3 + 1;
    pyr_row *rows = malloc(sizeof(pyr_row) * (size_t)nrows);
    double *minv = malloc(sizeof(double) * 6 * (size_t)nb);
    double *vel = malloc(sizeof(double) * 6 * (size_t)nb);
    for (int b = 0; b < nb; ++b) {
        const double mass = test_rng_range(rng, 1.0, 5.0);
        for (int k = 0; k < 3; ++k) {
            minv[6 * b + k] = 1.0 / mass;
            minv[6 * b + 3 + k] = 1.0 / test_rng_range(rng, 0.1, 1.0);
        }
        for (int k = 0; k < 6; ++k)
            vel[6 * b + k] = test_rng_range(rng, -1.0, 1.0);
    }
    /* Rows: normals first (index c), then the four directions of contact c at nc + 4c + k. */
    for (int c = 0; c < nc; ++c) {
        const int a = (int)(test_rng_uniform(rng) * nb);
        int b = -1;
        if (nb > 1 && test_rng_uniform(rng) < 0.5) {
            b = (int)(test_rng_uniform(rng) * (nb - 1));
            if (b >= a)
                ++b;
        }
        double nrm[3], t[3], o[3], ra[3], rb[3], tmp[3];
        random_unit(rng, nrm);
        random_unit(rng, tmp);
        cross(nrm, tmp, t);
        const double tl = sqrt(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]);
        for (int k = 0; k < 3; ++k)
            t[k] /= tl;
        cross(nrm, t, o);
        for (int k = 0; k < 3; ++k) {
            ra[k] = test_rng_range(rng, -0.5, 0.5);
            rb[k] = test_rng_range(rng, -0.5, 0.5);
        }
        jac_row(&rows[c], a, b, ra, rb, nrm, 1.0);
        jac_row(&rows[nc + 4 * c + 0], a, b, ra, rb, t, 1.0);
        jac_row(&rows[nc + 4 * c + 1], a, b, ra, rb, t, -1.0);
        jac_row(&rows[nc + 4 * c + 2], a, b, ra, rb, o, 1.0);
        jac_row(&rows[nc + 4 * c + 3], a, b, ra, rb, o, -1.0);
    }
    memset(M, 0, sizeof(double) * (size_t)n * (size_t)n);
    for (int j = 0; j < nrows; ++j)
        for (int i = 0; i < nrows; ++i)
            M[i + (size_t)j * n] = delassus(&rows[i], &rows[j], minv);
    for (int c = 0; c < nc; ++c) {
        const int s = 5 * nc + c; /* sigma_c */
        for (int k = 0; k < 4; ++k) {
            const int d = nc + 4 * c + k;
            M[d + (size_t)s * n] = 1.0;  /* E */
            M[s + (size_t)d * n] = -1.0; /* -E^T */
        }
        M[s + (size_t)c * n] = mu; /* mu I */
    }
    for (int i = 0; i < nrows; ++i)
        q[i] = row_times(&rows[i], vel);
    for (int c = 0; c < nc; ++c) {
        q[c] += test_rng_range(rng, 0.0, 0.1);
        q[5 * nc + c] = 0.0;
    }
    free(vel);
    free(minv);
    free(rows);
}
