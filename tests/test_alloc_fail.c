/* Allocation failure at every site: for each public entry point that allocates, the
 * allocations of a successful call are counted through a counting cdyn_allocator, then the
 * call is repeated failing the k-th allocation for every k (test_alloc_every_failure in
 * support.c): each run must return CDYN_ENOMEM with the caller's outputs equal to their copy
 * from before the call (or recover and succeed), and release every block. The sanitizer build
 * checks the malloc side too. SuiteSparse's own allocations (KLU, CHOLMOD) do not go through
 * the cdyn allocator: test_alloc_fail_suitesparse.c covers them. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cdyn/boxmerit.h"
#include "cdyn/bvp.h"
#include "cdyn/coneqp.h"
#include "cdyn/deriv.h"
#include "cdyn/fc3d.h"
#include "cdyn/instant.h"
#include "cdyn/io.h"
#include "cdyn/lcp.h"
#include "cdyn/lp.h"
#include "cdyn/mcp.h"
#include "cdyn/model.h"
#include "cdyn/step.h"
#include "cdyn/ucp.h"
#include "cdyn/urdf.h"
#include "coneqp_support.h"
#include "mcp_testproblems.h"
#include "model/builder_mark.h"
#include "model_support.h"
#include "step/implicit_ncp_ws.h"
#include "step_scenes.h"
#include "support.h"

static int total_sites;

/* Run one case and require at least one allocation site. */
static void every_failure(const test_alloc_case *c)
{
    const int sites = test_alloc_every_failure(c);
    assert_true(sites >= 1);
    if (getenv("CDYN_TEST_VERBOSE") != NULL)
        printf("%-28s %3d allocation sites\n", c->name, sites);
    total_sites += sites;
}

/* ---- Dense outputs: a buffer reset to a sentinel before each run -------------------------- */

#define OUT_MAX 4096

typedef struct outbuf {
    double v[OUT_MAX], copy[OUT_MAX];
    int used; /* doubles in use */
} outbuf;

static void out_reset(outbuf *o, int used)
{
    o->used = used;
    for (int k = 0; k < used; ++k)
        o->v[k] = o->copy[k] = -1000.0 - k;
}

static int out_unchanged(const outbuf *o)
{
    return memcmp(o->v, o->copy, sizeof(double) * (size_t)o->used) == 0;
}

/* ---- LCP: Lemke, the default chain, enumeration, the P-matrix test, FB-Newton ------------- */

/* A 16 x 16 LCP (above Lemke's stack limit of 13) with a P-matrix, and a 4 x 4 one for the
 * exponential methods. */
typedef struct lcp_case {
    double M[256], q[16];
    cdyn_lcp lcp;
    outbuf out;
    int kind;
} lcp_case;

static void lcp_make(lcp_case *c, int n, uint64_t seed)
{
    test_rng g;
    test_rng_seed(&g, seed);
    test_random_spd(&g, n, 1.0, c->M);
    for (int i = 0; i < n; ++i)
        c->q[i] = test_rng_range(&g, -1.0, 1.0);
    c->lcp = (cdyn_lcp){n, c->M, c->q};
}

enum { LCP_LEMKE, LCP_SOLVE, LCP_ENUM, LCP_PMATRIX, LCP_FB };

static cdyn_status lcp_run(void *ctx, const cdyn_allocator *a)
{
    lcp_case *c = ctx;
    const int n = c->lcp.n;
    out_reset(&c->out, 2 * n + 1);
    double *z = c->out.v, *w = z + n;
    switch (c->kind) {
    case LCP_LEMKE: {
        cdyn_lemke_options o;
        cdyn_lemke_defaults(&o);
        o.allocator = a;
        return cdyn_lemke(&c->lcp, &o, z, w, NULL);
    }
    case LCP_SOLVE: {
        cdyn_lcp_options o;
        cdyn_lcp_defaults(&o);
        o.lemke.allocator = a;
        o.lemke.max_pivots = 1; /* Lemke fails: the alternates and enumeration allocate too */
        return cdyn_lcp_solve(&c->lcp, &o, z, w, NULL);
    }
    case LCP_ENUM: {
        int count = -5;
        cdyn_status st = cdyn_lcp_enumerate(&c->lcp, z, 2, &count, a, NULL);
        if (st != CDYN_OK && count != -5)
            return CDYN_EINVAL; /* *count written on failure */
        return st;
    }
    case LCP_PMATRIX: {
        int is_p = -5;
        cdyn_status st = cdyn_lcp_is_pmatrix(n, c->M, 0.0, &is_p, a, NULL);
        if (st != CDYN_OK && is_p != -5)
            return CDYN_EINVAL;
        return st;
    }
    default: {
        cdyn_mcp_options o;
        cdyn_mcp_defaults(&o);
        o.allocator = a;
        memset(z, 0, sizeof(double) * (size_t)n); /* the start is an input */
        memset(c->out.copy, 0, sizeof(double) * (size_t)n);
        return cdyn_lcp_fb_newton(&c->lcp, &o, z, w, NULL);
    }
    }
}

static int lcp_unchanged(void *ctx)
{
    return out_unchanged(&((lcp_case *)ctx)->out);
}

