/* Randomized scene stress of every time-stepping scheme (issue 17, item 4: "a simulator's step
 * does not fail"). Scenes as a user builds them: 1-30 solid spheres on a plane or in a box (floor
 * and four walls), masses 0.01-10 kg, mu 0-1.5, normal stiffness 1e3-1e7 N/m (tangential 0.3-1
 * times it) with a damping ratio zeta in [0, 1] for the pair's effective mass
 * (C = 2 zeta sqrt(K m_eff)), h from 1e-4 to 0.05 s, with and without step halving; spheres
 * resting, dropped and thrown with spin. Every scheme of cdyn_stepper runs 200 steps of every
 * scene: the implicit NCP with the smoothed friction rows and with the friction QP, the pyramid
 * LCP, the cone step, the Coulomb step and Baumgarte (frictionless, alpha0 = min(K / m_eff,
 * 1 / h^2), alpha1 = 2 max(zeta, 0.2) sqrt(alpha0): the docs' stability advice h sqrt(alpha0) <= 1).
 *
 * Checked on every step (a failure of these fails the test at once):
 *   - a failed step leaves the state bit-identical (the stepper's contract);
 *   - no NaN or Inf in the state;
 *   - no sphere below the floor by more than the bound from its weight and stiffness: with W the
 *     weight of the whole scene (every sphere may rest on one) and E the energy available above
 *     the scene's rest (twice the initial surplus, see below), a spring of stiffness K stops the
 *     sphere at delta with K delta^2 / 2 = E + W delta, so delta <= (W + sqrt(W^2 + 2 K E)) / K;
 *     K is the pair's normal stiffness (implicit NCP), m alpha0 (Baumgarte); the rigid schemes
 *     keep the floor's gap (linear in the sphere's height) at 0 to rounding: 1e-8 m;
 *   - energy does not grow without bound: E(t) - E_rest <= 2 (E(0) - E_rest) + 1e-3 W r_max, with
 *     E = kinetic + m g z (+ the springs' delta' K delta / 2 for the compliant scheme) and
 *     E_rest = sum m g r (the spheres lying on the floor).
 * Counted: runs that complete all their steps, per scheme. CI runs a short seeded version and
 * requires every run of every scheme to complete; the long version is documented in
 * docs/benchmarks.md ("Random-scene stress").
 *
 * Environment: CDYN_STRESS_SCENES (scenes; default 10), CDYN_STRESS_NMAX (largest sphere count;
 * default 6, the 30 in the long run), CDYN_STRESS_SEED (first seed; default 1),
 * CDYN_STRESS_SCHEMES (a subset of "ncp,qp,pyramid,cone,coulomb,baumgarte"),
 * CDYN_STRESS_STEPS (default 200), CDYN_TEST_VERBOSE (print every failure and the table),
 * CDYN_STRESS_NOASSERT (only report: for measuring failure rates), CDYN_STRESS_TRACE (print the
 * FB-Newton progress of the implicit scheme's solves); for diagnosis, CDYN_STRESS_FDJAC (the
 * implicit scheme's Newton matrix by differences), CDYN_STRESS_HALVINGS (max_halvings for every
 * scene), CDYN_STRESS_NM (the MCP's non-monotone memory), CDYN_STRESS_PENALIZED (the penalized
 * FB merit), CDYN_STRESS_CONT (the implicit scheme's continuation levels). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "cdyn/model.h"
#include "cdyn/step.h"
#include "support.h"

#define NMAX 30
#define GRAV 9.81

enum { SC_NCP, SC_QP, SC_PYRAMID, SC_CONE, SC_COULOMB, SC_BAUMGARTE, SC_COUNT };
static const char *const sc_names[SC_COUNT] = {"ncp", "qp", "pyramid", "cone", "coulomb",
                                                "baumgarte"};

typedef struct scene {
    unsigned long seed;
    int n, box, halvings;
    double r[NMAX], m[NMAX], q0[7 * NMAX], v0[6 * NMAX];
    double mu, kn, kt, zeta, h, half;
} scene;

typedef struct tally {
    int runs, completed, early; /* early: failed at step 0 or 1 */
    double seconds;
} tally;

static int env_int(const char *name, int dflt)
{
    const char *s = getenv(name);
    return s != NULL && *s != '\0' ? atoi(s) : dflt;
}

