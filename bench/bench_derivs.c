/* bench_derivs: the implicit step's full (A, B) (cdyn_step_derivatives) as a multiple of the
 * step's own time, on three scenes: the billiard ball (sliding, dense backend), 30 spheres
 * sliding and spinning on a plane (one row each; 600 unknowns: the sparse backend), and a 3-link
 * planar finger (revolute joints about z, on a horizontal table) pushing a free box with its tip
 * sphere under constant joint torques (box-table 8 vertex rows, box-tip 1 row; dense backend),
 * measured after 5 settling steps with the tip sticking on the box's side and the box sliding.
 * Each measurement is the median of repeated runs of: copy the state, step (and, for the second,
 * take A and B). Each scene prints the contact modes of the measured step and the margins of
 * cdyn_step_deriv_report. Also the cost of the same Jacobians by central differences of whole
 * steps (2 (nx + nu) steps), the way a simulator without derivatives provides them (MuJoCo's
 * mjd_transitionFD takes one-sided differences: half of that). Beside them, when MuJoCo is
 * there, the same scene in MuJoCo (elliptic cones, Euler, the same h; the spheres from cdyn's
 * settled state and one step, so that the measured step is in contact; the finger from the same
 * start and the same 5 steps): its step and mjd_transitionFD by forward differences (MuJoCo's
 * usual), and centered, with the number of contacts of MuJoCo's measured step. MuJoCo's B has a
 * column per actuator: the spheres' free joints take none, so their time is A's alone (2 n_v + 1
 * steps forward, 4 n_v + 1 centered), a lower bound of (A, B) for n_u = n_v; the finger has a
 * motor on each hinge, so MuJoCo's time there is (A, B) with B's 3 columns (2 n_v + 3 + 1 steps
 * forward), against cdyn's B for tau on all n_v = 9 dofs.
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
    const double *tau; /* NULL: none */
    double *A, *B;
    int nx, nv, derivs;
} run;