static void test_lcp(void **state)
{
    (void)state;
    static const char *names[] = {"cdyn_lemke", "cdyn_lcp_solve", "cdyn_lcp_enumerate",
                                  "cdyn_lcp_is_pmatrix", "cdyn_lcp_fb_newton"};
    for (int kind = LCP_LEMKE; kind <= LCP_FB; ++kind) {
        lcp_case c;
        lcp_make(&c, kind == LCP_ENUM || kind == LCP_PMATRIX || kind == LCP_SOLVE ? 4 : 16,
                 11 + kind);
        c.kind = kind;
        test_alloc_case tc = {names[kind], lcp_run, lcp_unchanged, NULL, &c};
        every_failure(&tc);
    }
}

/* ---- MCP: FB-Newton dense and sparse, box merit -------------------------------------------- */

typedef struct mcp_case {
    cdyn_mcp mcp;
    tp_kkt kkt;
    outbuf out;
    int box_merit;
} mcp_case;

static cdyn_status mcp_run(void *ctx, const cdyn_allocator *a)
{
    mcp_case *c = ctx;
    const int n = c->mcp.n;
    out_reset(&c->out, n);
    const double *start = n == 4 ? (const double[4]){1, 1, 1, 1} : TP_KKT_STARTS[0];
    memcpy(c->out.v, start, sizeof(double) * (size_t)n);
    memcpy(c->out.copy, start, sizeof(double) * (size_t)n);
    if (c->box_merit) {
        cdyn_box_merit_options o;
        cdyn_box_merit_defaults(&o);
        o.allocator = a;
        return cdyn_box_merit_solve(&c->mcp, &o, c->out.v, NULL);
    }
    cdyn_mcp_options o;
    cdyn_mcp_defaults(&o);
    o.allocator = a;
    return cdyn_mcp_solve(&c->mcp, &o, c->out.v, NULL);
}

static int mcp_unchanged(void *ctx)
{
    return out_unchanged(&((mcp_case *)ctx)->out);
}

static void test_mcp(void **state)
{
    (void)state;
    for (int k = 0; k < 3; ++k) {
        mcp_case c;
        memset(&c, 0, sizeof c);
        if (k == 1) { /* sparse: the KKT system with every kind of bound, KLU */
            tp_kkt_init(&c.kkt);
            c.mcp.n = TP_KKT_N;
            c.mcp.lower = TP_KKT_LO;
            c.mcp.upper = TP_KKT_UP;
            c.mcp.F = tp_kkt_F;
            c.mcp.colptr = c.kkt.colptr;
            c.mcp.rowind = c.kkt.rowind;
            c.mcp.jac_sparse = tp_kkt_J_sparse;
            c.mcp.ctx = &c.kkt;
        } else { /* dense: Kojima-Shindo */
            c.mcp.n = 4;
            c.mcp.F = tp_ks_F;
            c.mcp.jac = tp_ks_J;
            c.box_merit = k == 2;
        }
        static const char *names[] = {"cdyn_mcp_solve (dense)", "cdyn_mcp_solve (sparse)",
                                      "cdyn_box_merit_solve"};
        test_alloc_case tc = {names[k], mcp_run, mcp_unchanged, NULL, &c};
        every_failure(&tc);
    }
}

/* ---- Friction-cone QP, dense and sparse, and its certificate ------------------------------- */

typedef struct cq_case {
    cdyn_coneqp p;
    outbuf out;
    int certify;
} cq_case;

static cdyn_status cq_run(void *ctx, const cdyn_allocator *a)
{
    cq_case *c = ctx;
    const int n = cdyn_coneqp_size(&c->p);
    out_reset(&c->out, 2 * n + 6);
    cdyn_coneqp_options o;
    cdyn_coneqp_defaults(&o);
    o.allocator = a;
    if (c->certify) {
        double x[9] = {1, 0, 0, 1, 0, 0, 1, 0, 0};
        return cdyn_coneqp_certify(&c->p, x, NULL, a, (cdyn_coneqp_info *)(c->out.v + 2 * n),
                                   NULL);
    }
    return cdyn_coneqp_solve(&c->p, &o, c->out.v, c->out.v + n, NULL, NULL);
}

static int cq_unchanged(void *ctx)
{
    return out_unchanged(&((cq_case *)ctx)->out);
}

static void test_coneqp(void **state)
{
    (void)state;
    test_rng g;
    test_rng_seed(&g, 5);
    const int dims[3] = {3, 2, 3};
    double *H = NULL;
    test_csc lower;
    cq_chain_delassus(&g, 3, dims, &H, &lower);
    const double mu[3] = {0.5, 0.3, 0.8}, cvec[8] = {-1, 0.2, 0.1, -0.5, 0.3, -2, 0.1, -0.1};
    cdyn_csc Hs = lower.A;
    static const char *names[] = {"cdyn_coneqp_solve (dense)", "cdyn_coneqp_solve (sparse)",
                                  "cdyn_coneqp_certify"};
    for (int k = 0; k < 3; ++k) {
        cq_case c;
        memset(&c, 0, sizeof c);
        c.p.ncontacts = 3;
        c.p.dims = dims;
        c.p.mu = mu;
        c.p.c = cvec;
        if (k == 1)
            c.p.Hs = &Hs;
        else
            c.p.H = H;
        c.certify = k == 2;
        test_alloc_case tc = {names[k], cq_run, cq_unchanged, NULL, &c};
        every_failure(&tc);
    }
    free(H);
    test_csc_free(&lower);
}

/* ---- LP and UCP ----------------------------------------------------------------------------- */

