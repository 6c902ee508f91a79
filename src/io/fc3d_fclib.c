/* FCLib HDF5 reader (Debian libfclib-dev), and cdyn_fc3d_file_load.
 *
 * FCLib prints and calls exit(1) whenever an HDF5 call fails, and sizes its buffers from the
 * file's own counts without looking at the datasets (a dataset longer than its count overflows
 * the buffer). So the file is walked with the HDF5 API first: every group, dataset, class and
 * length FCLib will touch is checked, and FCLib is called only on a file it reads without
 * failing. HDF5's automatic error printing is switched off for the duration and restored.
 *
 * Local problems (/fclib_local: W, q, mu) are read as they are. Global problems
 * (/fclib_global: M v = H r + f, u = H^T v + w, FCLib's convention) are reduced to the local
 * one, W = H^T M^-1 H and q = H^T M^-1 f + w: by rows of H for a diagonal M (the rigid-body
 * collections of FCLib), through CHOLMOD for another symmetric positive definite M. The parts
 * G, b (global) and V, R, s (local) are refused. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "cdyn/fc3d.h"
#include "core/carve.h"
#include "core/memory.h"
#include "core/report.h"
#include "io/fc3d_file.h"
#include "io/file.h"
#include "linalg/csc.h"
#include "linalg/sparse_chol.h"

static int has_suffix(const char *s, const char *suffix)
{
    const size_t ls = strlen(s), lx = strlen(suffix);
    return ls >= lx && strcmp(s + ls - lx, suffix) == 0;
}

cdyn_status cdyn_fc3d_file_load(const char *path, const cdyn_allocator *allocator,
                                cdyn_fc3d_file **out, cdyn_report *report)
{
    if (path != NULL && (has_suffix(path, ".hdf5") || has_suffix(path, ".h5")))
        return cdyn_fc3d_fclib_read(path, allocator, out, report);
    return cdyn_fc3d_file_read(path, allocator, out, report);
}

#ifndef CDYN_HAVE_FCLIB

int cdyn_fc3d_has_fclib(void)
{
    return 0;
}

cdyn_status cdyn_fc3d_fclib_read(const char *path, const cdyn_allocator *allocator,
                                 cdyn_fc3d_file **out, cdyn_report *report)
{
    (void)path;
    (void)allocator;
    (void)out;
    cdyn_report_clear(report, "fclib");
    return cdyn_fail(report, CDYN_EINVAL, "fclib_read: cdyn was built without FCLib");
}

#else

#include <math.h>
#include <stdlib.h>

#include <fclib.h>
#include <hdf5.h>

int cdyn_fc3d_has_fclib(void)
{
    return 1;
}

/* ---- the walk before FCLib ------------------------------------------------------------------- */

typedef struct h5walk {
    hid_t file;
    const char *name; /* the file name for messages */
    cdyn_report *report;
} h5walk;

static cdyn_status bad(const h5walk *h, const char *what, const char *path)
{
    return cdyn_fail(h->report, CDYN_EFORMAT, "%s: %s %s", h->name, path, what);
}

static int is_link(const h5walk *h, const char *path)
{
    return H5Lexists(h->file, path, H5P_DEFAULT) > 0;
}

static int is_group(const h5walk *h, const char *path)
{
    if (!is_link(h, path))
        return 0;
    hid_t g = H5Gopen2(h->file, path, H5P_DEFAULT);
    if (g < 0)
        return 0;
    H5Gclose(g);
    return 1;
}

/* A dataset of class cls (strings: fixed length, at most one dimension); *points its length. */
static int is_dataset(const h5walk *h, const char *path, H5T_class_t cls, long long *points)
{
    if (!is_link(h, path))
        return 0;
    hid_t d = H5Dopen2(h->file, path, H5P_DEFAULT);
    if (d < 0)
        return 0;
    hid_t t = H5Dget_type(d), s = H5Dget_space(d);
    int ok = t >= 0 && s >= 0 && H5Tget_class(t) == cls;
    if (ok && cls == H5T_STRING)
        ok = H5Tis_variable_str(t) == 0 && H5Sget_simple_extent_ndims(s) <= 1;
    const hssize_t np = s >= 0 ? H5Sget_simple_extent_npoints(s) : -1;
    ok = ok && np >= 0;
    *points = (long long)np;
    if (s >= 0)
        H5Sclose(s);
    if (t >= 0)
        H5Tclose(t);
    H5Dclose(d);
    return ok;
}

static cdyn_status need_dataset(const h5walk *h, const char *path, H5T_class_t cls,
                                long long points)
{
    long long np = 0;
    if (!is_dataset(h, path, cls, &np))
        return bad(h,
                   cls == H5T_FLOAT ? "is missing or not a floating-point dataset"
                                    : "is missing or not an integer dataset",
                   path);
    if (np != points) {
        char what[96];
        snprintf(what, sizeof what, "has %lld values, expected %lld", np, points);
        return bad(h, what, path);
    }
    return CDYN_OK;
}

