/* Thread safety: every solver, the model evaluation, a stepper's steps, the instantaneous
 * problem and the URDF loader run from several POSIX threads at once on shared const inputs (the
 * problems, the model, MCP callback contexts that are only read), each thread with its own
 * outputs and its own mutable objects (data, stepper, state, builder). Every result must equal
 * the serial run's bit for bit: the library keeps no global mutable state (libxml2's is set up
 * once, docs/api.md) and its results do not depend on timing.
 * scripts/test.sh also runs this test under ThreadSanitizer (CDYN_TSAN, build-tsan/). */
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cdyn/boxmerit.h"
#include "cdyn/coneqp.h"
#include "cdyn/fc3d.h"
#include "cdyn/instant.h"
#include "cdyn/lcp.h"
#include "cdyn/lp.h"
#include "cdyn/mcp.h"
#include "cdyn/model.h"
#include "cdyn/step.h"
#include "cdyn/ucp.h"
#include "cdyn/urdf.h"
#include "coneqp_support.h"
#include "mcp_testproblems.h"
#include "step_scenes.h"
#include "support.h"

enum { NTHREADS = 4, ROUNDS = 3, OUT_MAX = 1024 };

/* The shared inputs, built once before any thread starts and only read afterwards. */
typedef struct shared {
    double M[256], q[16];       /* a 16 x 16 LCP (Lemke's heap path) */
    double M4[16], q4[4];       /* a 4 x 4 LCP for the default chain */
    tp_kkt kkt;                 /* sparse MCP context (read by the callbacks) */
    double *H;                  /* cone QP, dense */
    test_csc Hlower;            /* and sparse */
    int dims[3];
    double mu[3], c[8];
    cdyn_ucp_instance *ucp;
    cdyn_model *sphere;         /* model evaluation, stepper, instantaneous problem */
    double W3[144], q3[12], mu3[4]; /* a frictional contact problem, 4 contacts (dense) */
    int rowptr3[5], colind3[16];    /* and the same W by blocks */
    double blocks3[144];
} shared;

static shared S;

typedef int (*job_fn)(double *out); /* writes its results, returns how many doubles */

static int put_status(double *out, cdyn_status st)
{
    out[0] = (double)st;
    return 1;
}

static int job_lemke(double *out)
{
    const cdyn_lcp lcp = {16, S.M, S.q};
    int k = put_status(out, cdyn_lemke(&lcp, NULL, out + 1, out + 17, NULL));
    return k + 32;
}

static int job_lcp_solve(double *out)
{
    const cdyn_lcp lcp = {4, S.M4, S.q4};
    cdyn_lcp_options o;
    cdyn_lcp_defaults(&o);
    o.lemke.max_pivots = 1; /* through the alternate coverings to enumeration */
    cdyn_report r;
    int k = put_status(out, cdyn_lcp_solve(&lcp, &o, out + 1, out + 5, &r));
    out[9] = r.iterations;
    return k + 9;
}

static int job_lcp_fb(double *out)
{
    const cdyn_lcp lcp = {16, S.M, S.q};
    memset(out + 1, 0, 16 * sizeof(double));
    return put_status(out, cdyn_lcp_fb_newton(&lcp, NULL, out + 1, out + 17, NULL)) + 32;
}

static int job_mcp_dense(double *out)
{
    cdyn_mcp p = {0};
    p.n = 4;
    p.F = tp_ks_F;
    p.jac = tp_ks_J;
    for (int i = 0; i < 4; ++i)
        out[1 + i] = 100.0;
    cdyn_report r;
    int k = put_status(out, cdyn_mcp_solve(&p, NULL, out + 1, &r));
    out[5] = r.iterations;
    out[6] = r.residual;
    return k + 6;
}

static int job_mcp_sparse(double *out)
{
    cdyn_mcp p = {0};
    p.n = TP_KKT_N;
    p.lower = TP_KKT_LO;
    p.upper = TP_KKT_UP;
    p.F = tp_kkt_F;
    p.colptr = S.kkt.colptr;
    p.rowind = S.kkt.rowind;
    p.jac_sparse = tp_kkt_J_sparse;
    p.ctx = &S.kkt;
    memcpy(out + 1, TP_KKT_STARTS[0], sizeof(double) * TP_KKT_N);
    cdyn_report r;
    int k = put_status(out, cdyn_mcp_solve(&p, NULL, out + 1, &r));
    out[1 + TP_KKT_N] = r.residual;
    return k + TP_KKT_N + 1;
}