typedef struct lp_case {
    outbuf out;
} lp_case;

/* min -x0 - 2 x1 subject to x0 + x1 + s0 = 4, x0 + 3 x1 + s1 = 6, x >= 0. */
static cdyn_status lp_run(void *ctx, const cdyn_allocator *a)
{
    lp_case *c = ctx;
    static const double A[8] = {1, 1, 1, 3, 1, 0, 0, 1}, b[2] = {4, 6}, cv[4] = {-1, -2, 0, 0};
    const cdyn_lp lp = {2, 4, A, b, cv};
    out_reset(&c->out, 4 + 2 + 2 + 1);
    int basis[2] = {-5, -5};
    cdyn_lp_options o;
    cdyn_lp_defaults(&o);
    o.allocator = a;
    cdyn_status st = cdyn_lp_solve(&lp, &o, c->out.v, c->out.v + 4, basis, c->out.v + 8, NULL);
    if (st != CDYN_OK && (basis[0] != -5 || basis[1] != -5))
        return CDYN_EINVAL;
    return st;
}

static int lp_unchanged(void *ctx)
{
    return out_unchanged(&((lp_case *)ctx)->out);
}

typedef struct ucp_case {
    const cdyn_ucp_problem *p;
    cdyn_ucp_random_spec spec;
    cdyn_ucp_instance *inst;
    outbuf out;
    int random; /* 1: the case is cdyn_ucp_random itself */
} ucp_case;

static cdyn_status ucp_run(void *ctx, const cdyn_allocator *a)
{
    ucp_case *c = ctx;
    if (c->random) {
        c->inst = (cdyn_ucp_instance *)c; /* a sentinel: must stay on failure... */
        cdyn_status st = cdyn_ucp_random(&c->spec, a, &c->inst, NULL);
        if (st != CDYN_OK && c->inst != NULL) /* ...or be set to NULL, as documented */
            return CDYN_EINVAL;
        return st;
    }
    const int nc = c->p->nc, nq = c->p->nq, nt = c->p->ntheta;
    out_reset(&c->out, 10 * nc + nq + 2 * nt);
    double *o = c->out.v;
    cdyn_ucp_solution sol = {o, o + 3 * nc, o + 6 * nc, o + 7 * nc, o + 8 * nc, o + 9 * nc,
                             o + 10 * nc, o + 10 * nc + nq, o + 10 * nc + nq + nt};
    cdyn_ucp_options uo;
    cdyn_ucp_defaults(&uo);
    uo.allocator = a;
    return cdyn_ucp_solve(c->p, &uo, &sol, NULL, NULL);
}

static int ucp_unchanged(void *ctx)
{
    ucp_case *c = ctx;
    return c->random ? c->inst == NULL : out_unchanged(&c->out);
}

static void ucp_release(void *ctx)
{
    ucp_case *c = ctx;
    if (c->random) {
        cdyn_ucp_instance_free(c->inst);
        c->inst = NULL;
    }
}

static void test_lp_ucp(void **state)
{
    (void)state;
    lp_case lc;
    test_alloc_case tl = {"cdyn_lp_solve", lp_run, lp_unchanged, NULL, &lc};
    every_failure(&tl);

    /* A random grasp the algorithm solves (the first seed that does, without failures). */
    ucp_case uc;
    memset(&uc, 0, sizeof uc);
    uc.spec = (cdyn_ucp_random_spec){3, 1.0, 2, 1, CDYN_UCP_FINGER_TWO_LINK};
    cdyn_ucp_instance *inst = NULL;
    for (;; uc.spec.seed++) {
        assert_true(uc.spec.seed < 100);
        assert_int_equal(cdyn_ucp_random(&uc.spec, NULL, &inst, NULL), CDYN_OK);
        if (cdyn_ucp_solve(&inst->problem, NULL, NULL, NULL, NULL) == CDYN_OK)
            break;
        cdyn_ucp_instance_free(inst);
    }
    uc.p = &inst->problem;
    test_alloc_case tu = {"cdyn_ucp_solve", ucp_run, ucp_unchanged, ucp_release, &uc};
    every_failure(&tu);
    uc.random = 1;
    test_alloc_case tr = {"cdyn_ucp_random", ucp_run, ucp_unchanged, ucp_release, &uc};
    every_failure(&tr);
    cdyn_ucp_instance_free(inst);
}

/* ---- LCP files ------------------------------------------------------------------------------ */

typedef struct file_case {
    const char *text;
    size_t length;
    const char *path; /* non-NULL: cdyn_lcp_file_read */
    cdyn_lcp_file *out;
} file_case;

static cdyn_status file_run(void *ctx, const cdyn_allocator *a)
{
    file_case *c = ctx;
    c->out = (cdyn_lcp_file *)c; /* a sentinel the reader must leave on failure */
    return c->path != NULL ? cdyn_lcp_file_read(c->path, a, &c->out, NULL)
                           : cdyn_lcp_file_parse(c->text, c->length, a, &c->out, NULL);
}

static int file_unchanged(void *ctx)
{
    file_case *c = ctx;
    return c->out == (cdyn_lcp_file *)c;
}

static void file_release(void *ctx)
{
    file_case *c = ctx;
    cdyn_lcp_file_free(c->out);
}