static cdyn_status scalar_int(const h5walk *h, const char *path, int *value)
{
    cdyn_status st = need_dataset(h, path, H5T_INTEGER, 1);
    if (st != CDYN_OK)
        return st;
    hid_t d = H5Dopen2(h->file, path, H5P_DEFAULT);
    herr_t e = d >= 0 ? H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, value) : -1;
    if (d >= 0)
        H5Dclose(d);
    return e < 0 ? bad(h, "cannot be read as an int", path) : CDYN_OK;
}

/* An optional fixed-length string of one value (FCLib's info strings and matrix comment). */
static cdyn_status optional_string(const h5walk *h, const char *path)
{
    long long np = 0;
    if (is_link(h, path) && (!is_dataset(h, path, H5T_STRING, &np) || np != 1))
        return bad(h, "is not one fixed-length string", path);
    return CDYN_OK;
}

typedef struct h5matrix {
    int nzmax, m, n, nz;
    int has_info; /* FCLib allocates mat->info only then (older FCLib leaves it unset otherwise) */
} h5matrix;

static cdyn_status matrix_info(const h5walk *h, const char *group, h5matrix *mt)
{
    char path[128];
    snprintf(path, sizeof path, "%s/conditioning", group);
    mt->has_info = is_link(h, path);
    if (!mt->has_info)
        return CDYN_OK;
    cdyn_status st = need_dataset(h, path, H5T_FLOAT, 1);
    snprintf(path, sizeof path, "%s/determinant", group);
    if (st == CDYN_OK)
        st = need_dataset(h, path, H5T_FLOAT, 1);
    snprintf(path, sizeof path, "%s/rank", group);
    if (st == CDYN_OK)
        st = need_dataset(h, path, H5T_INTEGER, 1);
    snprintf(path, sizeof path, "%s/comment", group);
    return st == CDYN_OK ? optional_string(h, path) : st;
}

/* The lengths FCLib's read_matrix allocates from (nz >= 0 triplet: p rows, i columns, nz
 * entries; -1 CSC; -2 CSR) against the datasets it reads into them. */
static cdyn_status check_matrix(const h5walk *h, const char *group, h5matrix *mt)
{
    char path[128];
    static const char *const fields[4] = {"nzmax", "m", "n", "nz"};
    int *const dst[4] = {&mt->nzmax, &mt->m, &mt->n, &mt->nz};
    if (!is_group(h, group))
        return bad(h, "is missing or not a group", group);
    cdyn_status st = CDYN_OK;
    for (int k = 0; k < 4 && st == CDYN_OK; ++k) {
        snprintf(path, sizeof path, "%s/%s", group, fields[k]);
        st = scalar_int(h, path, dst[k]);
    }
    if (st != CDYN_OK)
        return st;
    if (mt->m < 1 || mt->n < 1 || mt->nzmax < 1 || mt->nz < -2 || mt->nz == 0 || mt->nz > mt->nzmax)
        return cdyn_fail(h->report, CDYN_EFORMAT,
                         "%s: %s has m = %d, n = %d, nzmax = %d, nz = %d (need m, n, nzmax >= 1 "
                         "and nz in {-2, -1} or 1..nzmax)",
                         h->name, group, mt->m, mt->n, mt->nzmax, mt->nz);
    const long long np = mt->nz > 0 ? mt->nz : (mt->nz == -1 ? mt->n : mt->m) + 1LL;
    const long long ni = mt->nz > 0 ? mt->nz : mt->nzmax;
    snprintf(path, sizeof path, "%s/p", group);
    if ((st = need_dataset(h, path, H5T_INTEGER, np)) != CDYN_OK)
        return st;
    snprintf(path, sizeof path, "%s/i", group);
    if ((st = need_dataset(h, path, H5T_INTEGER, ni)) != CDYN_OK)
        return st;
    /* x: FCLib writes nz values of a triplet matrix (older versions nzmax) and reads them into
       nzmax doubles; an nzmax far above the data would only make FCLib's malloc (and exit) fail */
    snprintf(path, sizeof path, "%s/x", group);
    long long nx = 0;
    if (!is_dataset(h, path, H5T_FLOAT, &nx))
        return bad(h, "is missing or not a floating-point dataset", path);
    if (nx < ni || nx > mt->nzmax || mt->nzmax > 4LL * nx + 4096)
        return cdyn_fail(h->report, CDYN_EFORMAT,
                         "%s: %s has %lld values for nzmax = %d and %lld entries", h->name, path,
                         nx, mt->nzmax, ni);
    return matrix_info(h, group, mt);
}

static cdyn_status check_info(const h5walk *h, const char *group)
{
    static const char *const fields[3] = {"title", "description", "math_info"};
    char path[128];
    cdyn_status st = CDYN_OK;
    if (!is_link(h, group))
        return CDYN_OK;
    if (!is_group(h, group))
        return bad(h, "is not a group", group);
    for (int k = 0; k < 3 && st == CDYN_OK; ++k) {
        snprintf(path, sizeof path, "%s/%s", group, fields[k]);
        st = optional_string(h, path);
    }
    return st;
}