static int job_box_merit(double *out)
{
    cdyn_mcp p = {0};
    p.n = 4;
    p.F = tp_ks_F;
    p.jac = tp_ks_J;
    for (int i = 0; i < 4; ++i)
        out[1 + i] = 1.0;
    cdyn_report r;
    int k = put_status(out, cdyn_box_merit_solve(&p, NULL, out + 1, &r));
    out[5] = r.residual;
    return k + 5;
}

static int coneqp(double *out, int sparse)
{
    cdyn_coneqp p = {0};
    p.ncontacts = 3;
    p.dims = S.dims;
    p.mu = S.mu;
    p.c = S.c;
    if (sparse)
        p.Hs = &S.Hlower.A;
    else
        p.H = S.H;
    cdyn_coneqp_info info;
    int k = put_status(out, cdyn_coneqp_solve(&p, NULL, out + 1, out + 9, &info, NULL));
    memcpy(out + 17, &info, sizeof info);
    return k + 16 + (int)(sizeof info / sizeof(double));
}

static int job_coneqp_dense(double *out)
{
    return coneqp(out, 0);
}

static int job_coneqp_sparse(double *out)
{
    return coneqp(out, 1);
}

static int job_lp(double *out)
{
    static const double A[8] = {1, 1, 1, 3, 1, 0, 0, 1}, b[2] = {4, 6}, c[4] = {-1, -2, 0, 0};
    const cdyn_lp lp = {2, 4, A, b, c};
    return put_status(out, cdyn_lp_solve(&lp, NULL, out + 1, out + 5, NULL, out + 7, NULL)) + 7;
}

/* The frictional contact problem: the default chain on the dense W, then Newton-FB by KLU on
 * the same W by blocks. */
static int job_fc3d(double *out)
{
    const cdyn_fc3d dense = {4, S.W3, NULL, S.q3, S.mu3};
    const cdyn_fc3d_blocks bl = {S.rowptr3, S.colind3, S.blocks3};
    const cdyn_fc3d sparse = {4, NULL, &bl, S.q3, S.mu3};
    memset(out, 0, 26 * sizeof(double));
    int k = put_status(out, cdyn_fc3d_solve(&dense, NULL, out + 1, NULL, NULL)) + 12;
    cdyn_fc3d_newton_options o;
    cdyn_fc3d_newton_defaults(&o);
    o.formulation = CDYN_FC3D_FISCHER_BURMEISTER;
    o.linear = CDYN_FC3D_LINEAR_SPARSE;
    k += put_status(out + k, cdyn_fc3d_newton(&sparse, &o, out + k + 1, NULL, NULL));
    return k + 12;
}

static int job_ucp(double *out)
{
    const cdyn_ucp_problem *p = &S.ucp->problem;
    const int nc = p->nc, nq = p->nq, nt = p->ntheta;
    double *o = out + 1;
    cdyn_ucp_solution sol = {o, o + 3 * nc, o + 6 * nc, o + 7 * nc, o + 8 * nc, o + 9 * nc,
                             o + 10 * nc, o + 10 * nc + nq, o + 10 * nc + nq + nt};
    cdyn_ucp_stats stats;
    int k = put_status(out, cdyn_ucp_solve(p, NULL, &sol, &stats, NULL));
    const int used = 10 * nc + nq + 2 * nt;
    out[1 + used] = stats.pairs;
    out[2 + used] = stats.best_xty;
    return k + used + 2;
}