static void test_lcp_file(void **state)
{
    (void)state;
    static const char text[] = "2\n0\n2 2\n2 2\n2 1\n1 2\n-5 -6\na comment\n";
    file_case c = {text, sizeof text - 1, NULL, NULL};
    test_alloc_case tc = {"cdyn_lcp_file_parse", file_run, file_unchanged, file_release, &c};
    every_failure(&tc);
    file_case r = {NULL, 0, CDYN_TEST_DATA_DIR "/lcp_ortiz.dat", NULL};
    test_alloc_case tr = {"cdyn_lcp_file_read", file_run, file_unchanged, file_release, &r};
    every_failure(&tr);
}

/* ---- Frictional contact problems: the solvers and the readers ------------------------------ */

enum { FC_N = 12 };

typedef struct fc3d_case {
    double W[9 * FC_N * FC_N], q[3 * FC_N], mu[FC_N];
    cdyn_fc3d p;
    outbuf out; /* r then u */
    int which;  /* 0 default chain, 1 Gauss-Seidel, 2 Newton-AC dense, 3 Newton-FB by KLU */
} fc3d_case;

/* W = B B' + I/10 with B random (3n x 3n): dense, symmetric positive definite; q_N < 0 pushes
 * every contact into touch; mu in [0.1, 0.4]. */
static void fc3d_make(fc3d_case *c, uint64_t seed)
{
    test_rng rng;
    test_rng_seed(&rng, seed);
    const int m = 3 * FC_N;
    test_random_spd(&rng, m, 0.1, c->W);
    for (int i = 0; i < FC_N; ++i) {
        c->q[3 * i] = test_rng_range(&rng, -1.0, -0.1);
        c->q[3 * i + 1] = test_rng_range(&rng, -1.0, 1.0);
        c->q[3 * i + 2] = test_rng_range(&rng, -1.0, 1.0);
        c->mu[i] = test_rng_range(&rng, 0.1, 0.4);
    }
    c->p = (cdyn_fc3d){FC_N, c->W, NULL, c->q, c->mu};
}

static cdyn_status fc3d_run(void *ctx, const cdyn_allocator *a)
{
    fc3d_case *c = ctx;
    const int m = 3 * FC_N;
    out_reset(&c->out, 2 * m);
    for (int k = 0; k < m; ++k) /* a finite start */
        c->out.v[k] = c->out.copy[k] = 0.0;
    double *r = c->out.v, *u = c->out.v + m;
    if (c->which == 0) {
        cdyn_fc3d_options o;
        cdyn_fc3d_defaults(&o);
        o.allocator = a;
        return cdyn_fc3d_solve(&c->p, &o, r, u, NULL);
    }
    if (c->which == 1) {
        cdyn_fc3d_nsgs_options o;
        cdyn_fc3d_nsgs_defaults(&o);
        o.allocator = a;
        return cdyn_fc3d_nsgs(&c->p, &o, r, u, NULL);
    }
    cdyn_fc3d_newton_options o;
    cdyn_fc3d_newton_defaults(&o);
    o.allocator = a;
    o.linear = c->which == 2 ? CDYN_FC3D_LINEAR_DENSE : CDYN_FC3D_LINEAR_SPARSE;
    o.formulation = c->which == 2 ? CDYN_FC3D_ALART_CURNIER : CDYN_FC3D_FISCHER_BURMEISTER;
    return cdyn_fc3d_newton(&c->p, &o, r, u, NULL);
}

static int fc3d_unchanged(void *ctx)
{
    return out_unchanged(&((fc3d_case *)ctx)->out);
}

typedef struct fc3d_file_case {
    const char *text;
    size_t length;
    const char *path; /* non-NULL: cdyn_fc3d_file_load */
    cdyn_fc3d_file *out;
} fc3d_file_case;

static cdyn_status fc3d_file_run(void *ctx, const cdyn_allocator *a)
{
    fc3d_file_case *c = ctx;
    c->out = (cdyn_fc3d_file *)c; /* a sentinel the reader must leave on failure */
    return c->path != NULL ? cdyn_fc3d_file_load(c->path, a, &c->out, NULL)
                           : cdyn_fc3d_file_parse(c->text, c->length, a, &c->out, NULL);
}

static int fc3d_file_unchanged(void *ctx)
{
    fc3d_file_case *c = ctx;
    return c->out == (cdyn_fc3d_file *)c;
}

static void fc3d_file_release(void *ctx)
{
    cdyn_fc3d_file_free(((fc3d_file_case *)ctx)->out);
}