static cdyn_status check_spacedim(const h5walk *h, const char *path, int *d)
{
    cdyn_status st = scalar_int(h, path, d);
    if (st == CDYN_OK && *d != 2 && *d != 3)
        return cdyn_fail(h->report, CDYN_EFORMAT, "%s: %s = %d, expected 2 or 3", h->name, path,
                         *d);
    return st;
}

/* m contact unknowns in dimension d: n = m / d contacts, within cdyn's limits. */
static cdyn_status check_contacts(const h5walk *h, int m, int d, const char *what)
{
    if (m % d != 0 || m / d > INT_MAX / 3)
        return cdyn_fail(h->report, CDYN_EFORMAT,
                         "%s: %s has %d contact unknowns, not a multiple of spacedim = %d or too "
                         "many",
                         h->name, what, m, d);
    return CDYN_OK;
}

typedef struct walked {
    int global;
    int d;
    h5matrix W, M, H;
} walked;

static cdyn_status walk_local(const h5walk *h, walked *w)
{
    cdyn_status st = check_spacedim(h, "/fclib_local/spacedim", &w->d);
    if (st == CDYN_OK)
        st = check_matrix(h, "/fclib_local/W", &w->W);
    if (st != CDYN_OK)
        return st;
    if (is_link(h, "/fclib_local/V") || is_link(h, "/fclib_local/R"))
        return cdyn_fail(h->report, CDYN_EFORMAT,
                         "%s: a mixed local problem (V, R) is not supported", h->name);
    if (w->W.m != w->W.n)
        return cdyn_fail(h->report, CDYN_EFORMAT, "%s: W is %d x %d, not square", h->name, w->W.m,
                         w->W.n);
    if ((st = check_contacts(h, w->W.m, w->d, "W")) != CDYN_OK)
        return st;
    if (!is_group(h, "/fclib_local/vectors"))
        return bad(h, "is missing or not a group", "/fclib_local/vectors");
    st = need_dataset(h, "/fclib_local/vectors/q", H5T_FLOAT, w->W.m);
    if (st == CDYN_OK)
        st = need_dataset(h, "/fclib_local/vectors/mu", H5T_FLOAT, w->W.m / w->d);
    return st == CDYN_OK ? check_info(h, "/fclib_local/info") : st;
}

static cdyn_status walk_global(const h5walk *h, walked *w)
{
    cdyn_status st = check_spacedim(h, "/fclib_global/spacedim", &w->d);
    if (st == CDYN_OK)
        st = check_matrix(h, "/fclib_global/M", &w->M);
    if (st == CDYN_OK)
        st = check_matrix(h, "/fclib_global/H", &w->H);
    if (st != CDYN_OK)
        return st;
    if (is_link(h, "/fclib_global/G"))
        return cdyn_fail(h->report, CDYN_EFORMAT,
                         "%s: a global problem with equality constraints (G, b) is not supported",
                         h->name);
    if (w->M.m != w->M.n || w->H.m != w->M.m)
        return cdyn_fail(h->report, CDYN_EFORMAT, "%s: M is %d x %d and H is %d x %d", h->name,
                         w->M.m, w->M.n, w->H.m, w->H.n);
    if ((st = check_contacts(h, w->H.n, w->d, "H")) != CDYN_OK)
        return st;
    if (!is_group(h, "/fclib_global/vectors"))
        return bad(h, "is missing or not a group", "/fclib_global/vectors");
    st = need_dataset(h, "/fclib_global/vectors/f", H5T_FLOAT, w->M.m);
    if (st == CDYN_OK)
        st = need_dataset(h, "/fclib_global/vectors/w", H5T_FLOAT, w->H.n);
    if (st == CDYN_OK)
        st = need_dataset(h, "/fclib_global/vectors/mu", H5T_FLOAT, w->H.n / w->d);
    return st == CDYN_OK ? check_info(h, "/fclib_global/info") : st;
}

static cdyn_status walk(const h5walk *h, walked *w)
{
    memset(w, 0, sizeof *w);
    if (is_group(h, "/fclib_local"))
        return walk_local(h, w);
    if (is_group(h, "/fclib_global")) {
        w->global = 1;
        return walk_global(h, w);
    }
    return cdyn_fail(h->report, CDYN_EFORMAT,
                     "%s: no /fclib_local or /fclib_global group (not an FCLib problem)", h->name);
}

/* ---- releasing FCLib's objects ------------------------------------------------------------------
 * Done here rather than by fclib_delete_*: depending on the FCLib version those free neither the
 * problem struct nor its info struct, and older versions free an unset matrix info pointer.
 * Everything below was allocated by FCLib with malloc/calloc. */

static void free_matrix(struct fclib_matrix *mat, int has_info)
{
    if (mat == NULL)
        return;
    free(mat->p);
    free(mat->i);
    free(mat->x);
    if (has_info && mat->info != NULL) {
        free(mat->info->comment);
        free(mat->info);
    }
    free(mat);
}

static void free_info(struct fclib_info *info)
{
    if (info == NULL)
        return;
    free(info->title);
    free(info->description);
    free(info->math_info);
    free(info);
}

