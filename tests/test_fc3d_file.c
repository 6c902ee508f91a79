/* Frictional contact problem files: the Siconos text reader and writer, the FCLib reader.
 * Expected values come from the files themselves (an independent strtok/strtod reading of the
 * text, entries copied by hand) or from FCLib's stored solutions, never from this reader. */
#define _POSIX_C_SOURCE 200809L /* opendir, for listing every fixture */

#include <dirent.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cdyn/fc3d.h"
#include "support.h"

#ifdef CDYN_TEST_HAVE_HDF5
#include <hdf5.h>
#endif

#define FC3D_DIR CDYN_TEST_DATA_DIR "/fc3d"

/* ---- helpers --------------------------------------------------------------------------------- */

static char *slurp(const char *path, size_t *length)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    long size = ftell(f);
    assert_true(size >= 0);
    rewind(f);
    char *buf = malloc((size_t)size + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)size, f), (size_t)size);
    fclose(f);
    buf[size] = '\0';
    *length = (size_t)size;
    return buf;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t ls = strlen(s), lx = strlen(suffix);
    return ls >= lx && strcmp(s + ls - lx, suffix) == 0;
}

static cdyn_fc3d_file *read_path(const char *path)
{
    cdyn_fc3d_file *f = NULL;
    cdyn_report r;
    cdyn_status st = cdyn_fc3d_file_load(path, NULL, &f, &r);
    if (st != CDYN_OK)
        print_error("%s: %s\n", path, r.message);
    assert_int_equal(st, CDYN_OK);
    assert_non_null(f);
    return f;
}

static cdyn_fc3d_file *read_fixture(const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", FC3D_DIR, name);
    return read_path(path);
}

/* W(i, j) of the 3n x 3n matrix, whichever storage. */
static double w_at(const cdyn_fc3d_file *f, int i, int j)
{
    const int m = 3 * f->n;
    if (!f->sparse)
        return f->W[i + (size_t)j * m];
    for (int k = f->rowptr[i / 3]; k < f->rowptr[i / 3 + 1]; ++k)
        if (f->colind[k] == j / 3)
            return f->values[9 * (size_t)k + i % 3 + 3 * (j % 3)];
    return 0.0;
}

/* Sizes, finiteness, mu >= 0, a well-formed block structure, the problem view. */
static void check_shape(const cdyn_fc3d_file *f)
{
    assert_true(f->n > 0);
    assert_true(f->dim == 2 || f->dim == 3);
    assert_non_null(f->comment);
    const size_t m = 3 * (size_t)f->n;
    if (f->sparse) {
        assert_null(f->W);
        assert_int_equal(f->rowptr[0], 0);
        for (int i = 0; i < f->n; ++i) {
            assert_true(f->rowptr[i + 1] >= f->rowptr[i]);
            for (int k = f->rowptr[i]; k < f->rowptr[i + 1]; ++k) {
                assert_true(f->colind[k] >= 0 && f->colind[k] < f->n);
                if (k > f->rowptr[i])
                    assert_true(f->colind[k] > f->colind[k - 1]);
            }
        }
        for (size_t k = 0; k < 9 * (size_t)f->rowptr[f->n]; ++k)
            assert_true(isfinite(f->values[k]));
        assert_ptr_equal(f->blocks.rowptr, f->rowptr);
        assert_ptr_equal(f->blocks.colind, f->colind);
        assert_ptr_equal(f->blocks.values, f->values);
    } else {
        assert_null(f->rowptr);
        for (size_t k = 0; k < m * m; ++k)
            assert_true(isfinite(f->W[k]));
    }
    for (size_t k = 0; k < m; ++k)
        assert_true(isfinite(f->q[k]));
    for (int i = 0; i < f->n; ++i)
        assert_true(isfinite(f->mu[i]) && f->mu[i] >= 0.0);
    cdyn_fc3d p = cdyn_fc3d_file_problem(f);
    assert_int_equal(p.n, f->n);
    assert_ptr_equal(p.q, f->q);
    assert_ptr_equal(p.mu, f->mu);
    assert_true((p.W != NULL) != (p.blocks != NULL));
    assert_true(f->sparse ? p.blocks == &f->blocks : p.W == f->W);
}

/* ---- an independent reading of the text ------------------------------------------------------ */

typedef struct toks {
    char *text;
    char **tok;
    size_t count, at;
} toks;

static void toks_open(toks *t, const char *path)
{
    size_t len;
    t->text = slurp(path, &len);
    t->tok = malloc(sizeof(char *) * (len / 2 + 2));
    assert_non_null(t->tok);
    t->count = t->at = 0;
    for (char *p = strtok(t->text, " \t\r\n"); p != NULL; p = strtok(NULL, " \t\r\n"))
        t->tok[t->count++] = p;
}

static long tk_int(toks *t)
{
    assert_true(t->at < t->count);
    return strtol(t->tok[t->at++], NULL, 10);
}

static double tk_dbl(toks *t)
{
    assert_true(t->at < t->count);
    return strtod(t->tok[t->at++], NULL);
}

static void toks_close(toks *t)
{
    free(t->tok);
    free(t->text);
}

/* 3-D index of the file's d-dimensional row or column r. */
static int map3(int d, int r)
{
    return d == 3 ? r : 3 * (r / 2) + r % 2;
}

/* Every number of the file at the place the format gives it (dense: column by column; SBM:
 * each block column by column at its block row and column), planar T2 rows decoupled. */
static void check_against_text(const char *path, const cdyn_fc3d_file *f)
{
    toks t;
    toks_open(&t, path);
    const int d = (int)tk_int(&t), n = (int)tk_int(&t), code = (int)tk_int(&t), m = d * n;
    assert_int_equal(f->dim, d);
    assert_int_equal(f->n, n);
    assert_int_equal(f->sparse, code);
    assert_int_equal(tk_int(&t), m);
    assert_int_equal(tk_int(&t), m);
    if (code == 0) {
        assert_int_equal(tk_int(&t), m);
        assert_int_equal(tk_int(&t), m);
        for (int j = 0; j < m; ++j)
            for (int i = 0; i < m; ++i)
                assert_true(w_at(f, map3(d, i), map3(d, j)) == tk_dbl(&t));
    } else {
        const int nb = (int)tk_int(&t);
        int *index1 = calloc((size_t)n + 1, sizeof(int)),
            *index2 = calloc((size_t)nb + 1, sizeof(int));
        if (nb > 0) {
            assert_int_equal(tk_int(&t), n);
            assert_int_equal(tk_int(&t), n);
            for (int k = 0; k < 2 * n; ++k)
                assert_int_equal(tk_int(&t), d * (k % n + 1));
            assert_int_equal(tk_int(&t), n + 1);
            assert_int_equal(tk_int(&t), nb);
            for (int i = 0; i <= n; ++i)
                index1[i] = (int)tk_int(&t);
            for (int k = 0; k < nb; ++k)
                index2[k] = (int)tk_int(&t);
        }
        for (int i = 0; i < n; ++i)
            for (int k = index1[i]; k < index1[i + 1]; ++k) {
                assert_int_equal(tk_int(&t), k);
                for (int e = 0; e < d * d; ++e)
                    assert_true(w_at(f, map3(d, d * i + e % d), map3(d, d * index2[k] + e / d)) ==
                                tk_dbl(&t));
            }
        free(index1);
        free(index2);
    }
    for (int i = 0; i < m; ++i)
        assert_true(f->q[map3(d, i)] == tk_dbl(&t));
    for (int i = 0; i < n; ++i)
        assert_true(f->mu[i] == tk_dbl(&t));
    /* what is left is the comment, token for token */
    char rest[256] = "";
    for (size_t k = t.at; k < t.count && strlen(rest) < 200; ++k)
        snprintf(rest + strlen(rest), sizeof rest - strlen(rest), "%s%s", k > t.at ? " " : "",
                 t.tok[k]);
    if (t.count - t.at <= 1)
        assert_string_equal(f->comment, rest);
    toks_close(&t);

    /* planar: the added second tangent is decoupled, W_T2T2 = the contact's W_T1T1 (W_NN, 1
       when not positive), q_T2 = 0 */
    if (d == 2)
        for (int c = 0; c < n; ++c) {
            const double wtt = w_at(f, 3 * c + 1, 3 * c + 1), wnn = w_at(f, 3 * c, 3 * c);
            const double t2 = wtt > 0 ? wtt : (wnn > 0 ? wnn : 1.0);
            assert_true(f->q[3 * c + 2] == 0.0);
            for (int j = 0; j < 3 * n; ++j) {
                assert_true(w_at(f, 3 * c + 2, j) == (j == 3 * c + 2 ? t2 : 0.0));
                assert_true(w_at(f, j, 3 * c + 2) == (j == 3 * c + 2 ? t2 : 0.0));
            }
        }
}

