/* bench_fc3d: cdyn's frictional contact solvers against Siconos Numerics' (fc3d_driver: NSGS,
 * NSN-AC, NSN-FB) on every problem file of tests/data/fc3d, in one run, with one residual: the
 * natural map of the whole problem relative to ||q|| (cdyn_fc3d_residual), computed by cdyn on
 * every solver's answer. A solver solves a problem when that residual is <= 1e-8, whatever the
 * solver itself says. Siconos reads the Siconos text files itself; the FCLib (HDF5) and planar
 * files, which this Siconos build cannot read as 3-D problems, reach it through cdyn's reader
 * and cdyn_fc3d_file_write (3-D, SBM storage), so both libraries see the same numbers.
 * Prints Markdown tables on stdout (docs/benchmarks.md, scripts/bench.sh fc3d). */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <sys/wait.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_common.h"
#include "bench_timer.h"
#include "cdyn/fc3d.h"
#include "siconos_fc3d.h"
#include "support.h"

#define TOL 1e-8
#define MAX_FILES 128
#define NCDYN 4
#define NSOL (NCDYN + SICONOS_FC3D_SOLVERS)

static const char *const SOLVER_NAMES[NSOL] = {"cdyn", "cdyn NSGS", "cdyn Newton-AC",
                                               "cdyn Newton-FB", "Siconos NSGS",
                                               "Siconos NSN-AC", "Siconos NSN-FB"};

typedef struct outcome {
    int ran, solved, iterations;
    char died[16]; /* Siconos: "crash" or "timeout" */
    double residual, time;
    char method[32];
} outcome;

typedef struct run_ctx {
    int solver;
    const cdyn_fc3d *p;
    siconos_fc3d *sic;
    double *r, *u;
    int iterations;
    cdyn_fc3d_report rep;
} run_ctx;

static int run_once(void *vctx)
{
    run_ctx *c = vctx;
    size_t m = 3 * (size_t)c->p->n;
    memset(c->r, 0, m * sizeof(double));
    if (c->solver >= NCDYN) {
        return siconos_fc3d_solve(c->sic, (siconos_fc3d_solver)(c->solver - NCDYN), TOL,
                                  c->solver == NCDYN ? 10000 : 1000, c->r, c->u, &c->iterations);
    }
    cdyn_status st;
    if (c->solver == 0) {
        cdyn_fc3d_options o;
        cdyn_fc3d_defaults(&o);
        o.tol = TOL;
        st = cdyn_fc3d_solve(c->p, &o, c->r, c->u, &c->rep);
    } else if (c->solver == 1) {
        cdyn_fc3d_nsgs_options o;
        cdyn_fc3d_nsgs_defaults(&o);
        o.tol = TOL;
        o.max_sweeps = 10000;
        st = cdyn_fc3d_nsgs(c->p, &o, c->r, c->u, &c->rep);
    } else {
        cdyn_fc3d_newton_options o;
        cdyn_fc3d_newton_defaults(&o);
        o.tol = TOL;
        o.max_iter = 1000;
        o.formulation = c->solver == 2 ? CDYN_FC3D_ALART_CURNIER : CDYN_FC3D_FISCHER_BURMEISTER;
        st = cdyn_fc3d_newton(c->p, &o, c->r, c->u, &c->rep);
    }
    c->iterations = c->rep.sweeps + c->rep.newton_iterations;
    return (int)st;
}

/* Siconos' solvers assert on some inputs (NSN-FB: "Assertion `-x12 + x6>=0.' failed" in its
 * generated FB code) and could loop: each Siconos timing runs in a child process with a time
 * limit, which hands back its status, timing, iterations and r through a pipe. Returns 0, or
 * -1 when the child died (*why says how). */