static void free_local(struct fclib_local *p, const walked *w)
{
    if (p == NULL)
        return;
    free_matrix(p->W, w->W.has_info);
    free(p->q);
    free(p->mu);
    free_info(p->info);
    free(p);
}

static void free_global(struct fclib_global *p, const walked *w)
{
    if (p == NULL)
        return;
    free_matrix(p->M, w->M.has_info);
    free_matrix(p->H, w->H.has_info);
    free(p->f);
    free(p->w);
    free(p->mu);
    free_info(p->info);
    free(p);
}

/* ---- FCLib matrices as entry lists ----------------------------------------------------------- */

typedef struct triplets {
    int count;
    int *row;
    int *col;
    double *x;
} triplets;

static void free_triplets(const cdyn_allocator *a, triplets *t)
{
    cdyn_mem_free(a, t->row);
    cdyn_mem_free(a, t->col);
    cdyn_mem_free(a, t->x);
    memset(t, 0, sizeof *t);
}

static cdyn_status alloc_triplets(const cdyn_allocator *a, size_t count, triplets *t,
                                  cdyn_report *report)
{
    memset(t, 0, sizeof *t);
    if (count > INT_MAX)
        return cdyn_fail(report, CDYN_ETOOBIG, "fclib_read: %zu matrix entries", count);
    t->count = (int)count;
    t->row = cdyn_mem_array(a, count > 0 ? count : 1, sizeof(int));
    t->col = cdyn_mem_array(a, count > 0 ? count : 1, sizeof(int));
    t->x = cdyn_mem_array(a, count > 0 ? count : 1, sizeof(double));
    if (t->row == NULL || t->col == NULL || t->x == NULL) {
        free_triplets(a, t);
        return cdyn_fail(report, CDYN_ENOMEM, "out of memory for %zu matrix entries", count);
    }
    return CDYN_OK;
}

/* The entries of an FCLib matrix (triplet, CSC or CSR), indices and values checked. The struct
 * is CSparse's cs (FCLib's merit function casts it so): a triplet has its rows in i and its
 * columns in p (fclib.h's comment says the reverse; the fixtures' H, 588 x 768 with column
 * indices up to 767 in p, settle it), CSC has column pointers p and rows i, CSR row pointers p
 * and columns i. */
static cdyn_status matrix_triplets(const struct fclib_matrix *mat, const char *name,
                                   const cdyn_allocator *a, triplets *t, cdyn_report *report)
{
    const int compressed = mat->nz < 0, outer = mat->nz == -1 ? mat->n : mat->m;
    int count = mat->nz;
    if (compressed) {
        for (int j = 0; j < outer; ++j)
            if (mat->p[j] < 0 || mat->p[j + 1] < mat->p[j])
                return cdyn_fail(report, CDYN_EFORMAT,
                                 "fclib_read: %s: pointer p[%d] = %d "
                                 "is negative or decreases",
                                 name, j + 1, mat->p[j + 1]);
        count = mat->p[outer] - mat->p[0];
        if (mat->p[outer] > mat->nzmax)
            return cdyn_fail(report, CDYN_EFORMAT, "fclib_read: %s: p[%d] = %d exceeds nzmax = %d",
                             name, outer, mat->p[outer], mat->nzmax);
    }
    cdyn_status st = alloc_triplets(a, (size_t)count, t, report);
    for (int j = 0, e = 0; st == CDYN_OK && j < (compressed ? outer : 1); ++j) {
        const int k0 = compressed ? mat->p[j] : 0, k1 = compressed ? mat->p[j + 1] : count;
        for (int k = k0; k < k1; ++k, ++e) {
            const int r = (!compressed || mat->nz == -1) ? mat->i[k] : j;
            const int c = !compressed ? mat->p[k] : (mat->nz == -1 ? j : mat->i[k]);
            if (r < 0 || r >= mat->m || c < 0 || c >= mat->n || !isfinite(mat->x[k])) {
                st = cdyn_fail(report, CDYN_EFORMAT,
                               "fclib_read: %s: entry %d (%d, %d) = %g is out of range or not "
                               "finite",
                               name, k, r, c, mat->x[k]);
                break;
            }
            t->row[e] = r;
            t->col[e] = c;
            t->x[e] = mat->x[k];
        }
    }
    if (st != CDYN_OK)
        free_triplets(a, t);
    return st;
}

/* ---- entries to 3x3 blocks ------------------------------------------------------------------- */

typedef struct block_work {
    int *count;   /* n + 1: entries per block row, then bucket starts */
    int *order;   /* ne: entries by block row */
    int *tag;     /* n: row + 1 where a block column was last seen */
    int *tag_k;   /* n: its block in that row */
    int *rowptr;  /* n + 1 */
    int *col;     /* nbo: block columns grouped by row, in order of appearance */
    int *entry_k; /* ne: the block of each entry */
    int *dest;    /* nbo */
    int *sort;
} block_work;