static int one_step(void *ctx)
{
    run *r = ctx;
    cdyn_state_copy(r->x, r->x0, NULL);
    int st = cdyn_step(r->s, r->tau, r->x, NULL);
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

/* The finger pushing a box: a 3-link planar finger (revolute joints about z, links of
 * FINGER_L, mass FINGER_M, from a base at the box's mid height) on a horizontal table, its tip
 * sphere (radius FINGER_R) against the side of a free box (half-extents BOX_HALF, mass BOX_M)
 * resting on the plane z = 0. Contacts from solref (the defaults, as MuJoCo's); mu FINGER_MU
 * box-table (8 vertex rows), FINGER_TIP_MU box-tip (1 row). */
#define FINGER_L 0.1
#define FINGER_M 0.1
#define FINGER_R 0.015
#define BOX_HALF 0.04
#define BOX_M 0.2
#define FINGER_MU 0.3     /* box-table */
#define FINGER_TIP_MU 1.0 /* box-tip: a rubber tip, which sticks while the box slides */
#define FINGER_PUSH 1.5 /* N: the tip force along +x that the joint torques would make */
static const double finger_q0[3] = {-0.5, 0.6, 0.5};

/* The joints' and tip's positions in the table's plane at finger_q0. */
static void finger_points(double px[4], double py[4])
{
    double a = 0;
    px[0] = py[0] = 0;
    for (int k = 0; k < 3; k++) {
        a += finger_q0[k];
        px[k + 1] = px[k] + FINGER_L * cos(a);
        py[k + 1] = py[k] + FINGER_L * sin(a);
    }
}

static cdyn_model *finger_box(void)
{
    cdyn_builder_options bo;
    cdyn_builder_defaults(&bo, 3);
    cdyn_builder *b = NULL;
    if (cdyn_builder_create(&bo, &b, NULL) != CDYN_OK)
        return NULL;
    cdyn_body_desc l[3];
    for (int k = 0; k < 3; k++) {
        cdyn_body_desc_defaults(&l[k]);
        l[k].joint = CDYN_JOINT_REVOLUTE;
        l[k].frame.pos[0] = k == 0 ? 0 : FINGER_L;
        l[k].frame.pos[2] = k == 0 ? BOX_HALF : 0;
        l[k].mass = FINGER_M;
        l[k].com[0] = FINGER_L / 2;
        l[k].inertia[0] = 1e-5; /* a thin rod about its axis */
        l[k].inertia[1] = l[k].inertia[2] = FINGER_M * FINGER_L * FINGER_L / 12;
    }
    int ids[3], gp, gt, gb, box, pair;
    cdyn_status st = cdyn_builder_add_chain(b, CDYN_GROUND, 3, l, ids, NULL);
    double px[4], py[4];
    finger_points(px, py);
    cdyn_body_desc bd;
    cdyn_body_desc_defaults(&bd);
    bd.mass = BOX_M;
    bd.inertia[0] = bd.inertia[1] = bd.inertia[2] = BOX_M * 2 * BOX_HALF * BOX_HALF / 3;
    bd.frame.pos[0] = px[3] + FINGER_R + BOX_HALF; /* touching the tip */
    bd.frame.pos[1] = py[3];
    bd.frame.pos[2] = BOX_HALF; /* touching the table */
    st |= cdyn_builder_add_body(b, &bd, &box, NULL);
    cdyn_geom_desc g;
    cdyn_geom_desc_defaults(&g); /* the table */
    st |= cdyn_builder_add_geom(b, &g, &gp, NULL);
    g.body = ids[2];
    g.type = CDYN_GEOM_SPHERE;
    g.frame.pos[0] = FINGER_L;
    g.size[0] = FINGER_R;
    st |= cdyn_builder_add_geom(b, &g, &gt, NULL);
    cdyn_geom_desc_defaults(&g);
    g.body = box;
    g.type = CDYN_GEOM_BOX;
    g.size[0] = g.size[1] = g.size[2] = BOX_HALF;
    st |= cdyn_builder_add_geom(b, &g, &gb, NULL);
    cdyn_contact_pair_desc p;
    cdyn_contact_pair_desc_defaults(&p);
    p.mu = FINGER_MU;
    p.geom_a = gp;
    p.geom_b = gb;
    st |= cdyn_builder_add_contact_pair(b, &p, &pair, NULL);
    p.geom_a = gb;
    p.geom_b = gt;
    p.mu = FINGER_TIP_MU;
    st |= cdyn_builder_add_contact_pair(b, &p, &pair, NULL);
    cdyn_model *m = NULL;
    if (st == CDYN_OK)
        cdyn_builder_build(b, &m, NULL);
    cdyn_builder_free(b);
    return m;
}

/* The joint torques J^T (FINGER_PUSH, 0) at finger_q0 (tau[3..8], the box's, 0). */
static void finger_tau(double tau[9])
{
    double px[4], py[4];
    finger_points(px, py);
    for (int k = 0; k < 9; k++)
        tau[k] = 0;
    for (int k = 0; k < 3; k++)
        tau[k] = -(py[3] - py[k]) * FINGER_PUSH;
}

#ifdef CDYN_BENCH_MUJOCO
typedef struct mj_run {
    const mjModel *m;
    mjData *d;
    const double *qpos, *qvel, *ctrl; /* the state stepped from; ctrl NULL: none */
    double *A, *B;                    /* (2 nv) x (2 nv) and (2 nv) x nu, or NULL: the step alone */
    int centered;
} mj_run;

static int mj_one(void *ctx)
{
    mj_run *r = ctx;
    mj_resetData(r->m, r->d);
    memcpy(r->d->qpos, r->qpos, sizeof(double) * (size_t)r->m->nq);
    memcpy(r->d->qvel, r->qvel, sizeof(double) * (size_t)r->m->nv);
    if (r->ctrl != NULL)
        memcpy(r->d->ctrl, r->ctrl, sizeof(double) * (size_t)r->m->nu);
    mj_step(r->m, r->d);
    if (r->A != NULL)
        mjd_transitionFD(r->m, r->d, 1e-6, (mjtByte)r->centered, r->A, r->B, NULL, NULL);
    return 0;
}

/* Times MuJoCo's step and mjd_transitionFD (A, and B when the model has actuators) from d's
   state (settled) and prints the row; frees m and d. cdyn_deriv: cdyn's (A, B) time, for the
   ratio. */
static void mj_measure(mjModel *m, mjData *d, const bench_budget *budget, double cdyn_deriv)
{
    double *qpos = malloc(sizeof(double) * (size_t)m->nq);
    double *qvel = malloc(sizeof(double) * (size_t)m->nv);
    double *ctrl = m->nu > 0 ? malloc(sizeof(double) * (size_t)m->nu) : NULL;
    double *A = malloc(sizeof(double) * 4 * (size_t)m->nv * (size_t)m->nv);
    double *B = m->nu > 0 ? malloc(sizeof(double) * 2 * (size_t)m->nv * (size_t)m->nu) : NULL;
    memcpy(qpos, d->qpos, sizeof(double) * (size_t)m->nq);
    memcpy(qvel, d->qvel, sizeof(double) * (size_t)m->nv);
    if (ctrl != NULL)
        memcpy(ctrl, d->ctrl, sizeof(double) * (size_t)m->nu);
    mj_run r = {m, d, qpos, qvel, ctrl, NULL, NULL, 0};
    bench_timing ts, tf, tc;
    bench_time(mj_one, &r, budget, &ts);
    /* the contacts of the step (transitionFD's leave others), and of those with the plane */
    const int ncon = d->ncon;
    int nplane = 0;
    for (int c = 0; c < ncon; c++)
        nplane += d->contact[c].geom1 == 0 || d->contact[c].geom2 == 0;
    r.A = A;
    r.B = B;
    bench_time(mj_one, &r, budget, &tf);
    r.centered = 1;
    bench_time(mj_one, &r, budget, &tc);
    const double step = ts.median, fwd = tf.median - ts.median, ctr = tc.median - ts.median;
    printf("%-22s MuJoCo: step %9.1f us  %s by mjd_transitionFD (n_u %d; %d contacts, %d on the plane): forward "
           "%9.1f us = %5.1f x step, centered %9.1f us = %5.1f x step  | cdyn's exact (A, B) / "
           "MuJoCo's forward: %.2f\n",
           "", 1e6 * step, m->nu > 0 ? "(A, B)" : "A", m->nu, ncon, nplane, 1e6 * fwd, fwd / step,
           1e6 * ctr, ctr / step, cdyn_deriv / fwd);
    free(B);
    free(A);
    free(ctrl);
    free(qvel);
    free(qpos);
    mj_deleteData(d);
    mj_deleteModel(m);
}

/* MuJoCo on the spheres (x0: cdyn's start, before its settling steps). */
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
    /* One step from cdyn's settled state (its warm start): after more, MuJoCo's spinning balls
       hop off the plane (v_z = +0.56 m/s at its second step) and its measured step would be a
       free flight against cdyn's sliding contact. */
    mj_step(m, d);
    mj_measure(m, d, budget, cdyn_deriv);
}

