/* The examples' progress lines (examples/progress.c): written to a file (not a terminal: a log,
 * a pipe, CI) every report is one whole line, with no carriage return; on 8165326
 * disk_slide_roll wrote "\r  BVP N = ..." so that a log held all reports on one line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "progress.h"

static void test_whole_lines_in_a_file(void **unused)
{
    (void)unused;
    FILE *f = tmpfile();
    assert_non_null(f);
    for (int k = 1; k <= 3; k++)
        progress_line(f, "  BVP N = %d: Newton iteration %d, residual %.2e", 2000, k, 1e-3 / k);
    progress_done(f);
    rewind(f);
    char buf[512];
    const size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    assert_null(strchr(buf, '\r'));
    assert_string_equal(buf, "  BVP N = 2000: Newton iteration 1, residual 1.00e-03\n"
                             "  BVP N = 2000: Newton iteration 2, residual 5.00e-04\n"
                             "  BVP N = 2000: Newton iteration 3, residual 3.33e-04\n");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_whole_lines_in_a_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
