/* Benchmark: cost of the friction-cone QP (sparse CHOLMOD path) against the number of contacts.
 *
 * Problem family: a chain of nc spatial contacts between nc + 1 point masses (body 0 is the
 * ground). Contact i acts between bodies i and i+1 in a random orthonormal frame R_i, so the
 * Delassus matrix H = J M^-1 J' is block tridiagonal (3x3 blocks) and positive definite — the
 * local coupling of a stack or a granular chain. c = (U(-1, 0.3), U(-1, 1), U(-1, 1)) per
 * contact (mostly approaching, some separating), mu ~ U(0.2, 0.9). Every size is solved with the
 * default options; the solver object is created once per size (symbolic analysis) and the run
 * (factorizations and iterations) is timed over --repeat runs (minimum reported).
 *
 * Output: a Markdown table (contacts, unknowns, entries of H's lower triangle, iterations,
 * create time, solve time, time per iteration, the certified dual residual ||Hx + c - u||_inf
 * and gap relative to the objective f) and least-squares fits of log(time) against
 * log(contacts) over the sizes >= 100.
 *
 * Usage: bench_coneqp [--sizes 1,10,100,1000,5000] [--repeat 5] [--seed 1] [--disk]
 *   --disk: the fixed-normal variant (Song-Kumar-Pang Proposition 1) on the same chain, with
 *           lambda_n ~ U(0, 2) and H the tangential part of the Delassus matrix.
 * Set OPENBLAS_NUM_THREADS=1 for repeatable timings. */
#define _POSIX_C_SOURCE 199309L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cdyn/coneqp.h"

/* ---- deterministic generator (xorshift64*) ---- */
static unsigned long long rng_state;

static double uniform(double lo, double hi)
{
    unsigned long long x = rng_state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    rng_state = x;
    return lo + (hi - lo) * (double)((x * 0x2545F4914F6CDD1Dull) >> 11) * 0x1.0p-53;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void random_frame(double R[3][3])
{
    for (int r = 0; r < 3; ++r) {
        double nrm;
        do {
            for (int k = 0; k < 3; ++k)
                R[r][k] = uniform(-1.0, 1.0);
            for (int q = 0; q < r; ++q) {
                const double d = R[r][0] * R[q][0] + R[r][1] * R[q][1] + R[r][2] * R[q][2];
                for (int k = 0; k < 3; ++k)
                    R[r][k] -= d * R[q][k];
            }
            nrm = sqrt(R[r][0] * R[r][0] + R[r][1] * R[r][1] + R[r][2] * R[r][2]);
        } while (nrm < 0.1);
        for (int k = 0; k < 3; ++k)
            R[r][k] /= nrm;
    }
}

typedef struct chain {
    int nc, n;
    int *colptr, *rowind;
    double *values, *c, *mu, *normal;
    cdyn_csc H;
} chain;

/* Lower triangle of H = J M^-1 J' for the chain; with skip_normal, only the rows/columns of the
 * tangential directions (t, o) of every contact (the disk problem's matrix). */
static void build_chain(int nc, int skip_normal, chain *ch)
{
    const int d = skip_normal ? 2 : 3, first = skip_normal ? 1 : 0;
    const int n = d * nc;
    double(*R)[3][3] = malloc(sizeof *R * (size_t)nc);
    double *minv = malloc(sizeof(double) * ((size_t)nc + 1));
    for (int b = 0; b <= nc; ++b)
        minv[b] = b == 0 ? 0.0 : 1.0 / uniform(1.0, 2.0);
    for (int i = 0; i < nc; ++i)
        random_frame(R[i]);
    const size_t cap = (size_t)nc * (size_t)(d * d + 2 * d * d);
    ch->colptr = malloc(sizeof(int) * ((size_t)n + 1));
    ch->rowind = malloc(sizeof(int) * cap);
    ch->values = malloc(sizeof(double) * cap);
    int k = 0;
    for (int i = 0; i < nc; ++i)
        for (int a = 0; a < d; ++a) {
            const int col = d * i + a;
            ch->colptr[col] = k;
            for (int jb = i; jb <= i + 1 && jb < nc; ++jb)
                for (int b = 0; b < d; ++b) {
                    const int row = d * jb + b;
                    if (row < col)
                        continue;
                    const double *ra = R[i][first + a], *rb = R[jb][first + b];
                    const double w = jb == i ? minv[i] + minv[i + 1] : -minv[i + 1];
                    ch->rowind[k] = row;
                    ch->values[k++] = w * (ra[0] * rb[0] + ra[1] * rb[1] + ra[2] * rb[2]);
                }
        }
    ch->colptr[n] = k;
    ch->nc = nc;
    ch->n = n;
    ch->H.nrows = ch->H.ncols = n;
    ch->H.colptr = ch->colptr;
    ch->H.rowind = ch->rowind;
    ch->H.values = ch->values;
    ch->c = malloc(sizeof(double) * (size_t)n);
    ch->mu = malloc(sizeof(double) * (size_t)nc);
    ch->normal = malloc(sizeof(double) * (size_t)nc);
    for (int i = 0; i < nc; ++i) {
        for (int a = 0; a < d; ++a)
            ch->c[d * i + a] = (!skip_normal && a == 0) ? uniform(-1.0, 0.3) : uniform(-1.0, 1.0);
        ch->mu[i] = uniform(0.2, 0.9);
        ch->normal[i] = uniform(0.0, 2.0);
    }
    free(R);
    free(minv);
}

static void free_chain(chain *ch)
{
    free(ch->colptr);
    free(ch->rowind);
    free(ch->values);
    free(ch->c);
    free(ch->mu);
    free(ch->normal);
}

/* Least-squares slope of log(y) against log(x). */
static double loglog_slope(int m, const double *x, const double *y)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (int i = 0; i < m; ++i) {
        const double lx = log(x[i]), ly = log(y[i]);
        sx += lx, sy += ly, sxx += lx * lx, sxy += lx * ly;
    }
    return (m * sxy - sx * sy) / (m * sxx - sx * sx);
}