static int time_isolated(run_ctx *c, const bench_budget *budget, bench_timing *t, int *status,
                         char *why, size_t why_len)
{
    size_t m = 3 * (size_t)c->p->n;
    int fds[2];
    if (pipe(fds) != 0) {
        snprintf(why, why_len, "pipe failed");
        return -1;
    }
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        snprintf(why, why_len, "fork failed");
        return -1;
    }
    if (pid == 0) {
        close(fds[0]);
        alarm(300);
        int devnull = open("/dev/null", O_WRONLY); /* Siconos prints warnings on stdout */
        if (devnull >= 0) {
            dup2(devnull, STDOUT_FILENO);
            dup2(devnull, STDERR_FILENO);
        }
        int st = bench_time(run_once, c, budget, t);
        int ok = write(fds[1], &st, sizeof st) == (ssize_t)sizeof st &&
                 write(fds[1], t, sizeof *t) == (ssize_t)sizeof *t &&
                 write(fds[1], &c->iterations, sizeof c->iterations) ==
                     (ssize_t)sizeof c->iterations;
        for (size_t off = 0; ok && off < m * sizeof(double);) {
            ssize_t w = write(fds[1], (char *)c->r + off, m * sizeof(double) - off);
            ok = w > 0;
            off += ok ? (size_t)w : 0;
        }
        _exit(ok ? 0 : 1);
    }
    close(fds[1]);
    FILE *in = fdopen(fds[0], "rb");
    int got = in != NULL && fread(status, sizeof *status, 1, in) == 1 &&
              fread(t, sizeof *t, 1, in) == 1 &&
              fread(&c->iterations, sizeof c->iterations, 1, in) == 1 &&
              fread(c->r, sizeof(double), m, in) == m;
    if (in != NULL)
        fclose(in);
    else
        close(fds[0]);
    int ws = 0;
    waitpid(pid, &ws, 0);
    if (got && WIFEXITED(ws) && WEXITSTATUS(ws) == 0)
        return 0;
    if (WIFSIGNALED(ws))
        snprintf(why, why_len, "%s", WTERMSIG(ws) == SIGALRM ? "timeout" : "crash");
    else
        snprintf(why, why_len, "crash");
    return -1;
}

/* A chain of n + 1 free bodies (unit mass and inertia) with contact i between bodies i and
 * i + 1 and random 3 x 6 Jacobian blocks: W = J J' is block tridiagonal, so a Newton iteration
 * should cost O(n). Blocks in block rows; q_N in [-1, 0.3], mu in [0.1, 0.5]. */
typedef struct chain_problem {
    int n;
    int *rowptr, *colind;
    double *values, *q, *mu;
    cdyn_fc3d_blocks blocks;
    cdyn_fc3d p;
} chain_problem;

static int chain_make(int n, uint64_t seed, chain_problem *c)
{
    test_rng rng;
    test_rng_seed(&rng, seed);
    memset(c, 0, sizeof *c);
    size_t nb = 3 * (size_t)n;
    double *J = malloc(2 * (size_t)n * 18 * sizeof(double)); /* per contact: on body i, i+1 */
    c->rowptr = malloc(((size_t)n + 1) * sizeof(int));
    c->colind = malloc(nb * sizeof(int));
    c->values = calloc(9 * nb, sizeof(double));
    c->q = malloc(3 * (size_t)n * sizeof(double));
    c->mu = malloc((size_t)n * sizeof(double));
    if (J == NULL || c->rowptr == NULL || c->colind == NULL || c->values == NULL ||
        c->q == NULL || c->mu == NULL) {
        free(J);
        return -1;
    }
    for (size_t k = 0; k < 2 * (size_t)n * 18; k++)
        J[k] = test_rng_range(&rng, -1.0, 1.0);
    /* J_a(i) = J + 36 i (3 x 6 on body i), J_b(i) = J + 36 i + 18 (on body i + 1); row-major. */
    int k = 0;
    for (int i = 0; i < n; i++) {
        c->rowptr[i] = k;
        for (int j = i - 1; j <= i + 1; j++) {
            if (j < 0 || j >= n)
                continue;
            c->colind[k] = j;
            double *B = c->values + 9 * (size_t)k;
            for (int a = 0; a < 3; a++)
                for (int b = 0; b < 3; b++) {
                    double v = 0.0;
                    const double *Ja = J + 36 * (size_t)i, *Jb = Ja + 18;
                    const double *Ka = J + 36 * (size_t)j, *Kb = Ka + 18;
                    for (int d = 0; d < 6; d++) {
                        if (j == i)
                            v += Ja[6 * a + d] * Ja[6 * b + d] + Jb[6 * a + d] * Jb[6 * b + d];
                        else if (j == i + 1) /* shared body i + 1: J_b(i) and J_a(i + 1) */
                            v += Jb[6 * a + d] * Ka[6 * b + d];
                        else /* j = i - 1, shared body i: J_a(i) and J_b(i - 1) */
                            v += Ja[6 * a + d] * Kb[6 * b + d];
                    }
                    B[a + 3 * b] = v;
                }
            k++;
        }
    }
    c->rowptr[n] = k;
    for (int i = 0; i < n; i++) {
        c->q[3 * i] = test_rng_range(&rng, -1.0, 0.3);
        c->q[3 * i + 1] = test_rng_range(&rng, -1.0, 1.0);
        c->q[3 * i + 2] = test_rng_range(&rng, -1.0, 1.0);
        c->mu[i] = test_rng_range(&rng, 0.1, 0.5);
    }
    free(J);
    c->n = n;
    c->blocks = (cdyn_fc3d_blocks){c->rowptr, c->colind, c->values};
    c->p = (cdyn_fc3d){n, NULL, &c->blocks, c->q, c->mu};
    return 0;
}

