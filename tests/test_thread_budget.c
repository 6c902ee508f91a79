/* The thread budget (issue 21, item 5): with the default options (threads = 1) the library starts
 * no thread, also where CHOLMOD takes its supernodal path, whose OpenMP regions otherwise start a
 * team of CHOLMOD_OMP_NUM_THREADS (4 in SuiteSparse 5.12) threads. The threads of the process are
 * counted in /proc/self/task before and after. OpenBLAS's pool is started when the library is
 * loaded (OPENBLAS_NUM_THREADS, the caller's setting), so it is in both counts.
 *
 * The last test is the control: the same cone step with threads = 0 (no cap) must start threads,
 * or the scene never reached CHOLMOD's OpenMP regions and the tests before it prove nothing. It
 * runs last because the OpenMP runtime keeps its threads for the rest of the process. This is
 * not tests/test_threads.c (reentrancy from several threads), which starts threads itself. */
#include <dirent.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cdyn/coneqp.h"
#include "cdyn/model.h"
#include "cdyn/step.h"
#include "linalg/omp_cap.h"
#include "linalg/sparse_chol.h"
#include "support.h"

static int count_threads(void)
{
    DIR *d = opendir("/proc/self/task");
    assert_non_null(d);
    int k = 0;
    for (struct dirent *e = readdir(d); e != NULL; e = readdir(d))
        k += e->d_name[0] != '.';
    closedir(d);
    return k;
}

/* A banded SPD matrix with dense fill (bandwidth w, every third entry of the band kept): the
 * case where CHOLMOD chooses the supernodal factorization. Lower triangle, n x n. */
typedef struct band {
    int n, *colptr, *rowind;
    double *values;
    cdyn_csc A;
} band;

static void band_make(band *b, int n, int w)
{
    b->n = n;
    b->colptr = test_malloc(((size_t)n + 1) * sizeof(int));
    b->rowind = test_malloc((size_t)n * ((size_t)w + 1) * sizeof(int));
    b->values = test_malloc((size_t)n * ((size_t)w + 1) * sizeof(double));
    int k = 0;
    for (int j = 0; j < n; j++) {
        b->colptr[j] = k;
        for (int i = j; i < n && i <= j + w; i++) {
            if (i != j && (i * 7 + j) % 3 != 0)
                continue;
            b->rowind[k] = i;
            b->values[k++] = i == j ? 2.0 * w + 1.0 : -0.5 / (1.0 + i - j);
        }
    }
    b->colptr[n] = k;
    b->A = (cdyn_csc){n, n, b->colptr, b->rowind, b->values};
}

static void band_free(band *b)
{
    test_free(b->colptr);
    test_free(b->rowind);
    test_free(b->values);
}

/* The Cholesky layer with a budget of one thread: supernodal when the cap is available (and
 * simplicial otherwise), and no thread started by factor and solve. */
static void test_chol_one_thread(void **state)
{
    (void)state;
    band b;
    band_make(&b, 600, 300);
    const int before = count_threads();
    cdyn_sparse_chol *ch = NULL;
    cdyn_report r;
    assert_int_equal(cdyn_sparse_chol_create_threads(&b.A, NULL, 1, &ch, &r), CDYN_OK);
    assert_int_equal(cdyn_sparse_chol_is_supernodal(ch), cdyn_omp_cap_available());
    double *x = test_malloc(600 * sizeof(double));
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < 600; i++)
            x[i] = 1.0 + i % 5;
        assert_int_equal(cdyn_sparse_chol_factor(ch, &b.A, &r), CDYN_OK);
        assert_int_equal(cdyn_sparse_chol_solve(ch, 1, x, x, &r), CDYN_OK);
    }
    assert_int_equal(count_threads(), before);
    cdyn_sparse_chol_free(ch);
    assert_int_equal(cdyn_sparse_chol_create_threads(&b.A, NULL, -1, &ch, &r), CDYN_EINVAL);
    assert_null(ch);
    test_free(x);
    band_free(&b);
}

/* A sparse cone QP of 200 contacts with the default options. */
static void test_coneqp_default(void **state)
{
    (void)state;
    enum { NC = 200, N = 3 * NC };
    band b;
    band_make(&b, N, 300);
    double c[N], mu[NC], x[N];
    for (int i = 0; i < N; i++)
        c[i] = i % 3 == 0 ? -1.0 : 0.3 * sin(i);
    for (int i = 0; i < NC; i++)
        mu[i] = 0.5;
    cdyn_coneqp p = {0};
    p.ncontacts = NC;
    p.dim = 3;
    p.mu = mu;
    p.Hs = &b.A;
    p.c = c;
    cdyn_coneqp_options o;
    cdyn_coneqp_defaults(&o);
    assert_int_equal(o.threads, 1);
    const int before = count_threads();
    cdyn_report r;
    assert_int_equal(cdyn_coneqp_solve(&p, &o, x, NULL, NULL, &r), CDYN_OK);
    assert_int_equal(count_threads(), before);
    o.threads = -1;
    assert_int_equal(cdyn_coneqp_solve(&p, &o, x, NULL, NULL, &r), CDYN_EINVAL);
    band_free(&b);
}