/* Smallest eigenvalue of the symmetric part of a 3x3 column-major block (the trigonometric
 * solution of the characteristic cubic). */
static double min_eig_sym(const double *b)
{
    double a[3][3];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            a[i][j] = 0.5 * (b[i + 3 * j] + b[j + 3 * i]);
    const double p1 = a[0][1] * a[0][1] + a[0][2] * a[0][2] + a[1][2] * a[1][2];
    const double q = (a[0][0] + a[1][1] + a[2][2]) / 3.0;
    const double p2 = (a[0][0] - q) * (a[0][0] - q) + (a[1][1] - q) * (a[1][1] - q) +
                      (a[2][2] - q) * (a[2][2] - q) + 2.0 * p1;
    const double p = sqrt(p2 / 6.0);
    if (p == 0.0)
        return q;
    double c[3][3];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            c[i][j] = (a[i][j] - (i == j ? q : 0.0)) / p;
    const double det = c[0][0] * (c[1][1] * c[2][2] - c[1][2] * c[2][1]) -
                       c[0][1] * (c[1][0] * c[2][2] - c[1][2] * c[2][0]) +
                       c[0][2] * (c[1][0] * c[2][1] - c[1][1] * c[2][0]);
    const double r = fmax(-1.0, fmin(1.0, det / 2.0));
    return q + 2.0 * p * cos(acos(r) / 3.0 + 2.0 * 3.14159265358979323846 / 3.0);
}

/* Diagonal blocks of a Delassus operator: positive semidefinite (symmetric part). */
static void check_diagonal_blocks_psd(const cdyn_fc3d_file *f)
{
    for (int c = 0; c < f->n; ++c) {
        double b[9];
        for (int k = 0; k < 9; ++k)
            b[k] = w_at(f, 3 * c + k % 3, 3 * c + k / 3);
        const double scale = fabs(b[0]) + fabs(b[4]) + fabs(b[8]);
        assert_true(min_eig_sym(b) >= -1e-10 * scale);
    }
}

/* ---- every fixture --------------------------------------------------------------------------- */

static void test_every_fixture_reads(void **state)
{
    (void)state;
    DIR *dir = opendir(FC3D_DIR);
    assert_non_null(dir);
    int text = 0, hdf5 = 0, dense = 0, sparse = 0, planar = 0;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", FC3D_DIR, e->d_name);
        if (ends_with(e->d_name, ".dat")) {
            cdyn_fc3d_file *f = read_path(path);
            check_shape(f);
            check_against_text(path, f);
            dense += !f->sparse;
            sparse += f->sparse;
            planar += f->dim == 2;
            cdyn_fc3d_file_free(f);
            text++;
        } else if (ends_with(e->d_name, ".hdf5")) {
            hdf5++;
            if (!cdyn_fc3d_has_fclib())
                continue;
            cdyn_fc3d_file *f = read_path(path);
            check_shape(f);
            check_diagonal_blocks_psd(f);
            assert_true(f->sparse);
            assert_int_equal(f->dim, 3);
            cdyn_fc3d_file_free(f);
        }
    }
    closedir(dir);
    /* tests/data/fc3d/README.md lists them: 35 text files (19 dense, 16 SBM, 6 planar), 5 HDF5 */
    assert_int_equal(text, 35);
    assert_int_equal(hdf5, 5);
    assert_int_equal(dense, 19);
    assert_int_equal(sparse, 16);
    assert_int_equal(planar, 6);
}

/* Values copied from the files by hand; the non-symmetric entries fix the orientation. */
static void test_values_by_hand(void **state)
{
    (void)state;
    /* FrictionContact3D_1c.dat: 3 1 0 3 3 3 3, W columns (15 -1 -2) (-1 14 1) (-2 1 16),
       q = (-1 2 3), mu = 0.1 */
    cdyn_fc3d_file *f = read_fixture("FrictionContact3D_1c.dat");
    const double W[9] = {15, -1, -2, -1, 14, 1, -2, 1, 16};
    assert_int_equal(f->n, 1);
    assert_false(f->sparse);
    assert_memory_equal(f->W, W, sizeof W);
    assert_true(f->q[0] == -1.0 && f->q[1] == 2.0 && f->q[2] == 3.0);
    assert_true(f->mu[0] == 0.1);
    assert_string_equal(f->comment, "");
    cdyn_fc3d_file_free(f);

    /* Rover11035.dat (dense, n = 1): the first printed line is column 0, so its second number
       is W(1,0) and the second line's first number is W(0,1); they differ. */
    f = read_fixture("Rover11035.dat");
    assert_true(w_at(f, 1, 0) == -1.426574206813656375825161e-04);
    assert_true(w_at(f, 0, 1) == -1.438285701497408206397943e-04);
    assert_true(w_at(f, 2, 0) == 7.917137724989218054358342e-04);
    assert_true(f->mu[0] == 6.999999999999999555910790e-01);
    assert_string_equal(f->comment, "1");
    cdyn_fc3d_file_free(f);

    /* OneObject-i100000-316.hdf5.dat (SBM): block 0 is block (0,0); its numbers 2 and 4, read
       column by column, are W(1,0) and W(0,1), again different. */
    f = read_fixture("OneObject-i100000-316.hdf5.dat");
    assert_true(f->sparse);
    assert_int_equal(f->n, 25);
    assert_true(w_at(f, 0, 0) == 3.615127265523758737231219e+00);
    assert_true(w_at(f, 1, 0) == 6.284089269017543166739870e+00);
    assert_true(w_at(f, 2, 0) == 7.619535015513477560489264e+00);
    assert_true(w_at(f, 0, 1) == 6.284738722209805672491711e+00);
    assert_true(w_at(f, 1, 1) == 6.769709842673012190061854e+01);
    assert_int_equal(f->rowptr[f->n], 207);
    cdyn_fc3d_file_free(f);

    /* FrictionContactProblem00394.dat (d = 2, dense, n = 6): W(0,0) and W(1,0) of the file are
       the first two numbers; q and mu follow W. */
    f = read_fixture("FrictionContactProblem00394.dat");
    assert_int_equal(f->dim, 2);
    assert_int_equal(f->n, 6);
    assert_true(w_at(f, 0, 0) == 4.435919789226376863666701e-01);
    assert_true(w_at(f, 1, 0) == 3.503328269843786202386582e-18);
    assert_true(w_at(f, 0, 1) == -3.503328269843786202386582e-18);
    assert_true(w_at(f, 2, 2) == w_at(f, 1, 1) && w_at(f, 1, 1) > 0 && w_at(f, 2, 0) == 0.0);
    /* the file's row 2 (contact 1, normal) is 3-D row 3 */
    assert_true(w_at(f, 3, 3) == 4.313201067829539048226195e-01);
    cdyn_fc3d_file_free(f);
}

/* FC3D_Example1 exists dense and SBM: the same problem both ways. */
static void test_dense_and_sbm_agree(void **state)
{
    (void)state;
    cdyn_fc3d_file *d = read_fixture("FC3D_Example1.dat");
    cdyn_fc3d_file *s = read_fixture("FC3D_Example1_SBM.dat");
    assert_false(d->sparse);
    assert_true(s->sparse);
    assert_int_equal(d->n, 3);
    assert_int_equal(s->n, 3);
    for (int i = 0; i < 9; ++i) {
        for (int j = 0; j < 9; ++j)
            assert_true(w_at(d, i, j) == w_at(s, i, j));
        assert_true(d->q[i] == s->q[i]);
    }
    for (int i = 0; i < 3; ++i)
        assert_true(d->mu[i] == s->mu[i]);
    assert_string_equal(d->comment, s->comment);
    cdyn_fc3d_file_free(d);
    cdyn_fc3d_file_free(s);
}

