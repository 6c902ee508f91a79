/* cdyn-lcp: solve LCP files (Siconos format) from the command line.
 *
 *   cdyn-lcp FILE... [--solver auto|lemke|enum] [--quiet]
 *
 * Exit status: 0 when every file was solved, 1 when any could not be read or solved, 2 on a
 * usage error. Uses only the public API. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cdyn/io.h"
#include "cdyn/lcp.h"
#include "cdyn/status.h"

/* z is printed only up to this size, so a big problem does not flood the terminal. */
#define SHOW_Z_MAX 20

typedef enum solver { SOLVER_AUTO, SOLVER_LEMKE, SOLVER_ENUM } solver;

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: cdyn-lcp FILE... [--solver auto|lemke|enum] [--quiet]\n"
            "Solve each linear complementarity problem file (Siconos format: n, storage code 0,\n"
            "rows cols twice, M column by column, q, then free-text comment) and print its size,\n"
            "status, the method that produced the answer, pivots, the residual\n"
            "||min(z, Mz+q)||_inf and z (for n <= %d).\n"
            "\n"
            "  --solver auto    Lemke, then other covering vectors, then enumeration (default)\n"
            "  --solver lemke   Lemke's method only\n"
            "  --solver enum    enumerate all complementary bases (n <= %d)\n"
            "  --quiet          do not print z\n"
            "  --help           show this text\n"
            "\n"
            "Exit status: 0 all solved, 1 some file unreadable or unsolved, 2 usage error.\n",
            SHOW_Z_MAX, CDYN_LCP_SMALL_N);
}

/* Prints "cdyn-lcp: what 'arg'" (arg may be NULL) and a hint; returns the usage exit code. */
static int usage_error(const char *what, const char *arg)
{
    if (arg != NULL)
        fprintf(stderr, "cdyn-lcp: %s '%s'\n", what, arg);
    else
        fprintf(stderr, "cdyn-lcp: %s\n", what);
    fprintf(stderr, "Try 'cdyn-lcp --help'.\n");
    return 2;
}

static int parse_solver(const char *name, solver *s)
{
    if (strcmp(name, "auto") == 0)
        *s = SOLVER_AUTO;
    else if (strcmp(name, "lemke") == 0)
        *s = SOLVER_LEMKE;
    else if (strcmp(name, "enum") == 0)
        *s = SOLVER_ENUM;
    else
        return 0;
    return 1;
}

/* Solve one problem; z receives the answer when the return value is CDYN_OK.
 * *solutions is the number of basic solutions for enumeration, -1 otherwise. */
static cdyn_status solve(const cdyn_lcp *lcp, solver which, double *z, double *w, int *solutions,
                         cdyn_report *rep)
{
    *solutions = -1;
    if (which == SOLVER_LEMKE) {
        cdyn_lemke_options opts;
        cdyn_lemke_defaults(&opts);
        return cdyn_lemke(lcp, &opts, z, w, rep);
    }
    if (which == SOLVER_ENUM) {
        int count = 0;
        cdyn_status st = cdyn_lcp_enumerate(lcp, z, 1, &count, NULL, rep);
        if (st != CDYN_OK)
            return st;
        *solutions = count;
        return count > 0 ? CDYN_OK : CDYN_ENOSOLUTION;
    }
    cdyn_lcp_options opts;
    cdyn_lcp_defaults(&opts);
    return cdyn_lcp_solve(lcp, &opts, z, w, rep);
}

/* Returns 1 when the file was read and solved. */
static int run_file(const char *path, solver which, int quiet)
{
    printf("%s\n", path);
    cdyn_lcp_file *file = NULL;
    cdyn_report rep;
    cdyn_status st = cdyn_lcp_file_read(path, NULL, &file, &rep);
    if (st != CDYN_OK) {
        printf("  status    %s\n  error     %s\n\n", cdyn_status_str(st), rep.message);
        return 0;
    }
    const cdyn_lcp lcp = cdyn_lcp_file_problem(file);
    const size_t n = (size_t)lcp.n;
    double *z = calloc(n, sizeof *z), *w = calloc(n, sizeof *w);
    if (z == NULL || w == NULL) {
        printf("  n         %d\n  status    %s\n\n", lcp.n, cdyn_status_str(CDYN_ENOMEM));
        free(z);
        free(w);
        cdyn_lcp_file_free(file);
        return 0;
    }
    int solutions = -1;
    st = solve(&lcp, which, z, w, &solutions, &rep);

    printf("  n         %d\n", lcp.n);
    printf("  status    %s\n", cdyn_status_str(st));
    if (rep.message[0] != '\0')
        printf("  message   %s\n", rep.message);
    printf("  method    %s\n", rep.method[0] != '\0' ? rep.method : "-");
    printf("  pivots    %d\n", rep.iterations);
    if (solutions >= 0)
        printf("  solutions %d basic\n", solutions);
    if (st == CDYN_OK) {
        printf("  residual  %.3e\n", cdyn_lcp_residual(&lcp, z));
        if (!quiet && lcp.n <= SHOW_Z_MAX) {
            printf("  z        ");
            for (size_t i = 0; i < n; ++i)
                printf(" %.10g", z[i]);
            printf("\n");
        }
    }
    printf("\n");
    free(z);
    free(w);
    cdyn_lcp_file_free(file);
    return st == CDYN_OK;
}

int main(int argc, char **argv)
{
    solver which = SOLVER_AUTO;
    int quiet = 0, files = 0, options_done = 0;
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
        } else if (strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0) {
            quiet = 1;
        } else if (strcmp(a, "--solver") == 0) {
            if (i + 1 >= argc)
                return usage_error("--solver needs a value: auto, lemke or enum", NULL);
            if (!parse_solver(argv[++i], &which))
                return usage_error("unknown solver (use auto, lemke or enum):", argv[i]);
        } else if (strncmp(a, "--solver=", 9) == 0) {
            if (!parse_solver(a + 9, &which))
                return usage_error("unknown solver (use auto, lemke or enum):", a + 9);
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
            i += strcmp(a, "--solver") == 0; /* skip its value */
            continue;
        }
        solved += run_file(a, which, quiet);
    }
    printf("%d of %d solved\n", solved, files);
    return solved == files ? 0 : 1;
}
