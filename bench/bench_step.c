#define _GNU_SOURCE /* M_PI */
/* Time stepping against MuJoCo (Debian libmujoco-dev), the simulator users would pick instead:
 * the same scenes built in both, time per step and accuracy side by side.
 *
 *   billiard   Song-Kumar-Pang's ball (h = 0.01, 101 steps): time per step of every cdyn scheme
 *              and of MuJoCo (elliptic cones), and the distance to the rigid analytic solution
 *   incline    a box on a 20 degree incline with mu = 0.5 (tan 20 deg = 0.36 < mu: it must
 *              stick): drift after 1 s
 *   resting    1000 spheres resting on a plane, time per step
 *   pile       100 spheres dropped into a box (1 s) and 1000 (0.3 s; also --only pile1000):
 *              time per step, the deepest interpenetration at the end, memory
 *   sweep      N spheres resting on a plane, N = 10 ... 10^4 contacts: time per step and the
 *              exponent of a least-squares fit time ~ N^p
 * When built with ODE (CDYN_BENCH_ODE, bench_ode.c), the pile and the resting spheres also run
 * in ODE's dWorldStep and dWorldQuickStep.
 *
 * Usage: bench_step [--max-contacts N] [--csv FILE] [--only billiard|incline|pile|pile1000|sweep].
 * Prints the Markdown tables of docs/benchmarks.md. A cdyn scheme (or ODE stepper) whose step
 * takes longer than STEP_BUDGET seconds is not run on larger scenes (reported as "—"). Each
 * measurement of a cdyn scheme on a scene runs in a child process given RUN_LIMIT seconds
 * (bench_fork.h): one that passes it is killed and reported as "did not finish in 60 s", and the
 * run goes on. */
#include <math.h>
#include <stdio.h>
#include <sys/resource.h>
#include <stdlib.h>
#include <string.h>

#include <mujoco/mujoco.h>

#include "bench_fork.h"
#include "bench_mujoco.h"
#include "bench_timer.h"
#include "cdyn/cdyn.h"
#ifdef CDYN_BENCH_ODE
#include "bench_ode.h"
#endif

/* MuJoCo 2.2's constraint solver works on dense matrices of the constraint space: its stack
 * (mjData) for n resting spheres grows as n^2 (measured: 9.7e6 doubles used at n = 300,
 * 1.1e8 at n = 1000, so about 8 GB at 3000 and 86 GB at 10^4). Beyond this size it is not run. */
#define MJ_MAX_RESTING 1000
#define STEP_BUDGET 1.0 /* s per step: beyond this a scheme leaves the larger scenes */
#define RADIUS 0.05
#define MASS 0.2
#define GRAV 9.8

/* ---- cdyn scenes ------------------------------------------------------------------------- */

typedef struct scene {
    cdyn_model *model;
    int nbody;
} scene;

static int add_sphere_body(cdyn_builder *b, double r, double m, int *geom)
{
    cdyn_body_desc d;
    cdyn_body_desc_defaults(&d);
    d.mass = m;
    d.inertia[0] = d.inertia[1] = d.inertia[2] = 0.4 * m * r * r;
    int body;
    if (cdyn_builder_add_body(b, &d, &body, NULL) != CDYN_OK)
        return -1;
    cdyn_geom_desc g;
    cdyn_geom_desc_defaults(&g);
    g.body = body;
    g.type = CDYN_GEOM_SPHERE;
    g.size[0] = r;
    return cdyn_builder_add_geom(b, &g, geom, NULL) == CDYN_OK ? body : -1;
}

static int add_pair(cdyn_builder *b, int ga, int gb, double mu, double margin)
{
    cdyn_contact_pair_desc p;
    cdyn_contact_pair_desc_defaults(&p);
    p.geom_a = ga;
    p.geom_b = gb;
    p.mu = mu;
    p.margin = margin;
    p.stiffness[0] = p.stiffness[4] = p.stiffness[8] = 1e4;
    int id;
    return cdyn_builder_add_contact_pair(b, &p, &id, NULL) == CDYN_OK ? 0 : -1;
}

/* A plane z = 0 rotated by `tilt` about y (a wall or an incline), through `point`. */
static int add_plane(cdyn_builder *b, double nx, double ny, double nz, const double point[3])
{
    cdyn_geom_desc g;
    cdyn_geom_desc_defaults(&g);
    /* quaternion taking +z to n */
    const double c = nz, ax = -ny, ay = nx; /* axis z x n */
    const double s = sqrt(ax * ax + ay * ay);
    if (s > 1e-12) {
        const double ang = atan2(s, c);
        g.frame.quat[0] = cos(ang / 2);
        g.frame.quat[1] = sin(ang / 2) * ax / s;
        g.frame.quat[2] = sin(ang / 2) * ay / s;
        g.frame.quat[3] = 0;
    } else if (c < 0) {
        g.frame.quat[0] = 0;
        g.frame.quat[1] = 1;
    }
    memcpy(g.frame.pos, point, 3 * sizeof(double));
    int id;
    return cdyn_builder_add_geom(b, &g, &id, NULL) == CDYN_OK ? id : -1;
}

static cdyn_builder *new_builder(const double gravity[3])
{
    cdyn_builder_options bo;
    cdyn_builder_defaults(&bo, 3);
    memcpy(bo.gravity, gravity, 3 * sizeof(double));
    cdyn_builder *b = NULL;
    return cdyn_builder_create(&bo, &b, NULL) == CDYN_OK ? b : NULL;
}

static cdyn_model *finish(cdyn_builder *b)
{
    cdyn_model *m = NULL;
    if (b != NULL)
        cdyn_builder_build(b, &m, NULL);
    cdyn_builder_free(b);
    return m;
}

/* n spheres on a square grid, spacing 3 r, each with its own contact row with the floor. */
static cdyn_model *cdyn_resting(int n)
{
    const double g[3] = {0, 0, -GRAV};
    cdyn_builder *b = new_builder(g);
    const double o[3] = {0, 0, 0};
    int floor = add_plane(b, 0, 0, 1, o);
    for (int i = 0; i < n; i++) {
        int gs;
        if (add_sphere_body(b, RADIUS, MASS, &gs) < 0 || add_pair(b, floor, gs, 0.5, INFINITY))
            break;
    }
    return finish(b);
}