static void test_fc3d(void **state)
{
    (void)state;
    static const char *names[] = {"cdyn_fc3d_solve", "cdyn_fc3d_nsgs", "cdyn_fc3d_newton (AC)",
                                  "cdyn_fc3d_newton (FB, KLU)"};
    static fc3d_case c; /* 10 KiB of W: not on the stack */
    fc3d_make(&c, 77);
    for (int k = 0; k < 4; ++k) {
        c.which = k;
        test_alloc_case tc = {names[k], fc3d_run, fc3d_unchanged, NULL, &c};
        every_failure(&tc);
    }
    static const char text[] = "3\n2\n0\n6\n6\n6 6\n"
                               "2 0 0 1 0 0 0 2 0 0 0 0 0 0 2 0 0 0 1 0 0 2 0 0 0 0 0 0 2 0 "
                               "0 0 0 0 0 2\n-1 0.5 0 -1 0 0.25\n0.5 0.3\nflag\n";
    fc3d_file_case t = {text, sizeof text - 1, NULL, NULL};
    test_alloc_case tt = {"cdyn_fc3d_file_parse", fc3d_file_run, fc3d_file_unchanged,
                          fc3d_file_release, &t};
    every_failure(&tt);
    const char *paths[] = {CDYN_TEST_DATA_DIR "/fc3d/FC3D_Example1_SBM.dat",
                           CDYN_TEST_DATA_DIR "/fc3d/FrictionContactProblem00031.dat",
                           CDYN_TEST_DATA_DIR "/fc3d/LMGC_100_PR_PerioBox-i00361-60-03000.hdf5",
                           CDYN_TEST_DATA_DIR "/fc3d/Box_Stacks-i0122-82-5.hdf5"};
    static const char *pnames[] = {"cdyn_fc3d_file_load (SBM)", "cdyn_fc3d_file_load (2-D)",
                                   "cdyn_fc3d_file_load (FCLib)",
                                   "cdyn_fc3d_file_load (FCLib global)"};
    for (int k = 0; k < 4; ++k) {
        if (k >= 2 && !cdyn_fc3d_has_fclib())
            continue;
        fc3d_file_case f = {NULL, 0, paths[k], NULL};
        test_alloc_case tf = {pnames[k], fc3d_file_run, fc3d_file_unchanged, fc3d_file_release,
                              &f};
        every_failure(&tf);
    }
}

/* ---- Model builder, model and data ---------------------------------------------------------- */

typedef struct model_case {
    cdyn_builder *b;
    cdyn_model *m;
    cdyn_data *d;
} model_case;

/* A planar model with every kind of element: free bodies (enough to grow the builder's arrays),
 * a revolute chain, plane, polygon and ellipse geometry, two contact pairs; then its data and
 * one evaluation. Outputs: the handles, NULL on failure. */
static cdyn_status model_run(void *ctx, const cdyn_allocator *a)
{
    model_case *c = ctx;
    c->b = NULL;
    c->m = NULL;
    c->d = NULL;
    cdyn_builder_options o;
    cdyn_builder_defaults(&o, 2);
    o.allocator = a;
    cdyn_builder *b = (cdyn_builder *)c;
    cdyn_status st = cdyn_builder_create(&o, &b, NULL);
    if (st != CDYN_OK)
        return b == NULL ? st : CDYN_EINVAL;
    c->b = b;
    int body = -1, g0 = -1, g1 = -1, g2 = -1;
    for (int i = 0; i < 10 && st == CDYN_OK; ++i) {
        cdyn_body_desc bd = tm_free_body(1, 0, 0, 0.1);
        st = cdyn_builder_add_body(b, &bd, &body, NULL);
    }
    const double z[3] = {0, 0, 1};
    cdyn_body_desc links[2] = {tm_joint(CDYN_JOINT_REVOLUTE, 0, NULL, z, 1, NULL, 0, 0, .1),
                               tm_joint(CDYN_JOINT_REVOLUTE, 0, NULL, z, 1, NULL, 0, 0, .1)};
    if (st == CDYN_OK)
        st = cdyn_builder_add_chain(b, CDYN_GROUND, 2, links, NULL, NULL);
    cdyn_geom_desc gd = tm_geom(CDYN_GROUND, CDYN_GEOM_PLANE, 0, 0, 0);
    if (st == CDYN_OK)
        st = cdyn_builder_add_geom(b, &gd, &g0, NULL);
    gd = tm_geom(body, CDYN_GEOM_POLYGON, 0, 0, 0);
    const double tri[6] = {0, 0, 1, 0, 0, 1};
    gd.n_vertices = 3;
    gd.vertices = tri;
    if (st == CDYN_OK)
        st = cdyn_builder_add_geom(b, &gd, &g1, NULL);
    gd = tm_geom(0, CDYN_GEOM_ELLIPSE, 0.2, 0.1, 0);
    if (st == CDYN_OK)
        st = cdyn_builder_add_geom(b, &gd, &g2, NULL);
    cdyn_contact_pair_desc p;
    cdyn_contact_pair_desc_defaults(&p);
    p.geom_a = g0;
    p.geom_b = g1;
    if (st == CDYN_OK)
        st = cdyn_builder_add_contact_pair(b, &p, NULL, NULL);
    p.geom_b = g2;
    if (st == CDYN_OK)
        st = cdyn_builder_add_contact_pair(b, &p, NULL, NULL);
    cdyn_model *m = (cdyn_model *)c;
    if (st == CDYN_OK) {
        st = cdyn_builder_build(b, &m, NULL);
        if (st != CDYN_OK)
            return m == NULL ? st : CDYN_EINVAL;
        c->m = m;
    }
    cdyn_data_options dopt;
    cdyn_data_defaults(&dopt);
    dopt.allocator = a;
    cdyn_data *d = (cdyn_data *)c;
    if (st == CDYN_OK) {
        st = cdyn_data_create(c->m, &dopt, &d, NULL);
        if (st != CDYN_OK)
            return d == NULL ? st : CDYN_EINVAL;
        c->d = d;
    }
    if (st == CDYN_OK) {
        double q[40], v[40] = {0};
        cdyn_model_default_q(c->m, q);
        st = cdyn_eval(c->m, c->d, q, v, CDYN_EVAL_ALL, NULL);
    }
    return st;
}

static void model_release(void *ctx)
{
    model_case *c = ctx;
    cdyn_data_free(c->d);
    cdyn_model_free(c->m);
    cdyn_builder_free(c->b);
    c->b = NULL;
    c->m = NULL;
    c->d = NULL;
}

