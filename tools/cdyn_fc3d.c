/* cdyn-fc3d: solve 3-D frictional contact problem files (Siconos text, FCLib HDF5) from the
 * command line.
 *
 *   cdyn-fc3d FILE... [--solver auto|nsgs|newton-ac|newton-fb] [--tol T] [--max-iter K]
 *
 * Exit status: 0 when every file was solved, 1 when any could not be read or solved, 2 on a
 * usage error. Uses only the public API. */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cdyn/fc3d.h"
#include "cdyn/status.h"

typedef enum solver { SOLVER_AUTO, SOLVER_NSGS, SOLVER_AC, SOLVER_FB } solver;

typedef struct settings {
    solver which;
    double tol;   /* 0: the solver's default */
    int max_iter; /* 0: the solver's default */
} settings;

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: cdyn-fc3d FILE... [--solver S] [--tol T] [--max-iter K]\n"
            "Solve each 3-D frictional contact problem file (Siconos FrictionContactProblem\n"
            "text, dense or SBM; FCLib HDF5 when cdyn was built with FCLib: %s) and print\n"
            "contacts, status, the solver that produced the answer, iterations, the residual\n"
            "(natural map of the whole problem relative to ||q||) and the time.\n"
            "\n"
            "  --solver auto       Gauss-Seidel warm start, Newton (Alart-Curnier, then\n"
            "                      Fischer-Burmeister), Gauss-Seidel fallback (default)\n"
            "  --solver nsgs       nonsmooth block Gauss-Seidel only\n"
            "  --solver newton-ac  semismooth Newton on the Alart-Curnier function\n"
            "  --solver newton-fb  semismooth Newton on the Fischer-Burmeister function\n"
            "  --tol T             relative residual to reach (default 1e-10)\n"
            "  --max-iter K        Newton iterations, or Gauss-Seidel sweeps with nsgs\n"
            "  --help              show this text\n"
            "\n"
            "Exit status: 0 all solved, 1 some file unreadable or unsolved, 2 usage error.\n",
            cdyn_fc3d_has_fclib() ? "yes" : "no");
}

static int usage_error(const char *what, const char *arg)
{
    if (arg != NULL)
        fprintf(stderr, "cdyn-fc3d: %s '%s'\n", what, arg);
    else
        fprintf(stderr, "cdyn-fc3d: %s\n", what);
    fprintf(stderr, "Try 'cdyn-fc3d --help'.\n");
    return 2;
}

