/* lcp_table: solve every LCP file (*.dat, Siconos format) of a directory with the default
 * solver and print one row per file, then write the same table as CSV.
 *
 *   lcp_table [DIR] [--csv PATH]
 *
 * DIR defaults to the repository's tests/data (fixed at build time), PATH to
 * out/lcp_table.csv (relative to the working directory; missing directories are created).
 * Exit status: 0 when every file was solved, 1 otherwise, 2 on a usage error. */
#define _POSIX_C_SOURCE 200809L /* opendir, mkdir */

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cdyn/io.h"
#include "cdyn/lcp.h"

#ifndef CDYN_EXAMPLE_DATA_DIR
#define CDYN_EXAMPLE_DATA_DIR "tests/data"
#endif

typedef struct row {
    char *name;
    int n; /* 0 when the file could not be read */
    cdyn_status status;
    char method[CDYN_REPORT_METHOD];
    int pivots;
    double residual; /* ||min(z, Mz+q)||_inf, only meaningful when status is CDYN_OK */
    char message[CDYN_REPORT_TEXT];
} row;

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted names of the *.dat files in dir; NULL (and a message) on failure. */
static char **list_dat_files(const char *dir, size_t *count)
{
    DIR *d = opendir(dir);
    if (d == NULL) {
        fprintf(stderr, "lcp_table: cannot open directory '%s': %s\n", dir, strerror(errno));
        return NULL;
    }
    size_t cap = 16, len = 0;
    char **names = malloc(cap * sizeof *names);
    struct dirent *e;
    while (names != NULL && (e = readdir(d)) != NULL) {
        size_t l = strlen(e->d_name);
        if (l < 5 || strcmp(e->d_name + l - 4, ".dat") != 0)
            continue;
        if (len == cap) {
            char **bigger = realloc(names, 2 * cap * sizeof *names);
            if (bigger == NULL)
                break;
            names = bigger;
            cap *= 2;
        }
        if ((names[len] = malloc(l + 1)) == NULL)
            break;
        memcpy(names[len++], e->d_name, l + 1);
    }
    closedir(d);
    if (names == NULL)
        fprintf(stderr, "lcp_table: out of memory listing '%s'\n", dir);
    else
        qsort(names, len, sizeof *names, compare_names);
    *count = len;
    return names;
}

static void solve_file(const char *dir, const char *name, row *r)
{
    memset(r, 0, sizeof *r);
    r->name = (char *)name;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);

    cdyn_lcp_file *file = NULL;
    cdyn_report rep;
    r->status = cdyn_lcp_file_read(path, NULL, &file, &rep);
    if (r->status != CDYN_OK) {
        snprintf(r->message, sizeof r->message, "%s", rep.message);
        return;
    }
    const cdyn_lcp lcp = cdyn_lcp_file_problem(file);
    r->n = lcp.n;
    double *z = calloc((size_t)lcp.n, sizeof *z), *w = calloc((size_t)lcp.n, sizeof *w);
    if (z == NULL || w == NULL) {
        r->status = CDYN_ENOMEM;
    } else {
        cdyn_lcp_options opts;
        cdyn_lcp_defaults(&opts);
        r->status = cdyn_lcp_solve(&lcp, &opts, z, w, &rep);
        snprintf(r->method, sizeof r->method, "%s", rep.method);
        snprintf(r->message, sizeof r->message, "%s", rep.message);
        r->pivots = rep.iterations;
        /* measured here from z, not taken from the solver's report */
        r->residual = cdyn_lcp_residual(&lcp, z);
    }
    free(z);
    free(w);
    cdyn_lcp_file_free(file);
}

/* CSV field: quoted when it holds a comma, quote or line break (RFC 4180). */
static void csv_field(FILE *f, const char *s)
{
    if (strpbrk(s, ",\"\r\n") == NULL) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; ++s) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

/* mkdir -p for the directories above a file path. */
static void make_parents(const char *path)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; ++p) {
        if (*p != '/')
            continue;
        *p = '\0';
        mkdir(buf, 0777); /* failure shows up when the file is opened */
        *p = '/';
    }
}

