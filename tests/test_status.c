/* Status codes: every code has its own message and unknown values are handled. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cdyn/status.h"

static void test_every_status_has_a_distinct_message(void **state)
{
    (void)state;
    const cdyn_status all[] = {
#define ALL_(name, value, text) name,
        CDYN_STATUS_LIST(ALL_)
#undef ALL_
    };
    const size_t count = sizeof all / sizeof all[0];
    for (size_t i = 0; i < count; ++i) {
        const char *s = cdyn_status_str(all[i]);
        assert_non_null(s);
        assert_true(strlen(s) > 0);
        assert_string_not_equal(s, "unknown status");
        for (size_t j = 0; j < i; ++j)
            assert_string_not_equal(s, cdyn_status_str(all[j]));
    }
}

static void test_unknown_status_is_named(void **state)
{
    (void)state;
    assert_string_equal(cdyn_status_str((cdyn_status)12345), "unknown status");
    assert_string_equal(cdyn_status_str(CDYN_OK), "success");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_status_has_a_distinct_message),
        cmocka_unit_test(test_unknown_status_is_named),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