static int verbose(void)
{
    return getenv("CDYN_TEST_VERBOSE") != NULL;
}

/* log-uniform in [lo, hi] */
static double log_range(test_rng *g, double lo, double hi)
{
    return exp(test_rng_range(g, log(lo), log(hi)));
}

static void scene_draw(scene *s, unsigned long seed, int nmax)
{
    test_rng g;
    test_rng_seed(&g, 0x9e3779b97f4a7c15ull ^ (seed * 0x100000001b3ull));
    memset(s, 0, sizeof *s);
    s->seed = seed;
    s->n = 1 + (int)(test_rng_uniform(&g) * nmax);
    s->box = test_rng_uniform(&g) < 0.5;
    s->halvings = test_rng_uniform(&g) < 0.5 ? 0 : 8; /* off, or the default */
    s->mu = test_rng_uniform(&g) < 0.15 ? 0.0 : test_rng_range(&g, 0, 1.5);
    s->kn = log_range(&g, 1e3, 1e7);
    s->kt = s->kn * test_rng_range(&g, 0.3, 1.0);
    s->zeta = test_rng_range(&g, 0, 1);
    s->h = log_range(&g, 1e-4, 0.05);
    double rmax = 0;
    for (int i = 0; i < s->n; i++) {
        s->r[i] = test_rng_range(&g, 0.02, 0.08);
        s->m[i] = log_range(&g, 0.01, 10);
        rmax = fmax(rmax, s->r[i]);
    }
    /* a lattice of columns (one layer on the plane, a pile of layers in the box) */
    const int cols = s->box ? (int)ceil(sqrt(s->n / 2.0)) : (int)ceil(sqrt((double)s->n));
    const double pitch = 2.5 * rmax;
    s->half = 0.5 * cols * pitch + test_rng_range(&g, 0.0, 1.0) * rmax;
    for (int i = 0; i < s->n; i++) {
        const int a = i % cols, b = (i / cols) % cols, layer = i / (cols * cols);
        double *q = s->q0 + 7 * i, *v = s->v0 + 6 * i;
        q[0] = (a - 0.5 * (cols - 1)) * pitch + test_rng_range(&g, -0.1, 0.1) * rmax;
        q[1] = (b - 0.5 * (cols - 1)) * pitch + test_rng_range(&g, -0.1, 0.1) * rmax;
        const double u = test_rng_uniform(&g);
        const double drop = u < 0.4 ? 0.0 : test_rng_range(&g, 0, 0.2); /* resting or dropped */
        q[2] = s->r[i] + layer * (2.2 * rmax + 0.2) + drop; /* layers never overlap */
        q[3] = 1;
        const int thrown = test_rng_uniform(&g) < 0.5;
        for (int d = 0; d < 3; d++) {
            v[d] = thrown ? test_rng_range(&g, -1, 1) : 0.0;
            v[3 + d] = thrown ? test_rng_range(&g, -10, 10) : 0.0;
        }
        if (layer == 0 && drop == 0.0)
            v[2] = 0.0; /* a resting sphere does not start into the floor */
    }
}

/* Pair with compliance for the effective mass meff, Baumgarte gains for the scheme's h. */
static void add_pair(cdyn_builder *b, const scene *s, int ga, int gb, double meff, double margin)
{
    cdyn_contact_pair_desc p;
    cdyn_contact_pair_desc_defaults(&p);
    p.geom_a = ga;
    p.geom_b = gb;
    p.mu = s->mu;
    p.margin = margin;
    p.stiffness[0] = s->kn;
    p.stiffness[4] = p.stiffness[8] = s->kt;
    p.damping[0] = 2 * s->zeta * sqrt(s->kn * meff);
    p.damping[4] = p.damping[8] = 2 * s->zeta * sqrt(s->kt * meff);
    const double a0 = fmin(s->kn / meff, 1.0 / (s->h * s->h));
    p.baumgarte[0] = a0;
    p.baumgarte[1] = 2 * fmax(s->zeta, 0.2) * sqrt(a0);
    int id;
    assert_int_equal(cdyn_builder_add_contact_pair(b, &p, &id, NULL), CDYN_OK);
}