int main(int argc, char **argv)
{
    int sizes[32] = {1, 10, 100, 1000, 5000}, nsizes = 5, repeat = 5, disk = 0;
    unsigned long long seed = 1;
    for (int a = 1; a < argc; ++a) {
        if (!strcmp(argv[a], "--sizes") && a + 1 < argc) {
            nsizes = 0;
            for (char *t = strtok(argv[++a], ","); t && nsizes < 32; t = strtok(NULL, ","))
                sizes[nsizes++] = atoi(t);
        } else if (!strcmp(argv[a], "--repeat") && a + 1 < argc) {
            repeat = atoi(argv[++a]);
        } else if (!strcmp(argv[a], "--seed") && a + 1 < argc) {
            seed = strtoull(argv[++a], NULL, 10);
        } else if (!strcmp(argv[a], "--disk")) {
            disk = 1;
        } else {
            fprintf(stderr, "usage: %s [--sizes 1,10,100] [--repeat k] [--seed s] [--disk]\n",
                    argv[0]);
            return 2;
        }
    }
    if (repeat < 1)
        repeat = 1;

    printf("Friction-cone QP, sparse path (CHOLMOD), %s problem on a contact chain; "
           "seed %llu, best of %d runs.\n\n",
           disk ? "fixed-normal (disk)" : "cone", seed, repeat);
    printf("| contacts | unknowns | nnz(tril H) | iterations | create [ms] | solve [ms] | "
           "per iteration [ms] | dual residual | gap / abs(f) | status |\n");
    printf("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
    double fx[32], ft[32], fi[32];
    int nfit = 0, failures = 0;
    for (int s = 0; s < nsizes; ++s) {
        rng_state = seed * 0x9E3779B97F4A7C15ull + (unsigned long long)sizes[s];
        chain ch;
        build_chain(sizes[s], disk, &ch);
        cdyn_coneqp p = {0};
        p.ncontacts = ch.nc;
        p.dim = 3;
        p.mu = ch.mu;
        p.normal = disk ? ch.normal : NULL;
        p.Hs = &ch.H;
        p.c = ch.c;
        double *x = malloc(sizeof(double) * (size_t)ch.n);
        cdyn_coneqp_solver *solver = NULL;
        cdyn_report rep;
        cdyn_coneqp_info info;
        const double t0 = now();
        cdyn_status st = cdyn_coneqp_solver_create(&p, NULL, &solver, &rep);
        const double tcreate = now() - t0;
        double best = INFINITY;
        for (int r = 0; r < repeat && st == CDYN_OK; ++r) {
            const double t1 = now();
            st = cdyn_coneqp_solver_solve(solver, &p, x, NULL, &info, &rep);
            best = fmin(best, now() - t1);
        }
        if (st == CDYN_OK) {
            const double per = best / (rep.iterations > 0 ? rep.iterations : 1);
            printf("| %d | %d | %d | %d | %.3f | %.3f | %.4f | %.1e | %.1e | ok |\n", ch.nc, ch.n,
                   ch.colptr[ch.n], rep.iterations, 1e3 * tcreate, 1e3 * best, 1e3 * per,
                   info.dual_residual, info.gap / fmax(1e-300, fabs(info.primal_objective)));
            if (ch.nc >= 100) {
                fx[nfit] = ch.nc;
                ft[nfit] = best;
                fi[nfit++] = per;
            }
        } else {
            ++failures;
            printf("| %d | %d | %d | %d | %.3f | - | - | - | - | %s: %s |\n", ch.nc, ch.n,
                   ch.colptr[ch.n], rep.iterations, 1e3 * tcreate, cdyn_status_str(st),
                   rep.message);
        }
        cdyn_coneqp_solver_free(solver);
        free(x);
        free_chain(&ch);
    }
    if (nfit >= 2)
        printf("\nFit over the sizes >= 100 (%d points): solve time ~ contacts^%.2f, "
               "time per iteration ~ contacts^%.2f.\n",
               nfit, loglog_slope(nfit, fx, ft), loglog_slope(nfit, fx, fi));
    return failures ? 1 : 0;
}
