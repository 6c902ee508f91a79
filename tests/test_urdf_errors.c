/* The URDF loader's refusals (issue 20): malformed, truncated and unsupported files and bad
 * values give their status and a message with the line and the element; the builder is as it
 * was (a model built afterwards equals one built without the failed call); nothing reaches
 * stderr (libxml2 prints nothing); bad arguments are CDYN_EINVAL. Every bad input again with
 * each of its allocations failing in turn: CDYN_ENOMEM or its own refusal, nothing changed or
 * leaked (a good file's allocation failures: test_alloc_fail.c). */
/* mkstemp, dup, dup2 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "cdyn/urdf.h"
#include "model/builder_mark.h"
#include "support.h"
#include "urdf_support.h"

/* A builder holding something already: a free ball, its sphere and the floor, and their pair. */
static cdyn_builder *occupied_builder(void)
{
    cdyn_builder *b = tu_builder();
    cdyn_body_desc ball;
    cdyn_body_desc_defaults(&ball);
    ball.mass = 0.2;
    ball.inertia[0] = ball.inertia[1] = ball.inertia[2] = 2e-4;
    ball.frame.pos[2] = 0.3;
    int body, g;
    assert_int_equal(cdyn_builder_add_body(b, &ball, &body, NULL), CDYN_OK);
    const cdyn_pose p = tu_pose(0, 0, 0, 0, 0, 0);
    const cdyn_geom_desc s = tu_geom(body, CDYN_GEOM_SPHERE, &p, 0.05, 0, 0);
    assert_int_equal(cdyn_builder_add_geom(b, &s, &g, NULL), CDYN_OK);
    tu_add_floor_pairs(b, 1, &g);
    return b;
}

/* After a failed load, b must build the same model as a builder that never saw the call: both
 * get arm3.urdf added, and their models agree exactly. */
static void expect_unchanged(cdyn_builder *b)
{
    cdyn_builder *ref = occupied_builder();
    cdyn_urdf_map *m1 = tu_load(b, "arm3.urdf", NULL), *m2 = tu_load(ref, "arm3.urdf", NULL);
    cdyn_model *a = tu_build(b), *c = tu_build(ref);
    assert_int_equal(cdyn_model_nbody(a), cdyn_model_nbody(c));
    assert_int_equal(cdyn_model_ngeom(a), cdyn_model_ngeom(c));
    assert_int_equal(cdyn_model_npair(a), cdyn_model_npair(c));
    assert_true(tu_compare(a, c, 2, 3) == 0.0);
    cdyn_model_free(a);
    cdyn_model_free(c);
    cdyn_urdf_map_free(m1);
    cdyn_urdf_map_free(m2);
    cdyn_builder_free(ref);
}

typedef struct bad_case {
    const char *file;   /* in tests/data/urdf/bad, or NULL: text */
    const char *text;   /* inline URDF */
    cdyn_status status; /* expected */
    const char *needle; /* in the message */
} bad_case;

#define INERTIAL "<inertial><mass value='1'/><inertia ixx='1' ixy='0' ixz='0' iyy='1' iyz='0' izz='1'/></inertial>"
#define ROBOT(body) "<robot name='r'>\n<link name='base'/>\n" body "\n</robot>\n"
#define ARM(joint_body, link_body)                                                              \
    ROBOT("<joint name='j' " joint_body "</joint>\n<link name='arm'>" link_body "</link>")
#define CONT "type='continuous'><parent link='base'/><child link='arm'/>"

