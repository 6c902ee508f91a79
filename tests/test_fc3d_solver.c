/* The frictional contact solver object (issue 21, items 2 and 6) against the one-shot call:
 *   - every file of tests/data/fc3d, from 0 and from a nonzero start, solved by cdyn_fc3d_solve
 *     and by one solver object that goes through all of them (its shape changes from file to
 *     file) and solves each file twice in a row (the second time on the kept workspace): the
 *     same r, u and report, bit for bit;
 *   - a sequence of block problems whose pattern changes (contacts coupling and uncoupling) and
 *     comes back, under the failing allocator: every allocation of the sequence fails once in
 *     turn; each failure is CDYN_ENOMEM with r and u as they were, and nothing leaks once the
 *     solver is freed;
 *   - argument checks. */
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

static int ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

static void same_report(const cdyn_fc3d_report *a, const cdyn_fc3d_report *b)
{
    assert_int_equal(a->status, b->status);
    assert_string_equal(a->method, b->method);
    assert_string_equal(a->message, b->message);
    assert_int_equal(a->sweeps, b->sweeps);
    assert_int_equal(a->newton_iterations, b->newton_iterations);
    assert_int_equal(a->factorizations, b->factorizations);
    assert_memory_equal(&a->residual, &b->residual, sizeof(double));
    assert_memory_equal(&a->residual_rel, &b->residual_rel, sizeof(double));
}

static void start(double *r, size_t m, int nonzero)
{
    for (size_t k = 0; k < m; k++)
        r[k] = nonzero && k % 3 == 0 ? 0.01 * (double)(k % 7) : 0.0;
}

static void test_files_bit_for_bit(void **state)
{
    (void)state;
    const char *dir = CDYN_TEST_DATA_DIR "/fc3d";
    DIR *d = opendir(dir);
    assert_non_null(d);
    cdyn_fc3d_solver *s = NULL;
    assert_int_equal(cdyn_fc3d_solver_create(NULL, NULL, &s, NULL), CDYN_OK);
    assert_int_equal(cdyn_fc3d_solver_shapes(s), 0);
    int files = 0, newton = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        int hdf5 = ends_with(e->d_name, ".hdf5");
        if ((!hdf5 && !ends_with(e->d_name, ".dat")) || (hdf5 && !cdyn_fc3d_has_fclib()))
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        cdyn_fc3d_file *f = NULL;
        cdyn_report lr;
        if (cdyn_fc3d_file_load(path, NULL, &f, &lr) != CDYN_OK)
            fail_msg("%s: %s", e->d_name, lr.message);
        const cdyn_fc3d p = cdyn_fc3d_file_problem(f);
        const size_t m = 3 * (size_t)p.n;
        double *v = test_malloc(6 * m * sizeof(double));
        double *r1 = v, *u1 = v + m, *r2 = v + 2 * m, *u2 = v + 3 * m, *r0 = v + 4 * m;
        const int shapes = cdyn_fc3d_solver_shapes(s);
        for (int nz = 0; nz < 2; nz++) {
            cdyn_fc3d_report a, b;
            start(r1, m, nz);
            memset(u1, 0, m * sizeof(double));
            const cdyn_status st = cdyn_fc3d_solve(&p, NULL, r1, u1, &a);
            newton += a.newton_iterations > 0;
            for (int again = 0; again < 2; again++) {
                start(r2, m, nz);
                memset(u2, 0, m * sizeof(double));
                assert_int_equal(cdyn_fc3d_solver_solve(s, &p, r2, u2, &b), st);
                same_report(&a, &b);
                assert_memory_equal(r1, r2, m * sizeof(double));
                assert_memory_equal(u1, u2, m * sizeof(double));
            }
            start(r0, m, nz);
            if (st != CDYN_OK) /* a failure leaves r as it was, in both */
                assert_memory_equal(r2, r0, m * sizeof(double));
        }
        /* One shape per file: the four solves of a file build it at most once. */
        assert_true(cdyn_fc3d_solver_shapes(s) - shapes <= 1);
        test_free(v);
        cdyn_fc3d_file_free(f);
        files++;
    }
    closedir(d);
    assert_true(files >= 30);
    assert_true(newton >= 10); /* the Newton workspace was reused, not only Gauss–Seidel */
    cdyn_fc3d_solver_free(s);
}

/* ---- changing patterns under the failing allocator ---------------------------------------- */

enum { NC = 12, NPAT = 4 };

/* Pattern t of NC contacts: a chain coupling contact i with i + 1 where (i + t) % 4 != 0, the
 * diagonal always. W = B'B + I/10 restricted to the pattern's blocks would not stay positive
 * definite, so the values are a diagonally dominant block matrix instead. */
typedef struct pattern {
    int rowptr[NC + 1], colind[3 * NC];
    double values[9 * 3 * NC];
    cdyn_fc3d_blocks blocks;
} pattern;