static void resting_q(int n, double *q)
{
    const int side = (int)ceil(sqrt((double)n));
    for (int i = 0; i < n; i++) {
        double *qi = q + 7 * i;
        qi[0] = 3 * RADIUS * (i % side);
        qi[1] = 3 * RADIUS * (i / side);
        qi[2] = RADIUS;
        qi[3] = 1;
        qi[4] = qi[5] = qi[6] = 0;
    }
}

/* A pile: n spheres dropped in layers of side x side into a box of half width `half` (m), floor
 * and four walls, stepped `steps` times at h = 0.005 s. */
typedef struct pile_spec {
    int n, side;
    double half;
    int steps;
} pile_spec;

static const pile_spec PILE_100 = {100, 5, 0.3, 200};
static const pile_spec PILE_1000 = {1000, 10, 0.6, 60};

/* Every sphere-sphere pair and every sphere-wall pair is a contact pair with a margin of one
 * radius (the broad phase finds the candidates among them). */
static cdyn_model *cdyn_pile(const pile_spec *p)
{
    const double g[3] = {0, 0, -GRAV};
    cdyn_builder *b = new_builder(g);
    const double o[3] = {0, 0, 0};
    const double px[3] = {-p->half, 0, 0}, mx[3] = {p->half, 0, 0};
    const double py[3] = {0, -p->half, 0}, my[3] = {0, p->half, 0};
    int walls[5] = {add_plane(b, 0, 0, 1, o), add_plane(b, 1, 0, 0, px), add_plane(b, -1, 0, 0, mx),
                    add_plane(b, 0, 1, 0, py), add_plane(b, 0, -1, 0, my)};
    int *gs = malloc(sizeof(int) * (size_t)p->n);
    if (gs == NULL) {
        cdyn_builder_free(b);
        return NULL;
    }
    for (int i = 0; i < p->n; i++)
        add_sphere_body(b, RADIUS, MASS, &gs[i]);
    for (int i = 0; i < p->n; i++) {
        for (int w = 0; w < 5; w++)
            add_pair(b, walls[w], gs[i], 0.5, RADIUS);
        for (int j = i + 1; j < p->n; j++)
            add_pair(b, gs[i], gs[j], 0.5, RADIUS);
    }
    free(gs);
    return finish(b);
}

/* Layers of side x side at spacing 2.2 r, starting 0.1 m up. Consecutive layers are offset by
 * half the spacing in x and y (layer c by (c % 2 - 0.5) * 1.1 r), so a sphere above falls into
 * the gap between four below and touches them: one connected pile, not separate columns as when
 * the jitter depended on i % side only. The small jitter on i breaks the lattice's symmetry;
 * every sphere stays clear of the walls. MuJoCo's and ODE's scenes take these q. */
static void pile_q(const pile_spec *p, double *q)
{
    const double mid = 0.5 * (p->side - 1);
    for (int i = 0; i < p->n; i++) {
        double *qi = q + 7 * i;
        const int a = i % p->side, bb = (i / p->side) % p->side, c = i / (p->side * p->side);
        const double shift = (c % 2 - 0.5) * 1.1 * RADIUS;
        qi[0] = (a - mid) * 2.2 * RADIUS + shift + 0.0004 * ((i * 7) % 11 - 5);
        qi[1] = (bb - mid) * 2.2 * RADIUS + shift + 0.0004 * ((i * 13) % 11 - 5);
        qi[2] = 0.1 + c * 2.2 * RADIUS;
        qi[3] = 1;
        qi[4] = qi[5] = qi[6] = 0;
    }
}

/* ---- MuJoCo scenes (bench_mujoco.c) ------------------------------------------------------ */

static void mj_ball(bench_text *t, double x, double y, double z, double mu)
{
    bench_mj_ball(t, x, y, z, RADIUS, MASS, mu);
}

static mjModel *mj_from_xml(const char *xml)
{
    return bench_mj_from_xml(xml, "bench_step");
}

/* ---- timing ------------------------------------------------------------------------------ */

/* Where an implicit step's time goes, per step (from cdyn_step_report's profile). */
typedef struct step_profile {
    double iterations, jacobian, residual, solve; /* Newton iterations; seconds */
    int steps;
} step_profile;

typedef struct cdyn_run {
    const cdyn_model *m;
    cdyn_stepper *s;
    cdyn_state *x, *x0;
    int steps;
    int status;
    step_profile prof; /* summed over the steps run */
} cdyn_run;

#define RUN_LIMIT 60.0 /* s: wall-clock limit of one scheme's measurement on one scene */
#define TOO_SLOW 1000  /* time_cdyn's status when the measurement passed RUN_LIMIT */
#define DIED 1001      /* time_cdyn's status when its child process died */

static int cdyn_steps(void *ctx)
{
    cdyn_run *r = ctx;
    cdyn_state_copy(r->x, r->x0, NULL);
    for (int k = 0; k < r->steps; k++) {
        cdyn_step_report sr;
        int st = cdyn_step(r->s, NULL, r->x, &sr);
        if (st != CDYN_OK) {
            r->status = st;
            return st;
        }
        r->prof.iterations += sr.solver.iterations;
        r->prof.jacobian += sr.time_jacobian;
        r->prof.residual += sr.time_residual;
        r->prof.solve += sr.time_solve;
        r->prof.steps++;
    }
    return 0;
}

typedef struct mj_run {
    const mjModel *m;
    mjData *d;
    const double *qpos, *qvel;
    int steps;
} mj_run;

static int mj_steps(void *ctx)
{
    mj_run *r = ctx;
    mj_resetData(r->m, r->d);
    memcpy(r->d->qpos, r->qpos, sizeof(double) * (size_t)r->m->nq);
    memcpy(r->d->qvel, r->qvel, sizeof(double) * (size_t)r->m->nv);
    for (int k = 0; k < r->steps; k++)
        mj_step(r->m, r->d);
    return 0;
}

static const bench_budget BUDGET = {0.3, 3, 20};

typedef struct scheme_spec {
    const char *name;
    cdyn_scheme scheme;
    cdyn_pyramid_bound bound;
    int friction_qp; /* implicit NCP: the friction law */
} scheme_spec;