static const bad_case cases[] = {
    {"truncated.urdf", NULL, CDYN_EFORMAT, "line 43: malformed XML"},
    {"missing_inertia.urdf", NULL, CDYN_EFORMAT,
     "line 10: link 'arm' has no <inertial>, but revolute joint 'j1' (line 4)"},
    {"negative_mass.urdf", NULL, CDYN_EFORMAT, "line 10: link 'arm': negative mass -1.5"},
    {"unknown_parent.urdf", NULL, CDYN_EFORMAT, "line 10: joint 'j1': unknown parent link 'bsae'"},
    {"cycle.urdf", NULL, CDYN_EFORMAT, "line 14: joint 'ba' closes a cycle"},
    {"two_parents.urdf", NULL, CDYN_EFORMAT,
     "line 12: link 'b' gets a second parent joint 'a_b' (the first: 'base_b', line 11)"},
    {"duplicate.urdf", NULL, CDYN_EFORMAT, "line 7: a second link named 'arm' (the first: line 4)"},
    {"two_roots.urdf", NULL, CDYN_EFORMAT, "line 7: link 'stray' is a second root"},
    {"mesh.urdf", NULL, CDYN_EFORMAT, "line 9: <mesh> geometry is not supported"},
    {"mimic.urdf", NULL, CDYN_EFORMAT, "line 11: joint 'j2': <mimic> joints are not supported"},
    {"nan.urdf", NULL, CDYN_EFORMAT, "line 7: <origin xyz=\"...\">: 'nan' is not finite"},
    {"bad_inertia.urdf", NULL, CDYN_EFORMAT,
     "line 5: link 'arm': inertia tensor (1, 1, 1, 2, 0, 0) is not positive definite"},
    {NULL, "", CDYN_EFORMAT, "line 1: empty input"},
    {NULL, "<robot name='r'><link name='a'/>", CDYN_EFORMAT, "line 1: malformed XML"},
    {NULL, "<robot name='r'>\0</robot>", CDYN_EFORMAT, "not UTF-8"},
    {NULL, "<?xml version='1.0'?>\n<model/>", CDYN_EFORMAT,
     "line 2: the root element is <model>, expected <robot>"},
    {NULL, ROBOT("<link/>"), CDYN_EFORMAT, "line 3: <link> has no name"},
    {NULL, "<robot name='r'/>", CDYN_EFORMAT, "the robot has no <link>"},
    {NULL, ARM("type='planar'><parent link='base'/><child link='arm'/>", INERTIAL),
     CDYN_EFORMAT, "line 3: joint 'j': planar joints are not supported"},
    {NULL, ARM("type='hinge'><parent link='base'/><child link='arm'/>", INERTIAL), CDYN_EFORMAT,
     "line 3: joint 'j': unknown type 'hinge'"},
    {NULL, ARM("type='revolute'><parent link='base'/><child link='arm'/>", INERTIAL),
     CDYN_EFORMAT, "line 3: joint 'j' has no <limit>"},
    {NULL, ARM("type='revolute'><parent link='base'/><child link='arm'/><limit effort='1'/>",
               INERTIAL),
     CDYN_EFORMAT, "line 3: <limit> has no attribute velocity"},
    {NULL, ARM(CONT "<origin xyz='1 2'/>", INERTIAL), CDYN_EFORMAT,
     "line 3: <origin xyz=\"...\">: 2 numbers, expected 3"},
    {NULL, ARM(CONT "<origin rpy='0 abc 0'/>", INERTIAL), CDYN_EFORMAT,
     "line 3: <origin rpy=\"...\">: 'abc' is not a number"},
    {NULL, ARM(CONT "<origin xyz='0 0 1e999'/>", INERTIAL), CDYN_EFORMAT,
     "'1e999' overflows a double"},
    {NULL, ARM(CONT "<origin/><origin/>", INERTIAL), CDYN_EFORMAT,
     "line 3: a second <origin>"},
    {NULL, ARM(CONT "<axis xyz='0 0 0'/>", INERTIAL), CDYN_EFORMAT,
     "line 4: link 'arm': axis is zero"},
    {NULL, ARM(CONT, "<inertial><mass value='1'/></inertial>"), CDYN_EFORMAT,
     "line 4: <inertial> of link 'arm' has no <inertia>"},
    {NULL, ARM(CONT, "<inertial><mass value='0'/><inertia ixx='1' ixy='0' ixz='0' iyy='1' "
                     "iyz='0' izz='1'/></inertial>"),
     CDYN_EFORMAT, "line 4: link 'arm': mass = 0, must be > 0 for a moving body"},
    {NULL, ARM(CONT, INERTIAL "<collision><geometry><cylinder radius='1' length='2'/>"
                              "</geometry></collision>"),
     CDYN_EFORMAT, "line 4: <cylinder>: cdyn has no cylinder geometry"},
    {NULL, ARM(CONT, INERTIAL "<collision><geometry><sphere radius='1'/><box size='1 1 1'/>"
                              "</geometry></collision>"),
     CDYN_EFORMAT, "line 4: <geometry> with a second shape <box>"},
    {NULL, ARM(CONT, INERTIAL "<collision/>"), CDYN_EFORMAT,
     "line 4: <collision> without <geometry>"},
    {NULL, ARM(CONT, INERTIAL "<thing/>"), CDYN_EFORMAT,
     "line 4: unsupported element <thing> in <link>"},
    {NULL, ARM(CONT "<parent link='arm'/>", INERTIAL), CDYN_EFORMAT, "line 3: a second <parent>"},
    {NULL, ROBOT("<joint name='j' type='floating'><parent link='base'/><child link='arm'/>"
                 "</joint><link name='arm'>" INERTIAL "</link><joint name='f' type='floating'>"
                 "<parent link='arm'/><child link='c'/></joint><link name='c'>" INERTIAL
                 "</link>"),
     CDYN_EFORMAT, "floating joint 'f' below link 'arm'"},
    {NULL, ROBOT("<joint name='j' " CONT "</joint><joint name='j' type='fixed'><parent "
                 "link='base'/><child link='c'/></joint><link name='arm'>" INERTIAL
                 "</link><link name='c'/>"),
     CDYN_EFORMAT, "line 3: a second joint named 'j' (the first: line 3)"},
    {NULL, ROBOT("<joint name='j' type='continuous'><parent link='base'/><child link='base'/>"
                 "</joint>"),
     CDYN_EFORMAT, "line 3: joint 'j' joins link 'base' to itself"},
    {NULL, "<robot name='r' xmlns:xacro='http://www.ros.org/wiki/xacro'>\n"
           "<xacro:property name='a' value='1'/><link name='base'/></robot>",
     CDYN_EFORMAT, "line 2: unsupported element <xacro:property> in <robot> (expand xacro"},
    {NULL, "<robot name='r'><xacro:macro name='a'/></robot>", CDYN_EFORMAT,
     "line 1: malformed XML: Namespace prefix xacro"},
    /* a late failure: two bodies and a geometry are in the builder when the sphere is refused */
    {NULL, ROBOT("<joint name='j' " CONT "</joint>\n<link name='arm'>" INERTIAL
                 "<collision><geometry><box size='1 1 1'/></geometry></collision></link>\n"
                 "<joint name='k' type='continuous'><parent link='arm'/><child link='c'/>"
                 "</joint>\n<link name='c'>" INERTIAL "\n<collision><geometry><sphere "
                 "radius='-1'/></geometry></collision></link>"),
     CDYN_EFORMAT, "line 7: collision of link 'c': sphere size[0] = -1, must be > 0"},
};