static int parse_solver(const char *name, solver *s)
{
    static const char *const names[] = {"auto", "nsgs", "newton-ac", "newton-fb"};
    for (int k = 0; k < 4; k++)
        if (strcmp(name, names[k]) == 0) {
            *s = (solver)k;
            return 1;
        }
    return 0;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static cdyn_status solve(const cdyn_fc3d *p, const settings *cfg, double *r, double *u,
                         cdyn_fc3d_report *rep)
{
    if (cfg->which == SOLVER_NSGS) {
        cdyn_fc3d_nsgs_options o;
        cdyn_fc3d_nsgs_defaults(&o);
        if (cfg->tol > 0)
            o.tol = cfg->tol;
        if (cfg->max_iter > 0)
            o.max_sweeps = cfg->max_iter;
        return cdyn_fc3d_nsgs(p, &o, r, u, rep);
    }
    if (cfg->which == SOLVER_AC || cfg->which == SOLVER_FB) {
        cdyn_fc3d_newton_options o;
        cdyn_fc3d_newton_defaults(&o);
        o.formulation =
            cfg->which == SOLVER_AC ? CDYN_FC3D_ALART_CURNIER : CDYN_FC3D_FISCHER_BURMEISTER;
        if (cfg->tol > 0)
            o.tol = cfg->tol;
        if (cfg->max_iter > 0)
            o.max_iter = cfg->max_iter;
        return cdyn_fc3d_newton(p, &o, r, u, rep);
    }
    cdyn_fc3d_options o;
    cdyn_fc3d_defaults(&o);
    if (cfg->tol > 0)
        o.tol = cfg->tol;
    if (cfg->max_iter > 0)
        o.newton.max_iter = cfg->max_iter;
    return cdyn_fc3d_solve(p, &o, r, u, rep);
}

/* Returns 1 when the file was read and solved. */
static int run_file(const char *path, const settings *cfg)
{
    printf("%s\n", path);
    cdyn_fc3d_file *file = NULL;
    cdyn_report lrep;
    cdyn_status st = cdyn_fc3d_file_load(path, NULL, &file, &lrep);
    if (st != CDYN_OK) {
        printf("  status     %s\n  error      %s\n\n", cdyn_status_str(st), lrep.message);
        return 0;
    }
    const cdyn_fc3d p = cdyn_fc3d_file_problem(file);
    const size_t m = 3 * (size_t)p.n;
    double *r = calloc(m, sizeof *r), *u = calloc(m, sizeof *u);
    if (r == NULL || u == NULL) {
        printf("  contacts   %d\n  status     %s\n\n", p.n, cdyn_status_str(CDYN_ENOMEM));
        free(r);
        free(u);
        cdyn_fc3d_file_free(file);
        return 0;
    }
    cdyn_fc3d_report rep;
    double t0 = now();
    st = solve(&p, cfg, r, u, &rep);
    double t1 = now();
    printf("  contacts   %d%s\n", p.n, file->dim == 2 ? " (planar file, read as 3-D)" : "");
    printf("  status     %s\n", cdyn_status_str(st));
    if (rep.message[0] != '\0')
        printf("  message    %s\n", rep.message);
    printf("  solver     %s\n", rep.method[0] != '\0' ? rep.method : "-");
    printf("  iterations %d Gauss-Seidel sweeps, %d Newton\n", rep.sweeps, rep.newton_iterations);
    double abs_res = NAN, rel = NAN;
    if (st == CDYN_OK)
        cdyn_fc3d_residual(&p, r, NULL, &abs_res, &rel);
    else
        abs_res = rep.residual, rel = rep.residual_rel;
    printf("  residual   %.3e relative (%.3e absolute)%s\n", rel, abs_res,
           st == CDYN_OK ? "" : " at the best point");
    printf("  time       %.3f ms\n\n", 1e3 * (t1 - t0));
    free(r);
    free(u);
    cdyn_fc3d_file_free(file);
    return st == CDYN_OK;
}

int main(int argc, char **argv)
{
    settings cfg = {SOLVER_AUTO, 0.0, 0};
    int files = 0, options_done = 0;
    /* First pass: options (anywhere on the line), so a usage error stops before any work. */
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        if (options_done || a[0] != '-' || a[1] == '\0') {
            files++;
        } else if (strcmp(a, "--") == 0) {
            options_done = 1;
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "--solver") == 0 || strcmp(a, "--tol") == 0 ||
                   strcmp(a, "--max-iter") == 0) {
            if (i + 1 >= argc)
                return usage_error("option needs a value:", a);
            const char *v = argv[++i];
            char *end = NULL;
            if (a[2] == 's') {
                if (!parse_solver(v, &cfg.which))
                    return usage_error(
                        "unknown solver (use auto, nsgs, newton-ac or newton-fb):", v);
            } else if (a[2] == 't') {
                cfg.tol = strtod(v, &end);
                if (end == v || *end != '\0' || !(cfg.tol > 0) || !isfinite(cfg.tol))
                    return usage_error("--tol needs a positive number, not", v);
            } else {
                long k = strtol(v, &end, 10);
                if (end == v || *end != '\0' || k <= 0 || k > 100000000)
                    return usage_error("--max-iter needs a positive integer, not", v);
                cfg.max_iter = (int)k;
            }
        } else {
            return usage_error("unknown option", a);
        }
    }
    if (files == 0)
        return usage_error("no input file", NULL);

    int solved = 0;
    options_done = 0;
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        if (!options_done && a[0] == '-' && a[1] != '\0') {
            options_done = strcmp(a, "--") == 0;
            i += strcmp(a, "--solver") == 0 || strcmp(a, "--tol") == 0 ||
                 strcmp(a, "--max-iter") == 0; /* skip its value */
            continue;
        }
        solved += run_file(a, &cfg);
    }
    printf("%d of %d solved\n", solved, files);
    return solved == files ? 0 : 1;
}
