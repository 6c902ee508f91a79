/* bench_ncp_kept: the implicit step's kept solvers (src/step/implicit_ncp_solver.c, NCP_KEPT)
 * against keeping one (white box: ncp_ws.nkept), on the sparse backend. Per scene and number
 * kept: the KLU analyses of the run, the time per step (process CPU time, the fastest of 5
 * runs: the machine is shared) and whether the final state equals that of one solver bit for
 * bit. Scenes (h = 0.005):
 *   lifted     three spheres side by side on the floor (margin 1 cm), m of them lifted in turn by
 *              twice their weight for 10 steps of every 30 m: the rows cycle through m + 1 sets
 *   colliding  test_step_fd's 30 spheres pushed into each other (no gravity): sets do not recur
 *   resting    the same 30 spheres resting under gravity, spheres 0, 14, 29 lifted in turn
 * Usage: bench_ncp_kept [steps (200) [row]]; with row, that row of the table alone, run once
 * (for an instruction count under valgrind --tool=callgrind, which load does not disturb). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, CLOCK_PROCESS_CPUTIME_ID */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cdyn/model.h"
#include "cdyn/step.h"
#include "step/implicit_ncp_ws.h"

#define NS 30    /* spheres of the 30-sphere scenes */
#define NL 3     /* spheres of the lifted scene */
#define RUNS 5

static int lifted_n;            /* spheres lifted in turn */
static int only = -1, row = -1; /* the row to run (-1: all), the current row */

static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int add_sphere(cdyn_builder *b, double m, double x, double y, double z)
{
    cdyn_body_desc d;
    cdyn_body_desc_defaults(&d);
    d.mass = m;
    d.inertia[0] = d.inertia[1] = d.inertia[2] = 0.4 * m * 0.05 * 0.05;
    d.frame.pos[0] = x;
    d.frame.pos[1] = y;
    d.frame.pos[2] = z;
    int body, g;
    if (cdyn_builder_add_body(b, &d, &body, NULL) != CDYN_OK)
        return -1;
    cdyn_geom_desc s;
    cdyn_geom_desc_defaults(&s);
    s.body = body;
    s.type = CDYN_GEOM_SPHERE;
    s.size[0] = 0.05;
    return cdyn_builder_add_geom(b, &s, &g, NULL) == CDYN_OK ? g : -1;
}

static void add_pair(cdyn_builder *b, int ga, int gb, double mu, double k, double c)
{
    cdyn_contact_pair_desc p;
    cdyn_contact_pair_desc_defaults(&p);
    p.geom_a = ga;
    p.geom_b = gb;
    p.mu = mu;
    p.margin = 0.01;
    if (k > 0) {
        p.stiffness[0] = p.stiffness[4] = p.stiffness[8] = k;
        p.damping[0] = p.damping[4] = p.damping[8] = c;
    }
    cdyn_builder_add_contact_pair(b, &p, NULL, NULL);
}

/* test_step_fd's 30 spheres on a 6 x 5 grid 1 mm apart, pairs with the plane and grid
 * neighbours; gravity gz. */
static cdyn_model *spheres30(double gz)
{
    cdyn_builder_options bo;
    cdyn_builder_defaults(&bo, 3);
    bo.gravity[2] = gz;
    cdyn_builder *b = NULL;
    if (cdyn_builder_create(&bo, &b, NULL) != CDYN_OK)
        return NULL;
    cdyn_geom_desc plane;
    cdyn_geom_desc_defaults(&plane);
    int gp, g[NS];
    cdyn_builder_add_geom(b, &plane, &gp, NULL);
    for (int i = 0; i < NS; i++) {
        const double m = 0.1 + 0.05 * (i % 4);
        g[i] = add_sphere(b, m, 0.101 * (i % 6), 0.101 * (i / 6), 0.05 - m * 9.81 / 1e4);
    }
    for (int i = 0; i < NS; i++)
        for (int j = -1; j < i; j++)
            if (j < 0 || (abs(i % 6 - j % 6) <= 1 && abs(i / 6 - j / 6) <= 1))
                add_pair(b, j < 0 ? gp : g[j], g[i], 0.4, 1e4, 5);
    cdyn_model *m = NULL;
    cdyn_builder_build(b, &m, NULL);
    cdyn_builder_free(b);
    return m;
}

static cdyn_model *lifted(void)
{
    cdyn_builder_options bo;
    cdyn_builder_defaults(&bo, 3);
    bo.gravity[2] = -9.81;
    cdyn_builder *b = NULL;
    if (cdyn_builder_create(&bo, &b, NULL) != CDYN_OK)
        return NULL;
    cdyn_geom_desc fl;
    cdyn_geom_desc_defaults(&fl);
    int floor;
    cdyn_builder_add_geom(b, &fl, &floor, NULL);
    for (int i = 0; i < NL; i++)
        add_pair(b, floor, add_sphere(b, 0.2, 0.2 * i, 0, 0.05), 0.5, 0, 0);
    cdyn_model *m = NULL;
    cdyn_builder_build(b, &m, NULL);
    cdyn_builder_free(b);
    return m;
}