/* NL^3 spheres (r = 0.05, m = 0.1) in a touching cubic lattice resting on the floor, all pairs
 * within a margin of r (the lattice's diagonal neighbours included): hundreds of contacts whose
 * W fills in like a 3-D grid. */
enum { NL = 5 };
#define RAD 0.05

static cdyn_model *lattice(void)
{
    cdyn_builder_options bo;
    cdyn_builder_defaults(&bo, 3);
    cdyn_builder *b = NULL;
    assert_int_equal(cdyn_builder_create(&bo, &b, NULL), CDYN_OK);
    cdyn_geom_desc floor;
    cdyn_geom_desc_defaults(&floor);
    enum { NS = NL * NL * NL };
    int fl, gs[NS];
    assert_int_equal(cdyn_builder_add_geom(b, &floor, &fl, NULL), CDYN_OK);
    for (int i = 0; i < NS; i++) {
        cdyn_body_desc bd;
        cdyn_body_desc_defaults(&bd);
        bd.mass = 0.1;
        bd.inertia[0] = bd.inertia[1] = bd.inertia[2] = 0.4 * 0.1 * RAD * RAD;
        bd.frame.pos[0] = (i % NL) * 2 * RAD;
        bd.frame.pos[1] = (i / NL % NL) * 2 * RAD;
        bd.frame.pos[2] = RAD + (i / (NL * NL)) * 2 * RAD;
        int body;
        assert_int_equal(cdyn_builder_add_body(b, &bd, &body, NULL), CDYN_OK);
        cdyn_geom_desc g;
        cdyn_geom_desc_defaults(&g);
        g.body = body;
        g.type = CDYN_GEOM_SPHERE;
        g.size[0] = RAD;
        assert_int_equal(cdyn_builder_add_geom(b, &g, &gs[i], NULL), CDYN_OK);
    }
    cdyn_contact_pair_desc pd;
    cdyn_contact_pair_desc_defaults(&pd);
    pd.mu = 0.5;
    pd.margin = RAD;
    cdyn_pair_group_info info;
    cdyn_report r;
    assert_int_equal(cdyn_builder_add_pair_group(b, &fl, 1, gs, NS, &pd, NULL, &info, &r), CDYN_OK);
    assert_int_equal(cdyn_builder_add_pair_group(b, gs, NS, NULL, 0, &pd, NULL, &info, &r), CDYN_OK);
    cdyn_model *m = NULL;
    if (cdyn_builder_build(b, &m, &r) != CDYN_OK)
        fail_msg("build: %s", r.message);
    cdyn_builder_free(b);
    return m;
}

/* Three cone steps of the lattice with coneqp.threads = threads; returns the threads started. */
static int cone_steps(int threads)
{
    cdyn_model *m = lattice();
    cdyn_step_options o;
    cdyn_step_defaults(&o, CDYN_SCHEME_CONE_STEP);
    o.h = 0.005;
    assert_int_equal(o.coneqp.threads, 1);
    o.coneqp.threads = threads;
    cdyn_stepper *s = NULL;
    cdyn_report r;
    cdyn_state *x = NULL;
    assert_int_equal(cdyn_stepper_create(m, &o, &s, &r), CDYN_OK);
    assert_int_equal(cdyn_state_create(m, NULL, &x, NULL), CDYN_OK);
    const int before = count_threads();
    int active = 0;
    for (int k = 0; k < 3; k++) {
        cdyn_step_report sr;
        if (cdyn_step(s, NULL, x, &sr) != CDYN_OK)
            fail_msg("cone step %d: %s", k, sr.solver.message);
        active = sr.nactive;
    }
    const int started = count_threads() - before;
    assert_true(3 * active > o.sparse_above); /* the QP runs sparse, through CHOLMOD */
    cdyn_state_free(x);
    cdyn_stepper_free(s);
    cdyn_model_free(m);
    return started;
}

static void test_cone_step_one_thread(void **state)
{
    (void)state;
    assert_int_equal(cone_steps(1), 0);
}

static void test_control_no_cap(void **state)
{
    (void)state;
    const int started = cone_steps(0);
    if (started <= 0)
        fail_msg("the lattice's cone step started no thread without the cap: it did not reach "
                 "CHOLMOD's OpenMP regions, so the tests above show nothing");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chol_one_thread),
        cmocka_unit_test(test_coneqp_default),
        cmocka_unit_test(test_cone_step_one_thread),
        cmocka_unit_test(test_control_no_cap), /* last: the OpenMP threads stay */
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