static const scheme_spec SCHEMES[] = {
    {"implicit (friction QP)", CDYN_SCHEME_IMPLICIT_NCP, CDYN_PYRAMID_DIAMOND, 1},
    {"implicit (NCP rows)", CDYN_SCHEME_IMPLICIT_NCP, CDYN_PYRAMID_DIAMOND, 0},
    {"pyramid LCP (box)", CDYN_SCHEME_PYRAMID_LCP, CDYN_PYRAMID_BOX, 0},
    {"pyramid LCP (diamond)", CDYN_SCHEME_PYRAMID_LCP, CDYN_PYRAMID_DIAMOND, 0},
    {"cone step", CDYN_SCHEME_CONE_STEP, CDYN_PYRAMID_DIAMOND, 0},
    {"Coulomb step", CDYN_SCHEME_COULOMB_STEP, CDYN_PYRAMID_DIAMOND, 0},
};
#define NSCHEMES ((int)(sizeof SCHEMES / sizeof SCHEMES[0]))
#define NIMPLICIT 2 /* the first NIMPLICIT schemes are the implicit NCP */

/* The implicit schemes' profiles of the last run of each (the breakdown lines). */
static step_profile last_profile[NIMPLICIT];

/* Where the implicit schemes' steps went (the untimed first run: its warm-up included). */
static void print_profiles(const char *what)
{
    printf("%s, implicit step per step (untimed first run, warm-up included): ", what);
    for (int k = 0; k < NIMPLICIT; k++) {
        const step_profile *p = &last_profile[k];
        if (p->steps == 0)
            continue;
        const double n = p->steps, rest = p->solve - p->jacobian - p->residual;
        printf("%s %.2f Newton iterations, Newton matrices (derivatives + assembly) %.3g ms, "
               "residuals %.3g ms, factorizations and the rest of the solve %.3g ms%s", SCHEMES[k].name,
               p->iterations / n, 1e3 * p->jacobian / n, 1e3 * p->residual / n, 1e3 * rest / n,
               k + 1 < NIMPLICIT ? "; " : ".\n\n");
        last_profile[k].steps = 0;
    }
}

/* Time `steps` steps of scheme from x0 (set by the caller through init); on success *per_step
 * (s) and the final state in r->x. Returns the status. In the process that runs it (the child
 * of time_cdyn). */
static int time_cdyn_here(const cdyn_model *m, const scheme_spec *sp, double h, int steps,
                          void (*init)(cdyn_state *x, void *arg), void *arg, double *per_step,
                          cdyn_state **final, step_profile *prof)
{
    cdyn_step_options o;
    cdyn_step_defaults(&o, sp->scheme);
    o.h = h;
    o.bound = sp->bound;
    if (sp->scheme == CDYN_SCHEME_IMPLICIT_NCP)
        o.friction_qp = sp->friction_qp;
    cdyn_run r = {m, NULL, NULL, NULL, steps, 0, {0, 0, 0, 0, 0}};
    int st = cdyn_stepper_create(m, &o, &r.s, NULL);
    if (st == CDYN_OK)
        st = cdyn_state_create(m, NULL, &r.x, NULL);
    if (st == CDYN_OK)
        st = cdyn_state_create(m, NULL, &r.x0, NULL);
    if (st == CDYN_OK) {
        init(r.x0, arg);
        /* One untimed run first: warms the arena and shows whether the scheme copes. */
        const double t0 = bench_now();
        st = cdyn_steps(&r);
        const double once = (bench_now() - t0) / steps;
        if (prof != NULL)
            *prof = r.prof; /* the untimed run's profile (its warm-up is part of it) */
        if (st == CDYN_OK) {
            bench_timing tm = {0, 0, 0};
            if (once * steps > 2.0) {
                tm.median = once * steps; /* too slow to repeat */
            } else {
                st = bench_time(cdyn_steps, &r, &BUDGET, &tm);
            }
            *per_step = tm.median / steps;
        }
    }
    if (st == CDYN_OK && final != NULL) {
        *final = r.x;
        r.x = NULL;
    }
    cdyn_state_free(r.x);
    cdyn_state_free(r.x0);
    cdyn_stepper_free(r.s);
    return st;
}

typedef struct cdyn_job {
    const cdyn_model *m;
    const scheme_spec *sp;
    double h;
    int steps;
    void (*init)(cdyn_state *x, void *arg);
    void *arg;
} cdyn_job;

/* What the child hands back: the status, the time per step, the profile, then q and v. */
typedef struct cdyn_result {
    int status;
    double per_step;
    step_profile prof;
    double mem_mb; /* the child's resident memory growth while it ran (MB) */
} cdyn_result;

/* Resident memory now (MB; Linux /proc) and its peak so far (getrusage), for the pile's
 * memory column: measured in the measuring child, whose start includes the model it inherited. */
static double rss_mb(void)
{
    long pages = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f == NULL)
        return NAN;
    const int ok = fscanf(f, "%ld %ld", &pages, &resident) == 2;
    fclose(f);
    return ok ? (double)resident * 4096.0 / 1048576.0 : NAN;
}

static double peak_rss_mb(void)
{
    struct rusage u;
    return getrusage(RUSAGE_SELF, &u) == 0 ? (double)u.ru_maxrss / 1024.0 : NAN;
}

static void cdyn_job_run(void *ctx, void *out)
{
    const cdyn_job *j = ctx;
    cdyn_result *res = out;
    const double start_mb = rss_mb();
    cdyn_state *fin = NULL;
    res->status = time_cdyn_here(j->m, j->sp, j->h, j->steps, j->init, j->arg, &res->per_step,
                                 &fin, &res->prof);
    if (fin != NULL) {
        double *x = (double *)(res + 1);
        memcpy(x, fin->q, sizeof(double) * (size_t)cdyn_model_nq(j->m));
        memcpy(x + cdyn_model_nq(j->m), fin->v, sizeof(double) * (size_t)cdyn_model_nv(j->m));
    }
    cdyn_state_free(fin);
    res->mem_mb = peak_rss_mb() - start_mb;
}

/* time_cdyn_here in a child process given RUN_LIMIT seconds (bench_fork.h): a scheme that
 * cannot finish is reported as TOO_SLOW and the benchmark goes on. The final state's q and v
 * come back (the rest of *final is as cdyn_state_create makes it). */