/* Load case c into b (its file or its text); r may be NULL. */
static cdyn_status load_case(cdyn_builder *b, const bad_case *c, cdyn_urdf_map **map,
                             cdyn_report *r)
{
    if (c->file != NULL) {
        char path[512];
        snprintf(path, sizeof path, "%s/urdf/bad/%s", CDYN_TEST_DATA_DIR, c->file);
        return cdyn_builder_add_urdf(b, path, NULL, map, r);
    }
    /* sizeof - 1: the NUL case keeps its inner NUL */
    size_t len = strlen(c->text);
    if (strcmp(c->text, "<robot name='r'>") == 0)
        len = sizeof("<robot name='r'>\0</robot>") - 1;
    return cdyn_builder_add_urdf_string(b, c->text, len, NULL, map, r);
}

static void run_case(const bad_case *c, int with_report)
{
    cdyn_builder *b = occupied_builder();
    cdyn_urdf_map *sentinel = (cdyn_urdf_map *)&sentinel, *map = sentinel;
    cdyn_report r;
    memset(&r, 0, sizeof r);
    const cdyn_status st = load_case(b, c, &map, with_report ? &r : NULL);
    const char *what = c->file != NULL ? c->file : c->text;
    if (with_report && (st != c->status || strstr(r.message, c->needle) == NULL))
        fail_msg("%s:\n  status %s, message \"%s\"\n  expected %s and \"%s\"", what,
                 cdyn_status_str(st), r.message, cdyn_status_str(c->status), c->needle);
    assert_int_equal(st, c->status);
    assert_true(map == sentinel);
    if (with_report)
        assert_int_equal(r.status, st);
    expect_unchanged(b);
    cdyn_builder_free(b);
}