static void block_layout(cdyn_carve *cv, void *base, block_work *w, size_t n, size_t ne, size_t nbo)
{
    w->count = cdyn_carve_ints(cv, base, n + 1);
    w->order = cdyn_carve_ints(cv, base, ne);
    w->tag = cdyn_carve_ints(cv, base, n);
    w->tag_k = cdyn_carve_ints(cv, base, n);
    w->rowptr = cdyn_carve_ints(cv, base, n + 1);
    w->col = cdyn_carve_ints(cv, base, nbo);
    w->entry_k = cdyn_carve_ints(cv, base, ne);
    w->dest = cdyn_carve_ints(cv, base, nbo);
    const size_t sort = cdyn_fc3d_sort_work((int)n, (int)nbo);
    if (sort == 0)
        cv->overflow = 1;
    w->sort = cdyn_carve_ints(cv, base, sort);
}

/* The distinct blocks of the entries, row by row (planar problems get every diagonal block). */
static int find_blocks(const triplets *t, int d, int n, block_work *w)
{
    memset(w->count, 0, sizeof(int) * ((size_t)n + 1));
    memset(w->tag, 0, sizeof(int) * (size_t)n);
    for (int e = 0; e < t->count; ++e)
        w->count[t->row[e] / d + 1]++;
    for (int i = 0; i < n; ++i)
        w->count[i + 1] += w->count[i];
    for (int e = 0; e < t->count; ++e)
        w->order[w->count[t->row[e] / d]++] = e;
    int pos = 0, start = 0; /* count[i] is now the end of bucket i */
    for (int i = 0; i < n; ++i) {
        w->rowptr[i] = pos;
        for (int s = start; s < w->count[i]; ++s) {
            const int e = w->order[s], bc = t->col[e] / d;
            if (w->tag[bc] != i + 1) {
                w->tag[bc] = i + 1;
                w->tag_k[bc] = pos;
                w->col[pos++] = bc;
            }
            w->entry_k[e] = w->tag_k[bc];
        }
        if (d == 2 && w->tag[i] != i + 1)
            w->col[pos++] = i;
        start = w->count[i];
    }
    w->rowptr[n] = pos;
    return pos;
}

static void fill_blocks(const triplets *t, int d, int n, block_work *w, cdyn_fc3d_file *f)
{
    memcpy(f->rowptr, w->rowptr, sizeof(int) * ((size_t)n + 1));
    cdyn_fc3d_sort_blocks(n, w->rowptr, w->col, f->colind, w->dest, w->sort);
    for (int e = 0; e < t->count; ++e) {
        double *b = f->values + 9 * (size_t)w->dest[w->entry_k[e]];
        b[t->row[e] % d + 3 * (t->col[e] % d)] += t->x[e]; /* repeated entries add up */
    }
    cdyn_fc3d_file_decouple_planar(f);
}

/* A file object holding W (m x m entries t in dimension d) by blocks, q and mu. */
static cdyn_status make_file(const triplets *t, int d, int m, const double *q, const double *mu,
                             const cdyn_allocator *a, cdyn_fc3d_file **out, cdyn_report *report)
{
    const int n = m / d;
    for (int k = 0; k < m; ++k)
        if (!isfinite(q[k]))
            return cdyn_fail(report, CDYN_EFORMAT, "fclib_read: q[%d] is not finite", k);
    for (int i = 0; i < n; ++i)
        if (!isfinite(mu[i]) || mu[i] < 0.0)
            return cdyn_fail(report, CDYN_EFORMAT, "fclib_read: mu[%d] = %g is not finite and >= 0",
                             i, mu[i]);
    const size_t nbo_max = (size_t)t->count + (size_t)n;
    block_work w;
    cdyn_carve cv = {0, 0};
    if (nbo_max <= INT_MAX)
        block_layout(&cv, NULL, &w, (size_t)n, (size_t)t->count, nbo_max);
    if (nbo_max > INT_MAX || cv.overflow)
        return cdyn_fail(report, CDYN_ETOOBIG, "fclib_read: %d entries do not fit", t->count);
    void *work = cdyn_mem_alloc(a, cv.off);
    if (work == NULL)
        return cdyn_fail(report, CDYN_ENOMEM, "out of memory for the blocks of W");
    cv = (cdyn_carve){0, 0};
    block_layout(&cv, work, &w, (size_t)n, (size_t)t->count, nbo_max);
    const int nbo = find_blocks(t, d, n, &w);
    int too_big = 0;
    cdyn_fc3d_file *f = cdyn_fc3d_file_new(a, d, n, nbo, &too_big);
    if (f != NULL) {
        fill_blocks(t, d, n, &w, f);
        for (int k = 0; k < m; ++k)
            f->q[3 * (k / d) + k % d] = q[k];
        memcpy(f->mu, mu, sizeof(double) * (size_t)n);
    }
    cdyn_mem_free(a, work);
    if (f == NULL)
        return cdyn_fail(report, too_big ? CDYN_ETOOBIG : CDYN_ENOMEM,
                         "out of memory for a problem with %d contacts", n);
    *out = f;
    return CDYN_OK;
}