static int time_cdyn_steps(const cdyn_model *m, const scheme_spec *sp, double h, int steps,
                           void (*init)(cdyn_state *x, void *arg), void *arg, double *per_step,
                           cdyn_state **final, step_profile *prof, int *done, double *mem_mb)
{
    const size_t nq = (size_t)cdyn_model_nq(m), nv = (size_t)cdyn_model_nv(m);
    const size_t size = sizeof(cdyn_result) + sizeof(double) * (nq + nv);
    cdyn_result *res = calloc(1, size);
    if (res == NULL)
        return CDYN_ENOMEM;
    cdyn_job job = {m, sp, h, steps, init, arg};
    const int fr = bench_fork_run(RUN_LIMIT, cdyn_job_run, &job, res, size);
    int st = fr == 1 ? TOO_SLOW : fr != 0 ? DIED : res->status;
    if (done != NULL) /* the first run's steps that succeeded */
        *done = fr == 0 ? res->prof.steps : -1;
    if (mem_mb != NULL)
        *mem_mb = fr == 0 ? res->mem_mb : NAN;
    if (st == CDYN_OK) {
        *per_step = res->per_step;
        if (prof != NULL)
            *prof = res->prof;
        if (final != NULL) {
            st = cdyn_state_create(m, NULL, final, NULL);
            if (st == CDYN_OK) {
                const double *x = (const double *)(res + 1);
                memcpy((*final)->q, x, sizeof(double) * nq);
                memcpy((*final)->v, x + nq, sizeof(double) * nv);
            }
        }
    }
    free(res);
    return st;
}

static int time_cdyn(const cdyn_model *m, const scheme_spec *sp, double h, int steps,
                     void (*init)(cdyn_state *x, void *arg), void *arg, double *per_step,
                     cdyn_state **final, step_profile *prof)
{
    return time_cdyn_steps(m, sp, h, steps, init, arg, per_step, final, prof, NULL, NULL);
}

static double time_mj(const mjModel *m, const double *qpos, const double *qvel, int steps,
                      mjData **final)
{
    mj_run r = {m, mj_makeData(m), qpos, qvel, steps};
    bench_timing tm;
    bench_time(mj_steps, &r, &BUDGET, &tm);
    mj_steps(&r);
    *final = r.d;
    return tm.median / steps;
}

/* A failed measurement's table entry. */
static const char *step_status(int st)
{
    if (st == TOO_SLOW)
        return "did not finish in 60 s";
    if (st == DIED)
        return "failed: the measuring process died";
    static char buf[160];
    snprintf(buf, sizeof buf, "failed: %s", cdyn_status_str((cdyn_status)st));
    return buf;
}

static void fmt_us(char *buf, size_t n, double s)
{
    if (s < 1e-3)
        snprintf(buf, n, "%.3g µs", s * 1e6);
    else
        snprintf(buf, n, "%.3g ms", s * 1e3);
}

#ifdef CDYN_BENCH_ODE
static const char *const ODE_NAMES[2] = {"dWorldStep", "dWorldQuickStep"};

/* ODE's stepper `w` on spheres at q (at rest) among planes: -1 when it could not be set up or
 * passed the 60 s deadline of its first run (*r says which), else 0 with r and final_q. */
static int time_ode(int w, int n, const double *q, double mu, int nplanes,
                    const double (*planes)[4], double h, int steps, bench_ode_result *r,
                    double *final_q)
{
    const bench_ode_scene sc = {n, q, RADIUS, MASS, mu, nplanes, planes, {0, 0, -GRAV}, h};
    r->finished = 0;
    r->steps_done = 0;
    if (bench_ode_time(&sc, (bench_ode_stepper)w, steps, 60.0, &BUDGET, r, final_q) != 0)
        return -1;
    return r->finished ? 0 : -1;
}
#endif

/* ---- billiard ---------------------------------------------------------------------------- */

static const double V0[6] = {1, 0.5, 0, 40, -20, -10};

static void rigid_billiard(double t, double *x, double *y)
{
    const double sx = V0[0] - RADIUS * V0[4], sy = V0[1] + RADIUS * V0[3];
    const double s0 = hypot(sx, sy), ux = sx / s0, uy = sy / s0;
    const double ts_ = s0 / (3.5 * 0.2 * GRAV), a = 0.2 * GRAV, ts = fmin(t, ts_);
    *x = V0[0] * ts - 0.5 * a * ux * ts * ts;
    *y = V0[1] * ts - 0.5 * a * uy * ts * ts;
    if (t > ts_) {
        *x += (V0[0] - a * ux * ts_) * (t - ts_);
        *y += (V0[1] - a * uy * ts_) * (t - ts_);
    }
}

static void billiard_init(cdyn_state *x, void *arg)
{
    (void)arg;
    x->q[2] = RADIUS;
    memcpy(x->v, V0, sizeof V0);
}

static void bench_billiard(FILE *csv)
{
    const double g[3] = {0, 0, -GRAV}, o[3] = {0, 0, 0};
    cdyn_builder *b = new_builder(g);
    int floor = add_plane(b, 0, 0, 1, o), gs;
    add_sphere_body(b, RADIUS, MASS, &gs);
    add_pair(b, floor, gs, 0.2, INFINITY);
    cdyn_model *m = finish(b);
    double rx, ry;
    rigid_billiard(1.01, &rx, &ry);

    bench_text t = {NULL, 0, 0};
    bench_mj_header(&t, 0.01, "0 0 -9.8", 10);
    bench_put(&t, "<geom type=\"plane\" size=\"5 5 0.1\" friction=\"0.2 0 0\"/>");
    mj_ball(&t, 0, 0, RADIUS, 0.2);
    bench_put(&t, "</worldbody></mujoco>");
    mjModel *mm = mj_from_xml(t.s);
    free(t.s);
    const double qpos[7] = {0, 0, RADIUS, 1, 0, 0, 0};
    mjData *md = NULL;
    const double t_mj = time_mj(mm, qpos, V0, 101, &md);
    const double err_mj = hypot(md->qpos[0] - rx, md->qpos[1] - ry);

    printf("### Billiard ball (h = 0.01 s, 101 steps)\n\n");
    printf("Distance to the rigid analytic solution (%.4f, %.4f) at t = 1.01 s beside the time "
           "per step.\n\n", rx, ry);
    printf("| simulator | time per step | ratio to MuJoCo | x(1.01) | y(1.01) | error |\n"
           "|---|---|---|---|---|---|\n");
    char buf[32];
    for (int k = 0; k < NSCHEMES; k++) {
        double per = 0;
        cdyn_state *fin = NULL;
        int st = time_cdyn(m, &SCHEMES[k], 0.01, 101, billiard_init, NULL, &per, &fin,
                           k < NIMPLICIT ? &last_profile[k] : NULL);
        if (st != CDYN_OK) {
            printf("| cdyn %s | %s | | | | |\n", SCHEMES[k].name,
                   step_status(st));
            continue;
        }
        fmt_us(buf, sizeof buf, per);
        const double err = hypot(fin->q[0] - rx, fin->q[1] - ry);
        printf("| cdyn %s | %s | %.2f | %.4f | %.4f | %.1e |\n", SCHEMES[k].name, buf,
               per / t_mj, fin->q[0], fin->q[1], err);
        if (csv)
            fprintf(csv, "billiard,cdyn %s,1,%.6e,%.3e\n", SCHEMES[k].name, per, err);
        cdyn_state_free(fin);
    }
    fmt_us(buf, sizeof buf, t_mj);
    printf("| MuJoCo %s (elliptic, Euler) | %s | 1 | %.4f | %.4f | %.1e |\n\n", mj_versionString(),
           buf, md->qpos[0], md->qpos[1], err_mj);
    print_profiles("Billiard");
    if (csv)
        fprintf(csv, "billiard,mujoco,1,%.6e,%.3e\n", t_mj, err_mj);
    mj_deleteData(md);
    mj_deleteModel(mm);
    cdyn_model_free(m);
}