static void test_bad_files(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        run_case(&cases[k], 1);
        run_case(&cases[k], 0); /* the same without a report */
    }
}

/* Every bad input again on a failing allocator, its k-th allocation failing for k = 0, 1, ...
 * until a load makes no more: each load gives CDYN_ENOMEM or the input's own status and message,
 * leaves the map and the builder (a free ball already in it) as they were, and once the builder
 * is freed no block is live. (libxml2's own allocations are not the cdyn allocator's.) */
static void test_bad_files_failing_alloc(void **state)
{
    (void)state;
    int runs = 0, nomem = 0;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        for (int k = 0;; ++k) {
            test_failing_alloc fa;
            test_failing_alloc_init(&fa, -1);
            cdyn_builder_options o;
            cdyn_builder_defaults(&o, 3);
            o.allocator = &fa.allocator;
            cdyn_builder *b = NULL;
            assert_int_equal(cdyn_builder_create(&o, &b, NULL), CDYN_OK);
            cdyn_body_desc ball;
            cdyn_body_desc_defaults(&ball);
            ball.mass = 0.2;
            ball.inertia[0] = ball.inertia[1] = ball.inertia[2] = 2e-4;
            assert_int_equal(cdyn_builder_add_body(b, &ball, NULL, NULL), CDYN_OK);
            const cdyn_builder_mark mark = cdyn_builder_get_mark(b);
            fa.fail_after = fa.allocations + k;
            cdyn_urdf_map *sentinel = (cdyn_urdf_map *)&sentinel, *map = sentinel;
            cdyn_report r;
            const cdyn_status st = load_case(b, &cases[c], &map, &r);
            /* k allocations made: the next one, if asked, failed (else the next k ends it) */
            const int failed = fa.allocations >= fa.fail_after;
            const cdyn_builder_mark now = cdyn_builder_get_mark(b);
            if (!(st == cases[c].status && strstr(r.message, cases[c].needle) != NULL) &&
                !(failed && st == CDYN_ENOMEM && r.message[0] != '\0'))
                fail_msg("%s, allocation %d failing: %s \"%s\"",
                         cases[c].file != NULL ? cases[c].file : cases[c].text, k,
                         cdyn_status_str(st), r.message);
            assert_true(map == sentinel);
            assert_true(memcmp(&now, &mark, sizeof now) == 0);
            cdyn_builder_free(b);
            assert_int_equal(fa.live, 0);
            ++runs;
            nomem += st == CDYN_ENOMEM;
            if (!failed)
                break;
        }
    }
    if (getenv("CDYN_TEST_VERBOSE") != NULL)
        printf("bad inputs on the failing allocator: %d loads, %d CDYN_ENOMEM\n", runs, nomem);
    assert_true(nomem > 0);
}

/* The file names of failures come first; an unreadable file is CDYN_EIO. */
static void test_files(void **state)
{
    (void)state;
    cdyn_builder *b = tu_builder();
    cdyn_report r;
    char path[512];
    snprintf(path, sizeof path, "%s/urdf/bad/cycle.urdf", CDYN_TEST_DATA_DIR);
    assert_int_equal(cdyn_builder_add_urdf(b, path, NULL, NULL, &r), CDYN_EFORMAT);
    assert_true(strncmp(r.message, "cycle.urdf: line 14:", 20) == 0);
    snprintf(path, sizeof path, "%s/urdf/no_such_file.urdf", CDYN_TEST_DATA_DIR);
    assert_int_equal(cdyn_builder_add_urdf(b, path, NULL, NULL, &r), CDYN_EIO);
    assert_non_null(strstr(r.message, "no_such_file.urdf"));
    assert_int_equal(cdyn_builder_add_urdf(b, CDYN_TEST_DATA_DIR, NULL, NULL, &r), CDYN_EIO);
    cdyn_builder_free(b);
}