/* ---- global to local, diagonal M: W = H^T M^-1 H, q = H^T M^-1 f + w ------------------------ */

/* Nonzero when every stored entry of M off the diagonal is 0. */
static int is_diagonal(const triplets *M)
{
    for (int e = 0; e < M->count; ++e)
        if (M->row[e] != M->col[e] && M->x[e] != 0.0)
            return 0;
    return 1;
}

static cdyn_status diagonal_of(const triplets *M, int size, double *diag, cdyn_report *report)
{
    memset(diag, 0, sizeof(double) * (size_t)size);
    for (int e = 0; e < M->count; ++e)
        if (M->row[e] == M->col[e])
            diag[M->row[e]] += M->x[e];
    for (int k = 0; k < size; ++k)
        if (!(diag[k] > 0.0))
            return cdyn_fail(report, CDYN_EFORMAT,
                             "fclib_read: M(%d,%d) = %g: M must be positive definite", k, k,
                             diag[k]);
    return CDYN_OK;
}

/* H's entries bucketed by row (velocity), then every pair in a row: the products
 * H(k,a) H(k,b) / M(k,k) whose sums are W(a,b). */
static cdyn_status reduce_global(const triplets *H, int rows, const double *diag,
                                 const cdyn_allocator *a, triplets *W, cdyn_report *report)
{
    int *start = cdyn_mem_array(a, (size_t)rows + 1, sizeof(int));
    int *fill = cdyn_mem_array(a, (size_t)rows, sizeof(int));
    int *order = cdyn_mem_array(a, H->count > 0 ? (size_t)H->count : 1, sizeof(int));
    cdyn_status st = CDYN_OK;
    if (start == NULL || fill == NULL || order == NULL)
        st = cdyn_fail(report, CDYN_ENOMEM, "out of memory reducing a global problem");
    if (st == CDYN_OK) {
        size_t pairs = 0;
        memset(start, 0, sizeof(int) * ((size_t)rows + 1));
        for (int e = 0; e < H->count; ++e)
            start[H->row[e] + 1]++;
        for (int k = 0; k < rows; ++k) {
            pairs += (size_t)start[k + 1] * (size_t)start[k + 1];
            start[k + 1] += start[k];
            fill[k] = start[k];
        }
        for (int e = 0; e < H->count; ++e)
            order[fill[H->row[e]]++] = e;
        st = alloc_triplets(a, pairs, W, report);
    }
    if (st == CDYN_OK) {
        size_t p = 0;
        for (int k = 0; k < rows; ++k)
            for (int s = start[k]; s < start[k + 1]; ++s)
                for (int t = start[k]; t < start[k + 1]; ++t, ++p) {
                    const int ea = order[s], eb = order[t];
                    W->row[p] = H->col[ea];
                    W->col[p] = H->col[eb];
                    W->x[p] = H->x[ea] * H->x[eb] / diag[k];
                }
    }
    cdyn_mem_free(a, order);
    cdyn_mem_free(a, fill);
    cdyn_mem_free(a, start);
    return st;
}

/* ---- global to local, general M: a sparse Cholesky factor of M ------------------------------- */

/* Append (r, c, x) to a triplet list of capacity *cap, doubling it when full. */
static int push_triplet(const cdyn_allocator *a, triplets *t, int *cap, int r, int c, double x)
{
    if (t->count == *cap) {
        if (*cap > INT_MAX / 2)
            return 0;
        triplets bigger;
        if (alloc_triplets(a, 2 * (size_t)*cap, &bigger, NULL) != CDYN_OK)
            return 0;
        memcpy(bigger.row, t->row, sizeof(int) * (size_t)t->count);
        memcpy(bigger.col, t->col, sizeof(int) * (size_t)t->count);
        memcpy(bigger.x, t->x, sizeof(double) * (size_t)t->count);
        bigger.count = t->count;
        free_triplets(a, t);
        *t = bigger;
        *cap *= 2;
    }
    t->row[t->count] = r;
    t->col[t->count] = c;
    t->x[t->count++] = x;
    return 1;
}

/* M as stored must be symmetric (the factorization reads its lower triangle only, so a matrix
 * stored by one triangle, or not symmetric, would be misread). */
static cdyn_status check_symmetric(const cdyn_csc *A, cdyn_report *report)
{
    for (int j = 0; j < A->ncols; ++j)
        for (int k = A->colptr[j]; k < A->colptr[j + 1]; ++k) {
            const int i = A->rowind[k];
            double mirror = 0.0;
            for (int l = A->colptr[i]; l < A->colptr[i + 1]; ++l)
                if (A->rowind[l] == j)
                    mirror = A->values[l];
            const double v = A->values[k];
            if (fabs(v - mirror) > 1e-12 * fmax(fabs(v), fabs(mirror)))
                return cdyn_fail(report, CDYN_EFORMAT,
                                 "fclib_read: M(%d,%d) = %g but M(%d,%d) = %g: M must be stored "
                                 "whole and symmetric",
                                 i, j, v, j, i, mirror);
        }
    return CDYN_OK;
}

