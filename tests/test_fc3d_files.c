/* Every problem file of tests/data/fc3d (Siconos' frictional contact test set, text and FCLib
 * HDF5) is solved by the default entry point to relative residual 1e-8, the target,
 * checked with cdyn_fc3d_residual on the returned r; and u = W r + q as returned. HDF5 files
 * are skipped (and counted) when the library was built without FCLib. */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cdyn/fc3d.h"

static int ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

static void test_every_file_solved(void **state)
{
    (void)state;
    const char *dir = CDYN_TEST_DATA_DIR "/fc3d";
    DIR *d = opendir(dir);
    assert_non_null(d);
    int solved = 0, files = 0, skipped = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        int hdf5 = ends_with(e->d_name, ".hdf5");
        if (!hdf5 && !ends_with(e->d_name, ".dat"))
            continue;
        files++;
        if (hdf5 && !cdyn_fc3d_has_fclib()) {
            skipped++;
            continue;
        }
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        cdyn_fc3d_file *f = NULL;
        cdyn_report lr;
        if (cdyn_fc3d_file_load(path, NULL, &f, &lr) != CDYN_OK)
            fail_msg("%s: %s", e->d_name, lr.message);
        cdyn_fc3d p = cdyn_fc3d_file_problem(f);
        size_t m = 3 * (size_t)p.n;
        double *r = calloc(m, sizeof *r), *u = calloc(m, sizeof *u), *w = calloc(m, sizeof *w);
        assert_true(r != NULL && u != NULL && w != NULL);
        cdyn_fc3d_options o;
        cdyn_fc3d_defaults(&o);
        o.tol = 1e-8;
        cdyn_fc3d_report rep;
        cdyn_status st = cdyn_fc3d_solve(&p, &o, r, u, &rep);
        if (st != CDYN_OK)
            fail_msg("%s (%d contacts): %s: %s (residual %.2e)", e->d_name, p.n,
                     cdyn_status_str(st), rep.message, rep.residual_rel);
        double abs_res = NAN, rel = NAN;
        assert_int_equal(cdyn_fc3d_residual(&p, r, w, &abs_res, &rel), CDYN_OK);
        if (!(rel <= 1e-8))
            fail_msg("%s: residual %.3e", e->d_name, rel);
        for (size_t k = 0; k < m; k++)
            assert_true(u[k] == w[k]);
        solved++;
        free(r);
        free(u);
        free(w);
        cdyn_fc3d_file_free(f);
    }
    closedir(d);
    print_message("%d of %d files solved to 1e-8 (%d HDF5 files skipped: no FCLib)\n", solved,
                  files, skipped);
    assert_int_equal(solved + skipped, files);
    assert_true(files >= 40);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_file_solved),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