/* The model evaluated at a pose touching the plane: M, h, gaps and the three Jacobians. */
static int job_eval(double *out)
{
    const cdyn_model *m = S.sphere;
    const int nv = cdyn_model_nv(m), nc = cdyn_model_ncontact(m);
    cdyn_data *d = NULL;
    if (cdyn_data_create(m, NULL, &d, NULL) != CDYN_OK)
        return put_status(out, CDYN_ENOMEM);
    double q[7], v[6] = {1, 0.5, -0.2, 3, -4, 5};
    cdyn_model_default_q(m, q);
    q[2] = 0.049;
    int k = put_status(out, cdyn_eval(m, d, q, v, CDYN_EVAL_ALL, NULL));
    memcpy(out + k, cdyn_data_mass(d), sizeof(double) * (size_t)(nv * nv));
    k += nv * nv;
    memcpy(out + k, cdyn_data_bias(d), sizeof(double) * (size_t)nv);
    k += nv;
    memcpy(out + k, cdyn_data_gap(d), sizeof(double) * (size_t)nc);
    k += nc;
    for (int dir = 0; dir < 3; ++dir) {
        memcpy(out + k, cdyn_data_jacobian(d, (cdyn_dir)dir), sizeof(double) * (size_t)(nc * nv));
        k += nc * nv;
    }
    cdyn_data_free(d);
    return k;
}

/* Five steps of a stepper of each scheme from the same state: the final states. */
static int job_step(double *out)
{
    const cdyn_model *m = S.sphere;
    int k = 0;
    for (int scheme = 0; scheme <= CDYN_SCHEME_COULOMB_STEP; ++scheme) {
        cdyn_step_options o;
        cdyn_step_defaults(&o, (cdyn_scheme)scheme);
        cdyn_stepper *s = NULL;
        cdyn_state *x = NULL;
        cdyn_status st = cdyn_stepper_create(m, &o, &s, NULL);
        if (st == CDYN_OK)
            st = cdyn_state_create(m, NULL, &x, NULL);
        if (st == CDYN_OK) {
            x->q[2] = 0.05;
            x->v[0] = 1;
            x->v[3] = 40;
            for (int i = 0; i < 5 && st == CDYN_OK; ++i)
                st = cdyn_step(s, NULL, x, NULL);
        }
        k += put_status(out + k, st);
        if (st == CDYN_OK) {
            memcpy(out + k, x->q, sizeof(double) * (size_t)x->nq);
            k += x->nq;
            memcpy(out + k, x->v, sizeof(double) * (size_t)x->nv);
            k += x->nv;
            memcpy(out + k, x->lambda, sizeof(double) * 3 * (size_t)x->nc);
            k += 3 * x->nc;
        }
        cdyn_state_free(x);
        cdyn_stepper_free(s);
    }
    return k;
}

static int job_instant(double *out)
{
    const cdyn_model *m = S.sphere;
    const int nv = cdyn_model_nv(m), nc = cdyn_model_ncontact(m);
    cdyn_data *d = NULL;
    if (cdyn_data_create(m, NULL, &d, NULL) != CDYN_OK)
        return put_status(out, CDYN_ENOMEM);
    double q[7], v[6] = {1, 0, 0, 0, 0, 0}, tau[6] = {0.5, 0, 0, 0, 0, 0};
    cdyn_model_default_q(m, q);
    q[2] = 0.05;
    int k = 0;
    for (int kind = 0; kind < 3; ++kind) {
        cdyn_instant_options o;
        cdyn_instant_defaults(&o);
        if (kind > 0) {
            o.friction = CDYN_INSTANT_CONE;
            o.ncp_solver = kind == 1 ? CDYN_INSTANT_BOX_MERIT : CDYN_INSTANT_FB_NEWTON;
        }
        cdyn_instant_result r;
        memset(&r, 0, sizeof r);
        double *o0 = out + k + 1;
        r.vdot = o0;
        r.lambda_n = o0 + nv;
        r.lambda_t = o0 + nv + nc;
        r.lambda_o = o0 + nv + 2 * nc;
        k += put_status(out + k, cdyn_instant_solve(m, d, q, v, tau, &o, &r, NULL));
        k += nv + 3 * nc;
    }
    cdyn_data_free(d);
    return k;
}

/* A URDF robot parsed (libxml2: one parser context per call) into a new builder, built and
 * evaluated: the status, the name map's first joint body, M and h. */