typedef struct general_work {
    cdyn_csc_assembly M, H;
    cdyn_sparse_chol *chol;
    double *B;   /* nv x BATCH right-hand sides */
    double *col; /* m: one column of W */
} general_work;

enum { BATCH = 16 };

static cdyn_status general_setup(const triplets *M, const triplets *H, int nv, int m,
                                 const cdyn_allocator *a, general_work *g, cdyn_report *report)
{
    cdyn_status st = cdyn_csc_assembly_init(&g->M, nv, nv, M->count, M->row, M->col, a, report);
    if (st != CDYN_OK)
        return st;
    cdyn_csc_assembly_set_values(&g->M, M->x);
    if ((st = check_symmetric(&g->M.A, report)) != CDYN_OK)
        return st;
    if ((st = cdyn_csc_assembly_init(&g->H, nv, m, H->count, H->row, H->col, a, report)) != CDYN_OK)
        return st;
    cdyn_csc_assembly_set_values(&g->H, H->x);
    if ((st = cdyn_sparse_chol_create(&g->M.A, a, &g->chol, report)) != CDYN_OK)
        return st;
    st = cdyn_sparse_chol_factor(g->chol, &g->M.A, report);
    if (st == CDYN_ESINGULAR || st == CDYN_EINVAL)
        return cdyn_fail(report, CDYN_EFORMAT, "fclib_read: M is not positive definite");
    if (st != CDYN_OK)
        return st;
    g->B = cdyn_mem_array(a, (size_t)nv * BATCH, sizeof(double));
    g->col = cdyn_mem_array(a, (size_t)m, sizeof(double));
    if (g->B == NULL || g->col == NULL)
        return cdyn_fail(report, CDYN_ENOMEM, "out of memory reducing a global problem");
    return CDYN_OK;
}

/* W's columns H^T M^-1 H e_j, BATCH at a time, kept by their nonzeros. */
static cdyn_status general_columns(general_work *g, int nv, int m, const cdyn_allocator *a,
                                   triplets *W, cdyn_report *report)
{
    int cap = 1024;
    cdyn_status st = alloc_triplets(a, (size_t)cap, W, report);
    W->count = 0;
    for (int j0 = 0; st == CDYN_OK && j0 < m; j0 += BATCH) {
        const int nb = m - j0 < BATCH ? m - j0 : BATCH;
        memset(g->B, 0, sizeof(double) * (size_t)nv * (size_t)nb);
        for (int j = 0; j < nb; ++j)
            for (int k = g->H.A.colptr[j0 + j]; k < g->H.A.colptr[j0 + j + 1]; ++k)
                g->B[g->H.A.rowind[k] + (size_t)nv * j] = g->H.A.values[k];
        if ((st = cdyn_sparse_chol_solve(g->chol, nb, g->B, g->B, report)) != CDYN_OK)
            break;
        for (int j = 0; j < nb && st == CDYN_OK; ++j) {
            cdyn_csc_gemv(1, 1.0, &g->H.A, g->B + (size_t)nv * j, 0.0, g->col);
            for (int i = 0; i < m; ++i)
                if (g->col[i] != 0.0 && !push_triplet(a, W, &cap, i, j0 + j, g->col[i]))
                    st = cdyn_fail(report, CDYN_ENOMEM, "out of memory for the entries of W");
        }
    }
    return st;
}

/* W = H^T M^-1 H, q = H^T M^-1 f + w for a symmetric positive definite M. */
static cdyn_status reduce_general(const triplets *M, const triplets *H, int nv, int m,
                                  const double *f, const double *w, const cdyn_allocator *a,
                                  triplets *W, double *q, cdyn_report *report)
{
    general_work g;
    memset(&g, 0, sizeof g);
    cdyn_status st = general_setup(M, H, nv, m, a, &g, report);
    if (st == CDYN_OK)
        st = general_columns(&g, nv, m, a, W, report);
    if (st == CDYN_OK && (st = cdyn_sparse_chol_solve(g.chol, 1, f, g.B, report)) == CDYN_OK) {
        memcpy(q, w, sizeof(double) * (size_t)m);
        cdyn_csc_gemv(1, 1.0, &g.H.A, g.B, 1.0, q);
    }
    cdyn_mem_free(a, g.col);
    cdyn_mem_free(a, g.B);
    cdyn_sparse_chol_free(g.chol);
    cdyn_csc_assembly_free(&g.H);
    cdyn_csc_assembly_free(&g.M);
    return st;
}

/* ---- reading --------------------------------------------------------------------------------- */

static cdyn_status read_local(const char *path, const walked *w, const cdyn_allocator *a,
                              cdyn_fc3d_file **out, cdyn_report *report)
{
    struct fclib_local *p = fclib_read_local(path);
    if (p == NULL)
        return cdyn_fail(report, CDYN_EIO, "FCLib could not read the local problem");
    triplets t;
    cdyn_status st = matrix_triplets(p->W, "W", a, &t, report);
    if (st == CDYN_OK) {
        st = make_file(&t, w->d, p->W->m, p->q, p->mu, a, out, report);
        free_triplets(a, &t);
    }
    free_local(p, w);
    return st;
}