static void chain_free(chain_problem *c)
{
    free(c->rowptr);
    free(c->colind);
    free(c->values);
    free(c->q);
    free(c->mu);
}

/* Newton-AC (cdyn) and NSN-AC (Siconos) on chains of growing length: time per iteration. */
static void scaling_table(const bench_config *cfg, const char *tmp, FILE *csv)
{
    static const int sizes[] = {100, 1000, 10000, 100000};
    printf("\n| contacts (chain) | cdyn Newton-AC: iterations | time | per iteration | per "
           "iteration and contact | Siconos NSN-AC: iterations | time | per iteration |\n");
    printf("|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (int k = 0; k < 4; k++) {
        chain_problem c;
        if (chain_make(sizes[k], cfg->seed + (uint64_t)k, &c) != 0) {
            chain_free(&c);
            continue;
        }
        size_t m = 3 * (size_t)c.n;
        double *r = calloc(m, sizeof(double)), *u = calloc(m, sizeof(double));
        char sic_cells[3][48] = {"n/a", "", ""};
        bench_timing t = {0, 0, 0};
        run_ctx rc = {2, &c.p, NULL, r, u, 0, {0}};
        int st = r != NULL && u != NULL ? bench_time(run_once, &rc, &cfg->budget, &t) : -1;
        int its = rc.rep.newton_iterations;
        double rel = INFINITY;
        if (st == CDYN_OK)
            cdyn_fc3d_residual(&c.p, r, NULL, NULL, &rel);
        if (csv != NULL)
            fprintf(csv, "chain-%d,%d,cdyn Newton-AC,%d,%d,%d,%.3e,%.6e\n", c.n, c.n, st,
                    rel <= TOL, its, rel, t.median);
        siconos_fc3d *sic = NULL;
        if (c.n <= 10000 && cdyn_fc3d_file_write(tmp, &c.p, NULL, NULL) == CDYN_OK)
            sic = siconos_fc3d_load(tmp);
        if (sic != NULL) {
            run_ctx sc = {NCDYN + SICONOS_FC3D_NSN_AC, &c.p, sic, r, u, 0, {0}};
            bench_timing ts = {0, 0, 0};
            int sst = 0;
            char died[16] = "";
            double srel = INFINITY;
            if (time_isolated(&sc, &cfg->budget, &ts, &sst, died, sizeof died) == 0)
                cdyn_fc3d_residual(&c.p, r, NULL, NULL, &srel);
            if (srel <= TOL && sc.iterations > 0) {
                snprintf(sic_cells[0], sizeof sic_cells[0], "%d", sc.iterations);
                snprintf(sic_cells[1], sizeof sic_cells[1], "%.3g ms", 1e3 * ts.median);
                snprintf(sic_cells[2], sizeof sic_cells[2], "%.3g ms",
                         1e3 * ts.median / sc.iterations);
            } else {
                snprintf(sic_cells[0], sizeof sic_cells[0], "**%s** (%.1e)",
                         died[0] ? died : "fails", srel);
            }
            if (csv != NULL)
                fprintf(csv, "chain-%d,%d,Siconos NSN-AC,%d,%d,%d,%.3e,%.6e\n", c.n, c.n, sst,
                        srel <= TOL, sc.iterations, srel, ts.median);
            siconos_fc3d_free(sic);
        }
        if (st == CDYN_OK && its > 0)
            printf("| %d | %d | %.3g ms | %.3g ms | %.3g µs | %s | %s | %s |\n", c.n, its,
                   1e3 * t.median, 1e3 * t.median / its, 1e6 * t.median / its / c.n,
                   sic_cells[0], sic_cells[1], sic_cells[2]);
        else
            printf("| %d | **fails** (%s) | | | | %s | %s | %s |\n", c.n,
                   cdyn_status_str((cdyn_status)st), sic_cells[0], sic_cells[1], sic_cells[2]);
        fflush(stdout);
        free(r);
        free(u);
        chain_free(&c);
    }
    printf("\nChains: n + 1 free bodies of unit mass and inertia, contact i between bodies i and "
           "i + 1 with random 3 x 6 Jacobian blocks, so W = J J' is block tridiagonal; q_N in "
           "[-1, 0.3], mu in [0.1, 0.5], seeded. Siconos runs up to 10000 contacts.\n");
}

