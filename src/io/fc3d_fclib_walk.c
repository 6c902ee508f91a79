/* The walk before FCLib: FCLib prints and calls exit(1) whenever an HDF5 call fails, and sizes
 * its buffers from the file's own counts without looking at the datasets, so every group,
 * dataset, class and length it will touch is checked here with the HDF5 API first. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "core/report.h"
#include "io/fc3d_fclib.h"

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

cdyn_status cdyn_fclib_walk(hid_t file, const char *name, cdyn_report *report, walked *w)
{
    const h5walk hw = {file, name, report}, *h = &hw;
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