/* ---- incline ----------------------------------------------------------------------------- */

#define INCLINE_DEG 20.0
#define INCLINE_MU 0.5

static void incline_init(cdyn_state *x, void *arg)
{
    (void)arg;
    x->q[2] = 0.05; /* box half-height */
}

static void bench_incline(FILE *csv)
{
    /* Tilted gravity instead of a tilted plane: the same physics in the plane's frame. */
    const double th = INCLINE_DEG * M_PI / 180;
    const double g[3] = {GRAV * sin(th), 0, -GRAV * cos(th)}, o[3] = {0, 0, 0};
    cdyn_builder *b = new_builder(g);
    int floor = add_plane(b, 0, 0, 1, o);
    cdyn_body_desc d;
    cdyn_body_desc_defaults(&d);
    d.mass = 1;
    d.inertia[0] = d.inertia[1] = d.inertia[2] = 1.0 / 6 * 0.01;
    int body, gbox;
    cdyn_builder_add_body(b, &d, &body, NULL);
    cdyn_geom_desc box;
    cdyn_geom_desc_defaults(&box);
    box.body = body;
    box.type = CDYN_GEOM_BOX;
    box.size[0] = box.size[1] = box.size[2] = 0.05;
    cdyn_builder_add_geom(b, &box, &gbox, NULL);
    add_pair(b, floor, gbox, INCLINE_MU, INFINITY);
    cdyn_model *m = finish(b);

    bench_text t = {NULL, 0, 0};
    char gs[96];
    snprintf(gs, sizeof gs, "%.17g 0 %.17g", g[0], g[2]);
    bench_mj_header(&t, 0.01, gs, 20);
    bench_put(&t, "<geom type=\"plane\" size=\"5 5 0.1\" friction=\"%g 0 0\"/>", INCLINE_MU);
    bench_put(&t, "<body pos=\"0 0 0.05\"><freejoint/><geom type=\"box\" size=\"0.05 0.05 0.05\" "
            "mass=\"1\" friction=\"%g 0 0\" condim=\"3\"/></body></worldbody></mujoco>",
        INCLINE_MU);
    mjModel *mm = mj_from_xml(t.s);
    free(t.s);
    const double qpos[7] = {0, 0, 0.05, 1, 0, 0, 0}, qvel[6] = {0};
    mjData *md = NULL;
    const double t_mj = time_mj(mm, qpos, qvel, 100, &md);

    printf("### Box on a %.0f° incline, μ = %.1f (sticks: tan θ = %.3f < μ), h = 0.01 s, 1 s\n\n",
           INCLINE_DEG, INCLINE_MU, tan(th));
    printf("| simulator | time per step | drift along the slope after 1 s |\n|---|---|---|\n");
    char buf[32];
    for (int k = 0; k < NSCHEMES; k++) {
        double per = 0;
        cdyn_state *fin = NULL;
        int st = time_cdyn(m, &SCHEMES[k], 0.01, 100, incline_init, NULL, &per, &fin, NULL);
        if (st != CDYN_OK) {
            printf("| cdyn %s | %s | |\n", SCHEMES[k].name, step_status(st));
            continue;
        }
        fmt_us(buf, sizeof buf, per);
        printf("| cdyn %s | %s | %.1e m |\n", SCHEMES[k].name, buf, fin->q[0]);
        if (csv)
            fprintf(csv, "incline,cdyn %s,1,%.6e,%.3e\n", SCHEMES[k].name, per, fin->q[0]);
        cdyn_state_free(fin);
    }
    fmt_us(buf, sizeof buf, t_mj);
    printf("| MuJoCo | %s | %.1e m |\n\n", buf, md->qpos[0]);
    if (csv)
        fprintf(csv, "incline,mujoco,1,%.6e,%.3e\n", t_mj, md->qpos[0]);
    mj_deleteData(md);
    mj_deleteModel(mm);
    cdyn_model_free(m);
}

/* ---- resting spheres and the sweep ------------------------------------------------------- */

static void resting_init(cdyn_state *x, void *arg)
{
    resting_q(*(int *)arg, x->q);
}

static mjModel *mj_resting(int n, double **qpos, double **qvel)
{
    bench_text t = {NULL, 0, 0};
    bench_mj_header(&t, 0.01, "0 0 -9.8", n + 10);
    bench_put(&t, "<geom type=\"plane\" size=\"100 100 0.1\" friction=\"0.5 0 0\"/>");
    double *q = calloc((size_t)7 * n, sizeof(double));
    resting_q(n, q);
    for (int i = 0; i < n; i++)
        mj_ball(&t, q[7 * i], q[7 * i + 1], q[7 * i + 2], 0.5);
    bench_put(&t, "</worldbody></mujoco>");
    mjModel *m = mj_from_xml(t.s);
    free(t.s);
    /* MuJoCo's qpos for free joints is the body's position and quaternion: the same layout. */
    *qpos = q;
    *qvel = calloc((size_t)6 * n, sizeof(double));
    return m;
}