static int ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int list_files(const char *dir, char **names)
{
    DIR *d = opendir(dir);
    int count = 0;
    if (d == NULL)
        return -1;
    for (struct dirent *e; (e = readdir(d)) != NULL && count < MAX_FILES;)
        if (ends_with(e->d_name, ".dat") || ends_with(e->d_name, ".hdf5"))
            names[count++] = strdup(e->d_name);
    closedir(d);
    qsort(names, (size_t)count, sizeof *names, cmp_names);
    return count;
}

static void format_cell(char *buf, size_t len, const outcome *o)
{
    if (!o->ran)
        snprintf(buf, len, "n/a");
    else if (o->died[0] != '\0')
        snprintf(buf, len, "**%s**", o->died);
    else if (o->solved)
        snprintf(buf, len, "%.3g ms (%d)", 1e3 * o->time, o->iterations);
    else
        snprintf(buf, len, "**fails** (%.1e)", o->residual);
}

int main(int argc, char **argv)
{
    if (bench_single_threaded_blas(argv) != 0)
        return 1;
    bench_config cfg;
    bench_config_defaults(&cfg);
    if (bench_parse_args(argc, argv, &cfg) != 0)
        return 2;
    char dir[4096], tmp[64];
    snprintf(dir, sizeof dir, "%s/fc3d", cfg.data_dir);
    snprintf(tmp, sizeof tmp, "/tmp/bench_fc3d_%ld.dat", (long)getpid());
    char *names[MAX_FILES];
    int nfiles = list_files(dir, names);
    if (nfiles <= 0) {
        fprintf(stderr, "bench_fc3d: no problem files in %s\n", dir);
        return 1;
    }
    FILE *csv = cfg.csv_path != NULL ? fopen(cfg.csv_path, "w") : NULL;
    if (csv != NULL)
        fprintf(csv, "problem,contacts,solver,status,solved,iterations,residual,seconds\n");
    int solved_count[NSOL] = {0}, ran_count[NSOL] = {0};
    double total_time[NSOL] = {0};
    int cdyn_faster = 0, cdyn_compared = 0;
    double worst_ratio = INFINITY;
    char worst_name[128] = "";
    /* time per Newton-AC iteration against n, for the linear-cost target */
    double lx[MAX_FILES], ly[MAX_FILES];
    int nfit = 0;

    printf("| problem | contacts | cdyn (default) | stage | residual | Siconos NSGS | "
           "Siconos NSN-AC | Siconos NSN-FB | speed-up |\n");
    printf("|---|---:|---:|---|---:|---:|---:|---:|---:|\n");
    for (int k = 0; k < nfiles; k++) {
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", dir, names[k]);
        cdyn_fc3d_file *f = NULL;
        cdyn_report lr;
        if (cdyn_fc3d_file_load(path, NULL, &f, &lr) != CDYN_OK) {
            printf("| %s | | unreadable: %s | | | | | | |\n", names[k], lr.message);
            continue;
        }
        cdyn_fc3d p = cdyn_fc3d_file_problem(f);
        siconos_fc3d *sic = NULL;
        if (f->dim == 3 && ends_with(names[k], ".dat"))
            sic = siconos_fc3d_load(path);
        else if (cdyn_fc3d_file_write(tmp, &p, NULL, NULL) == CDYN_OK)
            sic = siconos_fc3d_load(tmp);
        size_t m = 3 * (size_t)p.n;
        double *r = calloc(m, sizeof(double)), *u = calloc(m, sizeof(double));
        outcome out[NSOL];
        memset(out, 0, sizeof out);
        for (int s = 0; s < NSOL && r != NULL && u != NULL; s++) {
            if (s >= NCDYN && sic == NULL)
                continue;
            run_ctx c = {s, &p, sic, r, u, 0, {0}};
            bench_timing t = {0, 0, 0};
            int st = 0;
            char died[16] = "";
            if (s < NCDYN)
                st = bench_time(run_once, &c, &cfg.budget, &t);
            else if (time_isolated(&c, &cfg.budget, &t, &st, died, sizeof died) != 0)
                st = -1;
            double rel = INFINITY;
            if (died[0] != '\0')
                rel = INFINITY;
            else if (s >= NCDYN || st == CDYN_OK)
                cdyn_fc3d_residual(&p, r, NULL, NULL, &rel);
            else
                rel = c.rep.residual_rel;
            outcome *o = &out[s];
            o->ran = 1;
            snprintf(o->died, sizeof o->died, "%s", died);
            o->residual = rel;
            o->solved = rel <= TOL;
            o->iterations = c.iterations;
            o->time = t.median;
            snprintf(o->method, sizeof o->method, "%s", s < NCDYN ? c.rep.method : "");
            ran_count[s]++;
            if (o->solved) {
                solved_count[s]++;
                total_time[s] += t.median;
            }
            if (s == 2 && o->solved && c.rep.newton_iterations > 0 && nfit < MAX_FILES) {
                lx[nfit] = log((double)p.n);
                ly[nfit++] = log(t.median / c.rep.newton_iterations);
            }
            if (csv != NULL)
                fprintf(csv, "%s,%d,%s,%d,%d,%d,%.3e,%.6e\n", names[k], p.n, SOLVER_NAMES[s], st,
                        o->solved, o->iterations, rel, t.median);
        }
        double best_sic = INFINITY;
        for (int s = NCDYN; s < NSOL; s++)
            if (out[s].solved)
                best_sic = fmin(best_sic, out[s].time);
        char cells[NSOL][64], ratio[32] = "—";
        for (int s = 0; s < NSOL; s++)
            format_cell(cells[s], sizeof cells[s], &out[s]);
        if (isfinite(best_sic) && out[0].solved) {
            double q = best_sic / out[0].time;
            snprintf(ratio, sizeof ratio, "%.2f", q);
            cdyn_compared++;
            cdyn_faster += q > 1.0;
            if (q < worst_ratio) {
                worst_ratio = q;
                snprintf(worst_name, sizeof worst_name, "%s", names[k]);
            }
        } else if (out[0].solved) {
            snprintf(ratio, sizeof ratio, "Siconos fails");
        }
        printf("| %s | %d | %s | %s | %.1e | %s | %s | %s | %s |\n", names[k], p.n, cells[0],
               out[0].method, out[0].residual, cells[4], cells[5], cells[6], ratio);
        fflush(stdout);
        free(r);
        free(u);
        siconos_fc3d_free(sic);
        cdyn_fc3d_file_free(f);
    }
    unlink(tmp);

    printf("\nTimes are medians (iterations: Gauss–Seidel sweeps plus Newton iterations for cdyn, "
           "Siconos' own count); **fails** gives the residual reached; **crash**: the Siconos "
           "solver aborted the process (an assertion in its code; each Siconos run is isolated "
           "in a child process), **timeout**: over 300 s. Speed-up = the fastest "
           "Siconos solver that solves the problem / cdyn's default entry.\n\n");
    printf("| solver | solved (of %d) | total time on the problems it solves |\n", nfiles);
    printf("|---|---:|---:|\n");
    for (int s = 0; s < NSOL; s++)
        printf("| %s | %d (ran on %d) | %.3g ms |\n", SOLVER_NAMES[s], solved_count[s],
               ran_count[s], 1e3 * total_time[s]);
    printf("\ncdyn's default entry is faster than the fastest successful Siconos solver on %d of "
           "the %d problems that both solve",
           cdyn_faster, cdyn_compared);
    if (cdyn_compared > 0)
        printf(" (smallest speed-up %.2f, %s)", worst_ratio, worst_name);
    printf(".\n");
    if (nfit >= 3) { /* least-squares slope of log(time per iteration) against log(n) */
        double mx = 0, my = 0, sxx = 0, sxy = 0;
        for (int i = 0; i < nfit; i++)
            mx += lx[i] / nfit, my += ly[i] / nfit;
        for (int i = 0; i < nfit; i++)
            sxx += (lx[i] - mx) * (lx[i] - mx), sxy += (lx[i] - mx) * (ly[i] - my);
        printf("Time per Newton-AC iteration grows as n^%.2f over the %d problems it solves "
               "(least squares in log-log; 1 is linear).\n",
               sxy / sxx, nfit);
    }
    scaling_table(&cfg, tmp, csv);
    unlink(tmp);
    if (csv != NULL)
        fclose(csv);
    for (int k = 0; k < nfiles; k++)
        free(names[k]);
    return 0;
}