static int job_urdf(double *out)
{
    static const char urdf[] =
        "<robot name='r'><link name='base'/>"
        "<joint name='j1' type='revolute'><parent link='base'/><child link='a'/>"
        "<origin xyz='0 0 1' rpy='0.1 0.2 0.3'/><axis xyz='0 1 0'/>"
        "<limit effort='1' velocity='1'/></joint>"
        "<link name='a'><inertial><origin xyz='0.2 0 0' rpy='0.3 0 0'/><mass value='1'/>"
        "<inertia ixx='0.01' ixy='0' ixz='0' iyy='0.02' iyz='0' izz='0.03'/></inertial></link>"
        "<joint name='j2' type='prismatic'><parent link='a'/><child link='b'/>"
        "<axis xyz='1 0 0'/><limit effort='1' velocity='1'/></joint>"
        "<link name='b'><inertial><mass value='0.5'/>"
        "<inertia ixx='0.01' ixy='0' ixz='0' iyy='0.01' iyz='0' izz='0.01'/></inertial>"
        "</link></robot>";
    cdyn_builder *b = NULL;
    cdyn_urdf_map *map = NULL;
    cdyn_model *m = NULL;
    cdyn_data *d = NULL;
    cdyn_status st = cdyn_builder_create(NULL, &b, NULL);
    if (st == CDYN_OK)
        st = cdyn_builder_add_urdf_string(b, urdf, sizeof urdf - 1, NULL, &map, NULL);
    if (st == CDYN_OK)
        st = cdyn_builder_build(b, &m, NULL);
    if (st == CDYN_OK)
        st = cdyn_data_create(m, NULL, &d, NULL);
    const double q[2] = {0.4, -0.1}, v[2] = {1.5, 0.5};
    if (st == CDYN_OK)
        st = cdyn_eval(m, d, q, v, CDYN_EVAL_MASS | CDYN_EVAL_BIAS, NULL);
    int k = put_status(out, st);
    if (st == CDYN_OK) {
        cdyn_urdf_joint j;
        cdyn_urdf_joint_at(map, 0, &j, NULL);
        out[k++] = j.body;
        memcpy(out + k, cdyn_data_mass(d), 4 * sizeof(double));
        memcpy(out + k + 4, cdyn_data_bias(d), 2 * sizeof(double));
        k += 6;
    }
    cdyn_data_free(d);
    cdyn_model_free(m);
    cdyn_urdf_map_free(map);
    cdyn_builder_free(b);
    return k;
}

static const struct {
    const char *name;
    job_fn run;
} JOBS[] = {
    {"lemke", job_lemke},           {"lcp_solve", job_lcp_solve},
    {"lcp_fb_newton", job_lcp_fb},  {"mcp dense", job_mcp_dense},
    {"mcp sparse", job_mcp_sparse}, {"box merit", job_box_merit},
    {"coneqp dense", job_coneqp_dense}, {"coneqp sparse", job_coneqp_sparse},
    {"lp", job_lp},                 {"ucp", job_ucp},
    {"model eval", job_eval},       {"stepper", job_step},
    {"instant", job_instant},       {"fc3d", job_fc3d},
    {"urdf", job_urdf},
};
enum { NJOBS = sizeof JOBS / sizeof JOBS[0] };

static double serial[NJOBS][OUT_MAX];
static int serial_n[NJOBS];

typedef struct worker {
    int id;
    int mismatches;
    char first[128];
} worker;

/* Every job ROUNDS times, starting at a different job in each thread so that different
 * solvers overlap. */
static void *work(void *arg)
{
    worker *w = arg;
    double *out = malloc(sizeof(double) * OUT_MAX);
    for (int round = 0; round < ROUNDS; ++round)
        for (int t = 0; t < NJOBS; ++t) {
            const int j = (t + w->id * 3) % NJOBS;
            for (int k = 0; k < OUT_MAX; ++k)
                out[k] = -1.0;
            const int n = JOBS[j].run(out);
            if (n != serial_n[j] || memcmp(out, serial[j], sizeof(double) * (size_t)n) != 0) {
                if (w->mismatches++ == 0)
                    snprintf(w->first, sizeof w->first, "%s (thread %d)", JOBS[j].name, w->id);
            }
        }
    free(out);
    return NULL;
}