/* The state at step -1, the forces at step k >= 0. */
typedef void (*drive_fn)(const cdyn_model *m, cdyn_state *x, double *tau, int k);

static void lift(double *tau, int k, const int *who, double f)
{
    memset(tau, 0, 6 * NS * sizeof(double));
    for (int i = 0; i < lifted_n; i++)
        if (k % (30 * lifted_n) >= 30 * i && k % (30 * lifted_n) < 30 * i + 10)
            tau[6 * who[i] + 2] = f;
}

static void drive_lifted(const cdyn_model *m, cdyn_state *x, double *tau, int k)
{
    static const int who[NL] = {0, 1, 2};
    if (k < 0)
        cdyn_model_default_q(m, x->q);
    else
        lift(tau, k, who, 2 * 0.2 * 9.81);
}

static void drive_colliding(const cdyn_model *m, cdyn_state *x, double *tau, int k)
{
    (void)tau;
    if (k >= 0)
        return;
    cdyn_model_default_q(m, x->q);
    for (int i = 0; i < NS; i++) {
        x->v[6 * i] = 0.4 * ((i % 6) < 3 ? 1 : -1);
        x->v[6 * i + 1] = 0.1 * ((i / 6) % 2 ? 1 : -1);
        x->v[6 * i + 4] = 3.0 * (i % 3 - 1);
    }
}

static void drive_resting(const cdyn_model *m, cdyn_state *x, double *tau, int k)
{
    static const int who[3] = {0, 14, 29};
    if (k < 0)
        cdyn_model_default_q(m, x->q);
    else
        lift(tau, k, who, 2 * 0.25 * 9.81);
}

static double ref[1024]; /* q and v at the end of the run keeping one solver */

static void run(const char *name, const cdyn_model *m, drive_fn drive, int steps, int nkept)
{
    if (++row != only && only >= 0)
        return;
    cdyn_step_options o;
    cdyn_step_defaults(&o, CDYN_SCHEME_IMPLICIT_NCP);
    o.h = 0.005;
    o.backend = CDYN_BACKEND_FB_SPARSE;
    double best = INFINITY;
    int analyses = 0, failed = 0, same = 1;
    for (int r = 0; r < (only >= 0 ? 1 : RUNS); r++) {
        cdyn_stepper *s = NULL;
        cdyn_state *x = NULL;
        if (cdyn_stepper_create(m, &o, &s, NULL) != CDYN_OK ||
            cdyn_state_create(m, NULL, &x, NULL) != CDYN_OK) {
            printf("%s: cannot create the stepper\n", name);
            exit(1);
        }
        ((ncp_ws *)s->ws)->nkept = nkept;
        double tau[6 * NS] = {0};
        drive(m, x, tau, -1);
        analyses = failed = 0;
        const double t0 = cpu_now();
        for (int k = 0; k < steps; k++) {
            drive(m, x, tau, k);
            cdyn_step_report rep;
            failed += cdyn_step(s, tau, x, &rep) != CDYN_OK;
            analyses += rep.analyses;
        }
        best = fmin(best, (cpu_now() - t0) / steps);
        const size_t nq = (size_t)x->nq, nv = (size_t)x->nv;
        if (nkept == 1) {
            memcpy(ref, x->q, nq * sizeof(double));
            memcpy(ref + nq, x->v, nv * sizeof(double));
        }
        same = same && memcmp(ref, x->q, nq * sizeof(double)) == 0 &&
               memcmp(ref + nq, x->v, nv * sizeof(double)) == 0;
        cdyn_state_free(x);
        cdyn_stepper_free(s);
    }
    printf("| %2d | %-22s | %d | %4d | %8.1f | %d | %s |\n", row, name, nkept, analyses, 1e6 * best,
           failed, only >= 0 ? "-" : same ? "yes" : "NO");
}

int main(int argc, char **argv)
{
    const int steps = argc > 1 ? atoi(argv[1]) : 200;
    only = argc > 2 ? atoi(argv[2]) : -1;
    printf("| row | scene (%d steps, h = 0.005) | kept | analyses | CPU us/step | failed | = one "
           "solver |\n|---|---|---|---|---|---|---|\n",
           steps);
    cdyn_model *m = lifted();
    for (lifted_n = 1; lifted_n <= NL; lifted_n++) {
        char name[64];
        snprintf(name, sizeof name, "lifted, %d sets", lifted_n + 1);
        for (int k = 1; k <= NCP_KEPT; k++)
            run(name, m, drive_lifted, 3 * steps, k);
    }
    cdyn_model_free(m);
    m = spheres30(0.0);
    for (int k = 1; k <= NCP_KEPT; k += NCP_KEPT - 1)
        run("30 colliding", m, drive_colliding, steps, k);
    cdyn_model_free(m);
    m = spheres30(-9.81);
    for (lifted_n = 1; lifted_n <= 3; lifted_n++) {
        char name[64];
        snprintf(name, sizeof name, "30 resting, %d lifted", lifted_n);
        for (int k = 1; k <= NCP_KEPT; k += NCP_KEPT - 1)
            run(name, m, drive_resting, steps, k);
    }
    cdyn_model_free(m);
    return 0;
}
