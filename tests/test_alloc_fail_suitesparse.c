/* Allocation failure inside SuiteSparse. KLU and CHOLMOD (SuiteSparse 5.x) allocate through the
 * process-global SuiteSparse_config.malloc_func / calloc_func / realloc_func / free_func, not
 * through the cdyn allocator. cdyn never touches those hooks; a test process may: here they
 * count SuiteSparse's allocations in a successful call of each public entry point that reaches
 * KLU or CHOLMOD (FB-Newton sparse, the cone QP sparse, the fc3d solver object through changing
 * block patterns, a stepper with KLU, the BVP), then fail
 * the k-th for every k. Each run must return a clean status (for an
 * allocation KLU or CHOLMOD report: CDYN_ENOMEM; CHOLMOD's internal fallbacks may also recover
 * and succeed), leave the outputs unchanged on failure and free everything (SuiteSparse's live
 * blocks and the cdyn allocator's). SuiteSparse 7 replaced the struct by
 * SuiteSparse_config_malloc_func_set() etc.; this test is compiled for the 5.x struct only. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <SuiteSparse_config.h>

#include "cdyn/bvp.h"
#include "cdyn/coneqp.h"
#include "cdyn/fc3d.h"
#include "cdyn/mcp.h"
#include "cdyn/step.h"
#include "coneqp_support.h"
#include "mcp_testproblems.h"
#include "step_scenes.h"
#include "support.h"

/* ---- the hooks ------------------------------------------------------------------------------ */

static long ss_count, ss_fail_at = -1, ss_live;

static int ss_fails(void)
{
    return ss_count++ == ss_fail_at; /* fail_at -1: never */
}

static void *ss_malloc(size_t n)
{
    if (ss_fails())
        return NULL;
    void *p = malloc(n);
    ss_live += p != NULL;
    return p;
}

static void *ss_calloc(size_t n, size_t s)
{
    if (ss_fails())
        return NULL;
    void *p = calloc(n, s);
    ss_live += p != NULL;
    return p;
}

static void *ss_realloc(void *old, size_t n)
{
    if (ss_fails())
        return NULL;
    void *p = realloc(old, n);
    ss_live += old == NULL && p != NULL;
    return p;
}

static void ss_free(void *p)
{
    ss_live -= p != NULL;
    free(p);
}

static void ss_arm(long fail_at)
{
    ss_count = 0;
    ss_fail_at = fail_at;
}

/* ---- the driver ------------------------------------------------------------------------------ */

typedef struct ss_case {
    const char *name;
    cdyn_status (*run)(void *ctx, const cdyn_allocator *a);
    int (*unchanged)(void *ctx);
    void *ctx;
} ss_case;

/* Returns the number of SuiteSparse allocation sites failed in turn. */
static long every_ss_failure(const ss_case *c)
{
    test_failing_alloc fa;
    test_failing_alloc_init(&fa, -1);
    ss_arm(-1);
    assert_int_equal(c->run(c->ctx, &fa.allocator), CDYN_OK);
    assert_int_equal(ss_live, 0);
    assert_int_equal(fa.live, 0);
    const long sites = ss_count;
    assert_true(sites >= 1);
    long enomem = 0;
    for (long k = 0; k < sites; ++k) {
        ss_arm(k);
        test_failing_alloc_init(&fa, -1);
        const cdyn_status st = c->run(c->ctx, &fa.allocator);
        ss_arm(-1);
        if (st != CDYN_OK) {
            if (st != CDYN_ENOMEM)
                fail_msg("%s: SuiteSparse allocation %ld of %ld failing gave %s", c->name, k,
                         sites, cdyn_status_str(st));
            enomem++;
            if (!c->unchanged(c->ctx))
                fail_msg("%s: SuiteSparse allocation %ld failing changed the outputs", c->name,
                         k);
        }
        if (ss_live != 0 || fa.live != 0)
            fail_msg("%s: SuiteSparse allocation %ld failing leaked (%ld SuiteSparse, %d cdyn)",
                     c->name, k, ss_live, fa.live);
    }
    if (getenv("CDYN_TEST_VERBOSE") != NULL)
        printf("%-28s %4ld SuiteSparse allocation sites, %ld gave CDYN_ENOMEM\n", c->name, sites,
               enomem);
    return sites;
}

/* ---- cases -------------------------------------------------------------------------------- */

typedef struct outbuf {
    double v[64], copy[64];
    int used;
} outbuf;

static void out_reset(outbuf *o, int used, const double *start)
{
    o->used = used;
    for (int k = 0; k < used; ++k)
        o->v[k] = o->copy[k] = start != NULL ? start[k] : -1000.0 - k;
}