/* MuJoCo on the finger and box: hinges with the same links, a motor on each (ctrl = cdyn's
   joint torques: MuJoCo's B has these 3 columns), the box free; the tip collides with the box
   only (contype/conaffinity), the box with the table; friction FINGER_MU on the table and the
   box, FINGER_TIP_MU on the tip (MuJoCo takes a pair's larger: as cdyn's pairs). Settled
   `settle` steps from the same start as cdyn. */
static void bench_mujoco_finger(double h, int settle, const bench_budget *budget,
                                double cdyn_deriv)
{
    double px[4], py[4], tau[9];
    finger_points(px, py);
    finger_tau(tau);
    const double iz = FINGER_M * FINGER_L * FINGER_L / 12, ib = BOX_M * 2 * BOX_HALF * BOX_HALF / 3;
    bench_text t = {NULL, 0, 0};
    bench_mj_header(&t, h, "0 0 -9.81", 20);
    bench_put(&t, "<geom type=\"plane\" size=\"100 100 0.1\" friction=\"%g 0 0\" contype=\"1\" "
                  "conaffinity=\"1\"/>",
              FINGER_MU);
    for (int k = 0; k < 3; k++)
        bench_put(&t, "<body pos=\"%g 0 %g\"><joint name=\"j%d\" type=\"hinge\" axis=\"0 0 1\"/>"
                      "<inertial pos=\"%g 0 0\" mass=\"%g\" diaginertia=\"1e-5 %.9g %.9g\"/>",
                  k == 0 ? 0 : FINGER_L, k == 0 ? BOX_HALF : 0, k, FINGER_L / 2, FINGER_M, iz, iz);
    bench_put(&t, "<geom type=\"sphere\" pos=\"%g 0 0\" size=\"%g\" friction=\"%g 0 0\" "
                  "condim=\"3\" contype=\"2\" conaffinity=\"2\"/></body></body></body>",
              FINGER_L, FINGER_R, FINGER_TIP_MU);
    bench_put(&t, "<body pos=\"%.9g %.9g %g\"><freejoint/><inertial pos=\"0 0 0\" mass=\"%g\" "
                  "diaginertia=\"%.9g %.9g %.9g\"/><geom type=\"box\" size=\"%g %g %g\" "
                  "friction=\"%g 0 0\" condim=\"3\" contype=\"3\" conaffinity=\"3\"/></body>",
              px[3] + FINGER_R + BOX_HALF, py[3], BOX_HALF, BOX_M, ib, ib, ib, BOX_HALF, BOX_HALF,
              BOX_HALF, FINGER_MU);
    bench_put(&t, "</worldbody><actuator><motor joint=\"j0\"/><motor joint=\"j1\"/>"
                  "<motor joint=\"j2\"/></actuator></mujoco>");
    mjModel *m = bench_mj_from_xml(t.s, "bench_derivs");
    free(t.s);
    if (m == NULL)
        return;
    mjData *d = mj_makeData(m);
    memcpy(d->qpos, finger_q0, sizeof finger_q0);
    memcpy(d->ctrl, tau, 3 * sizeof(double));
    for (int k = 0; k < settle; k++)
        mj_step(m, d);
    printf("%-22s MuJoCo's box: x %.4f m, v_x %.3f m/s after %d steps\n", "", d->qpos[3],
           d->qvel[3], settle);
    mj_measure(m, d, budget, cdyn_deriv);
}
#endif