/* ---- FCLib ----------------------------------------------------------------------------------- */

#ifdef CDYN_TEST_HAVE_HDF5
/* A dataset of doubles, read with the HDF5 API (not FCLib's reader); NULL when absent. */
static double *h5_doubles(hid_t file, const char *path, size_t expect)
{
    if (H5Lexists(file, path, H5P_DEFAULT) <= 0)
        return NULL;
    hid_t d = H5Dopen2(file, path, H5P_DEFAULT);
    assert_true(d >= 0);
    hid_t s = H5Dget_space(d);
    assert_int_equal((size_t)H5Sget_simple_extent_npoints(s), expect);
    double *x = malloc(sizeof(double) * expect);
    assert_non_null(x);
    assert_true(H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, x) >= 0);
    H5Sclose(s);
    H5Dclose(d);
    return x;
}
#endif

#ifdef CDYN_TEST_HAVE_HDF5
static int *h5_ints(hid_t file, const char *path, size_t *count)
{
    hid_t d = H5Dopen2(file, path, H5P_DEFAULT);
    assert_true(d >= 0);
    hid_t s = H5Dget_space(d);
    *count = (size_t)H5Sget_simple_extent_npoints(s);
    int *x = malloc(sizeof(int) * (*count + 1));
    assert_non_null(x);
    assert_true(H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, x) >= 0);
    H5Sclose(s);
    H5Dclose(d);
    return x;
}

static int h5_int(hid_t file, const char *group, const char *name)
{
    char path[256];
    size_t count;
    snprintf(path, sizeof path, "%s/%s", group, name);
    int *x = h5_ints(file, path, &count);
    assert_int_equal(count, 1);
    int v = x[0];
    free(x);
    return v;
}

/* An FCLib matrix's entries, read with the HDF5 API. The struct is CSparse's: a triplet
 * (nz >= 0) has rows in i and columns in p, CSC (nz = -1) column pointers p and rows i, CSR
 * (nz = -2) row pointers p and columns i. */
typedef struct entries {
    int m, n, count;
    int *row, *col;
    double *x;
} entries;

static void h5_entries(hid_t file, const char *group, entries *e)
{
    const int nz = h5_int(file, group, "nz"), nzmax = h5_int(file, group, "nzmax");
    e->m = h5_int(file, group, "m");
    e->n = h5_int(file, group, "n");
    char path[256];
    size_t np, ni;
    snprintf(path, sizeof path, "%s/p", group);
    int *p = h5_ints(file, path, &np);
    snprintf(path, sizeof path, "%s/i", group);
    int *i = h5_ints(file, path, &ni);
    snprintf(path, sizeof path, "%s/x", group);
    double *x = h5_doubles(file, path, nz >= 0 ? (size_t)nz : (size_t)nzmax);
    const int outer = nz == -1 ? e->n : e->m;
    e->count = nz >= 0 ? nz : p[outer];
    e->row = malloc(sizeof(int) * (size_t)e->count);
    e->col = malloc(sizeof(int) * (size_t)e->count);
    e->x = malloc(sizeof(double) * (size_t)e->count);
    assert_true(e->row && e->col && e->x);
    for (int k = 0, j = 0; k < e->count; ++k) {
        if (nz < 0)
            while (k >= p[j + 1])
                ++j;
        e->row[k] = nz >= 0 || nz == -1 ? i[k] : j;
        e->col[k] = nz >= 0 ? p[k] : (nz == -1 ? j : i[k]);
        e->x[k] = x[k];
        assert_true(e->row[k] >= 0 && e->row[k] < e->m && e->col[k] >= 0 && e->col[k] < e->n);
    }
    free(p);
    free(i);
    free(x);
}

static void free_entries(entries *e)
{
    free(e->row);
    free(e->col);
    free(e->x);
}

/* Dense column-major; repeated entries add up. */
static double *dense_of(const entries *e)
{
    double *a = calloc((size_t)e->m * (size_t)e->n, sizeof(double));
    assert_non_null(a);
    for (int k = 0; k < e->count; ++k)
        a[e->row[k] + (size_t)e->m * e->col[k]] += e->x[k];
    return a;
}
#endif

/* Local problems: W entry for entry and q as stored (CSR in both fixtures). */
static void test_fclib_local_entries(void **state)
{
    (void)state;
    if (!cdyn_fc3d_has_fclib())
        skip();
#ifdef CDYN_TEST_HAVE_HDF5
    static const char *const names[] = {"Capsules-i125-1213.hdf5",
                                        "LMGC_100_PR_PerioBox-i00361-60-03000.hdf5"};
    for (size_t t = 0; t < 2; ++t) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", FC3D_DIR, names[t]);
        cdyn_fc3d_file *f = read_path(path);
        hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
        assert_true(file >= 0);
        entries e;
        h5_entries(file, "/fclib_local/W", &e);
        const int m = e.m, n = e.n;
        double *W = dense_of(&e);
        free_entries(&e);
        double *q = h5_doubles(file, "/fclib_local/vectors/q", (size_t)m);
        double *mu = h5_doubles(file, "/fclib_local/vectors/mu", (size_t)m / 3);
        H5Fclose(file);
        assert_int_equal(3 * f->n, m);
        assert_int_equal(n, m);
        for (int i = 0; i < m; ++i) {
            for (int j = 0; j < m; ++j)
                assert_true(w_at(f, i, j) == W[i + (size_t)m * j]);
            assert_true(f->q[i] == q[i]);
        }
        assert_memory_equal(f->mu, mu, sizeof(double) * (size_t)f->n);
        free(W);
        free(q);
        free(mu);
        cdyn_fc3d_file_free(f);
    }
#else
    skip();
#endif
}

/* Global problems (M v = H r + f, u = H^T v + w) reduced to W = H^T M^-1 H, q = H^T M^-1 f + w,
 * recomputed here densely from the datasets. The triplet orientation shows in the data: in
 * spheres-in-a-box H is 588 x 768 and its p holds indices up to 767, so p are columns. */
static void test_fclib_global_reduction(void **state)
{
    (void)state;
    if (!cdyn_fc3d_has_fclib())
        skip();
#ifdef CDYN_TEST_HAVE_HDF5
    static const char *const names[] = {"Box_Stacks-i0122-82-5.hdf5",
                                        "spheres-in-a-box-98-i10000-256-10.hdf5",
                                        "Spheres-i099-356-679.hdf5"};
    for (size_t t = 0; t < 3; ++t) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", FC3D_DIR, names[t]);
        cdyn_fc3d_file *f = read_path(path);
        hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
        assert_true(file >= 0);
        entries M, H;
        h5_entries(file, "/fclib_global/M", &M);
        h5_entries(file, "/fclib_global/H", &H);
        const int nv = M.m, m = H.n;
        if (t == 1) { /* p holds column indices beyond H's 588 rows */
            size_t np;
            int *p = h5_ints(file, "/fclib_global/H/p", &np);
            int pmax = 0;
            for (size_t k = 0; k < np; ++k)
                pmax = p[k] > pmax ? p[k] : pmax;
            assert_int_equal(H.m, 588);
            assert_int_equal(pmax, 767);
            free(p);
        }
        double *fv = h5_doubles(file, "/fclib_global/vectors/f", (size_t)nv);
        double *w = h5_doubles(file, "/fclib_global/vectors/w", (size_t)m);
        double *mu = h5_doubles(file, "/fclib_global/vectors/mu", (size_t)m / 3);
        H5Fclose(file);
        assert_int_equal(3 * f->n, m);
        assert_int_equal(H.m, nv);
        assert_int_equal(M.n, nv);
        /* M diagonal: its inverse entry by entry */
        double *minv = calloc((size_t)nv, sizeof(double));
        for (int k = 0; k < M.count; ++k) {
            assert_int_equal(M.row[k], M.col[k]);
            minv[M.row[k]] += M.x[k];
        }
        for (int k = 0; k < nv; ++k)
            minv[k] = 1.0 / minv[k];
        /* W = sum over H's rows k of H(k,:)^T H(k,:) / M(k,k): entries grouped by row */
        int *start = calloc((size_t)nv + 1, sizeof(int)), *order = malloc(sizeof(int) * H.count);
        for (int k = 0; k < H.count; ++k)
            start[H.row[k] + 1]++;
        for (int k = 0; k < nv; ++k)
            start[k + 1] += start[k];
        int *fill = malloc(sizeof(int) * (size_t)nv);
        memcpy(fill, start, sizeof(int) * (size_t)nv);
        for (int k = 0; k < H.count; ++k)
            order[fill[H.row[k]]++] = k;
        double *W = calloc((size_t)m * m, sizeof(double)), *q = malloc(sizeof(double) * m);
        double *qscale = malloc(sizeof(double) * m); /* the sum of |terms|: rounding bound */
        memcpy(q, w, sizeof(double) * m);
        for (int a = 0; a < m; ++a)
            qscale[a] = fabs(w[a]);
        for (int k = 0; k < nv; ++k)
            for (int s1 = start[k]; s1 < start[k + 1]; ++s1) {
                const int a = order[s1];
                q[H.col[a]] += H.x[a] * minv[k] * fv[k];
                qscale[H.col[a]] += fabs(H.x[a] * minv[k] * fv[k]);
                for (int s2 = start[k]; s2 < start[k + 1]; ++s2) {
                    const int b = order[s2];
                    W[H.col[a] + (size_t)m * H.col[b]] += H.x[a] * H.x[b] * minv[k];
                }
            }
        double scale = 0.0;
        for (size_t k = 0; k < (size_t)m * m; ++k)
            scale = fmax(scale, fabs(W[k]));
        for (int i = 0; i < m; ++i) {
            for (int j = 0; j < m; ++j)
                assert_true(fabs(w_at(f, i, j) - W[i + (size_t)m * j]) <= 1e-13 * scale);
            assert_true(fabs(f->q[i] - q[i]) <= 1e-13 * qscale[i]);
        }
        assert_memory_equal(f->mu, mu, sizeof(double) * (size_t)f->n);
        free(start);
        free(order);
        free(fill);
        free(W);
        free(q);
        free(qscale);
        free(minv);
        free_entries(&M);
        free_entries(&H);
        free(fv);
        free(w);
        free(mu);
        cdyn_fc3d_file_free(f);
    }