/* A failed call leaves its *out NULL (checked in model_run); what was built before it is freed
 * here, so the live count covers the failed call alone. */
static int model_unchanged(void *ctx)
{
    model_release(ctx);
    return 1;
}

static void test_model(void **state)
{
    (void)state;
    model_case c = {0};
    test_alloc_case tc = {"builder, model, data, eval", model_run, model_unchanged,
                          model_release, &c};
    every_failure(&tc);
}

/* ---- URDF loading ------------------------------------------------------------------------- */

/* A builder (on the same allocator) holding one body, then tests/data/urdf/walker.urdf added
 * from its file with a floating base: the file's text, the loader's description and map and the
 * builder's growth all fail in turn. Outputs: the map (left alone on failure) and the builder's
 * contents (its sizes back at the mark: the load is all or nothing). libxml2's allocations are
 * its own (docs/api.md). */
typedef struct urdf_case {
    cdyn_builder *b;
    cdyn_urdf_map *map;
    cdyn_builder_mark mark;
} urdf_case;

static cdyn_status urdf_run(void *ctx, const cdyn_allocator *a)
{
    urdf_case *c = ctx;
    c->b = NULL;
    c->map = (cdyn_urdf_map *)c; /* a sentinel */
    cdyn_builder_options o;
    cdyn_builder_defaults(&o, 3);
    o.allocator = a;
    cdyn_status st = cdyn_builder_create(&o, &c->b, NULL);
    if (st != CDYN_OK)
        return st;
    cdyn_body_desc ball = tm_free_body(1, 0.1, 0.1, 0.1);
    c->mark = cdyn_builder_get_mark(c->b); /* what each failing call must leave */
    st = cdyn_builder_add_body(c->b, &ball, NULL, NULL);
    if (st != CDYN_OK)
        return st;
    c->mark = cdyn_builder_get_mark(c->b);
    cdyn_urdf_options uo;
    cdyn_urdf_defaults(&uo);
    uo.floating_base = 1;
    return cdyn_builder_add_urdf(c->b, CDYN_TEST_DATA_DIR "/urdf/walker.urdf", &uo, &c->map,
                                 NULL);
}

static void urdf_release(void *ctx)
{
    urdf_case *c = ctx;
    if (c->map != (cdyn_urdf_map *)c)
        cdyn_urdf_map_free(c->map);
    cdyn_builder_free(c->b);
    c->b = NULL;
    c->map = (cdyn_urdf_map *)c;
}

static int urdf_unchanged(void *ctx)
{
    urdf_case *c = ctx;
    int same = c->map == (cdyn_urdf_map *)c;
    if (c->b != NULL) {
        const cdyn_builder_mark now = cdyn_builder_get_mark(c->b);
        same = same && memcmp(&now, &c->mark, sizeof now) == 0;
    }
    urdf_release(ctx);
    return same;
}

static void test_urdf(void **state)
{
    (void)state;
    urdf_case c;
    memset(&c, 0, sizeof c);
    test_alloc_case tc = {"URDF load", urdf_run, urdf_unchanged, urdf_release, &c};
    every_failure(&tc);
}

/* ---- States: snapshots for "unchanged" ------------------------------------------------------- */

static int state_equal(const cdyn_state *a, const cdyn_state *b)
{
    return a->t == b->t && memcmp(a->q, b->q, sizeof(double) * (size_t)a->nq) == 0 &&
           memcmp(a->v, b->v, sizeof(double) * (size_t)a->nv) == 0 &&
           memcmp(a->delta, b->delta, sizeof(double) * 3 * (size_t)a->nc) == 0 &&
           memcmp(a->lambda, b->lambda, sizeof(double) * 3 * (size_t)a->nc) == 0 &&
           memcmp(a->mode, b->mode, sizeof(int) * (size_t)a->nc) == 0;
}

/* ---- Instantaneous problem ------------------------------------------------------------------ */

typedef struct instant_case {
    cdyn_model *m;
    cdyn_data *d;
    int kind; /* 0 pyramid, 1 cone by box merit, 2 cone by FB-Newton */
    outbuf out;
    int modes[8], modes_copy[8];
} instant_case;

static cdyn_status instant_run(void *ctx, const cdyn_allocator *a)
{
    instant_case *c = ctx;
    const int nv = cdyn_model_nv(c->m), nc = cdyn_model_ncontact(c->m);
    double q[7], v[6] = {1, 0, 0, 0, 0, 0}, tau[6] = {0.5, 0, 0, 0, 0, 0};
    cdyn_model_default_q(c->m, q);
    q[2] = 0.05; /* resting on the plane: sliding at 1 m/s */
    out_reset(&c->out, nv + 6 * nc);
    for (int i = 0; i < nc; ++i)
        c->modes[i] = c->modes_copy[i] = -3;
    double *o = c->out.v;
    cdyn_instant_result r;
    memset(&r, 0, sizeof r);
    r.vdot = o;
    r.lambda_n = o + nv;
    r.lambda_t = o + nv + nc;
    r.lambda_o = o + nv + 2 * nc;
    r.acc_n = o + nv + 3 * nc;
    r.acc_t = o + nv + 4 * nc;
    r.acc_o = o + nv + 5 * nc;
    r.mode = (cdyn_instant_mode *)c->modes;
    cdyn_instant_options io;
    cdyn_instant_defaults(&io);
    if (c->kind > 0) {
        io.friction = CDYN_INSTANT_CONE;
        io.ncp_solver = c->kind == 1 ? CDYN_INSTANT_BOX_MERIT : CDYN_INSTANT_FB_NEWTON;
    }
    io.allocator = a;
    return cdyn_instant_solve(c->m, c->d, q, v, tau, &io, &r, NULL);
}