static void build_shared(void)
{
    test_rng g;
    test_rng_seed(&g, 42);
    test_random_spd(&g, 16, 1.0, S.M);
    for (int i = 0; i < 16; ++i)
        S.q[i] = test_rng_range(&g, -1.0, 1.0);
    test_random_spd(&g, 4, 1.0, S.M4);
    for (int i = 0; i < 4; ++i)
        S.q4[i] = test_rng_range(&g, -1.0, 1.0);
    tp_kkt_init(&S.kkt);
    const int dims[3] = {3, 2, 3};
    memcpy(S.dims, dims, sizeof dims);
    cq_chain_delassus(&g, 3, S.dims, &S.H, &S.Hlower);
    const double mu[3] = {0.5, 0.3, 0.8}, c[8] = {-1, 0.2, 0.1, -0.5, 0.3, -2, 0.1, -0.1};
    memcpy(S.mu, mu, sizeof mu);
    memcpy(S.c, c, sizeof c);
    cdyn_ucp_random_spec spec = {3, 1.0, 2, 1, CDYN_UCP_FINGER_TWO_LINK};
    assert_int_equal(cdyn_ucp_random(&spec, NULL, &S.ucp, NULL), CDYN_OK);
    S.sphere = scene_sphere(0.05, 0.2, 0.2);
    test_random_spd(&g, 12, 0.5, S.W3);
    for (int i = 0; i < 4; ++i) {
        S.q3[3 * i] = test_rng_range(&g, -1.0, 0.2);
        S.q3[3 * i + 1] = test_rng_range(&g, -1.0, 1.0);
        S.q3[3 * i + 2] = test_rng_range(&g, -1.0, 1.0);
        S.mu3[i] = test_rng_range(&g, 0.1, 0.4);
        S.rowptr3[i] = 4 * i;
        for (int j = 0; j < 4; ++j) {
            S.colind3[4 * i + j] = j;
            for (int b = 0; b < 3; ++b)
                for (int a = 0; a < 3; ++a)
                    S.blocks3[9 * (4 * i + j) + a + 3 * b] = S.W3[(3 * i + a) + 12 * (3 * j + b)];
        }
    }
    S.rowptr3[4] = 16;
}

static void test_threads_match_serial(void **state)
{
    (void)state;
    build_shared();
    for (int j = 0; j < NJOBS; ++j) {
        for (int k = 0; k < OUT_MAX; ++k)
            serial[j][k] = -1.0;
        serial_n[j] = JOBS[j].run(serial[j]);
        assert_true(serial_n[j] > 0 && serial_n[j] <= OUT_MAX);
        /* the serial run itself must be repeatable before threads are compared with it */
        double again[OUT_MAX];
        for (int k = 0; k < OUT_MAX; ++k)
            again[k] = -1.0;
        assert_int_equal(JOBS[j].run(again), serial_n[j]);
        assert_memory_equal(again, serial[j], sizeof(double) * (size_t)serial_n[j]);
        /* the jobs must do real work: the first status is CDYN_OK */
        if (serial[j][0] != 0.0)
            fail_msg("%s: serial run returned status %g", JOBS[j].name, serial[j][0]);
    }
    pthread_t th[NTHREADS];
    worker w[NTHREADS];
    for (int t = 0; t < NTHREADS; ++t) {
        w[t] = (worker){t, 0, ""};
        assert_int_equal(pthread_create(&th[t], NULL, work, &w[t]), 0);
    }
    for (int t = 0; t < NTHREADS; ++t)
        assert_int_equal(pthread_join(th[t], NULL), 0);
    for (int t = 0; t < NTHREADS; ++t)
        if (w[t].mismatches != 0)
            fail_msg("%d results differ from the serial run, first: %s", w[t].mismatches,
                     w[t].first);
    cdyn_model_free(S.sphere);
    cdyn_ucp_instance_free(S.ucp);
    free(S.H);
    test_csc_free(&S.Hlower);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_threads_match_serial),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