/* A plane through point with outward normal (nx, ny, nz) = the plane's +z. */
static int add_plane(cdyn_builder *b, double nx, double ny, double nz, double px, double py)
{
    cdyn_geom_desc g;
    cdyn_geom_desc_defaults(&g);
    const double ax = -ny, ay = nx, sn = sqrt(ax * ax + ay * ay); /* axis z x n */
    if (sn > 1e-12) {
        const double ang = atan2(sn, nz);
        g.frame.quat[0] = cos(ang / 2);
        g.frame.quat[1] = sin(ang / 2) * ax / sn;
        g.frame.quat[2] = sin(ang / 2) * ay / sn;
        g.frame.quat[3] = 0;
    }
    g.frame.pos[0] = px;
    g.frame.pos[1] = py;
    int id;
    assert_int_equal(cdyn_builder_add_geom(b, &g, &id, NULL), CDYN_OK);
    return id;
}

static cdyn_model *scene_model(const scene *s)
{
    cdyn_builder_options bo;
    cdyn_builder_defaults(&bo, 3);
    bo.gravity[2] = -GRAV;
    cdyn_builder *b = NULL;
    assert_int_equal(cdyn_builder_create(&bo, &b, NULL), CDYN_OK);
    int walls[5], nw = 1, gs[NMAX];
    walls[0] = add_plane(b, 0, 0, 1, 0, 0);
    if (s->box) {
        walls[1] = add_plane(b, 1, 0, 0, -s->half, 0);
        walls[2] = add_plane(b, -1, 0, 0, s->half, 0);
        walls[3] = add_plane(b, 0, 1, 0, 0, -s->half);
        walls[4] = add_plane(b, 0, -1, 0, 0, s->half);
        nw = 5;
    }
    double rmax = 0;
    for (int i = 0; i < s->n; i++) {
        cdyn_body_desc d;
        cdyn_body_desc_defaults(&d);
        d.mass = s->m[i];
        d.inertia[0] = d.inertia[1] = d.inertia[2] = 0.4 * s->m[i] * s->r[i] * s->r[i];
        int body;
        assert_int_equal(cdyn_builder_add_body(b, &d, &body, NULL), CDYN_OK);
        cdyn_geom_desc g;
        cdyn_geom_desc_defaults(&g);
        g.body = body;
        g.type = CDYN_GEOM_SPHERE;
        g.size[0] = s->r[i];
        assert_int_equal(cdyn_builder_add_geom(b, &g, &gs[i], NULL), CDYN_OK);
        rmax = fmax(rmax, s->r[i]);
    }
    /* the floor always takes part; walls and other spheres within two radii (a broad phase) */
    for (int i = 0; i < s->n; i++) {
        for (int w = 0; w < nw; w++)
            add_pair(b, s, walls[w], gs[i], s->m[i], w == 0 ? INFINITY : 2 * rmax);
        for (int j = i + 1; j < s->n; j++)
            add_pair(b, s, gs[i], gs[j], s->m[i] * s->m[j] / (s->m[i] + s->m[j]), 2 * rmax);
    }
    cdyn_model *m = NULL;
    assert_int_equal(cdyn_builder_build(b, &m, NULL), CDYN_OK);
    cdyn_builder_free(b);
    return m;
}

static double energy(const scene *s, const cdyn_model *m, const cdyn_state *x, int springs)
{
    double e = 0;
    for (int i = 0; i < s->n; i++) {
        const double *v = x->v + 6 * i, I = 0.4 * s->m[i] * s->r[i] * s->r[i];
        e += s->m[i] * GRAV * x->q[7 * i + 2] +
             0.5 * s->m[i] * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) +
             0.5 * I * (v[3] * v[3] + v[4] * v[4] + v[5] * v[5]);
    }
    if (springs)
        for (int c = 0; c < cdyn_model_ncontact(m); c++) {
            const double *dl = x->delta + 3 * c;
            e += 0.5 * (s->kn * dl[0] * dl[0] + s->kt * (dl[1] * dl[1] + dl[2] * dl[2]));
        }
    return e;
}

static int trace_progress(void *ctx, int it, double res)
{
    (void)ctx;
    print_message("    it %d: %.3e\n", it, res);
    return 0;
}