static int out_unchanged(void *ctx)
{
    const outbuf *o = ctx;
    return memcmp(o->v, o->copy, sizeof(double) * (size_t)o->used) == 0;
}

/* cdyn_mcp_solve, sparse path (KLU). */
static tp_kkt kkt;
static cdyn_status mcp_sparse_run(void *ctx, const cdyn_allocator *a)
{
    outbuf *o = ctx;
    out_reset(o, TP_KKT_N, TP_KKT_STARTS[0]);
    cdyn_mcp p = {0};
    p.n = TP_KKT_N;
    p.lower = TP_KKT_LO;
    p.upper = TP_KKT_UP;
    p.F = tp_kkt_F;
    p.colptr = kkt.colptr;
    p.rowind = kkt.rowind;
    p.jac_sparse = tp_kkt_J_sparse;
    p.ctx = &kkt;
    cdyn_mcp_options mo;
    cdyn_mcp_defaults(&mo);
    mo.allocator = a;
    return cdyn_mcp_solve(&p, &mo, o->v, NULL);
}

/* cdyn_coneqp_solve, sparse H (CHOLMOD). */
static double *cq_H;
static test_csc cq_lower;
static cdyn_status coneqp_sparse_run(void *ctx, const cdyn_allocator *a)
{
    outbuf *o = ctx;
    out_reset(o, 16, NULL);
    static const int dims[3] = {3, 2, 3};
    static const double mu[3] = {0.5, 0.3, 0.8}, c[8] = {-1, 0.2, 0.1, -0.5, 0.3, -2, 0.1, -0.1};
    cdyn_coneqp p = {0};
    p.ncontacts = 3;
    p.dims = dims;
    p.mu = mu;
    p.c = c;
    p.Hs = &cq_lower.A;
    cdyn_coneqp_options co;
    cdyn_coneqp_defaults(&co);
    co.allocator = a;
    return cdyn_coneqp_solve(&p, &co, o->v, o->v + 8, NULL, NULL);
}

/* A stepper whose backend uses KLU (the implicit NCP, sparse backend): create, then three
 * steps; the state must be unchanged by a failed step. cycle: 60 steps of a sphere lifted off
 * the floor and landing again (rows 1, 0, 1: the kept solver of 1 row taken up again, its KLU
 * factor rebuilt). */
typedef struct step_case {
    cdyn_model *m;
    cdyn_scheme scheme;
    int klu, cycle;
    cdyn_state *x, *snap;
    int kept;
} step_case;

static cdyn_status step_run(void *ctx, const cdyn_allocator *a)
{
    step_case *c = ctx;
    c->kept = 1;
    cdyn_step_options o;
    cdyn_step_defaults(&o, c->scheme);
    if (c->klu)
        o.backend = CDYN_BACKEND_FB_SPARSE;
    o.allocator = a;
    cdyn_stepper *s = NULL;
    cdyn_status st = cdyn_stepper_create(c->m, &o, &s, NULL);
    if (st != CDYN_OK)
        return st; /* *out is NULL: cdyn_stepper_create's contract, checked by test_step */
    cdyn_model_default_q(c->m, c->x->q);
    memset(c->x->v, 0, sizeof(double) * (size_t)c->x->nv);
    memset(c->x->lambda, 0, sizeof(double) * 3 * (size_t)c->x->nc);
    memset(c->x->delta, 0, sizeof(double) * 3 * (size_t)c->x->nc);
    c->x->t = 0;
    c->x->q[2] = 0.05;
    c->x->v[0] = c->cycle ? 0 : 1;
    c->x->v[3] = c->cycle ? 0 : 40;
    for (int i = 0; i < (c->cycle ? 60 : 3) && st == CDYN_OK; ++i) {
        double tau[6] = {0, 0, i < 10 ? 2 * 0.2 * 9.81 : 0.0, 0, 0, 0};
        assert_int_equal(cdyn_state_copy(c->snap, c->x, NULL), CDYN_OK);
        st = cdyn_step(s, c->cycle ? tau : NULL, c->x, NULL);
        if (st != CDYN_OK)
            c->kept = memcmp(c->x->q, c->snap->q, sizeof(double) * (size_t)c->x->nq) == 0 &&
                      memcmp(c->x->v, c->snap->v, sizeof(double) * (size_t)c->x->nv) == 0 &&
                      c->x->t == c->snap->t;
    }
    cdyn_stepper_free(s);
    return st;
}

static int step_unchanged(void *ctx)
{
    return ((step_case *)ctx)->kept;
}

/* cdyn_bvp_solve (KLU on the stacked trajectory): Song-Kumar-Pang's disk as in
 * tests/test_alloc_fail.c; on failure every state of traj is unchanged. */
