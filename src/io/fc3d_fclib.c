/* FCLib HDF5 reader (Debian libfclib-dev), and cdyn_fc3d_file_load.
 *
 * FCLib prints and calls exit(1) whenever an HDF5 call fails, and sizes its buffers from the
 * file's own counts without looking at the datasets (a dataset longer than its count overflows
 * the buffer). So the file is walked with the HDF5 API first (fc3d_fclib_walk.c), and FCLib is
 * called only on a file it reads without failing. HDF5's automatic error printing is switched
 * off for the duration and restored.
 *
 * Local problems (/fclib_local: W, q, mu) are read as they are. Global problems
 * (/fclib_global: M v = H r + f, u = H^T v + w, FCLib's convention) are reduced to the local
 * one, W = H^T M^-1 H and q = H^T M^-1 f + w (fc3d_fclib_reduce.c). The parts G, b (global) and
 * V, R, s (local) are refused. */
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

#include "io/fc3d_fclib.h"

int cdyn_fc3d_has_fclib(void)
{
    return 1;
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
    cdyn_status st = cdyn_triplets_alloc(a, (size_t)count, t, report);
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
        cdyn_triplets_free(a, t);
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
        cdyn_triplets_free(a, &t);
    }
    free_local(p, w);
    return st;
}

static cdyn_status read_global(const char *path, const walked *w, const cdyn_allocator *a,
                               cdyn_fc3d_file **out, cdyn_report *report)
{
    struct fclib_global *p = fclib_read_global(path);
    if (p == NULL)
        return cdyn_fail(report, CDYN_EIO, "FCLib could not read the global problem");
    const int nv = p->M->m, m = p->H->n;
    triplets M = {0, NULL, NULL, NULL}, H = M, W = M;
    double *q = cdyn_mem_array(a, (size_t)m, sizeof(double));
    cdyn_status st = CDYN_OK;
    if (q == NULL)
        st = cdyn_fail(report, CDYN_ENOMEM, "out of memory reducing a global problem");
    if (st == CDYN_OK)
        st = matrix_triplets(p->M, "M", a, &M, report);
    if (st == CDYN_OK)
        st = matrix_triplets(p->H, "H", a, &H, report);
    for (int k = 0; st == CDYN_OK && k < nv; ++k)
        if (!isfinite(p->f[k]))
            st = cdyn_fail(report, CDYN_EFORMAT, "fclib_read: f[%d] is not finite", k);
    if (st == CDYN_OK)
        st = cdyn_fclib_reduce(&M, &H, nv, m, p->f, p->w, a, &W, q, report);
    if (st == CDYN_OK)
        st = make_file(&W, w->d, m, q, p->mu, a, out, report);
    cdyn_triplets_free(a, &W);
    cdyn_triplets_free(a, &H);
    cdyn_triplets_free(a, &M);
    cdyn_mem_free(a, q);
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
    walked w;
    cdyn_status st = cdyn_fclib_walk(file, name, report, &w);
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