static void pattern_make(pattern *pt, int t)
{
    int k = 0;
    pt->rowptr[0] = 0;
    for (int i = 0; i < NC; i++) {
        for (int j = i - 1; j <= i + 1; j++) {
            if (j < 0 || j >= NC)
                continue;
            const int lo = j < i ? j : i;
            if (j != i && (lo + t) % 4 == 0)
                continue;
            pt->colind[k] = j;
            double *B = pt->values + 9 * k;
            for (int c = 0; c < 9; c++)
                B[c] = j == i ? (c % 4 == 0 ? 2.0 + 0.1 * (i % 3) : 0.05) : -0.2 - 0.01 * t;
            k++;
        }
        pt->rowptr[i + 1] = k;
    }
    pt->blocks = (cdyn_fc3d_blocks){pt->rowptr, pt->colind, pt->values};
}

typedef struct seq_case {
    pattern pats[NPAT];
    double q[3 * NC], mu[NC];
    double r[3 * NC], u[3 * NC], copy_r[3 * NC], copy_u[3 * NC];
    cdyn_fc3d_solver *s;
    int kept;    /* a failed solve left r and u as they were */
    int shapes;  /* shapes built by the last successful run */
} seq_case;

/* The sequence 0, 1, 1, 2, 0, 3, 3 of patterns, each solve from 0 (so that Newton runs). */
static const int SEQ[] = {0, 1, 1, 2, 0, 3, 3};

static cdyn_status seq_run(void *ctx, const cdyn_allocator *a)
{
    seq_case *c = ctx;
    c->kept = 1;
    cdyn_fc3d_options o;
    cdyn_fc3d_defaults(&o);
    o.allocator = a;
    o.warm_sweeps = 0; /* straight to Newton: its workspace and KLU on every solve */
    c->s = (cdyn_fc3d_solver *)c;
    cdyn_status st = cdyn_fc3d_solver_create(NULL, &o, &c->s, NULL);
    if (st != CDYN_OK) {
        c->kept = c->s == NULL;
        return st;
    }
    for (size_t k = 0; k < sizeof SEQ / sizeof SEQ[0]; k++) {
        const cdyn_fc3d p = {NC, NULL, &c->pats[SEQ[k]].blocks, c->q, c->mu};
        memset(c->r, 0, sizeof c->r);
        memcpy(c->copy_r, c->r, sizeof c->r);
        memcpy(c->copy_u, c->u, sizeof c->u);
        cdyn_fc3d_report rep;
        st = cdyn_fc3d_solver_solve(c->s, &p, c->r, c->u, &rep);
        if (st != CDYN_OK) {
            c->kept = memcmp(c->r, c->copy_r, sizeof c->r) == 0 &&
                      memcmp(c->u, c->copy_u, sizeof c->u) == 0;
            return st;
        }
        assert_true(rep.newton_iterations > 0);
    }
    c->shapes = cdyn_fc3d_solver_shapes(c->s);
    return CDYN_OK;
}

static int seq_unchanged(void *ctx)
{
    seq_case *c = ctx;
    cdyn_fc3d_solver_free(c->s);
    c->s = NULL;
    return c->kept;
}

static void seq_release(void *ctx)
{
    seq_case *c = ctx;
    cdyn_fc3d_solver_free(c->s);
    c->s = NULL;
}

static void test_changing_patterns_alloc_fail(void **state)
{
    (void)state;
    static seq_case c;
    memset(&c, 0, sizeof c);
    for (int t = 0; t < NPAT; t++)
        pattern_make(&c.pats[t], t);
    for (int i = 0; i < NC; i++) {
        c.q[3 * i] = i % 4 == 0 ? 0.3 : -1.0 + 0.05 * i;
        c.q[3 * i + 1] = 0.2 * ((i % 5) - 2);
        c.q[3 * i + 2] = 0.1 * ((i % 3) - 1);
        c.mu[i] = 0.3 + 0.02 * i;
    }
    test_alloc_case tc = {"fc3d solver, changing patterns", seq_run, seq_unchanged, seq_release,
                          &c};
    const int sites = test_alloc_every_failure(&tc);
    assert_true(sites >= 5);
    /* Patterns 0, 1, 1, 2, 0, 3, 3 with the two latest shapes kept: 0, 1 and 2 are built, 0
       again (1 and 2 were the latest), 3; the repeats are not. */
    test_failing_alloc fa;
    test_failing_alloc_init(&fa, -1);
    assert_int_equal(seq_run(&c, &fa.allocator), CDYN_OK);
    assert_int_equal(c.shapes, 5);
    seq_release(&c);
    assert_int_equal(fa.live, 0);
}

/* The kept shapes reused: once warm, solves of the same pattern with new values, and then of two
 * patterns in turn, allocate nothing of cdyn's. */