enum { BVP_N = 10 };
typedef struct bvp_case {
    cdyn_model *m;
    cdyn_state *traj[BVP_N + 1], *copy[BVP_N + 1];
} bvp_case;

static int state_equal(const cdyn_state *a, const cdyn_state *b)
{
    return a->t == b->t && memcmp(a->q, b->q, sizeof(double) * (size_t)a->nq) == 0 &&
           memcmp(a->v, b->v, sizeof(double) * (size_t)a->nv) == 0 &&
           memcmp(a->delta, b->delta, sizeof(double) * 3 * (size_t)a->nc) == 0 &&
           memcmp(a->lambda, b->lambda, sizeof(double) * 3 * (size_t)a->nc) == 0 &&
           memcmp(a->mode, b->mode, sizeof(int) * (size_t)a->nc) == 0;
}

static cdyn_status bvp_run(void *ctx, const cdyn_allocator *a)
{
    bvp_case *c = ctx;
    const double dn = 0.1 * 9.81 / 1e6;
    for (int l = 0; l <= BVP_N; ++l) {
        cdyn_state *x = c->traj[l];
        x->t = 0;
        memset(x->v, 0, sizeof(double) * (size_t)x->nv);
        memset(x->delta, 0, sizeof(double) * 3 * (size_t)x->nc);
        memset(x->lambda, 0, sizeof(double) * 3 * (size_t)x->nc);
        cdyn_model_default_q(c->m, x->q);
    }
    cdyn_state *x0 = c->traj[0];
    x0->q[1] = 0.1 - dn;
    x0->v[0] = 1.0;
    x0->v[2] = 1.0;
    x0->delta[0] = dn;
    x0->lambda[0] = 0.1 * 9.81;
    for (int l = 0; l <= BVP_N; ++l)
        assert_int_equal(cdyn_state_copy(c->copy[l], c->traj[l], NULL), CDYN_OK);
    static const int fixed0[8] = {1, 1, 1, 0, 1, 1, 1, 1}, fixedN[8] = {1, 0, 0, 0, 0, 0, 0, 0};
    const double valueN[8] = {0.02, 0, 0, 0, 0, 0, 0, 0};
    double value0[8];
    cdyn_bvp_state_pack(c->m, x0, value0);
    cdyn_bvp_conditions bc = {fixed0, fixedN, value0, valueN, 0, NULL, NULL, NULL, NULL};
    cdyn_bvp_options o;
    cdyn_bvp_defaults(&o);
    o.N = BVP_N;
    o.step.h = 0.022 / BVP_N;
    o.step.mcp.max_iter = 200;
    o.step.allocator = a;
    o.step.mcp.allocator = a;
    return cdyn_bvp_solve(c->m, &o, &bc, c->traj, NULL);
}

static int bvp_unchanged(void *ctx)
{
    bvp_case *c = ctx;
    for (int l = 0; l <= BVP_N; ++l)
        if (!state_equal(c->traj[l], c->copy[l]))
            return 0;
    return 1;
}

/* A frictional contact solver object (KLU: more than 8 contacts) through a sequence of block
 * patterns that changes and comes back (contacts coupling and uncoupling): each new pattern
 * re-analyses; every solve from 0 so that Newton runs. The outputs: r and u of the last solve
 * tried. */
enum { FCN = 10, FCPAT = 3 };
typedef struct fc_case {
    int rowptr[FCPAT][FCN + 1], colind[FCPAT][3 * FCN];
    double values[FCPAT][27 * FCN], q[3 * FCN], mu[FCN];
    cdyn_fc3d_blocks blocks[FCPAT];
    outbuf o;
} fc_case;

static void fc_make(fc_case *c)
{
    for (int t = 0; t < FCPAT; t++) {
        int k = 0;
        for (int i = 0; i < FCN; i++) {
            c->rowptr[t][i] = k;
            for (int j = i - 1; j <= i + 1; j++) {
                if (j < 0 || j >= FCN || (j != i && ((j < i ? j : i) + t) % 3 == 0))
                    continue;
                c->colind[t][k] = j;
                for (int e = 0; e < 9; e++)
                    c->values[t][9 * k + e] = j == i ? (e % 4 == 0 ? 2.0 : 0.05) : -0.2;
                k++;
            }
        }
        c->rowptr[t][FCN] = k;
        c->blocks[t] = (cdyn_fc3d_blocks){c->rowptr[t], c->colind[t], c->values[t]};
    }
    for (int i = 0; i < FCN; i++) {
        c->q[3 * i] = i % 4 == 0 ? 0.3 : -1.0 + 0.05 * i;
        c->q[3 * i + 1] = 0.2 * ((i % 5) - 2);
        c->q[3 * i + 2] = 0.1 * ((i % 3) - 1);
        c->mu[i] = 0.3 + 0.02 * i;
    }
}