static void bench_sweep(FILE *csv, int max_contacts)
{
    static const int sizes[] = {10, 30, 100, 300, 1000, 3000, 10000};
    static step_profile sweep_profile[NIMPLICIT][8];
    memset(sweep_profile, 0, sizeof sweep_profile);
    const int nsizes = (int)(sizeof sizes / sizeof sizes[0]);
    int alive[NSCHEMES];
    for (int k = 0; k < NSCHEMES; k++)
        alive[k] = 1;
    double lx[NSCHEMES + 1][8], ly[NSCHEMES + 1][8];
    int np[NSCHEMES + 1] = {0};
    printf("### Spheres resting on a plane: time per step against contacts (h = 0.01 s, 10 "
           "steps)\n\n| contacts |");
    for (int k = 0; k < NSCHEMES; k++)
        printf(" cdyn %s |", SCHEMES[k].name);
#ifdef CDYN_BENCH_ODE
    int ode_alive[2] = {1, 1};
    printf(" ODE %s dWorldStep | ODE dWorldQuickStep |", bench_ode_version());
#endif
    printf(" MuJoCo | best cdyn / MuJoCo |\n|---|");
    for (int k = 0; k <= NSCHEMES + 1; k++)
        printf("---|");
#ifdef CDYN_BENCH_ODE
    printf("---|---|");
#endif
    printf("\n");
    char buf[32];
    for (int s = 0; s < nsizes && sizes[s] <= max_contacts; s++) {
        int n = sizes[s];
        cdyn_model *m = cdyn_resting(n);
        memset(last_profile, 0, sizeof last_profile);
        printf("| %d |", n);
        double best = INFINITY;
        for (int k = 0; k < NSCHEMES; k++) {
            double per = 0;
            int st = alive[k] ? time_cdyn(m, &SCHEMES[k], 0.01, 10, resting_init, &n, &per, NULL,
                                         k < NIMPLICIT ? &last_profile[k] : NULL)
                              : -1;
            if (st != CDYN_OK) {
                printf(" %s |", alive[k] ? step_status(st) : "—");
                alive[k] = 0;
                continue;
            }
            fmt_us(buf, sizeof buf, per);
            printf(" %s |", buf);
            best = fmin(best, per);
            lx[k][np[k]] = log((double)n);
            ly[k][np[k]++] = log(per);
            if (per > STEP_BUDGET)
                alive[k] = 0;
            if (csv)
                fprintf(csv, "resting,cdyn %s,%d,%.6e,\n", SCHEMES[k].name, n, per);
        }
        for (int k = 0; k < NIMPLICIT; k++)
            if (last_profile[k].steps > 0)
                sweep_profile[k][s] = last_profile[k];
#ifdef CDYN_BENCH_ODE
        {
            static const double floor_plane[1][4] = {{0, 0, 1, 0}};
            double *q = calloc((size_t)7 * n, sizeof(double));
            resting_q(n, q);
            for (int w = 0; w < 2; w++) {
                bench_ode_result r;
                if (!ode_alive[w] || time_ode(w, n, q, 0.5, 1, floor_plane, 0.01, 10, &r, NULL)) {
                    printf(" %s |", ode_alive[w] ? "too slow (> 60 s per run)" : "—");
                    ode_alive[w] = 0;
                    continue;
                }
                fmt_us(buf, sizeof buf, r.per_step);
                printf(" %s |", buf);
                if (r.per_step > STEP_BUDGET)
                    ode_alive[w] = 0;
                if (csv)
                    fprintf(csv, "resting,ode %s,%d,%.6e,\n", ODE_NAMES[w], n, r.per_step);
            }
            free(q);
        }
#endif
        if (n > MJ_MAX_RESTING) {
            printf(" — | |\n");
            cdyn_model_free(m);
            continue;
        }
        double *qpos, *qvel;
        mjModel *mm = mj_resting(n, &qpos, &qvel);
        if (mm == NULL) {
            printf(" MuJoCo failed to load | |\n");
            free(qpos);
            free(qvel);
            cdyn_model_free(m);
            break;
        }
        mjData *md = NULL;
        const double t_mj = time_mj(mm, qpos, qvel, 10, &md);
        fmt_us(buf, sizeof buf, t_mj);
        printf(" %s | %.2f |\n", buf, best / t_mj);
        lx[NSCHEMES][np[NSCHEMES]] = log((double)n);
        ly[NSCHEMES][np[NSCHEMES]++] = log(t_mj);
        if (csv)
            fprintf(csv, "resting,mujoco,%d,%.6e,\n", n, t_mj);
        mj_deleteData(md);
        mj_deleteModel(mm);
        free(qpos);
        free(qvel);
        cdyn_model_free(m);
    }
    printf("\nMuJoCo is not run above %d spheres: its mjData stack grows as n^2 (1.1e8 doubles "
           "used at n = 1000; about 8 GB at 3000, 86 GB at 10^4).\n", MJ_MAX_RESTING);
    printf("\nLeast-squares exponent p of time ∝ contacts^p over the sizes measured:");
    for (int k = 0; k <= NSCHEMES; k++) {
        if (np[k] < 2)
            continue;
        double mx = 0, my = 0, sxx = 0, sxy = 0;
        for (int i = 0; i < np[k]; i++)
            mx += lx[k][i] / np[k], my += ly[k][i] / np[k];
        for (int i = 0; i < np[k]; i++)
            sxx += (lx[k][i] - mx) * (lx[k][i] - mx), sxy += (lx[k][i] - mx) * (ly[k][i] - my);
        printf(" %s %.2f (%d sizes);", k < NSCHEMES ? SCHEMES[k].name : "MuJoCo", sxy / sxx,
               np[k]);
    }
    printf("\n\nWhere the implicit steps' time went, per step (the untimed first run of each size, "
           "warm-up included: the first step analyses the pattern):\n\n| contacts | scheme | Newton "
           "iterations | Newton matrices (derivatives + assembly) | residuals | factorizations "
           "and the rest of the solve |\n|---|---|---|---|---|---|\n");
    for (int si = 0; si < nsizes; si++)
        for (int k = 0; k < NIMPLICIT; k++) {
            const step_profile *p = &sweep_profile[k][si];
            if (p->steps == 0)
                continue;
            const double n = p->steps, rest = p->solve - p->jacobian - p->residual;
            printf("| %d | %s | %.2f | %.3g ms | %.3g ms | %.3g ms |\n", sizes[si], SCHEMES[k].name,
                   p->iterations / n, 1e3 * p->jacobian / n, 1e3 * p->residual / n, 1e3 * rest / n);
        }
    printf("\n");
}

