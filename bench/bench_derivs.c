/* bench_derivs: the implicit step's full (A, B) (cdyn_step_derivatives) as a multiple of the
 * step's own time, on the billiard ball (sliding, dense backend) and 30 spheres sliding and
 * spinning on a plane (one row each; 600 unknowns: the sparse backend). Each measurement is the
 * median of repeated runs of: copy the state, step (and, for the second, take A and B). Also the
 * cost of the same Jacobians by central differences of whole steps (2 (nx + nu) steps), the
 * way a simulator without derivatives provides them (MuJoCo's mjd_transitionFD takes one-sided
 * differences: half of that). Beside them, when MuJoCo is there, the same scene in MuJoCo (elliptic
 * cones, Euler, the same h, positions and velocities, settled the same 5 steps): its step and
 * mjd_transitionFD's A by forward differences (MuJoCo's usual), and centered. MuJoCo's B has a
 * column per actuator and free joints take none here, so its time is A's alone (2 n_v + 1 steps
 * forward, 4 n_v + 1 centered): a lower bound of (A, B) for n_u = n_v.
 *   bench_derivs [--quick]      (OPENBLAS_NUM_THREADS=1 recommended; docs/benchmarks.md) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_timer.h"
#include "cdyn/cdyn.h"
#ifdef CDYN_BENCH_MUJOCO
#include "bench_mujoco.h"
#endif

typedef struct run {
    cdyn_stepper *s;
    const cdyn_state *x0;
    cdyn_state *x;
    double *A, *B;
    int nx, nv, derivs;
} run;

static int one_step(void *ctx)
{
    run *r = ctx;
    cdyn_state_copy(r->x, r->x0, NULL);
    int st = cdyn_step(r->s, NULL, r->x, NULL);
    if (st == CDYN_OK && r->derivs)
        st = cdyn_step_derivatives(r->s, CDYN_DERIV_RELEASED, r->nx, r->nv, r->A, r->B, NULL);
    return st;
}

/* n spheres (r = 0.05, m = 0.2, mu = 0.3) on the plane z = 0, K = 1e4 I (as bench_step) */
static cdyn_model *spheres(int n)
{
    cdyn_builder_options bo;
    cdyn_builder_defaults(&bo, 3);
    bo.gravity[2] = -9.81;
    cdyn_builder *b = NULL;
    if (cdyn_builder_create(&bo, &b, NULL) != CDYN_OK)
        return NULL;
    cdyn_geom_desc plane;
    cdyn_geom_desc_defaults(&plane);
    int gp, gs, body, pair;
    cdyn_builder_add_geom(b, &plane, &gp, NULL);
    for (int i = 0; i < n; i++) {
        cdyn_body_desc d;
        cdyn_body_desc_defaults(&d);
        d.mass = 0.2;
        d.inertia[0] = d.inertia[1] = d.inertia[2] = 0.4 * 0.2 * 0.05 * 0.05;
        cdyn_builder_add_body(b, &d, &body, NULL);
        cdyn_geom_desc g;
        cdyn_geom_desc_defaults(&g);
        g.body = body;
        g.type = CDYN_GEOM_SPHERE;
        g.size[0] = 0.05;
        cdyn_builder_add_geom(b, &g, &gs, NULL);
        cdyn_contact_pair_desc p;
        cdyn_contact_pair_desc_defaults(&p);
        p.geom_a = gp;
        p.geom_b = gs;
        p.mu = n == 1 ? 0.2 : 0.3;
        p.stiffness[0] = p.stiffness[4] = p.stiffness[8] = 1e4;
        cdyn_builder_add_contact_pair(b, &p, &pair, NULL);
    }
    cdyn_model *m = NULL;
    cdyn_builder_build(b, &m, NULL);
    cdyn_builder_free(b);
    return m;
}

#ifdef CDYN_BENCH_MUJOCO
typedef struct mj_run {
    const mjModel *m;
    mjData *d;
    const double *qpos, *qvel; /* the state stepped from */
    double *A;                 /* (2 nv) x (2 nv), or NULL: the step alone */
    int centered;
} mj_run;

static int mj_one(void *ctx)
{
    mj_run *r = ctx;
    mj_resetData(r->m, r->d);
    memcpy(r->d->qpos, r->qpos, sizeof(double) * (size_t)r->m->nq);
    memcpy(r->d->qvel, r->qvel, sizeof(double) * (size_t)r->m->nv);
    mj_step(r->m, r->d);
    if (r->A != NULL)
        mjd_transitionFD(r->m, r->d, 1e-6, (mjtByte)r->centered, r->A, NULL, NULL, NULL);
    return 0;
}

/* MuJoCo on the same scene (x0: cdyn's start, before its settling steps); cdyn_deriv: cdyn's
   (A, B) time, for the ratio. */