/* q = H^T M^-1 f + w */
static void reduce_q(const triplets *H, const double *diag, const double *f, const double *w, int m,
                     double *q)
{
    memcpy(q, w, sizeof(double) * (size_t)m);
    for (int e = 0; e < H->count; ++e)
        q[H->col[e]] += H->x[e] * (f[H->row[e]] / diag[H->row[e]]);
}

static cdyn_status read_global(const char *path, const walked *w, const cdyn_allocator *a,
                               cdyn_fc3d_file **out, cdyn_report *report)
{
    struct fclib_global *p = fclib_read_global(path);
    if (p == NULL)
        return cdyn_fail(report, CDYN_EIO, "FCLib could not read the global problem");
    const int nv = p->M->m, m = p->H->n;
    triplets M = {0, NULL, NULL, NULL}, H = M, W = M;
    double *diag = cdyn_mem_array(a, (size_t)nv, sizeof(double));
    double *q = cdyn_mem_array(a, (size_t)m, sizeof(double));
    cdyn_status st = CDYN_OK;
    if (diag == NULL || q == NULL)
        st = cdyn_fail(report, CDYN_ENOMEM, "out of memory reducing a global problem");
    if (st == CDYN_OK)
        st = matrix_triplets(p->M, "M", a, &M, report);
    if (st == CDYN_OK)
        st = matrix_triplets(p->H, "H", a, &H, report);
    for (int k = 0; st == CDYN_OK && k < nv; ++k)
        if (!isfinite(p->f[k]))
            st = cdyn_fail(report, CDYN_EFORMAT, "fclib_read: f[%d] is not finite", k);
    if (st == CDYN_OK && is_diagonal(&M)) {
        if ((st = diagonal_of(&M, nv, diag, report)) == CDYN_OK)
            st = reduce_global(&H, nv, diag, a, &W, report);
        if (st == CDYN_OK)
            reduce_q(&H, diag, p->f, p->w, m, q);
    } else if (st == CDYN_OK) {
        st = reduce_general(&M, &H, nv, m, p->f, p->w, a, &W, q, report);
    }
    if (st == CDYN_OK)
        st = make_file(&W, w->d, m, q, p->mu, a, out, report);
    free_triplets(a, &W);
    free_triplets(a, &H);
    free_triplets(a, &M);
    cdyn_mem_free(a, q);
    cdyn_mem_free(a, diag);
    free_global(p, w);
    return st;
}

static cdyn_status read_quietly(const char *path, const char *name, const cdyn_allocator *a,
                                cdyn_fc3d_file **out, cdyn_report *report)
{
    if (H5Fis_hdf5(path) <= 0)
        return cdyn_fail(report, CDYN_EFORMAT, "%s: not an HDF5 file", name);
    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (file < 0)
        return cdyn_fail(report, CDYN_EIO, "%s: HDF5 cannot open the file", name);
    h5walk h = {file, name, report};
    walked w;
    cdyn_status st = walk(&h, &w);
    H5Fclose(file); /* FCLib opens the file itself */
    if (st != CDYN_OK)
        return st;
    st = w.global ? read_global(path, &w, a, out, report) : read_local(path, &w, a, out, report);
    if (st != CDYN_OK && report != NULL && strncmp(report->message, name, strlen(name)) != 0) {
        char msg[CDYN_REPORT_TEXT];
        memcpy(msg, report->message, sizeof msg);
        cdyn_fail(report, st, "%s: %s", name, msg);
    }
    return st;
}

cdyn_status cdyn_fc3d_fclib_read(const char *path, const cdyn_allocator *allocator,
                                 cdyn_fc3d_file **out, cdyn_report *report)
{
    cdyn_report_clear(report, "fclib");
    if (path == NULL || out == NULL)
        return cdyn_fail(report, CDYN_EINVAL, "fclib_read: %s is NULL",
                         path == NULL ? "path" : "out");
    const char *tail = cdyn_io_path_tail(path);
    const char *slash = strrchr(tail, '/');
    const char *name = slash != NULL ? slash + 1 : tail;
    /* fopen first: the system's reason for a missing or unreadable file (HDF5 only fails) */
    FILE *probe = fopen(path, "rb");
    if (probe == NULL) {
        char reason[128];
        return cdyn_fail(report, CDYN_EIO, "cannot open '%s': %s", tail,
                         cdyn_io_errno_text(errno, reason, sizeof reason));
    }
    fclose(probe);
    /* HDF5's error printing is per-process (per-thread in thread-safe builds) state: switched
       off around the reads, then put back as it was */
    H5E_auto2_t func = NULL;
    void *data = NULL;
    const int saved = H5Eget_auto2(H5E_DEFAULT, &func, &data) >= 0;
    if (saved)
        H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    cdyn_status st = read_quietly(path, name, allocator, out, report);
    if (saved)
        H5Eset_auto2(H5E_DEFAULT, func, data);
    return st;
}

#endif