static void stepper_for(const cdyn_model *m, const scene *s, int sc, cdyn_stepper **out)
{
    static const cdyn_scheme map[SC_COUNT] = {
        CDYN_SCHEME_IMPLICIT_NCP, CDYN_SCHEME_IMPLICIT_NCP, CDYN_SCHEME_PYRAMID_LCP,
        CDYN_SCHEME_CONE_STEP, CDYN_SCHEME_COULOMB_STEP, CDYN_SCHEME_BAUMGARTE};
    cdyn_step_options o;
    cdyn_step_defaults(&o, map[sc]);
    o.h = s->h;
    o.max_halvings = env_int("CDYN_STRESS_HALVINGS", s->halvings);
    o.friction_qp = sc == SC_QP;
    if (getenv("CDYN_STRESS_TRACE") != NULL)
        o.mcp.progress = trace_progress;
    o.fd_jacobian = getenv("CDYN_STRESS_FDJAC") != NULL;
    o.mcp.nonmonotone_memory = env_int("CDYN_STRESS_NM", o.mcp.nonmonotone_memory);
    o.continuation = env_int("CDYN_STRESS_CONT", o.continuation);
    o.mcp.max_iter = env_int("CDYN_STRESS_MAXIT", o.mcp.max_iter);
    if (getenv("CDYN_STRESS_TOL") != NULL)
        o.mcp.tol = atof(getenv("CDYN_STRESS_TOL"));
    if (getenv("CDYN_STRESS_PENALIZED") != NULL)
        o.mcp.merit = CDYN_MCP_FB_PENALIZED;
    cdyn_report rep;
    if (cdyn_stepper_create(m, &o, out, &rep) != CDYN_OK)
        fail_msg("seed %lu %s: cdyn_stepper_create: %s", s->seed, sc_names[sc], rep.message);
}

static void describe(const scene *s, char *buf, size_t n)
{
    double mmin = INFINITY, mmax = 0;
    for (int i = 0; i < s->n; i++)
        mmin = fmin(mmin, s->m[i]), mmax = fmax(mmax, s->m[i]);
    snprintf(buf, n, "seed %lu: %d spheres %s, m %.3g..%.3g kg, mu %.2f, K %.3g N/m, zeta %.2f, "
             "h %.3g s, halvings %d", s->seed, s->n, s->box ? "in a box" : "on a plane", mmin,
             mmax, s->mu, s->kn, s->zeta, s->h, s->halvings);
}

/* One run of steps; returns the number of steps completed (= steps when it completed).
 * *rescued (NULL: not wanted) counts the steps solved by the last recoveries: the continuation
 * in the friction coefficients or the other friction law's start. */