#else
    skip();
#endif
}

#ifdef CDYN_TEST_HAVE_HDF5
static void h5_put(hid_t file, const char *path, hid_t type, size_t count, const void *data)
{
    hsize_t dim = count;
    hid_t s = H5Screate_simple(1, &dim, NULL);
    hid_t d = H5Dcreate2(file, path, type, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    assert_true(d >= 0);
    assert_true(H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0);
    H5Dclose(d);
    H5Sclose(s);
}

static void h5_group(hid_t file, const char *path)
{
    hid_t g = H5Gcreate2(file, path, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    assert_true(g >= 0);
    H5Gclose(g);
}

/* A one-contact local problem, W = I as a triplet; `flaw` spoils one part. */
static void write_local(const char *path, int flaw)
{
    hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    assert_true(file >= 0);
    const int one = 1, three = 3, dim = flaw == 1 ? 0 : 3, nz = 3, nzmax = flaw == 5 ? 1 << 30 : 3;
    const int rows[3] = {0, 1, flaw == 3 ? 7 : 2}, cols[4] = {0, 1, 2, 0};
    const double x[3] = {1, 1, 1}, q[3] = {-1, 0, 0}, mu[1] = {flaw == 4 ? -0.5 : 0.3};
    h5_group(file, "/fclib_local");
    h5_put(file, "/fclib_local/spacedim", H5T_NATIVE_INT, 1, &dim);
    h5_group(file, "/fclib_local/W");
    h5_put(file, "/fclib_local/W/nzmax", H5T_NATIVE_INT, 1, &nzmax);
    h5_put(file, "/fclib_local/W/m", H5T_NATIVE_INT, 1, &three);
    h5_put(file, "/fclib_local/W/n", H5T_NATIVE_INT, 1, &three);
    h5_put(file, "/fclib_local/W/nz", H5T_NATIVE_INT, 1, &nz);
    /* CSparse's triplet form: rows in i, columns in p */
    h5_put(file, "/fclib_local/W/p", H5T_NATIVE_INT, flaw == 2 ? 4 : 3, cols);
    h5_put(file, "/fclib_local/W/i", H5T_NATIVE_INT, 3, rows);
    h5_put(file, "/fclib_local/W/x", H5T_NATIVE_DOUBLE, 3, x);
    h5_group(file, "/fclib_local/vectors");
    h5_put(file, "/fclib_local/vectors/q", H5T_NATIVE_DOUBLE, 3, q);
    if (flaw != 6)
        h5_put(file, "/fclib_local/vectors/mu", H5T_NATIVE_DOUBLE, 1, mu);
    if (flaw == 7)
        h5_put(file, "/fclib_local/V", H5T_NATIVE_INT, 1, &one);
    H5Fclose(file);
}
#endif

#ifdef CDYN_TEST_HAVE_HDF5
/* A matrix group in FCLib's layout (CSparse triplet: rows in i, columns in p). */
static void h5_matrix(hid_t file, const char *group, int m, int n, int nz, const int *rows,
                      const int *cols, const double *x)
{
    char path[256];
    h5_group(file, group);
    const int v[4] = {nz, m, n, nz};
    static const char *const names[4] = {"nzmax", "m", "n", "nz"};
    for (int k = 0; k < 4; ++k) {
        snprintf(path, sizeof path, "%s/%s", group, names[k]);
        h5_put(file, path, H5T_NATIVE_INT, 1, &v[k]);
    }
    snprintf(path, sizeof path, "%s/i", group);
    h5_put(file, path, H5T_NATIVE_INT, (size_t)nz, rows);
    snprintf(path, sizeof path, "%s/p", group);
    h5_put(file, path, H5T_NATIVE_INT, (size_t)nz, cols);
    snprintf(path, sizeof path, "%s/x", group);
    h5_put(file, path, H5T_NATIVE_DOUBLE, (size_t)nz, x);
}

/* One contact, two velocities: M = diag(2, 4) (off_diagonal 1: plus M(0,1) = 1 alone, one
 * triangle; 2: plus M(0,1) = M(1,0) = 1; 3: plus M(0,1) = M(1,0) = 5, indefinite),
 * H = [1 0 2; 0 3 0], f = (2, 4), w = (0.5, 0.25, -1); G added when asked. */
static void write_global(const char *path, int off_diagonal, int with_g)
{
    hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    assert_true(file >= 0);
    const int three = 3;
    const int mr[4] = {0, 1, 0, 1}, mc[4] = {0, 1, 1, 0}, hr[3] = {0, 0, 1}, hc[3] = {0, 2, 1};
    const double off = off_diagonal == 3 ? 5 : 1;
    const double mx[4] = {2, 4, off, off}, hx[3] = {1, 2, 3}, f[2] = {2, 4};
    const double w[3] = {0.5, 0.25, -1};
    const double mu[1] = {0.7};
    h5_group(file, "/fclib_global");
    h5_put(file, "/fclib_global/spacedim", H5T_NATIVE_INT, 1, &three);
    h5_matrix(file, "/fclib_global/M", 2, 2, off_diagonal == 0 ? 2 : off_diagonal == 1 ? 3 : 4, mr,
              mc, mx);
    h5_matrix(file, "/fclib_global/H", 2, 3, 3, hr, hc, hx);
    if (with_g)
        h5_matrix(file, "/fclib_global/G", 2, 1, 1, mr, mr, mx);
    h5_group(file, "/fclib_global/vectors");
    h5_put(file, "/fclib_global/vectors/f", H5T_NATIVE_DOUBLE, 2, f);
    h5_put(file, "/fclib_global/vectors/w", H5T_NATIVE_DOUBLE, 3, w);
    h5_put(file, "/fclib_global/vectors/mu", H5T_NATIVE_DOUBLE, 1, mu);
    H5Fclose(file);
}

/* Two planar contacts (spacedim 2), W = [[2, 1, 0, 0], [1, 3, 0, 0], [0, 0, 4, 0],
 * [0, 0, 0, 5]] as a triplet, q = (-1, 1, -2, 2). */
static void write_planar(const char *path)
{
    hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    assert_true(file >= 0);
    const int two = 2;
    const int r[6] = {0, 1, 0, 1, 2, 3}, c[6] = {0, 0, 1, 1, 2, 3};
    const double x[6] = {2, 1, 1, 3, 4, 5}, q[4] = {-1, 1, -2, 2}, mu[2] = {0.1, 0.2};
    h5_group(file, "/fclib_local");
    h5_put(file, "/fclib_local/spacedim", H5T_NATIVE_INT, 1, &two);
    h5_matrix(file, "/fclib_local/W", 4, 4, 6, r, c, x);
    h5_group(file, "/fclib_local/vectors");
    h5_put(file, "/fclib_local/vectors/q", H5T_NATIVE_DOUBLE, 4, q);
    h5_put(file, "/fclib_local/vectors/mu", H5T_NATIVE_DOUBLE, 2, mu);
    H5Fclose(file);
}
#endif

static void fail_each_allocation(const char *path);

/* Hand-computed reductions: a global problem, W = H^T M^-1 H = [0.5 0 1; 0 2.25 0; 1 0 2],
 * q = H^T M^-1 f + w = (1, 3, 2) + w; a planar local one with its decoupled T2. */
static void test_fclib_by_hand(void **state)
{
    (void)state;
    if (!cdyn_fc3d_has_fclib())
        skip();
#ifdef CDYN_TEST_HAVE_HDF5
    char path[1024];
    snprintf(path, sizeof path, "%s/fc3d_hand.hdf5", CDYN_TEST_OUT_DIR);
    write_global(path, 0, 0);
    cdyn_fc3d_file *f = read_path(path);
    const double W[9] = {0.5, 0, 1, 0, 2.25, 0, 1, 0, 2}, q[3] = {1.5, 3.25, 1};
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j)
            assert_true(w_at(f, i, j) == W[i + 3 * j]);
        assert_true(f->q[i] == q[i]);
    }
    assert_true(f->mu[0] == 0.7);
    cdyn_fc3d_file_free(f);

    /* M = [2 1; 1 4]: M^-1 = [4 -1; -1 2] / 7, W = [4 -3 8; -3 18 -6; 8 -6 16] / 7,
       q = (4, 18, 8) / 7 + w (Cholesky path) */
    write_global(path, 2, 0);
    f = read_path(path);
    const double W7[9] = {4, -3, 8, -3, 18, -6, 8, -6, 16}, q7[3] = {4, 18, 8};
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j)
            assert_true(fabs(w_at(f, i, j) - W7[i + 3 * j] / 7.0) <= 1e-14);
        assert_true(fabs(f->q[i] - (q7[i] / 7.0 + (i == 0 ? 0.5 : i == 1 ? 0.25 : -1))) <=
                    1e-14);
    }
    cdyn_fc3d_file_free(f);
    fail_each_allocation(path);

    cdyn_fc3d_file *sentinel = (cdyn_fc3d_file *)&sentinel;
    cdyn_report r;
    static const char *const refused[3] = {"whole and symmetric", "(G, b)",
                                            "not positive definite"};
    for (int variant = 0; variant < 3; ++variant) {
        write_global(path, variant == 0 ? 1 : variant == 1 ? 0 : 3, variant == 1);
        f = sentinel;
        assert_int_equal(cdyn_fc3d_fclib_read(path, NULL, &f, &r), CDYN_EFORMAT);
        assert_non_null(strstr(r.message, refused[variant]));
        assert_ptr_equal(f, sentinel);
    }

    write_planar(path);
    f = read_path(path);
    assert_int_equal(f->dim, 2);
    assert_int_equal(f->n, 2);
    /* file row/column k is 3-D index 3 (k / 2) + k % 2 */
    assert_true(w_at(f, 0, 0) == 2.0 && w_at(f, 1, 0) == 1.0 && w_at(f, 0, 1) == 1.0);
    assert_true(w_at(f, 1, 1) == 3.0 && w_at(f, 3, 3) == 4.0 && w_at(f, 4, 4) == 5.0);
    assert_true(w_at(f, 2, 2) == 3.0 && w_at(f, 5, 5) == 5.0 && w_at(f, 2, 0) == 0.0);
    const double q3[6] = {-1, 1, 0, -2, 2, 0};
    assert_memory_equal(f->q, q3, sizeof q3);
    cdyn_fc3d_file_free(f);
    remove(path);