static int instant_unchanged(void *ctx)
{
    instant_case *c = ctx;
    return out_unchanged(&c->out) && memcmp(c->modes, c->modes_copy, sizeof c->modes) == 0;
}

static void test_instant(void **state)
{
    (void)state;
    static const char *names[] = {"cdyn_instant_solve (pyramid)",
                                  "cdyn_instant_solve (cone, box)",
                                  "cdyn_instant_solve (cone, FB)"};
    for (int kind = 0; kind < 3; ++kind) {
        instant_case c;
        memset(&c, 0, sizeof c);
        c.m = scene_sphere(0.05, 0.2, 0.2);
        assert_int_equal(cdyn_data_create(c.m, NULL, &c.d, NULL), CDYN_OK);
        c.kind = kind;
        test_alloc_case tc = {names[kind], instant_run, instant_unchanged, NULL, &c};
        every_failure(&tc);
        cdyn_data_free(c.d);
        cdyn_model_free(c.m);
    }
}

/* ---- Stepper: state, stepper, the first steps (the arena grows during warm-up) ------------ */

#define STEP_CYCLE 60 /* steps of a cycle run */

typedef struct step_case {
    cdyn_model *m;
    cdyn_scheme scheme;
    cdyn_state *x, *snap;
    cdyn_stepper *s;
    int kept; /* 1 when a failed call left its output as it was */
    int derivs;             /* then cdyn_step_derivatives after the steps, into out (2: with
                               parameter columns, cdyn_step_param_derivatives) */
    double out[512], copy[512];
    int analyses; /* the run's KLU analyses */
    int cycle; /* the sparse implicit step with the sphere lifted off the floor and landing again
                  (rows 1, 0, 1: a new solver, then a kept one), 2: keeping one solver */
} step_case;

static void step_release(void *ctx)
{
    step_case *c = ctx;
    cdyn_stepper_free(c->s);
    cdyn_state_free(c->x);
    c->s = NULL;
    c->x = NULL;
}

static cdyn_status step_run(void *ctx, const cdyn_allocator *a)
{
    step_case *c = ctx;
    c->kept = 1;
    cdyn_state *x = (cdyn_state *)c;
    cdyn_status st = cdyn_state_create(c->m, a, &x, NULL);
    if (st != CDYN_OK) {
        c->kept = x == NULL;
        return st;
    }
    c->x = x;
    x->q[2] = 0.05;
    x->v[0] = c->cycle ? 0 : 1;
    x->v[3] = c->cycle ? 0 : 40;
    cdyn_step_options o;
    cdyn_step_defaults(&o, c->scheme);
    o.allocator = a;
    if (c->cycle)
        o.backend = CDYN_BACKEND_FB_SPARSE;
    cdyn_stepper *s = (cdyn_stepper *)c;
    st = cdyn_stepper_create(c->m, &o, &s, NULL);
    if (st != CDYN_OK) {
        c->kept = s == NULL;
        return st;
    }
    c->s = s;
    if (c->cycle == 2)
        ((ncp_ws *)s->ws)->nkept = 1;
    c->analyses = 0;
    for (int i = 0; i < (c->cycle ? STEP_CYCLE : 3); ++i) {
        double tau[6] = {0, 0, i < 10 ? 2 * 0.2 * 9.81 : 0.0, 0, 0, 0};
        cdyn_step_report rep;
        assert_int_equal(cdyn_state_copy(c->snap, x, NULL), CDYN_OK);
        st = cdyn_step(s, c->cycle ? tau : NULL, x, &rep);
        c->analyses += st == CDYN_OK ? rep.analyses : 0;
        if (st != CDYN_OK) {
            c->kept = state_equal(x, c->snap);
            return st;
        }
    }
    if (c->derivs) {
        const int nx = cdyn_step_deriv_nx(s), nv = cdyn_model_nv(c->m);
        const cdyn_param p[2] = {{CDYN_PARAM_MU, 0, 0}, {CDYN_PARAM_GEOM_SIZE, 1, 0}};
        assert_true(nx * (nx + nv + 2) <= 512);
        for (int k = 0; k < 512; ++k)
            c->out[k] = c->copy[k] = -1000.0 - k;
        if (c->derivs == 2)
            st = cdyn_step_param_derivatives(s, CDYN_DERIV_RELEASED, nx, nv, c->out,
                                             c->out + nx * nx, 2, p,
                                             c->out + nx * (nx + nv), NULL);
        else
            st = cdyn_step_derivatives(s, CDYN_DERIV_RELEASED, nx, nv, c->out,
                                       c->out + nx * nx, NULL);
        if (st != CDYN_OK)
            c->kept = memcmp(c->out, c->copy, sizeof c->out) == 0;
    }
    return st;
}

static int step_unchanged(void *ctx)
{
    step_case *c = ctx;
    step_release(ctx);
    return c->kept;
}