static void bench_mujoco(int n, const cdyn_state *x0, double h, const bench_budget *budget,
                         double cdyn_deriv)
{
    bench_text t = {NULL, 0, 0};
    bench_mj_header(&t, h, "0 0 -9.81", 2 * n + 10);
    bench_put(&t, "<geom type=\"plane\" size=\"100 100 0.1\" friction=\"%g 0 0\"/>",
              n == 1 ? 0.2 : 0.3);
    for (int i = 0; i < n; i++)
        bench_mj_ball(&t, x0->q[7 * i], x0->q[7 * i + 1], x0->q[7 * i + 2], 0.05, 0.2,
                      n == 1 ? 0.2 : 0.3);
    bench_put(&t, "</worldbody></mujoco>");
    mjModel *m = bench_mj_from_xml(t.s, "bench_derivs");
    free(t.s);
    if (m == NULL)
        return;
    mjData *d = mj_makeData(m);
    /* free joints: qvel is (linear world, angular body); the start is unrotated */
    memcpy(d->qvel, x0->v, sizeof(double) * (size_t)m->nv);
    for (int k = 0; k < 5; k++)
        mj_step(m, d);
    double *qpos = malloc(sizeof(double) * (size_t)m->nq);
    double *qvel = malloc(sizeof(double) * (size_t)m->nv);
    double *A = malloc(sizeof(double) * 4 * (size_t)m->nv * (size_t)m->nv);
    memcpy(qpos, d->qpos, sizeof(double) * (size_t)m->nq);
    memcpy(qvel, d->qvel, sizeof(double) * (size_t)m->nv);
    mj_run r = {m, d, qpos, qvel, NULL, 0};
    bench_timing ts, tf, tc;
    bench_time(mj_one, &r, budget, &ts);
    r.A = A;
    bench_time(mj_one, &r, budget, &tf);
    r.centered = 1;
    bench_time(mj_one, &r, budget, &tc);
    const double step = ts.median, fwd = tf.median - ts.median, ctr = tc.median - ts.median;
    printf("%-22s MuJoCo: step %9.1f us  A by mjd_transitionFD: forward %9.1f us = %5.1f x step, "
           "centered %9.1f us = %5.1f x step  | cdyn's exact (A, B) / MuJoCo's forward A: %.2f\n",
           "", 1e6 * step, 1e6 * fwd, fwd / step, 1e6 * ctr, ctr / step, cdyn_deriv / fwd);
    free(A);
    free(qvel);
    free(qpos);
    mj_deleteData(d);
    mj_deleteModel(m);
}
#endif

static int bench(const char *name, int n, int quick)
{
    cdyn_model *m = spheres(n);
    cdyn_stepper *s = NULL;
    cdyn_state *x0 = NULL, *x = NULL;
    if (m == NULL || cdyn_stepper_create(m, NULL, &s, NULL) != CDYN_OK ||
        cdyn_state_create(m, NULL, &x0, NULL) != CDYN_OK ||
        cdyn_state_create(m, NULL, &x, NULL) != CDYN_OK) {
        fprintf(stderr, "bench_derivs: set-up failed\n");
        return 1;
    }
    /* the billiard's launch (v0 = (1, 0.5, 0), w0 = (40, -20, -10)), spread over the spheres */
    const int side = (int)ceil(sqrt((double)n));
    for (int i = 0; i < n; i++) {
        double *q = x0->q + 7 * i, *v = x0->v + 6 * i;
        q[0] = 0.15 * (i % side);
        q[1] = 0.15 * (i / side);
        q[2] = 0.05;
        v[0] = 1.0 - 0.01 * i;
        v[1] = 0.5;
        v[3] = 40;
        v[4] = -20 + 0.1 * i;
        v[5] = -10;
    }
    cdyn_state *start = NULL;
    if (cdyn_state_create(m, NULL, &start, NULL) != CDYN_OK)
        return 1;
    cdyn_state_copy(start, x0, NULL);
    for (int k = 0; k < 5; k++) /* settled on the plane, sliding */
        if (cdyn_step(s, NULL, x0, NULL) != CDYN_OK) {
            fprintf(stderr, "bench_derivs: settling step failed\n");
            return 1;
        }
    const int nx = cdyn_step_deriv_nx(s), nv = cdyn_model_nv(m);
    run r = {s, x0, x, malloc((size_t)nx * nx * sizeof(double)),
             malloc((size_t)nx * nv * sizeof(double)), nx, nv, 0};
    const bench_budget budget = {quick ? 0.2 : 1.0, 5, BENCH_MAX_RUNS};
    bench_timing ts, td;
    int st = bench_time(one_step, &r, &budget, &ts);
    r.derivs = 1;
    st |= bench_time(one_step, &r, &budget, &td);
    cdyn_step_deriv_report dr;
    cdyn_state_copy(x, x0, NULL);
    cdyn_step_report sr;
    st |= cdyn_step(s, NULL, x, &sr);
    st |= cdyn_step_derivatives(s, CDYN_DERIV_RELEASED, nx, nv, r.A, r.B, &dr);
    const double step = ts.median, deriv = td.median - ts.median;
    printf("%-22s n_v %4d  nx %4d  unknowns %4d (%s)  step %9.1f us  (A, B) %9.1f us  "
           "= %5.2f x step  | central differences %6d steps = %7.0f x step\n",
           name, nv, nx, cdyn_model_nq(m) + nv + 7 * n, dr.solver.method, 1e6 * step, 1e6 * deriv,
           deriv / step, 2 * (nx + nv), 2.0 * (nx + nv));
#ifdef CDYN_BENCH_MUJOCO
    bench_mujoco(n, start, 0.01, &budget, deriv);
#endif
    cdyn_state_free(start);
    free(r.A);
    free(r.B);
    cdyn_state_free(x);
    cdyn_state_free(x0);
    cdyn_stepper_free(s);
    cdyn_model_free(m);
    return st != CDYN_OK;
}

int main(int argc, char **argv)
{
    const int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    int bad = bench("billiard (1 sphere)", 1, quick);
    bad |= bench("30 spheres", 30, quick);
    return bad;
}