#else
    skip();
#endif
}

/* Malformed HDF5 files are refused with a message, never handed to FCLib (which would exit). */
static void test_fclib_malformed(void **state)
{
    (void)state;
    cdyn_fc3d_file *sentinel = (cdyn_fc3d_file *)&sentinel, *f = sentinel;
    cdyn_report r;
    if (!cdyn_fc3d_has_fclib()) {
        assert_int_equal(cdyn_fc3d_fclib_read(FC3D_DIR "/Capsules-i125-1213.hdf5", NULL, &f, &r),
                         CDYN_EINVAL);
        assert_non_null(strstr(r.message, "without FCLib"));
        assert_ptr_equal(f, sentinel);
        return;
    }
    assert_int_equal(cdyn_fc3d_fclib_read(FC3D_DIR "/nothing.hdf5", NULL, &f, &r), CDYN_EIO);
    assert_non_null(strstr(r.message, "nothing.hdf5"));
    assert_int_equal(cdyn_fc3d_fclib_read(FC3D_DIR "/Rover1039.dat", NULL, &f, &r), CDYN_EFORMAT);
    assert_non_null(strstr(r.message, "not an HDF5 file"));
    assert_ptr_equal(f, sentinel);
#ifdef CDYN_TEST_HAVE_HDF5
    char path[1024];
    snprintf(path, sizeof path, "%s/fc3d_flaw.hdf5", CDYN_TEST_OUT_DIR);
    write_local(path, 0);
    test_failing_alloc fa;
    test_failing_alloc_init(&fa, -1);
    assert_int_equal(cdyn_fc3d_fclib_read(path, &fa.allocator, &f, &r), CDYN_OK);
    assert_true(w_at(f, 0, 0) == 1.0 && w_at(f, 2, 2) == 1.0 && w_at(f, 0, 1) == 0.0);
    assert_true(f->q[0] == -1.0 && f->mu[0] == 0.3);
    cdyn_fc3d_file_free(f);
    assert_int_equal(fa.live, 0);
    static const char *const expect[8] = {
        NULL,           "spacedim = 0",       "has 4 values",  "out of range",
        "mu[0] = -0.5", "nzmax = 1073741824", "mu is missing", "mixed local problem"};
    for (int flaw = 1; flaw < 8; ++flaw) {
        write_local(path, flaw);
        f = sentinel;
        test_failing_alloc_init(&fa, -1);
        cdyn_status st = cdyn_fc3d_fclib_read(path, &fa.allocator, &f, &r);
        if (st != CDYN_EFORMAT || strstr(r.message, expect[flaw]) == NULL)
            print_error("flaw %d: status %d, %s\n", flaw, (int)st, r.message);
        assert_int_equal(st, CDYN_EFORMAT);
        assert_non_null(strstr(r.message, expect[flaw]));
        assert_non_null(strstr(r.message, "fc3d_flaw.hdf5"));
        assert_ptr_equal(f, sentinel);
        assert_int_equal(fa.live, 0);
    }
    /* an HDF5 file without FCLib's groups */
    hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    H5Fclose(file);
    assert_int_equal(cdyn_fc3d_fclib_read(path, NULL, &f, &r), CDYN_EFORMAT);
    assert_non_null(strstr(r.message, "not an FCLib problem"));
    remove(path);
#endif
}

/* ---- writer ---------------------------------------------------------------------------------- */

static void same_file(const cdyn_fc3d_file *a, const cdyn_fc3d_file *b)
{
    const size_t m = 3 * (size_t)a->n;
    assert_int_equal(a->n, b->n);
    assert_int_equal(a->sparse, b->sparse);
    if (a->sparse) {
        const size_t nb = (size_t)a->rowptr[a->n];
        assert_memory_equal(a->rowptr, b->rowptr, sizeof(int) * (m / 3 + 1));
        if (nb > 0) {
            assert_memory_equal(a->colind, b->colind, sizeof(int) * nb);
            assert_memory_equal(a->values, b->values, sizeof(double) * 9 * nb);
        }
    } else {
        assert_memory_equal(a->W, b->W, sizeof(double) * m * m);
    }
    assert_memory_equal(a->q, b->q, sizeof(double) * m);
    assert_memory_equal(a->mu, b->mu, sizeof(double) * (size_t)a->n);
}