/* Times the step from x0 (settled) with joint torques tau (NULL: none) and its (A, B), prints
   the row and the contact modes of the measured step; *deriv receives the (A, B) time. */
static int measure(const char *name, cdyn_model *m, cdyn_stepper *s, const cdyn_state *x0,
                   const double *tau, int quick, bench_budget *budget, double *deriv)
{
    cdyn_state *x = NULL;
    if (cdyn_state_create(m, NULL, &x, NULL) != CDYN_OK)
        return 1;
    const int nx = cdyn_step_deriv_nx(s), nv = cdyn_model_nv(m);
    run r = {s, x0, x, tau, malloc((size_t)nx * nx * sizeof(double)),
             malloc((size_t)nx * nv * sizeof(double)), nx, nv, 0};
    *budget = (bench_budget){quick ? 0.2 : 1.0, 5, BENCH_MAX_RUNS};
    bench_timing ts, td;
    int st = bench_time(one_step, &r, budget, &ts);
    r.derivs = 1;
    st |= bench_time(one_step, &r, budget, &td);
    cdyn_step_deriv_report dr;
    cdyn_state_copy(x, x0, NULL);
    cdyn_step_report sr;
    st |= cdyn_step(s, tau, x, &sr);
    st |= cdyn_step_derivatives(s, CDYN_DERIV_RELEASED, nx, nv, r.A, r.B, &dr);
    const double step = ts.median;
    *deriv = td.median - ts.median;
    printf("%-22s n_v %4d  nx %4d  unknowns %4d (%s)  step %9.1f us  (A, B) %9.1f us  "
           "= %5.2f x step  | central differences %6d steps = %7.0f x step\n",
           name, nv, nx, cdyn_model_nq(m) + nv + 7 * sr.nactive, dr.solver.method, 1e6 * step,
           1e6 * *deriv, *deriv / step, 2 * (nx + nv), 2.0 * (nx + nv));
    int counts[5] = {0};
    const int nc = (nx - 2 * nv) / 3;
    for (int i = 0; i < nc; i++)
        if (x->mode[i] >= 0 && x->mode[i] < 5)
            counts[x->mode[i]]++;
    printf("%-22s rows %d: free %d, stick %d, slip %d; margins: normal %.2g, cone %.2g, "
           "slip %.2g m/s\n",
           "", nc, counts[CDYN_MODE_FREE], counts[CDYN_MODE_STICK], counts[CDYN_MODE_SLIP],
           dr.normal_margin, dr.cone_margin, dr.slip_margin);
    free(r.A);
    free(r.B);
    cdyn_state_free(x);
    return st != CDYN_OK;
}