static int run(const scene *s, const cdyn_model *m, int sc, int steps, char *why, size_t nwhy,
               int *rescued)
{
    cdyn_stepper *st = NULL;
    stepper_for(m, s, sc, &st);
    cdyn_state *x = NULL, *keep = NULL;
    assert_int_equal(cdyn_state_create(m, NULL, &x, NULL), CDYN_OK);
    assert_int_equal(cdyn_state_create(m, NULL, &keep, NULL), CDYN_OK);
    memcpy(x->q, s->q0, 7 * (size_t)s->n * sizeof(double));
    memcpy(x->v, s->v0, 6 * (size_t)s->n * sizeof(double));
    const int springs = sc == SC_NCP || sc == SC_QP;
    double W = 0, erest = 0, rmax = 0;
    for (int i = 0; i < s->n; i++) {
        W += s->m[i] * GRAV;
        erest += s->m[i] * GRAV * s->r[i];
        rmax = fmax(rmax, s->r[i]);
    }
    const double e0 = energy(s, m, x, springs);
    const double slack = 1e-3 * W * rmax, eallow = 2 * fmax(e0 - erest, 0.0) + slack;
    char desc[256];
    describe(s, desc, sizeof desc);
    int done = 0;
    why[0] = '\0';
    for (; done < steps; done++) {
        cdyn_state_copy(keep, x, NULL);
        cdyn_step_report rep;
        const cdyn_status status = cdyn_step(st, NULL, x, &rep);
        if (rescued != NULL && status == CDYN_OK && (rep.mu_path || rep.other_law)) {
            *rescued += 1;
            if (verbose())
                print_message("  step %d solved by %s\n", done,
                              rep.mu_path ? "the mu continuation" : "the other law's start");
        }
        if (status != CDYN_OK) {
            /* the contract: the caller's state is untouched */
            if (memcmp(x->q, keep->q, (size_t)x->nq * sizeof(double)) != 0 ||
                memcmp(x->v, keep->v, (size_t)x->nv * sizeof(double)) != 0 ||
                memcmp(x->delta, keep->delta, 3 * (size_t)x->nc * sizeof(double)) != 0 ||
                memcmp(x->lambda, keep->lambda, 3 * (size_t)x->nc * sizeof(double)) != 0 ||
                x->t != keep->t)
                fail_msg("%s, %s: a failed step changed the state", desc, sc_names[sc]);
            snprintf(why, nwhy, "step %d (t = %.4g s): %s: %s", done, x->t,
                     cdyn_status_str(status), rep.solver.message);
            break;
        }
        for (int j = 0; j < x->nq; j++)
            if (!isfinite(x->q[j]))
                fail_msg("%s, %s: q[%d] not finite after step %d", desc, sc_names[sc], j, done);
        for (int j = 0; j < x->nv; j++)
            if (!isfinite(x->v[j]))
                fail_msg("%s, %s: v[%d] not finite after step %d", desc, sc_names[sc], j, done);
        for (int i = 0; i < s->n; i++) {
            double K;
            if (sc == SC_NCP || sc == SC_QP)
                K = s->kn;
            else if (sc == SC_BAUMGARTE)
                K = s->m[i] * fmin(s->kn / s->m[i], 1.0 / (s->h * s->h));
            else
                K = INFINITY;
            const double bound =
                isinf(K) ? 1e-8 : (W + sqrt(W * W + 2 * K * eallow)) / K + 1e-8;
            const double pen = s->r[i] - x->q[7 * i + 2];
            if (pen > bound)
                fail_msg("%s, %s: sphere %d %.3g m below the floor after step %d (bound %.3g m)",
                         desc, sc_names[sc], i, pen, done, bound);
        }
        const double e = energy(s, m, x, springs);
        if (e - erest > eallow)
            fail_msg("%s, %s: energy %.6g J above rest after step %d, allowed %.6g J (start %.6g)",
                     desc, sc_names[sc], e - erest, done, eallow, e0 - erest);
    }
    cdyn_state_free(x);
    cdyn_state_free(keep);
    cdyn_stepper_free(st);
    return done;
}