static void test_no_allocation_when_warm(void **state)
{
    (void)state;
    static pattern pt;
    pattern_make(&pt, 1);
    double q[3 * NC], mu[NC], r[3 * NC];
    for (int i = 0; i < NC; i++) {
        q[3 * i] = -1.0 + 0.05 * i, q[3 * i + 1] = 0.1, q[3 * i + 2] = -0.1;
        mu[i] = 0.5;
    }
    test_failing_alloc fa;
    test_failing_alloc_init(&fa, -1);
    cdyn_fc3d_options o;
    cdyn_fc3d_defaults(&o);
    o.allocator = &fa.allocator;
    o.warm_sweeps = 0;
    const cdyn_fc3d p = {NC, NULL, &pt.blocks, q, mu};
    cdyn_fc3d_solver *s = NULL;
    assert_int_equal(cdyn_fc3d_solver_create(&p, &o, &s, NULL), CDYN_OK);
    memset(r, 0, sizeof r);
    assert_int_equal(cdyn_fc3d_solver_solve(s, &p, r, NULL, NULL), CDYN_OK);
    const int warm = fa.allocations;
    for (int k = 0; k < 20; k++) {
        q[0] = -1.0 - 0.01 * k;
        pt.values[0] = 2.0 + 0.01 * k;
        memset(r, 0, sizeof r);
        cdyn_fc3d_report rep;
        assert_int_equal(cdyn_fc3d_solver_solve(s, &p, r, NULL, &rep), CDYN_OK);
        assert_true(rep.newton_iterations > 0);
    }
    assert_int_equal(fa.allocations, warm);
    assert_int_equal(cdyn_fc3d_solver_shapes(s), 1);
    /* A second pattern, then both in turn (a contact coupling and uncoupling): the two latest
       shapes are kept, so after the second one is built nothing is allocated or rebuilt. */
    static pattern pt2;
    pattern_make(&pt2, 2);
    const cdyn_fc3d p2 = {NC, NULL, &pt2.blocks, q, mu};
    memset(r, 0, sizeof r);
    assert_int_equal(cdyn_fc3d_solver_solve(s, &p2, r, NULL, NULL), CDYN_OK);
    const int warm2 = fa.allocations;
    assert_true(warm2 > warm);
    for (int k = 0; k < 10; k++) {
        memset(r, 0, sizeof r);
        assert_int_equal(cdyn_fc3d_solver_solve(s, k % 2 ? &p2 : &p, r, NULL, NULL), CDYN_OK);
    }
    assert_int_equal(fa.allocations, warm2);
    assert_int_equal(cdyn_fc3d_solver_shapes(s), 2);
    cdyn_fc3d_solver_free(s);
    assert_int_equal(fa.live, 0);
}

static void test_arguments(void **state)
{
    (void)state;
    double q[3] = {-1, 0, 0}, mu[1] = {0.5}, W[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, r[3] = {0};
    const cdyn_fc3d p = {1, W, NULL, q, mu};
    cdyn_fc3d_solver *s = (cdyn_fc3d_solver *)r;
    cdyn_fc3d_report rep;
    assert_int_equal(cdyn_fc3d_solver_create(NULL, NULL, NULL, &rep), CDYN_EINVAL);
    cdyn_fc3d_options o;
    cdyn_fc3d_defaults(&o);
    o.tol = -1;
    assert_int_equal(cdyn_fc3d_solver_create(NULL, &o, &s, &rep), CDYN_EINVAL);
    assert_null(s);
    const cdyn_fc3d bad = {0, W, NULL, q, mu};
    assert_int_equal(cdyn_fc3d_solver_create(&bad, NULL, &s, &rep), CDYN_EINVAL);
    assert_null(s);
    assert_int_equal(cdyn_fc3d_solver_solve(NULL, &p, r, NULL, &rep), CDYN_EINVAL);
    assert_int_equal(cdyn_fc3d_solver_create(&p, NULL, &s, &rep), CDYN_OK);
    assert_int_equal(cdyn_fc3d_solver_shapes(s), 1);
    assert_int_equal(cdyn_fc3d_solver_solve(s, &bad, r, NULL, &rep), CDYN_EINVAL);
    assert_int_equal(cdyn_fc3d_solver_solve(s, &p, NULL, NULL, &rep), CDYN_EINVAL);
    r[0] = NAN;
    assert_int_equal(cdyn_fc3d_solver_solve(s, &p, r, NULL, &rep), CDYN_EINVAL);
    r[0] = 0;
    assert_int_equal(cdyn_fc3d_solver_solve(s, &p, r, NULL, &rep), CDYN_OK);
    assert_true(fabs(r[0] - 1.0) < 1e-12);
    assert_int_equal(cdyn_fc3d_solver_shapes(s), 1);
    cdyn_fc3d_solver_free(s);
    cdyn_fc3d_solver_free(NULL);
    assert_int_equal(cdyn_fc3d_solver_shapes(NULL), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_files_bit_for_bit),
        cmocka_unit_test(test_changing_patterns_alloc_fail),
        cmocka_unit_test(test_no_allocation_when_warm),
        cmocka_unit_test(test_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