static int bench(const char *name, int n, int quick)
{
    cdyn_model *m = spheres(n);
    cdyn_stepper *s = NULL;
    cdyn_state *x0 = NULL;
    if (m == NULL || cdyn_stepper_create(m, NULL, &s, NULL) != CDYN_OK ||
        cdyn_state_create(m, NULL, &x0, NULL) != CDYN_OK) {
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
    bench_budget budget;
    double deriv;
    const int bad = measure(name, m, s, x0, NULL, quick, &budget, &deriv);
#ifdef CDYN_BENCH_MUJOCO
    bench_mujoco(n, start, 0.01, &budget, deriv);
#endif
    cdyn_state_free(start);
    cdyn_state_free(x0);
    cdyn_stepper_free(s);
    cdyn_model_free(m);
    return bad;
}

/* The finger pushing the box: from finger_q0 with the box touching the tip and the table, at
   rest, under the constant torques finger_tau, settled FINGER_SETTLE steps (the box slides). */
#define FINGER_SETTLE 5
static int bench_finger(int quick)
{
    cdyn_model *m = finger_box();
    cdyn_stepper *s = NULL;
    cdyn_state *x0 = NULL;
    if (m == NULL || cdyn_stepper_create(m, NULL, &s, NULL) != CDYN_OK ||
        cdyn_state_create(m, NULL, &x0, NULL) != CDYN_OK) {
        fprintf(stderr, "bench_derivs: finger set-up failed\n");
        return 1;
    }
    double tau[9];
    finger_tau(tau);
    memcpy(x0->q, finger_q0, sizeof finger_q0); /* the box at its frame's pose */
    for (int k = 0; k < FINGER_SETTLE; k++)
        if (cdyn_step(s, tau, x0, NULL) != CDYN_OK) {
            fprintf(stderr, "bench_derivs: finger settling step failed\n");
            return 1;
        }
    bench_budget budget;
    double deriv;
    const int bad = measure("3-link finger + box", m, s, x0, tau, quick, &budget, &deriv);
    printf("%-22s box: x %.4f m, v_x %.3f m/s after %d steps of h = 0.01 (tau %.3f %.3f %.3f)\n",
           "", x0->q[3], x0->v[3], FINGER_SETTLE, tau[0], tau[1], tau[2]);
#ifdef CDYN_BENCH_MUJOCO
    bench_mujoco_finger(0.01, FINGER_SETTLE, &budget, deriv);
#endif
    cdyn_state_free(x0);
    cdyn_stepper_free(s);
    cdyn_model_free(m);
    return bad;
}

int main(int argc, char **argv)
{
    const int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    int bad = bench("billiard (1 sphere)", 1, quick);
    bad |= bench("30 spheres", 30, quick);
    bad |= bench_finger(quick);
    return bad;
}