static cdyn_status fc_run(void *ctx, const cdyn_allocator *a)
{
    fc_case *c = ctx;
    static const int seq[] = {0, 1, 1, 2, 0};
    cdyn_fc3d_options o;
    cdyn_fc3d_defaults(&o);
    o.allocator = a;
    o.warm_sweeps = 0;
    cdyn_fc3d_solver *s = NULL;
    cdyn_status st = cdyn_fc3d_solver_create(NULL, &o, &s, NULL);
    for (int k = 0; st == CDYN_OK && k < 5; k++) {
        const cdyn_fc3d p = {FCN, NULL, &c->blocks[seq[k]], c->q, c->mu};
        out_reset(&c->o, 6 * FCN, NULL);
        for (int i = 0; i < 3 * FCN; i++) /* a finite start: 0 */
            c->o.v[i] = c->o.copy[i] = 0.0;
        st = cdyn_fc3d_solver_solve(s, &p, c->o.v, c->o.v + 3 * FCN, NULL);
    }
    if (st == CDYN_OK)
        assert_int_equal(cdyn_fc3d_solver_shapes(s), 4);
    cdyn_fc3d_solver_free(s);
    return st;
}

static int fc_unchanged(void *ctx)
{
    return out_unchanged(&((fc_case *)ctx)->o);
}

static void test_suitesparse_failures(void **state)
{
    (void)state;
    /* Before anything of SuiteSparse runs; restored at the end. */
    struct SuiteSparse_config_struct saved = SuiteSparse_config;
    SuiteSparse_config.malloc_func = ss_malloc;
    SuiteSparse_config.calloc_func = ss_calloc;
    SuiteSparse_config.realloc_func = ss_realloc;
    SuiteSparse_config.free_func = ss_free;

    tp_kkt_init(&kkt);
    outbuf o;
    ss_case mcp = {"cdyn_mcp_solve (sparse, KLU)", mcp_sparse_run, out_unchanged, &o};
    every_ss_failure(&mcp);

    test_rng g;
    test_rng_seed(&g, 5);
    const int dims[3] = {3, 2, 3};
    cq_chain_delassus(&g, 3, dims, &cq_H, &cq_lower);
    ss_case cq = {"cdyn_coneqp_solve (CHOLMOD)", coneqp_sparse_run, out_unchanged, &o};
    every_ss_failure(&cq);
    free(cq_H);
    test_csc_free(&cq_lower);

    static fc_case fc;
    fc_make(&fc);
    ss_case fcs = {"fc3d solver, changing patterns (KLU)", fc_run, fc_unchanged, &fc};
    every_ss_failure(&fcs);

    /* (The cone step of one sphere solves a dense QP: CHOLMOD is covered by the QP above.) */
    static const char *names[] = {"stepper implicit NCP (KLU)",
                                  "stepper implicit NCP, kept solvers (KLU)"};
    for (int k = 0; k < 2; ++k) {
        step_case sc;
        memset(&sc, 0, sizeof sc);
        sc.m = k == 0 ? scene_sphere(0.05, 0.2, 0.2)
                      : scene_sphere_margin(0.05, 0.2, 0.2, 9.81, 0.01);
        sc.scheme = CDYN_SCHEME_IMPLICIT_NCP;
        sc.klu = 1;
        sc.cycle = k == 1;
        assert_int_equal(cdyn_state_create(sc.m, NULL, &sc.x, NULL), CDYN_OK);
        assert_int_equal(cdyn_state_create(sc.m, NULL, &sc.snap, NULL), CDYN_OK);
        ss_case c = {names[k], step_run, step_unchanged, &sc};
        every_ss_failure(&c);
        cdyn_state_free(sc.x);
        cdyn_state_free(sc.snap);
        cdyn_model_free(sc.m);
    }

    bvp_case bc;
    memset(&bc, 0, sizeof bc);
    bc.m = scene_disk(4.0, 1e6, 0.0);
    for (int l = 0; l <= BVP_N; ++l) {
        assert_int_equal(cdyn_state_create(bc.m, NULL, &bc.traj[l], NULL), CDYN_OK);
        assert_int_equal(cdyn_state_create(bc.m, NULL, &bc.copy[l], NULL), CDYN_OK);
    }
    ss_case bv = {"cdyn_bvp_solve (KLU)", bvp_run, bvp_unchanged, &bc};
    every_ss_failure(&bv);
    for (int l = 0; l <= BVP_N; ++l) {
        cdyn_state_free(bc.traj[l]);
        cdyn_state_free(bc.copy[l]);
    }
    cdyn_model_free(bc.m);
    SuiteSparse_config = saved;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_suitesparse_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