static void test_arguments(void **state)
{
    (void)state;
    cdyn_builder *b = tu_builder();
    cdyn_urdf_map *map = NULL;
    cdyn_report r;
    const char *t = "<robot name='r'><link name='a'/></robot>";
    const size_t n = strlen(t);
    assert_int_equal(cdyn_builder_add_urdf_string(NULL, t, n, NULL, &map, &r), CDYN_EINVAL);
    assert_int_equal(cdyn_builder_add_urdf_string(b, NULL, n, NULL, &map, &r), CDYN_EINVAL);
    assert_int_equal(cdyn_builder_add_urdf(b, NULL, NULL, &map, &r), CDYN_EINVAL);
    cdyn_urdf_options o;
    cdyn_urdf_defaults(&o);
    o.skip = 64u; /* the first unknown bit */
    assert_int_equal(cdyn_builder_add_urdf_string(b, t, n, &o, &map, &r), CDYN_EINVAL);
    assert_non_null(strstr(r.message, "skip"));
    cdyn_urdf_defaults(&o);
    o.floating_base = 2;
    assert_int_equal(cdyn_builder_add_urdf_string(b, t, n, &o, &map, &r), CDYN_EINVAL);
    cdyn_urdf_defaults(&o);
    o.base_pose.pos[1] = NAN;
    assert_int_equal(cdyn_builder_add_urdf_string(b, t, n, &o, &map, &r), CDYN_EINVAL);
    cdyn_urdf_defaults(&o);
    o.base_pose.quat[0] = 2.0; /* the builder refuses it for the root's children */
    static const char child[] = ROBOT("<joint name='j' " CONT "</joint><link name='arm'>"
                                      INERTIAL "</link>");
    assert_int_equal(cdyn_builder_add_urdf_string(b, child, strlen(child), &o, &map, &r),
                     CDYN_EFORMAT);
    assert_non_null(strstr(r.message, "unit quaternion"));
    assert_null(map);
    /* a root without joints and only a fixed root: fine, and nothing moves */
    assert_int_equal(cdyn_builder_add_urdf_string(b, t, n, NULL, &map, &r), CDYN_OK);
    assert_int_equal(r.status, CDYN_OK);
    assert_string_equal(r.message, "");
    cdyn_urdf_map_free(map);
    cdyn_builder_free(b);

    cdyn_builder_options bo;
    cdyn_builder_defaults(&bo, 2);
    assert_int_equal(cdyn_builder_create(&bo, &b, NULL), CDYN_OK);
    map = NULL;
    assert_int_equal(cdyn_builder_add_urdf_string(b, t, n, NULL, &map, &r), CDYN_EINVAL);
    assert_non_null(strstr(r.message, "dim 2"));
    assert_null(map);
    cdyn_builder_free(b);
}

/* Every failure above again with stderr sent to a file: libxml2 must not have written to it. */
static void test_silent(void **state)
{
    (void)state;
    char name[] = "/tmp/cdyn_urdf_stderr_XXXXXX";
    const int fd = mkstemp(name);
    assert_true(fd >= 0);
    fflush(stderr);
    const int saved = dup(2);
    assert_true(saved >= 0 && dup2(fd, 2) == 2);
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        cdyn_builder *b = tu_builder();
        cdyn_report r;
        (void)load_case(b, &cases[k], NULL, &r);
        cdyn_builder_free(b);
    }
    fflush(stderr);
    struct stat sb;
    assert_int_equal(fstat(fd, &sb), 0);
    dup2(saved, 2);
    close(saved);
    close(fd);
    unlink(name);
    assert_int_equal((long)sb.st_size, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_files), cmocka_unit_test(test_bad_files_failing_alloc),
        cmocka_unit_test(test_files),
        cmocka_unit_test(test_arguments), cmocka_unit_test(test_silent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