static int wanted(int sc)
{
    const char *list = getenv("CDYN_STRESS_SCHEMES");
    if (list == NULL || *list == '\0')
        return 1;
    const size_t n = strlen(sc_names[sc]);
    for (const char *p = list; (p = strstr(p, sc_names[sc])) != NULL; p += n)
        if ((p == list || p[-1] == ',') && (p[n] == ',' || p[n] == '\0'))
            return 1;
    return 0;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static void test_random_scenes(void **unused)
{
    (void)unused;
    const int nscenes = env_int("CDYN_STRESS_SCENES", 10);
    const int nmax = env_int("CDYN_STRESS_NMAX", 6);
    const int seed0 = env_int("CDYN_STRESS_SEED", 1);
    const int steps = env_int("CDYN_STRESS_STEPS", 200);
    const int noassert = getenv("CDYN_STRESS_NOASSERT") != NULL;
    assert_true(nmax >= 1 && nmax <= NMAX && steps >= 1);
    tally t[SC_COUNT];
    memset(t, 0, sizeof t);
    char why[SC_COUNT][512], desc[256];
    int failures = 0;
    /* Schemes whose runs must all complete: every one (the cone step joined once its interior
     * point kept to a neighborhood of the central path: seed 6 cycled at step 46 before). */
    const unsigned required = ~0u;
    for (int k = 0; k < nscenes; k++) {
        scene s;
        scene_draw(&s, (unsigned long)(seed0 + k), nmax);
        cdyn_model *m = scene_model(&s);
        describe(&s, desc, sizeof desc);
        for (int sc = 0; sc < SC_COUNT; sc++) {
            if (!wanted(sc))
                continue;
            const double t0 = now();
            const int done = run(&s, m, sc, steps, why[sc], sizeof why[sc], NULL);
            t[sc].seconds += now() - t0;
            t[sc].runs++;
            if (done == steps) {
                t[sc].completed++;
                continue;
            }
            failures += (required >> sc) & 1u;
            t[sc].early += done <= 1;
            if (verbose() || !noassert)
                print_message("%s\n  %s: %s\n", desc, sc_names[sc], why[sc]);
        }
        cdyn_model_free(m);
    }
    if (verbose() || noassert) {
        print_message("%d scenes (seeds %d..%d, up to %d spheres, %d steps)\n", nscenes, seed0,
                      seed0 + nscenes - 1, nmax, steps);
        print_message("| scheme | runs | completed | failed at step 0-1 | time (s) |\n");
        print_message("|---|---|---|---|---|\n");
        for (int sc = 0; sc < SC_COUNT; sc++)
            if (t[sc].runs > 0)
                print_message("| %s | %d | %d | %d | %.1f |\n", sc_names[sc], t[sc].runs,
                              t[sc].completed, t[sc].early, t[sc].seconds);
    }
    if (!noassert)
        assert_int_equal(failures, 0);
}

/* Pyramid runs of the long stress (up to 8 spheres) that failed the LCP certificate at 509717b
 * and complete since: seed 5 (mu = 0: degenerate friction rows, now only normal rows), 6 and 38
 * (noise of degenerate basic variables next to genuine small values: the cleaning's gap
 * thresholds), 17, 23, 25 and 34 (Delassus couplings at rounding level, contact velocities
 * inside Lemke's tie band). */
static void test_pyramid_fixed_scenes(void **unused)
{
    (void)unused;
    /* ... and 26, 28 and 31, which failed at 1bd3f7b (26, 28 with one BLAS thread as ctest
       runs it, 31 with several: Lemke's tie band swallowing small contact velocities next to
       the gap terms of rows far apart, and degenerate pivots on noise) and complete since those
       rows are solved capped and the step's pivot tolerance is 1e-9 (pyramid_lcp.c, cap_far,
       PYR_PIVOT_TOL); and 35 (free normal velocities of 1e-12 V kept as data, a sub-problem of
       impulses of 1e-12 no method certified), since those below tol V are set to 0
       (clean_tangential). */
    static const int seeds[] = {5, 6, 17, 23, 25, 26, 28, 31, 34, 35, 38};
    char why[512];
    for (size_t k = 0; k < sizeof seeds / sizeof seeds[0]; k++) {
        scene s;
        scene_draw(&s, (unsigned long)seeds[k], 8);
        cdyn_model *m = scene_model(&s);
        const int done = run(&s, m, SC_PYRAMID, 200, why, sizeof why, NULL);
        cdyn_model_free(m);
        if (done != 200)
            fail_msg("seed %d, pyramid: %s", seeds[k], why);
    }
}

/* Seed 15 with the smoothed NCP rows (5 spheres in a box, 0.019 to 3.2 kg, K = 2.9e6 N/m):
 * step 74 stalls from every start of its own law and along the continuation in the step length,
 * and is solved by the last recoveries (implicit_ncp.c: the continuation in the friction
 * coefficients, since 2026-11-27; before it, the friction QP's solution of the same step as the
 * start); the run goes on through step 79. */
static void test_implicit_seed15_ncp(void **unused)
{
    (void)unused;
    scene s;
    scene_draw(&s, 15, 8);
    cdyn_model *m = scene_model(&s);
    char why[512];
    int rescued = 0;
    const int done = run(&s, m, SC_NCP, 80, why, sizeof why, &rescued);
    cdyn_model_free(m);
    if (done != 80)
        fail_msg("seed 15, NCP rows: %s", why);
    assert_true(rescued >= 1);
}

/* Seed 34 with the friction QP (6 spheres in a box, 0.013 to 2.3 kg, K = 2.4e4 N/m): at b111a8a
 * the run failed at step 173 (iteration limit, natural residual 0.0125: the restarts wandered
 * off from a point at the rows' rounding floor). Either of two changes since rescues it (each
 * checked with the other disabled): the MCP's stopping test reading each row's rounding floor
 * (mcp_work.c), and the continuation's controlled increment (implicit_ncp.c). */
static void test_implicit_seed34_qp(void **unused)
{
    (void)unused;
    scene s;
    scene_draw(&s, 34, 8);
    cdyn_model *m = scene_model(&s);
    char why[512];
    const int done = run(&s, m, SC_QP, 200, why, sizeof why, NULL);
    cdyn_model_free(m);
    if (done != 200)
        fail_msg("seed 34, friction QP: %s", why);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_scenes),
        cmocka_unit_test(test_pyramid_fixed_scenes),
        cmocka_unit_test(test_implicit_seed15_ncp),
        cmocka_unit_test(test_implicit_seed34_qp),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