static void test_stepper(void **state)
{
    (void)state;
    static const char *names[] = {"stepper (implicit NCP)", "stepper (pyramid LCP)",
                                  "stepper (cone step)", "stepper (Baumgarte)",
                                  "stepper (Coulomb step)"};
    for (int k = 0; k < 5; ++k) {
        step_case c;
        memset(&c, 0, sizeof c);
        c.m = scene_sphere(0.05, 0.2, 0.2);
        c.scheme = (cdyn_scheme)k;
        assert_int_equal(cdyn_state_create(c.m, NULL, &c.snap, NULL), CDYN_OK);
        test_alloc_case tc = {names[k], step_run, step_unchanged, step_release, &c};
        every_failure(&tc);
        if (k == 0) { /* and the step's derivatives after it */
            c.derivs = 1;
            test_alloc_case td = {"step derivatives", step_run, step_unchanged, step_release, &c};
            every_failure(&td);
            c.derivs = 2;
            test_alloc_case tp = {"step parameter derivatives", step_run, step_unchanged,
                                  step_release, &c};
            every_failure(&tp);
        }
        cdyn_state_free(c.snap);
        cdyn_model_free(c.m);
    }
    /* the implicit step's kept solvers: built, taken up again, and (keeping one) rebuilt in
       place of the last, with each allocation failing in turn */
    for (int cycle = 1; cycle <= 2; ++cycle) {
        step_case c;
        memset(&c, 0, sizeof c);
        c.m = scene_sphere_margin(0.05, 0.2, 0.2, 9.81, 0.01);
        c.scheme = CDYN_SCHEME_IMPLICIT_NCP;
        c.cycle = cycle;
        assert_int_equal(cdyn_state_create(c.m, NULL, &c.snap, NULL), CDYN_OK);
        assert_int_equal(step_run(&c, NULL), CDYN_OK);
        /* the run went through two row sets and back: 2 analyses, 3 with one solver kept */
        assert_int_equal(c.analyses, cycle + 1);
        step_release(&c);
        test_alloc_case tc = {cycle == 1 ? "stepper (implicit NCP, kept solvers)"
                                         : "stepper (implicit NCP, one solver)",
                              step_run, step_unchanged, step_release, &c};
        every_failure(&tc);
        cdyn_state_free(c.snap);
        cdyn_model_free(c.m);
    }
}

/* ---- BVP: Song-Kumar-Pang's disk (tests/test_bvp.c), whole-trajectory Newton and shooting -- */

enum { BVP_N = 10 };

typedef struct bvp_case {
    cdyn_model *m;
    cdyn_state *traj[BVP_N + 1], *copy[BVP_N + 1];
    int shoot;
} bvp_case;

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
    return c->shoot ? cdyn_bvp_shoot(c->m, &o, &bc, c->traj, NULL)
                    : cdyn_bvp_solve(c->m, &o, &bc, c->traj, NULL);
}

/* cdyn_bvp_shoot documents traj as "the trajectory of the last IVP run" on every return (its
 * segments are integrated in place, from the Newton iterate's start): after a failure only the
 * fixed start components are promised. */
static int bvp_unchanged(void *ctx)
{
    bvp_case *c = ctx;
    if (c->shoot) {
        static const int fixed0[8] = {1, 1, 1, 0, 1, 1, 1, 1};
        double a[8], b[8];
        cdyn_bvp_state_pack(c->m, c->traj[0], a);
        cdyn_bvp_state_pack(c->m, c->copy[0], b);
        for (int i = 0; i < 8; ++i)
            if (fixed0[i] && memcmp(&a[i], &b[i], sizeof a[i]) != 0)
                return 0;
        return 1;
    }
    for (int l = 0; l <= BVP_N; ++l)
        if (!state_equal(c->traj[l], c->copy[l]))
            return 0;
    return 1;
}

static void test_bvp(void **state)
{
    (void)state;
    static const char *names[] = {"cdyn_bvp_solve", "cdyn_bvp_shoot"};
    for (int k = 0; k < 2; ++k) {
        bvp_case c;
        memset(&c, 0, sizeof c);
        c.m = scene_disk(4.0, 1e6, 0.0);
        for (int l = 0; l <= BVP_N; ++l) {
            assert_int_equal(cdyn_state_create(c.m, NULL, &c.traj[l], NULL), CDYN_OK);
            assert_int_equal(cdyn_state_create(c.m, NULL, &c.copy[l], NULL), CDYN_OK);
        }
        c.shoot = k;
        test_alloc_case tc = {names[k], bvp_run, bvp_unchanged, NULL, &c};
        every_failure(&tc);
        for (int l = 0; l <= BVP_N; ++l) {
            cdyn_state_free(c.traj[l]);
            cdyn_state_free(c.copy[l]);
        }
        cdyn_model_free(c.m);
    }
}

static int report_total(void **state)
{
    (void)state;
    printf("allocation sites tested: %d\n", total_sites);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lcp),      cmocka_unit_test(test_mcp),
        cmocka_unit_test(test_coneqp),   cmocka_unit_test(test_lp_ucp),
        cmocka_unit_test(test_lcp_file), cmocka_unit_test(test_fc3d),
        cmocka_unit_test(test_model),    cmocka_unit_test(test_urdf),
        cmocka_unit_test(test_instant),  cmocka_unit_test(test_stepper),
        cmocka_unit_test(test_bvp),
    };
    return cmocka_run_group_tests(tests, NULL, report_total);
}