static int write_csv(const char *path, const row *rows, size_t count)
{
    make_parents(path);
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        fprintf(stderr, "lcp_table: cannot write '%s': %s\n", path, strerror(errno));
        return 0;
    }
    fprintf(f, "file,n,status,method,pivots,residual,message\n");
    for (size_t k = 0; k < count; ++k) {
        const row *r = &rows[k];
        csv_field(f, r->name);
        if (r->n > 0)
            fprintf(f, ",%d,", r->n);
        else
            fprintf(f, ",,");
        csv_field(f, cdyn_status_str(r->status));
        fputc(',', f);
        csv_field(f, r->method);
        if (r->status == CDYN_OK)
            fprintf(f, ",%d,%.6e,", r->pivots, r->residual);
        else if (r->n > 0)
            fprintf(f, ",%d,,", r->pivots);
        else
            fprintf(f, ",,,");
        csv_field(f, r->message);
        fputc('\n', f);
    }
    if (fclose(f) != 0) {
        fprintf(stderr, "lcp_table: error writing '%s': %s\n", path, strerror(errno));
        return 0;
    }
    return 1;
}

static void print_table(const row *rows, size_t count)
{
    int w = 4;
    for (size_t k = 0; k < count; ++k)
        if ((int)strlen(rows[k].name) > w)
            w = (int)strlen(rows[k].name);
    printf("%-*s  %3s  %-22s  %-20s  %6s  %s\n", w, "file", "n", "status", "method", "pivots",
           "residual ||min(z,Mz+q)||inf");
    for (size_t k = 0; k < count; ++k) {
        const row *r = &rows[k];
        char n[16] = "-";
        if (r->n > 0)
            snprintf(n, sizeof n, "%d", r->n);
        printf("%-*s  %3s  %-22.22s  %-20s  ", w, r->name, n, cdyn_status_str(r->status),
               r->method[0] ? r->method : "-");
        if (r->status == CDYN_OK)
            printf("%6d  %.3e\n", r->pivots, r->residual);
        else
            printf("%6s  -   (%s)\n", r->n > 0 ? "" : "-", r->message);
    }
}

int main(int argc, char **argv)
{
    const char *dir = CDYN_EXAMPLE_DATA_DIR, *csv = "out/lcp_table.csv";
    int have_dir = 0;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--csv") == 0 && i + 1 < argc) {
            csv = argv[++i];
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            printf("Usage: lcp_table [DIR] [--csv PATH]\n"
                   "Solves every *.dat LCP file in DIR (default %s) with cdyn_lcp_solve and\n"
                   "prints a table; writes it as CSV to PATH (default out/lcp_table.csv).\n",
                   CDYN_EXAMPLE_DATA_DIR);
            return 0;
        } else if (argv[i][0] != '-' && !have_dir) {
            dir = argv[i];
            have_dir = 1;
        } else {
            fprintf(stderr, "lcp_table: unexpected argument '%s' (try --help)\n", argv[i]);
            return 2;
        }
    }

    size_t count = 0;
    char **names = list_dat_files(dir, &count);
    if (names == NULL)
        return 1;
    row *rows = calloc(count ? count : 1, sizeof *rows);
    if (rows == NULL) {
        fprintf(stderr, "lcp_table: out of memory\n");
        return 1;
    }
    size_t solved = 0;
    for (size_t k = 0; k < count; ++k) {
        solve_file(dir, names[k], &rows[k]);
        solved += rows[k].status == CDYN_OK;
    }
    print_table(rows, count);
    printf("\n%zu of %zu files in %s solved\n", solved, count, dir);
    int ok = write_csv(csv, rows, count);
    if (ok)
        printf("CSV written to %s\n", csv);

    for (size_t k = 0; k < count; ++k)
        free(names[k]);
    free(names);
    free(rows);
    return ok && solved == count && count > 0 ? 0 : 1;
}