/* ---- pile -------------------------------------------------------------------------------- */

static void pile_init(cdyn_state *x, void *arg)
{
    pile_q(arg, x->q);
}

/* Deepest interpenetration of the pile's spheres (with each other, the floor and the walls). */
static double pile_depth(const pile_spec *p, const double *q, int stride)
{
    double worst = 0;
    for (int i = 0; i < p->n; i++) {
        const double *a = q + stride * i;
        worst = fmax(worst, RADIUS - a[2]);
        worst = fmax(worst, RADIUS - (p->half - fabs(a[0])));
        worst = fmax(worst, RADIUS - (p->half - fabs(a[1])));
        for (int j = i + 1; j < p->n; j++) {
            const double *c = q + stride * j;
            const double d = sqrt((a[0] - c[0]) * (a[0] - c[0]) + (a[1] - c[1]) * (a[1] - c[1]) +
                                  (a[2] - c[2]) * (a[2] - c[2]));
            worst = fmax(worst, 2 * RADIUS - d);
        }
    }
    return worst;
}

/* MuJoCo on a pile too large to repeat: one run of `steps` steps in a child given MJ_PILE_LIMIT
 * seconds, with its memory (bench_fork.h). */
#define MJ_PILE_LIMIT 400.0
#define MJ_BIG_NCONMAX 2000
typedef struct mj_pile_job {
    const mjModel *m;
    const double *q;
    int steps;
} mj_pile_job;

typedef struct mj_pile_result {
    double per_step, mem_mb, stack_mb; /* stack_mb: MuJoCo's own peak stack use */
    int contacts;
} mj_pile_result; /* followed by the final qpos */

static void mj_pile_run(void *ctx, void *out)
{
    const mj_pile_job *j = ctx;
    mj_pile_result *res = out;
    const double start_mb = rss_mb();
    mjData *d = mj_makeData(j->m);
    memcpy(d->qpos, j->q, sizeof(double) * (size_t)j->m->nq);
    const double t0 = bench_now();
    for (int k = 0; k < j->steps; k++)
        mj_step(j->m, d);
    res->per_step = (bench_now() - t0) / j->steps;
    res->mem_mb = peak_rss_mb() - start_mb;
    res->stack_mb = (double)d->maxuse_stack * sizeof(mjtNum) / 1048576.0;
    res->contacts = d->ncon;
    memcpy(res + 1, d->qpos, sizeof(double) * (size_t)j->m->nq);
    mj_deleteData(d);
}

/* t / ref in the format given, or "—" without a reference time (MuJoCo did not finish). */
static void fmt_ratio(char *buf, size_t n, double t, double ref, const char *fmt)
{
    if (isnan(ref))
        snprintf(buf, n, "—");
    else
        snprintf(buf, n, fmt, t / ref);
}

static void fmt_mb(char *buf, size_t n, double mb)
{
    if (isnan(mb))
        snprintf(buf, n, "—");
    else if (mb >= 1024)
        snprintf(buf, n, "%.2f GB", mb / 1024);
    else
        snprintf(buf, n, "%.0f MB", mb);
}