/* Every fixture written and read back gives the same doubles (the writer's 17 digits). */
static void test_round_trip(void **state)
{
    (void)state;
    DIR *dir = opendir(FC3D_DIR);
    assert_non_null(dir);
    char out[1024];
    snprintf(out, sizeof out, "%s/fc3d_round_trip.dat", CDYN_TEST_OUT_DIR);
    struct dirent *e;
    int done = 0;
    while ((e = readdir(dir)) != NULL) {
        if (!ends_with(e->d_name, ".dat") &&
            !(ends_with(e->d_name, ".hdf5") && cdyn_fc3d_has_fclib()))
            continue;
        cdyn_fc3d_file *f = read_fixture(e->d_name), *g = NULL;
        cdyn_fc3d p = cdyn_fc3d_file_problem(f);
        cdyn_report r;
        assert_int_equal(cdyn_fc3d_file_write(out, &p, f->comment, &r), CDYN_OK);
        assert_int_equal(cdyn_fc3d_file_read(out, NULL, &g, &r), CDYN_OK);
        same_file(f, g);
        assert_int_equal(g->dim, 3);
        assert_string_equal(g->comment, f->comment);
        cdyn_fc3d_file_free(g);
        cdyn_fc3d_file_free(f);
        done++;
    }
    closedir(dir);
    assert_true(done >= 35);
    remove(out);
}

/* Blocks given in any valid form (an empty row, W = 0) come back the same. */
static void test_write_blocks_edge_cases(void **state)
{
    (void)state;
    const int rowptr[3] = {0, 0, 1}, colind[1] = {0}, zero_rows[3] = {0, 0, 0};
    double values[9];
    for (int k = 0; k < 9; ++k)
        values[k] = (k + 1) / 7.0; /* non-symmetric, not short decimals */
    const double q[6] = {1e-300, -2, 3.5, 4, 5, -6}, mu[2] = {0, 0.25};
    cdyn_fc3d_blocks b = {rowptr, colind, values};
    cdyn_fc3d p = {2, NULL, &b, q, mu};
    char out[1024];
    snprintf(out, sizeof out, "%s/fc3d_blocks.dat", CDYN_TEST_OUT_DIR);
    cdyn_report r;
    cdyn_fc3d_file *g = NULL;
    assert_int_equal(cdyn_fc3d_file_write(out, &p, "a comment\nover two lines", &r), CDYN_OK);
    assert_int_equal(cdyn_fc3d_file_read(out, NULL, &g, &r), CDYN_OK);
    assert_memory_equal(g->rowptr, rowptr, sizeof rowptr);
    assert_int_equal(g->colind[0], 0);
    assert_memory_equal(g->values, values, sizeof values);
    assert_memory_equal(g->q, q, sizeof q);
    assert_memory_equal(g->mu, mu, sizeof mu);
    assert_string_equal(g->comment, "a comment\nover two lines");
    /* the block (1,0) is W rows 3..5, columns 0..2, column-major */
    assert_true(w_at(g, 4, 0) == values[1] && w_at(g, 3, 1) == values[3]);
    cdyn_fc3d_file_free(g);

    cdyn_fc3d_blocks zero = {zero_rows, NULL, NULL};
    p.blocks = &zero;
    assert_int_equal(cdyn_fc3d_file_write(out, &p, NULL, &r), CDYN_OK);
    assert_int_equal(cdyn_fc3d_file_read(out, NULL, &g, &r), CDYN_OK);
    assert_true(g->sparse);
    assert_memory_equal(g->rowptr, zero_rows, sizeof zero_rows);
    assert_string_equal(g->comment, "");
    cdyn_fc3d_file_free(g);
    remove(out);
}