static void bench_pile(FILE *csv, const pile_spec *p)
{
    const double rss0 = rss_mb();
    cdyn_model *m = cdyn_pile(p);
    const double model_mb = rss_mb() - rss0;
    if (m == NULL) {
        printf("### %d spheres dropped into a box: the model could not be built\n\n", p->n);
        return;
    }
    const int big = p->n >= 1000;
    bench_text t = {NULL, 0, 0};
    /* MuJoCo 2.2 sizes its stack from nconmax in an int: 1000 spheres with 2000 contacts take
       720 million doubles (5.4 GB), and 3000 overflow it (mjData is not created). */
    bench_mj_header(&t, 0.005, "0 0 -9.8", big ? MJ_BIG_NCONMAX : 20 * p->n);
    bench_put(&t, "<geom type=\"plane\" size=\"1 1 0.1\" friction=\"0.5 0 0\"/>");
    bench_put(&t, "<geom type=\"plane\" pos=\"%g 0 0\" zaxis=\"1 0 0\" size=\"1 1 0.1\"/>", -p->half);
    bench_put(&t, "<geom type=\"plane\" pos=\"%g 0 0\" zaxis=\"-1 0 0\" size=\"1 1 0.1\"/>", p->half);
    bench_put(&t, "<geom type=\"plane\" pos=\"0 %g 0\" zaxis=\"0 1 0\" size=\"1 1 0.1\"/>", -p->half);
    bench_put(&t, "<geom type=\"plane\" pos=\"0 %g 0\" zaxis=\"0 -1 0\" size=\"1 1 0.1\"/>", p->half);
    double *q = malloc(sizeof(double) * 7 * (size_t)p->n);
    double *v = calloc(6 * (size_t)p->n, sizeof(double));
    double *fq = malloc(sizeof(double) * 7 * (size_t)p->n);
    if (q == NULL || v == NULL || fq == NULL) {
        free(q), free(v), free(fq);
        cdyn_model_free(m);
        return;
    }
    pile_q(p, q);
    for (int i = 0; i < p->n; i++)
        mj_ball(&t, q[7 * i], q[7 * i + 1], q[7 * i + 2], 0.5);
    bench_put(&t, "</worldbody></mujoco>");
    mjModel *mm = mj_from_xml(t.s);
    free(t.s);
    /* MuJoCo first: its time is the ratios' reference */
    double t_mj = NAN, depth_mj = NAN, mem_mj = NAN;
    char mj_note[240] = "";
    mjData *md = NULL;
    if (!big) {
        t_mj = time_mj(mm, q, v, p->steps, &md);
        depth_mj = pile_depth(p, md->qpos, 7);
    } else if (mm != NULL) {
        const size_t size = sizeof(mj_pile_result) + sizeof(double) * (size_t)mm->nq;
        mj_pile_result *res = calloc(1, size);
        mj_pile_job job = {mm, q, p->steps};
        const int fr = res != NULL ? bench_fork_run(MJ_PILE_LIMIT, mj_pile_run, &job, res, size) : -1;
        if (fr == 0) {
            t_mj = res->per_step;
            mem_mj = res->mem_mb;
            depth_mj = pile_depth(p, (const double *)(res + 1), 7);
            snprintf(mj_note, sizeof mj_note, " (room for %d contacts, the most its mjData "
                     "can hold); its stack peaked at %.0f MB, %d contacts at the end",
                     MJ_BIG_NCONMAX, res->stack_mb, res->contacts);
        } else {
            snprintf(mj_note, sizeof mj_note, " (room for %d contacts, the most its mjData can "
                     "hold); MuJoCo %s", MJ_BIG_NCONMAX, fr == 1 ? "did not finish its run within "
                     "400 s" : "could not run it (its process died)");
        }
        free(res);
    }

    printf("### %d spheres dropped into a box (h = 0.005 s, %d steps)\n\n", p->n, p->steps);
    printf("cdyn's model holds all %ld sphere-sphere and sphere-wall pairs (margin one radius; the "
           "model takes %.0f MB); MuJoCo runs its own collision detection%s. Memory: the growth of "
           "the measuring process's resident memory while it stepped (the model excluded).\n\n",
           (long)p->n * (p->n - 1) / 2 + 5L * p->n, model_mb, mj_note);
    printf("| simulator | time per step | ratio to MuJoCo | deepest interpenetration at the end | "
           "memory |\n|---|---|---|---|---|\n");
    char buf[32], mb[32];
    for (int k = 0; k < NSCHEMES; k++) {
        double per = 0, mem = NAN;
        cdyn_state *fin = NULL;
        int done = -1;
        int st = time_cdyn_steps(m, &SCHEMES[k], 0.005, p->steps, pile_init, (void *)p, &per,
                                 &fin, NULL, &done, &mem);
        if (st != CDYN_OK) {
            printf("| cdyn %s | %s", SCHEMES[k].name, step_status(st));
            if (st != TOO_SLOW && done >= 0)
                printf(" at step %d of %d", done + 1, p->steps);
            printf(" | | | |\n");
            continue;
        }
        fmt_us(buf, sizeof buf, per);
        fmt_mb(mb, sizeof mb, mem);
        const double depth = pile_depth(p, fin->q, 7);
        char ratio[32];
        fmt_ratio(ratio, sizeof ratio, per, t_mj, "%.2f");
        printf("| cdyn %s | %s | %s | %.1e m | %s |\n", SCHEMES[k].name, buf, ratio, depth, mb);
        if (csv)
            fprintf(csv, "pile,cdyn %s,%d,%.6e,%.3e\n", SCHEMES[k].name, p->n, per, depth);
        cdyn_state_free(fin);
    }
    if (!isnan(t_mj)) {
        fmt_us(buf, sizeof buf, t_mj);
        fmt_mb(mb, sizeof mb, mem_mj);
        printf("| MuJoCo (elliptic) | %s | 1 | %.1e m | %s |\n", buf, depth_mj, mb);
        if (csv)
            fprintf(csv, "pile,mujoco,%d,%.6e,%.3e\n", p->n, t_mj, depth_mj);
    }
#ifdef CDYN_BENCH_ODE
    const double planes[5][4] = {{0, 0, 1, 0},          {1, 0, 0, -p->half}, {-1, 0, 0, -p->half},
                                 {0, 1, 0, -p->half}, {0, -1, 0, -p->half}};
    for (int w = 0; w < 2; w++) {
        bench_ode_result r;
        if (time_ode(w, p->n, q, 0.5, 5, planes, 0.005, p->steps, &r, fq)) {
            fmt_us(buf, sizeof buf, r.per_step);
            printf("| ODE %s %s | failed: too slow (> 60 s per run; %s per step over its first "
                   "%d steps) | | | |\n", bench_ode_version(), ODE_NAMES[w], buf, r.steps_done);
            continue;
        }
        fmt_us(buf, sizeof buf, r.per_step);
        const double depth = pile_depth(p, fq, 7);
        char ratio[32];
        fmt_ratio(ratio, sizeof ratio, r.per_step, t_mj, "%.3g");
        printf("| ODE %s %s | %s | %s | %.1e m (%d contacts) | |\n", bench_ode_version(),
               ODE_NAMES[w], buf, ratio, depth, r.contacts);
        if (csv)
            fprintf(csv, "pile,ode %s,%d,%.6e,%.3e\n", ODE_NAMES[w], p->n, r.per_step, depth);
    }
#endif
    printf("\n");
    if (md != NULL)
        mj_deleteData(md);
    mj_deleteModel(mm);
    free(q);
    free(v);
    free(fq);
    cdyn_model_free(m);
}

int main(int argc, char **argv)
{
    int max_contacts = 10000;
    const char *csv_path = NULL;
    const char *only = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--max-contacts") == 0 && i + 1 < argc)
            max_contacts = atoi(argv[++i]);
        else if (strcmp(argv[i], "--csv") == 0 && i + 1 < argc)
            csv_path = argv[++i];
        else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc)
            only = argv[++i];
        else {
            fprintf(stderr, "usage: bench_step [--max-contacts N] [--csv FILE] [--only SCENE]\n");
            return 2;
        }
    }
    FILE *csv = NULL;
    if (csv_path != NULL) {
        csv = fopen(csv_path, "w");
        if (csv == NULL) {
            fprintf(stderr, "bench_step: cannot write %s\n", csv_path);
            return 1;
        }
        fprintf(csv, "scene,simulator,size,seconds_per_step,accuracy\n");
    }
    if (only == NULL || strcmp(only, "billiard") == 0)
        bench_billiard(csv);
    if (only == NULL || strcmp(only, "incline") == 0)
        bench_incline(csv);
    if (only == NULL || strcmp(only, "pile") == 0)
        bench_pile(csv, &PILE_100);
    if (only == NULL || strcmp(only, "pile") == 0 || strcmp(only, "pile1000") == 0)
        bench_pile(csv, &PILE_1000);
    if (only == NULL || strcmp(only, "sweep") == 0)
        bench_sweep(csv, max_contacts);
    if (csv != NULL)
        fclose(csv);
    return 0;
}