static void test_write_invalid(void **state)
{
    (void)state;
    double W[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, q[3] = {0, 0, 0}, mu[1] = {0.5};
    const int rowptr[2] = {0, 2}, colind[2] = {0, 0};
    cdyn_fc3d_blocks b = {rowptr, colind, W};
    cdyn_fc3d p = {1, W, NULL, q, mu};
    char out[1024];
    snprintf(out, sizeof out, "%s/fc3d_invalid.dat", CDYN_TEST_OUT_DIR);
    cdyn_report r;
    assert_int_equal(cdyn_fc3d_file_write(NULL, &p, NULL, &r), CDYN_EINVAL);
    assert_int_equal(cdyn_fc3d_file_write(out, NULL, NULL, &r), CDYN_EINVAL);
    cdyn_fc3d bad = p;
    bad.blocks = &b;
    assert_int_equal(cdyn_fc3d_file_write(out, &bad, NULL, &r), CDYN_EINVAL);
    assert_non_null(strstr(r.message, "exactly one"));
    bad.W = NULL;
    assert_int_equal(cdyn_fc3d_file_write(out, &bad, NULL, &r), CDYN_EINVAL);
    assert_non_null(strstr(r.message, "not increasing"));
    bad = p;
    bad.n = 0;
    assert_int_equal(cdyn_fc3d_file_write(out, &bad, NULL, &r), CDYN_EINVAL);
    W[4] = NAN;
    assert_int_equal(cdyn_fc3d_file_write(out, &p, NULL, &r), CDYN_EINVAL);
    assert_non_null(strstr(r.message, "W[4]"));
    W[4] = 1;
    mu[0] = -1;
    assert_int_equal(cdyn_fc3d_file_write(out, &p, NULL, &r), CDYN_EINVAL);
    assert_non_null(strstr(r.message, "negative"));
    mu[0] = 0.5;
    assert_int_equal(cdyn_fc3d_file_write(CDYN_TEST_OUT_DIR "/no/such/dir/x.dat", &p, NULL, &r),
                     CDYN_EIO);
    remove(out);
}

/* ---- malformed text -------------------------------------------------------------------------- */

static void expect_error(const char *text, size_t length, cdyn_status status, const char *frag1,
                         const char *frag2)
{
    cdyn_fc3d_file *sentinel = (cdyn_fc3d_file *)&sentinel, *out = sentinel;
    cdyn_report r;
    test_failing_alloc fa;
    test_failing_alloc_init(&fa, -1);
    cdyn_status st = cdyn_fc3d_file_parse(text, length, &fa.allocator, &out, &r);
    if (st != status || (frag1 && !strstr(r.message, frag1)) ||
        (frag2 && !strstr(r.message, frag2)))
        print_error("input: %.80s\nstatus %d, message: %s\n", text, (int)st, r.message);
    assert_int_equal(st, status);
    assert_int_equal(r.status, status);
    assert_ptr_equal(out, sentinel);
    assert_int_equal(fa.live, 0);
    if (frag1)
        assert_non_null(strstr(r.message, frag1));
    if (frag2)
        assert_non_null(strstr(r.message, frag2));
}

static void expect_format(const char *text, const char *frag1, const char *frag2)
{
    expect_error(text, strlen(text), CDYN_EFORMAT, frag1, frag2);
}

/* A two-contact SBM problem: blocks (0,0), (0,1), (1,1); block (0,1) is non-symmetric. */
static const char sbm2[] = "3\n2\n1\n6\n6\n3\n2\n2\n3 6\n3 6\n3\n3\n0 2 3\n0 1 1\n"
                           "0\n4 0 0 0 4 0 0 0 4\n"
                           "1\n1 2 3 4 5 6 7 8 9\n"
                           "2\n5 0 0 0 5 0 0 0 5\n"
                           "-1 0 0 -2 0 0\n0.5 0.25\nflag\n";

static void test_small_sbm(void **state)
{
    (void)state;
    cdyn_fc3d_file *f = NULL;
    cdyn_report r;
    assert_int_equal(cdyn_fc3d_file_parse(sbm2, strlen(sbm2), NULL, &f, &r), CDYN_OK);
    assert_int_equal(f->n, 2);
    const int rowptr[3] = {0, 2, 3}, colind[3] = {0, 1, 1};
    assert_memory_equal(f->rowptr, rowptr, sizeof rowptr);
    assert_memory_equal(f->colind, colind, sizeof colind);
    /* block (0,1) = W rows 0..2, columns 3..5, read column by column: 1 2 3 is column 3 */
    assert_true(w_at(f, 1, 3) == 2.0 && w_at(f, 0, 4) == 4.0 && w_at(f, 2, 5) == 9.0);
    assert_true(w_at(f, 3, 0) == 0.0);
    assert_true(f->q[3] == -2.0 && f->mu[1] == 0.25);
    assert_string_equal(f->comment, "flag");
    cdyn_fc3d_file_free(f);

    /* the same blocks listed with the columns of row 0 reversed: sorted on reading */
    const char swapped[] = "3 2 1 6 6 3 2 2 3 6 3 6 3 3 0 2 3 1 0 1 "
                           "0 1 2 3 4 5 6 7 8 9 1 4 0 0 0 4 0 0 0 4 2 5 0 0 0 5 0 0 0 5 "
                           "-1 0 0 -2 0 0 0.5 0.25";
    assert_int_equal(cdyn_fc3d_file_parse(swapped, strlen(swapped), NULL, &f, &r), CDYN_OK);
    assert_memory_equal(f->colind, colind, sizeof colind);
    assert_true(w_at(f, 1, 3) == 2.0 && w_at(f, 0, 0) == 4.0 && w_at(f, 4, 4) == 5.0);
    cdyn_fc3d_file_free(f);

    /* nbblocks = 0: W = 0, nothing more of the matrix */
    const char empty[] = "3 1 1 3 3 0 1 2 3 0.5";
    assert_int_equal(cdyn_fc3d_file_parse(empty, strlen(empty), NULL, &f, &r), CDYN_OK);
    assert_true(f->sparse && f->rowptr[1] == 0 && f->q[2] == 3.0 && f->mu[0] == 0.5);
    cdyn_fc3d_file_free(f);
    /* planar, one off-diagonal block (0,1) = [1 3; 2 4] column by column: the diagonal
       blocks are added for the decoupled T2, in column order */
    const char planar1[] = "2 2 1 4 4 1 2 2 2 4 2 4 3 1 0 1 1 1 0 1 2 3 4 -1 -2 -3 -4 0.1 0.2";
    assert_int_equal(cdyn_fc3d_file_parse(planar1, strlen(planar1), NULL, &f, &r), CDYN_OK);
    const int rowptr1[3] = {0, 2, 3}, colind1[3] = {0, 1, 1};
    assert_memory_equal(f->rowptr, rowptr1, sizeof rowptr1);
    assert_memory_equal(f->colind, colind1, sizeof colind1);
    assert_true(w_at(f, 0, 3) == 1.0 && w_at(f, 1, 3) == 2.0 && w_at(f, 0, 4) == 3.0);
    assert_true(w_at(f, 1, 4) == 4.0 && w_at(f, 2, 5) == 0.0 && w_at(f, 0, 0) == 0.0);
    assert_true(w_at(f, 2, 2) == 1.0 && w_at(f, 5, 5) == 1.0);
    assert_true(f->q[3] == -3.0 && f->q[4] == -4.0 && f->q[5] == 0.0);
    cdyn_fc3d_file_free(f);
    /* planar with nbblocks = 0: only the T2 diagonal */
    const char planar[] = "2 1 1 2 2 0 1 2 0.5";
    assert_int_equal(cdyn_fc3d_file_parse(planar, strlen(planar), NULL, &f, &r), CDYN_OK);
    assert_int_equal(f->rowptr[1], 1);
    assert_true(w_at(f, 2, 2) == 1.0 && w_at(f, 0, 0) == 0.0 && f->q[1] == 2.0);
    cdyn_fc3d_file_free(f);
}

/* Cut after every token: each prefix is an error naming where the input ends. */
static void truncate_everywhere(const char *text)
{
    const size_t len = strlen(text);
    size_t cuts = 0;
    for (size_t k = 1; k < len; ++k) {
        const int token_end =
            text[k - 1] != ' ' && text[k - 1] != '\n' && (text[k] == ' ' || text[k] == '\n');
        if (!token_end)
            continue;
        /* a cut that only removes the trailing comment is a valid problem */
        cdyn_fc3d_file *f = NULL;
        cdyn_report r;
        cdyn_status st = cdyn_fc3d_file_parse(text, k, NULL, &f, &r);
        if (st == CDYN_OK) {
            cdyn_fc3d_file_free(f);
            continue;
        }
        expect_error(text, k, CDYN_EFORMAT, "input ends", ", token ");
        cuts++;
    }
    assert_true(cuts > 10);
}

static void test_truncated(void **state)
{
    (void)state;
    size_t len;
    char *text = slurp(FC3D_DIR "/FrictionContact3D_1c.dat", &len);
    truncate_everywhere(text);
    free(text);
    truncate_everywhere(sbm2);
    expect_format("", "line 1, token 1: empty input", "contact dimension");
}

static void test_malformed_header(void **state)
{
    (void)state;
    expect_format("4 1 0 3 3 3 3", "contact dimension d = 4", "line 1, token 1");
    expect_format("x 1 0 3 3 3 3", "contact dimension", "'x'");
    expect_format("3\n-2\n0", "number of contacts n = -2 must be positive", "line 2, token 2");
    expect_format("3 0 0", "n = 0 must be positive", NULL);
    expect_format("3 999999999999 0", "exceeds", "token 2");
    expect_format("3 1\n2\n3 3 3 3", "unsupported storage code 2", "line 2, token 3");
    expect_format("3 1 -1 3 3", "unsupported storage code -1", NULL);
    expect_format("3 1 0\n4 3 3 3", "number of rows of W is 4, expected 3", "line 2, token 4");
    expect_format("3 1 0 3 3 3 2", "repeated number of columns of W is 2", "token 7");
    expect_format("3 1 1 3 6", "number of columns of W is 6", "token 5");
    /* a size the text cannot fill is refused before allocating */
    expect_format("3 1000000 0 3000000 3000000 3000000 3000000 1 2 3", "more numbers but only",
                  NULL);
}

static void test_malformed_values(void **state)
{
    (void)state;
    /* tokens 1..7 header, 8..16 W, 17..19 q, 20 mu */
    expect_format("3 1 0 3 3 3 3\n1 0 0\n0 nan 0\n0 0 1\n0 0 0\n0.1", "W(1,1) is 'nan'",
                  "line 3, token 12");
    expect_format("3 1 0 3 3 3 3 1 0 0 0 1 0 0 0 1 0 inf 0 0.1", "q[1] is 'inf'", "token 18");
    expect_format("3 1 0 3 3 3 3 1 0 0 0 1 0 0 0 1 0 0 0 -Infinity", "mu[0]", "only finite");
    expect_format("3 1 0 3 3 3 3 1 0 0 0 1 0 0 0 1 0 0 0 1e999", "overflows", "token 20");
    expect_format("3 1 0 3 3 3 3 1 0 0 0 1 0 0 0 1 0 0 0\n-0.1", "mu[0] = -0.1 is negative",
                  "line 2, token 20");
    expect_format("3 1 0 3 3 3 3 1 0 0 0 1 0 0 0 1 0 0 x 0.1", "q[2]", "'x'");
    expect_format("3 1 0 3 3 3 3 1 0 0 0 1 0 0 0 1 0 0 0", "line 1, token 20: input ends", "mu[0]");
}

/* Replace the first occurrence of `from` (after `after` bytes) in sbm2 by `to`. */
static void sbm_variant(const char *from, const char *to, size_t after, const char *frag1,
                        const char *frag2)
{
    char buf[512];
    const char *at = strstr(sbm2 + after, from);
    assert_non_null(at);
    size_t head = (size_t)(at - sbm2);
    snprintf(buf, sizeof buf, "%.*s%s%s", (int)head, sbm2, to, at + strlen(from));
    expect_format(buf, frag1, frag2);
}

static void test_malformed_sbm(void **state)
{
    (void)state;
    /* sbm2 lines: 1 d, 2 n, 3 code, 4-5 dims, 6 nbblocks, 7-8 block counts, 9-10 sizes,
       11 filled1, 12 filled2, 13 index1, 14 index2, then the blocks */
    sbm_variant("\n3\n2\n2\n", "\n-1\n2\n2\n", 8, "nbblocks", "outside [0, ");
    sbm_variant("\n3\n2\n2\n", "\n5\n2\n2\n", 8, "nbblocks = 5 exceeds n^2 = 4", "line 6");
    sbm_variant("\n3\n2\n2\n", "\n2\n2\n2\n", 8, "filled2", "expected 2");
    sbm_variant("\n2\n2\n3 6", "\n3\n2\n3 6", 8, "number of block rows is 3", "line 7");
    sbm_variant("3 6\n3 6", "3 5\n3 6", 0, "cumulative block-row size is 5", "line 9");
    sbm_variant("\n3\n3\n0", "\n4\n3\n0", 20, "filled1", "line 11");
    sbm_variant("0 2 3\n", "0 2 2\n", 0, "last block-row pointer is 2, expected nbblocks = 3",
                "line 13, token 17");
    sbm_variant("0 2 3\n", "0 3 2\n", 0, "block-row pointer = 2 is outside [3, 3]", "token 17");
    sbm_variant("0 2 3\n", "1 2 3\n", 0, "block-row pointer = 1", "line 13, token 15");
    sbm_variant("0 1 1\n", "0 0 1\n", 0, "block row 0 has block column 0 twice",
                "line 14, token 19");
    sbm_variant("0 1 1\n", "0 2 1\n", 0, "block-column index = 2 is outside [0, 1]", "token 19");
    sbm_variant("\n1\n1 2 3", "\n2\n1 2 3", 30, "block ordinal is 2, expected 1", "line 17");
    sbm_variant("7 8 9", "7 NaN 9", 0, "entry (1,2) of block 1 is 'NaN'", "line 18");
    sbm_variant("0.5 0.25", "0.5 -0.25", 0, "mu[1] = -0.25 is negative", "line 22");
}

/* Random byte mutations of small files: OK or CDYN_EFORMAT with a position, never a leak (the
 * sanitizer build checks the memory accesses). */
static void test_mutated_text(void **state)
{
    (void)state;
    size_t len1;
    char *one = slurp(FC3D_DIR "/FC3D_Example1_SBM.dat", &len1);
    const char *bases[2] = {one, sbm2};
    const size_t lens[2] = {len1, strlen(sbm2)};
    static const char alphabet[] = "0123456789 \n-+.eE9x";
    test_rng rng;
    test_rng_seed(&rng, 20261125);
    char *buf = malloc(len1 + 1);
    assert_non_null(buf);
    for (int trial = 0; trial < 4000; ++trial) {
        const int b = trial % 2;
        memcpy(buf, bases[b], lens[b]);
        const int edits = 1 + (int)(test_rng_uniform(&rng) * 3);
        for (int k = 0; k < edits; ++k) {
            size_t at = (size_t)(test_rng_uniform(&rng) * (double)lens[b]);
            buf[at] = alphabet[(size_t)(test_rng_uniform(&rng) * (sizeof alphabet - 1))];
        }
        test_failing_alloc fa;
        test_failing_alloc_init(&fa, -1);
        cdyn_fc3d_file *f = NULL;
        cdyn_report r;
        cdyn_status st = cdyn_fc3d_file_parse(buf, lens[b], &fa.allocator, &f, &r);
        if (st == CDYN_OK) {
            check_shape(f);
            cdyn_fc3d_file_free(f);
        } else {
            if (st != CDYN_EFORMAT || strstr(r.message, "line ") == NULL ||
                strstr(r.message, ", token ") == NULL)
                print_error("status %d: %s\n", (int)st, r.message);
            assert_int_equal(st, CDYN_EFORMAT);
            assert_non_null(strstr(r.message, ", token "));
        }
        assert_int_equal(fa.live, 0);
    }
    free(buf);
    free(one);
}

/* Every allocation failing in turn: CDYN_ENOMEM and nothing leaked, then success. */
static void fail_each_allocation(const char *path)
{
    for (int k = 0;; ++k) {
        test_failing_alloc fa;
        test_failing_alloc_init(&fa, k);
        cdyn_fc3d_file *sentinel = (cdyn_fc3d_file *)&sentinel, *f = sentinel;
        cdyn_report r;
        cdyn_status st = cdyn_fc3d_file_load(path, &fa.allocator, &f, &r);
        if (st == CDYN_OK) {
            assert_true(k > 0);
            assert_true(fa.live > 0);
            cdyn_fc3d_file_free(f);
            assert_int_equal(fa.live, 0);
            return;
        }
        if (st != CDYN_ENOMEM)
            print_error("%s, allocation %d: %s\n", path, k, r.message);
        assert_int_equal(st, CDYN_ENOMEM);
        assert_ptr_equal(f, sentinel);
        assert_int_equal(fa.live, 0);
    }
}

static void test_allocation_failures(void **state)
{
    (void)state;
    fail_each_allocation(FC3D_DIR "/FrictionContact3D_1c.dat");
    fail_each_allocation(FC3D_DIR "/Confeti-ex13-4contact-Fc3D-SBM.dat");
    fail_each_allocation(FC3D_DIR "/FrictionContactProblem00031.dat"); /* planar SBM */
    fail_each_allocation(FC3D_DIR "/Capsules-i100-889.dat");           /* grows the text buffer */
    if (cdyn_fc3d_has_fclib()) {
        fail_each_allocation(FC3D_DIR "/LMGC_100_PR_PerioBox-i00361-60-03000.hdf5");
        fail_each_allocation(FC3D_DIR "/spheres-in-a-box-98-i10000-256-10.hdf5");
    }
}

static void test_arguments_and_io(void **state)
{
    (void)state;
    cdyn_fc3d_file *sentinel = (cdyn_fc3d_file *)&sentinel, *f = sentinel;
    cdyn_report r;
    assert_int_equal(cdyn_fc3d_file_read(NULL, NULL, &f, &r), CDYN_EINVAL);
    assert_int_equal(cdyn_fc3d_file_read(FC3D_DIR "/Rover1039.dat", NULL, NULL, &r), CDYN_EINVAL);
    assert_int_equal(cdyn_fc3d_file_parse(NULL, 0, NULL, &f, &r), CDYN_EINVAL);
    assert_int_equal(cdyn_fc3d_fclib_read(NULL, NULL, &f, &r), CDYN_EINVAL);
    assert_int_equal(cdyn_fc3d_file_load(NULL, NULL, &f, &r), CDYN_EINVAL);
    assert_int_equal(cdyn_fc3d_file_read(FC3D_DIR "/missing.dat", NULL, &f, &r), CDYN_EIO);
    assert_non_null(strstr(r.message, "missing.dat"));
    assert_int_equal(cdyn_fc3d_file_load(FC3D_DIR "/missing.h5", NULL, &f, &r),
                     cdyn_fc3d_has_fclib() ? CDYN_EIO : CDYN_EINVAL);
    assert_ptr_equal(f, sentinel);
    /* a message about a line names the file */
    assert_int_equal(cdyn_fc3d_file_read(FC3D_DIR "/README.md", NULL, &f, &r), CDYN_EFORMAT);
    assert_non_null(strstr(r.message, "README.md: line 1, token 1"));
    /* report may be NULL */
    assert_int_equal(cdyn_fc3d_file_read(FC3D_DIR "/missing.dat", NULL, &f, NULL), CDYN_EIO);
    cdyn_fc3d p = cdyn_fc3d_file_problem(NULL);
    assert_int_equal(p.n, 0);
    assert_null(p.W);
    assert_null(p.blocks);
    cdyn_fc3d_file_free(NULL);
    /* .hdf5.dat is text */
    f = read_fixture("BoxesStack1-i100000-32.hdf5.dat");
    assert_true(f->sparse && f->n == 52);
    cdyn_fc3d_file_free(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_fixture_reads),
        cmocka_unit_test(test_values_by_hand),
        cmocka_unit_test(test_dense_and_sbm_agree),
        cmocka_unit_test(test_fclib_global_reduction),
        cmocka_unit_test(test_fclib_local_entries),
        cmocka_unit_test(test_fclib_malformed),
        cmocka_unit_test(test_fclib_by_hand),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_write_blocks_edge_cases),
        cmocka_unit_test(test_write_invalid),
        cmocka_unit_test(test_small_sbm),
        cmocka_unit_test(test_truncated),
        cmocka_unit_test(test_malformed_header),
        cmocka_unit_test(test_malformed_values),
        cmocka_unit_test(test_malformed_sbm),
        cmocka_unit_test(test_mutated_text),
        cmocka_unit_test(test_allocation_failures),
        cmocka_unit_test(test_arguments_and_io),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
