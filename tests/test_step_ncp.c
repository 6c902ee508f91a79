/* The implicit compliant NCP step: its Jacobian against finite differences of
 * its residual, the paper's billiard value, the rigid limit (sphere slip end),
 * energy, dense = sparse, failed steps and halving. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "step/implicit_ncp_form.h"
#include "step_scenes.h"

/* A sphere on the plane with compliant contact K = diag(k, kt, kt), C = c I. */
static cdyn_model *compliant_sphere_kt(double r, double m, double mu, double g, double k,
                                       double kt, double c);

/* A sphere on the plane with compliant contact K = k I, C = c I. */
static cdyn_model *compliant_sphere(double r, double m, double mu, double g, double k, double c)
{
    return compliant_sphere_kt(r, m, mu, g, k, k, c);
}

static cdyn_model *compliant_sphere_kt(double r, double m, double mu, double g, double k,
                                       double kt, double c)
{
    cdyn_builder_options bo;
    cdyn_builder_defaults(&bo, 3);
    bo.gravity[2] = -g;
    cdyn_builder *b = NULL;
    assert_int_equal(cdyn_builder_create(&bo, &b, NULL), CDYN_OK);
    cdyn_body_desc d;
    cdyn_body_desc_defaults(&d);
    d.mass = m;
    d.inertia[0] = d.inertia[1] = d.inertia[2] = 0.4 * m * r * r;
    int body, gp, gs, pair;
    assert_int_equal(cdyn_builder_add_body(b, &d, &body, NULL), CDYN_OK);
    cdyn_geom_desc plane, sphere;
    cdyn_geom_desc_defaults(&plane);
    cdyn_geom_desc_defaults(&sphere);
    sphere.body = body;
    sphere.type = CDYN_GEOM_SPHERE;
    sphere.size[0] = r;
    assert_int_equal(cdyn_builder_add_geom(b, &plane, &gp, NULL), CDYN_OK);
    assert_int_equal(cdyn_builder_add_geom(b, &sphere, &gs, NULL), CDYN_OK);
    cdyn_contact_pair_desc pd;
    cdyn_contact_pair_desc_defaults(&pd);
    pd.geom_a = gp;
    pd.geom_b = gs;
    pd.mu = mu;
    pd.stiffness[0] = k;
    pd.stiffness[4] = pd.stiffness[8] = kt;
    pd.damping[0] = pd.damping[4] = pd.damping[8] = c;
    assert_int_equal(cdyn_builder_add_contact_pair(b, &pd, &pair, NULL), CDYN_OK);
    cdyn_model *model = NULL;
    assert_int_equal(cdyn_builder_build(b, &model, NULL), CDYN_OK);
    cdyn_builder_free(b);
    return model;
}

/* The analytic Jacobian (q columns by central differences inside, the rest
 * closed-form) against central differences of the residual F itself at a point
 * with contact force, slip and friction multiplier all nonzero; both blocks
 * (d/dy and d/dx0). */
/* One contact row's form (rows = {0}) with a coupled K + C/h block; mu, A, Ch (1, 9, 9) are the
 * caller's arrays; f->scratch is calloc'ed. */
static void one_row_form(const cdyn_model *m, cdyn_data *data, int k, double friction, int qp,
                         ncp_form *f, int *rows, double *mu, double *A, double *Ch)
{
    const int nq = cdyn_model_nq(m), nv = cdyn_model_nv(m), nc = cdyn_model_ncontact(m);
    const int nd = cdyn_model_dim(m) == 2 ? 2 : 3;
    memset(f, 0, sizeof *f);
    f->model = m;
    f->data = data;
    f->nq = nq, f->nv = nv, f->nc = nc, f->nd = nd, f->k = k;
    f->nx = nq + nv + k * nd;
    f->ny = f->nx + k * nd + k;
    rows[0] = 0;
    mu[0] = friction;
    memset(A, 0, 9 * sizeof(double));
    memset(Ch, 0, 9 * sizeof(double));
    for (int d = 0; d < nd; d++) {
        A[d + d * nd] = 2e3 + 100.0 * d; /* K + C/h */
        Ch[d + d * nd] = 50.0 + d;
    }
    A[1] = A[nd] = 30.0; /* an off-diagonal coupling */
    f->rows = rows, f->mu = mu, f->A = A, f->Ch = Ch;
    f->h = 0.01, f->gamma = 1e-4;
    f->friction_qp = qp;
    f->scratch = calloc(ncp_form_scratch(nq, nv, k, nd), sizeof(double));
}

static void check_jacobian(const cdyn_model *m, const double *y, const double *x0, int k,
                           double friction, int qp)
{
    cdyn_data *data = NULL;
    assert_int_equal(cdyn_data_create(m, NULL, &data, NULL), CDYN_OK);
    ncp_form f;
    int rows[1];
    double mu[1], A[9], Ch[9];
    one_row_form(m, data, k, friction, qp, &f, rows, mu, A, Ch);
    const int n = f.ny, nx = f.nx, nd = f.nd;
    double *Jy = calloc((size_t)n * n, sizeof(double)),
           *Jx = calloc((size_t)n * nx, sizeof(double));
    double *Fp = calloc((size_t)n, sizeof(double)), *Fm = calloc((size_t)n, sizeof(double));
    double *yy = malloc(sizeof(double) * (size_t)n), *xx = malloc(sizeof(double) * (size_t)nx);
    if (qp) {
        /* which side of the cone the QP's minimizer P = lambda_T - F_T is on: the boundary for
         * the sliding points with mu = 0.3, inside with mu = 1e3 */
        assert_int_equal(ncp_form_F(&f, x0, y, Fp), 0);
        const int ol = f.nx;
        double pn = 0;
        for (int d = 1; d < nd; d++)
            pn = hypot(pn, y[ol + d] - Fp[ol + d]);
        const double r = friction * y[ol];
        print_message("friction QP minimizer |P| = %.6g, mu lambda_n = %.6g\n", pn, r);
        if (friction < 1)
            assert_true(fabs(pn - r) <= 1e-12 * r);
        else
            assert_true(pn < 0.9 * r);
    }
    for (f.scale_normal = 0; f.scale_normal <= 1; f.scale_normal++) {
        assert_int_equal(ncp_form_J(&f, x0, y, Jy, Jx), 0);
        double worst = 0, scale = 0;
        for (int j = 0; j < n; j++) {
            memcpy(yy, y, sizeof(double) * (size_t)n);
            const double eps = 1e-6 * fmax(1.0, fabs(y[j]));
            yy[j] = y[j] + eps;
            assert_int_equal(ncp_form_F(&f, x0, yy, Fp), 0);
            yy[j] = y[j] - eps;
            assert_int_equal(ncp_form_F(&f, x0, yy, Fm), 0);
            for (int i = 0; i < n; i++) {
                const double fd = (Fp[i] - Fm[i]) / (2 * eps);
                worst = fmax(worst, fabs(fd - Jy[i + (size_t)j * n]));
                scale = fmax(scale, fabs(fd));
            }
        }
        for (int j = 0; j < nx; j++) {
            memcpy(xx, x0, sizeof(double) * (size_t)nx);
            const double eps = 1e-6 * fmax(1.0, fabs(x0[j]));
            xx[j] = x0[j] + eps;
            assert_int_equal(ncp_form_F(&f, xx, y, Fp), 0);
            xx[j] = x0[j] - eps;
            assert_int_equal(ncp_form_F(&f, xx, y, Fm), 0);
            for (int i = 0; i < n; i++) {
                const double fd = (Fp[i] - Fm[i]) / (2 * eps);
                worst = fmax(worst, fabs(fd - Jx[i + (size_t)j * n]));
            }
        }
        print_message("Jacobian vs central differences (normal rows %s, %s, mu %g): max "
                      "|error| %.2e (largest entry %.2e)\n",
                      f.scale_normal ? "scaled" : "plain", qp ? "friction QP" : "NCP friction",
                      friction, worst, scale);
        assert_true(worst <= 1e-6 * scale);
    }
    free(f.scratch), free(Jy), free(Jx), free(Fp), free(Fm), free(yy), free(xx);
    cdyn_data_free(data);
}

static void test_jacobian_fd(void **unused)
{
    (void)unused;
    /* spatial: the billiard ball, tilted quaternion, sliding, pressed in */
    cdyn_model *m = compliant_sphere(0.05, 0.2, 0.3, 9.8, 1e4, 0);
    const double s2 = sqrt(0.5);
    const double x0[7 + 6 + 3] = {0.01, 0.02, 0.0495, s2,  s2 * 0.6, s2 * 0.8, 0,    1,
                                  0.5,  -0.1, 40,     -20, -10,      -1e-4,    2e-5, -3e-5};
    const double y[7 + 6 + 3 + 3 + 1] = {0.02, 0.025, 0.0493, 0.70, 0.43, 0.56, 0.05,
                                         0.9,  0.45,  -0.05,  38,   -18,  -9,   -2e-4,
                                         1e-4, -5e-5, 1.9,    -0.3, 0.2,  0.7};
    /* mu = 0.3: the NCP rows, and the friction QP on the cone's boundary (sliding); mu = 1e3:
     * the QP's minimizer inside the cone */
    check_jacobian(m, y, x0, 1, 0.3, 0);
    check_jacobian(m, y, x0, 1, 0.3, 1);
    check_jacobian(m, y, x0, 1, 1e3, 1);
    cdyn_model_free(m);
    /* planar: the disk */
    m = scene_disk(0.4, 1e4, 10);
    const double p0[3 + 3 + 2] = {0.0, 0.0999, 0.2, 1.2, -0.01, 1.0, -2e-4, 1e-5};
    const double py[3 + 3 + 2 + 2 + 1] = {0.012, 0.0998, 0.21, 1.1,   -0.02, 2.0,
                                          -3e-4, 2e-5,   0.5,  -0.18, 0.3};
    check_jacobian(m, py, p0, 1, 0.3, 0);
    check_jacobian(m, py, p0, 1, 0.3, 1);
    check_jacobian(m, py, p0, 1, 1e3, 1);
    cdyn_model_free(m);
}

/* Joint damping in the Newton matrix: a planar two-link chain with damped joints (50 and 20
 * N m s/rad, so that h D = 0.5, 0.2 stands out of the matrix's rounding) whose tip disk presses on
 * the ground line; the damping's d(h D v)/dv = h D enters the dynamics rows' v block through the
 * model's d id/dv. */
static void test_jacobian_fd_damped(void **unused)
{
    (void)unused;
    cdyn_builder_options bo;
    cdyn_builder_defaults(&bo, 2);
    cdyn_builder *b = NULL;
    assert_int_equal(cdyn_builder_create(&bo, &b, NULL), CDYN_OK);
    cdyn_body_desc l[2];
    for (int k = 0; k < 2; k++) {
        cdyn_body_desc_defaults(&l[k]);
        l[k].joint = CDYN_JOINT_REVOLUTE;
        l[k].frame = cdyn_pose_planar(k == 0 ? 0.0 : 0.3, k == 0 ? 0.25 : 0.0, 0);
        l[k].mass = k == 0 ? 0.8 : 0.5;
        l[k].com[0] = 0.15;
        l[k].inertia[2] = k == 0 ? 0.006 : 0.004;
        l[k].damping = k == 0 ? 50.0 : 20.0;
    }
    int ids[2], gl, gt;
    assert_int_equal(cdyn_builder_add_chain(b, CDYN_GROUND, 2, l, ids, NULL), CDYN_OK);
    cdyn_geom_desc line, tip;
    cdyn_geom_desc_defaults(&line);
    cdyn_geom_desc_defaults(&tip);
    tip.body = ids[1];
    tip.type = CDYN_GEOM_CIRCLE;
    tip.frame = cdyn_pose_planar(0.3, 0, 0);
    tip.size[0] = 0.03;
    assert_int_equal(cdyn_builder_add_geom(b, &line, &gl, NULL), CDYN_OK);
    assert_int_equal(cdyn_builder_add_geom(b, &tip, &gt, NULL), CDYN_OK);
    cdyn_contact_pair_desc pd;
    cdyn_contact_pair_desc_defaults(&pd);
    pd.geom_a = gl;
    pd.geom_b = gt;
    pd.mu = 0.3;
    assert_int_equal(cdyn_builder_add_contact_pair(b, &pd, NULL, NULL), CDYN_OK);
    cdyn_model *m = NULL;
    assert_int_equal(cdyn_builder_build(b, &m, NULL), CDYN_OK);
    cdyn_builder_free(b);
    /* (q, v, delta) at the start; (q, v, delta, lambda, beta) at the end: the tip near the line,
     * sliding, pressed */
    const double x0[2 + 2 + 2] = {-0.6, 0.5, 0.4, -0.3, -1e-4, 2e-5};
    const double y[2 + 2 + 2 + 2 + 1] = {-0.596, 0.497, 0.45, -0.35, -2e-4, 3e-5, 0.5, -0.1, 0.2};
    check_jacobian(m, y, x0, 1, 0.3, 0);
    check_jacobian(m, y, x0, 1, 0.3, 1);
    cdyn_model_free(m);
}

/* At a mode switch the Newton matrix is one-sided, and says which side: the friction QP's radius
 * r = mu max(lambda_n, 0) is taken with its right derivative at lambda_n = 0 (the side the bound
 * lambda_n >= 0 keeps), so the lambda_T rows' lambda_n column equals the forward difference there
 * (the backward one is 0 and the central one their mean). The billiard ball sliding with
 * lambda_n = 0 exactly. */
static void test_jacobian_one_sided(void **unused)
{
    (void)unused;
    cdyn_model *m = compliant_sphere(0.05, 0.2, 0.3, 9.8, 1e4, 0);
    cdyn_data *data = NULL;
    assert_int_equal(cdyn_data_create(m, NULL, &data, NULL), CDYN_OK);
    ncp_form f;
    int rows[1];
    double mu[1], A[9], Ch[9];
    one_row_form(m, data, 1, 0.3, 1, &f, rows, mu, A, Ch);
    const double x0[7 + 6 + 3] = {0.01, 0.02, 0.05, 1, 0, 0, 0, 1, 0.5, 0, 40, -20, -10, 0, 0, 0};
    double y[7 + 6 + 3 + 3 + 1] = {0.02, 0.025, 0.05, 1, 0, 0, 0, 0.9, 0.45, 0, 38, -18, -9,
                                   0, 0, 0, 0.0, 0.0, 0.0, 0.0};
    const int n = f.ny, ol = f.nx;
    double *J = calloc((size_t)n * n, sizeof(double)), Fp[20], F0[20], Fm[20];
    assert_int_equal(ncp_form_J(&f, x0, y, J, NULL), 0);
    assert_int_equal(ncp_form_F(&f, x0, y, F0), 0);
    const double eps = 1e-7;
    y[ol] = eps;
    assert_int_equal(ncp_form_F(&f, x0, y, Fp), 0);
    y[ol] = -eps;
    assert_int_equal(ncp_form_F(&f, x0, y, Fm), 0);
    y[ol] = 0.0;
    for (int d = 1; d < 3; d++) {
        const int i = ol + d;
        const double fwd = (Fp[i] - F0[i]) / eps, bwd = (F0[i] - Fm[i]) / eps;
        const double an = J[i + (size_t)ol * n];
        print_message("lambda_T row %d, lambda_n column at lambda_n = 0: analytic %.6g, forward "
                      "%.6g, backward %.6g\n", d, an, fwd, bwd);
        assert_true(fabs(an - fwd) <= 1e-6 * (1 + fabs(fwd)));
        assert_true(fabs(bwd) <= 1e-9);       /* no friction below the bound */
        assert_true(fabs(fwd) > 1e-3);        /* the sides differ: a genuine switch */
    }
    free(J);
    free(f.scratch);
    cdyn_data_free(data);
    cdyn_model_free(m);
}

static void run_billiard(cdyn_step_backend backend, double gamma, int qp, double *xy)
{
    cdyn_model *m = compliant_sphere(0.05, 0.2, 0.2, 9.8, 1e4, 0);
    cdyn_step_options o;
    cdyn_step_defaults(&o, CDYN_SCHEME_IMPLICIT_NCP);
    o.h = 0.01;
    o.backend = backend;
    o.gamma = gamma;
    o.friction_qp = qp;
    cdyn_stepper *s = NULL;
    cdyn_report rep;
    assert_int_equal(cdyn_stepper_create(m, &o, &s, &rep), CDYN_OK);
    cdyn_state *x = NULL;
    assert_int_equal(cdyn_state_create(m, NULL, &x, NULL), CDYN_OK);
    const double v0[6] = {1, 0.5, 0, 40, -20, -10};
    x->q[2] = 0.05;
    memcpy(x->v, v0, sizeof v0);
    for (int k = 0; k < 101; k++)
        assert_int_equal(cdyn_step(s, NULL, x, NULL), CDYN_OK);
    xy[0] = x->q[0];
    xy[1] = x->q[1];
    cdyn_stepper_free(s);
    cdyn_state_free(x);
    cdyn_model_free(m);
}

/* Song-Kumar-Pang's billiard IVP with the paper's model (K = 1e4 I, gamma =
 * 1e-4, h = 0.01, g = 9.8; the paper gives no damping: C = 0): the state after
 * 101 steps is displaced by (0.5632, -0.0534) (their BVP table) within 3e-4;
 * the dense and sparse paths agree to 1e-9. */
static void test_billiard_paper(void **unused)
{
    (void)unused;
    double d[2], sp[2];
    run_billiard(CDYN_BACKEND_FB_DENSE, 1e-4, 0, d);
    print_message("billiard after 101 steps: (%.5f, %.5f), paper (0.5632, -0.0534)\n", d[0], d[1]);
    assert_true(fabs(d[0] - 0.5632) <= 3e-4 && fabs(d[1] + 0.0534) <= 3e-4);
    run_billiard(CDYN_BACKEND_FB_SPARSE, 1e-4, 0, sp);
    assert_true(fabs(d[0] - sp[0]) < 1e-9 && fabs(d[1] - sp[1]) < 1e-9);
}

/* Proposition 1 inside the iteration: the friction QP gives the exact cone's tangential forces,
 * so on the billiard it must agree with the NCP rows whose smoothing gamma is negligible
 * (1e-10 N against mu lambda_n ~ 0.4 N: the cone is then exact to ~1e-10 relative); both solve
 * the same discrete equations to the solver's tolerance, so the displacements agree to 1e-8 m.
 * The paper's value holds for it too, and its dense and sparse paths agree. */
static void test_billiard_friction_qp(void **unused)
{
    (void)unused;
    double ncp[2], qp[2], sp[2];
    run_billiard(CDYN_BACKEND_FB_DENSE, 1e-10, 0, ncp);
    run_billiard(CDYN_BACKEND_FB_DENSE, 1e-4, 1, qp);
    print_message("billiard, friction QP (%.9f, %.9f) vs NCP gamma = 1e-10 (%.9f, %.9f)\n", qp[0],
                  qp[1], ncp[0], ncp[1]);
    assert_true(fabs(qp[0] - ncp[0]) < 1e-8 && fabs(qp[1] - ncp[1]) < 1e-8);
    assert_true(fabs(qp[0] - 0.5632) <= 3e-4 && fabs(qp[1] + 0.0534) <= 3e-4);
    run_billiard(CDYN_BACKEND_FB_SPARSE, 1e-4, 1, sp);
    assert_true(fabs(qp[0] - sp[0]) < 1e-9 && fabs(qp[1] - sp[1]) < 1e-9);
}

/* The rigid limit: a solid sphere sliding with slip s0 = 1 m/s stops slipping
 * at t* = s0 / (3.5 mu g); with K = 1e6 N/m, critically damped normal contact
 * and h = 1 ms the compliant scheme's slip (v - r w x n, the rigid part) ends
 * within 1 % of it. */
static void test_sphere_slip_end(void **unused)
{
    (void)unused;
    const double r = 0.05, mass = 0.2, mu = 0.2, g = 9.81, k = 1e6;
    const double c = 2 * sqrt(k * mass);
    cdyn_model *m = compliant_sphere(r, mass, mu, g, k, c);
    cdyn_step_options o;
    cdyn_step_defaults(&o, CDYN_SCHEME_IMPLICIT_NCP);
    o.h = 1e-3;
    cdyn_stepper *s = NULL;
    assert_int_equal(cdyn_stepper_create(m, &o, &s, NULL), CDYN_OK);
    cdyn_state *x = NULL;
    assert_int_equal(cdyn_state_create(m, NULL, &x, NULL), CDYN_OK);
    /* start at the static compression m g / k so that no impact transient
     * disturbs the slip */
    x->q[2] = r - mass * g / k;
    x->v[0] = 1.0;
    const double t_star = 1.0 / (3.5 * mu * g);
    double t_end = -1;
    for (int i = 0; i < 400 && t_end < 0; i++) {
        cdyn_step_report sr;
        assert_int_equal(cdyn_step(s, NULL, x, &sr), CDYN_OK);
        if (x->mode[0] == CDYN_MODE_STICK)
            t_end = x->t;
    }
    print_message("slip ends at %.4f s, rigid t* = %.4f s\n", t_end, t_star);
    assert_true(t_end > 0 && fabs(t_end - t_star) <= 0.01 * t_star);
    cdyn_stepper_free(s);
    cdyn_state_free(x);
    cdyn_model_free(m);
}

/* Energy never grows: kinetic + potential + the springs' 1/2 delta' K delta,
 * for a ball dropped on the compliant plane with spin (impact, sliding,
 * rolling; backward Euler and the damping only dissipate). */
static void test_energy(void **unused)
{
    (void)unused;
    const double r = 0.05, mass = 0.2, g = 9.81, k = 1e4, I = 0.4 * mass * r * r;
    cdyn_model *m = compliant_sphere(r, mass, 0.3, g, k, 5.0);
    cdyn_step_options o;
    cdyn_step_defaults(&o, CDYN_SCHEME_IMPLICIT_NCP);
    o.h = 0.005;
    cdyn_stepper *s = NULL;
    assert_int_equal(cdyn_stepper_create(m, &o, &s, NULL), CDYN_OK);
    cdyn_state *x = NULL;
    assert_int_equal(cdyn_state_create(m, NULL, &x, NULL), CDYN_OK);
    x->q[2] = 0.3;
    x->v[0] = 1.0;
    x->v[4] = 30;
    double e_prev = INFINITY;
    for (int i = 0; i < 300; i++) {
        const double *v = x->v, *dl = x->delta;
        const double e = mass * g * x->q[2] +
                         0.5 * mass * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) +
                         0.5 * I * (v[3] * v[3] + v[4] * v[4] + v[5] * v[5]) +
                         0.5 * k * (dl[0] * dl[0] + dl[1] * dl[1] + dl[2] * dl[2]);
        assert_true(e <= e_prev + 1e-9);
        e_prev = e;
        assert_int_equal(cdyn_step(s, NULL, x, NULL), CDYN_OK);
    }
    cdyn_stepper_free(s);
    cdyn_state_free(x);
    cdyn_model_free(m);
}

/* A failing solve (at most 2 Newton iterations per solve, h = 20 ms: the impact step needs
 * more; continuation off) leaves the state bit-identical. With the continuation in the step
 * length the same step at h succeeds (each solve of the path within the limit), and equals the
 * step solved with the default iteration limit; with halving it succeeds in substeps (shorter
 * steps penetrate less and converge within the limit; after a failed try at h/2^j the length
 * halves, after two successes it doubles again) and the report says how many. */
static void test_failure_and_halving(void **unused)
{
    (void)unused;
    cdyn_model *m = compliant_sphere(0.05, 0.2, 0.2, 9.8, 1e4, 0);
    cdyn_step_options o;
    cdyn_step_defaults(&o, CDYN_SCHEME_IMPLICIT_NCP);
    o.h = 0.02;
    o.mcp.max_iter = 2;
    o.continuation = 0;
    o.max_halvings = 0; /* the step as asked (the default 8 would take substeps) */
    cdyn_stepper *s = NULL;
    assert_int_equal(cdyn_stepper_create(m, &o, &s, NULL), CDYN_OK);
    cdyn_state *x = NULL, *c = NULL;
    assert_int_equal(cdyn_state_create(m, NULL, &x, NULL), CDYN_OK);
    assert_int_equal(cdyn_state_create(m, NULL, &c, NULL), CDYN_OK);
    /* dropped from 2 cm at 1 m/s onto the plane: the impact step needs several
     * iterations */
    x->q[2] = 0.07;
    x->v[2] = -1.0;
    x->v[0] = 1.0;
    x->v[3] = 40;
    cdyn_step_report sr;
    cdyn_status st = CDYN_OK;
    for (int i = 0; i < 40 && st == CDYN_OK; i++) {
        cdyn_state_copy(c, x, NULL);
        st = cdyn_step(s, NULL, x, &sr);
    }
    assert_int_equal(st, CDYN_ENOCONV);
    assert_memory_equal(x->q, c->q, sizeof(double) * 7);
    assert_memory_equal(x->v, c->v, sizeof(double) * 6);
    assert_memory_equal(x->delta, c->delta, sizeof(double) * 3);
    assert_memory_equal(x->lambda, c->lambda, sizeof(double) * 3);
    assert_true(x->t == c->t && x->mode[0] == c->mode[0]);
    cdyn_stepper_free(s);
    /* the continuation in the step length solves the step at h itself: the same answer as
       the default iteration limit reaches from the start (to the tolerance's conditioning) */
    cdyn_state *y = NULL;
    assert_int_equal(cdyn_state_create(m, NULL, &y, NULL), CDYN_OK);
    cdyn_state_copy(y, x, NULL);
    o.continuation = 4;
    assert_int_equal(cdyn_stepper_create(m, &o, &s, NULL), CDYN_OK);
    assert_int_equal(cdyn_step(s, NULL, y, &sr), CDYN_OK);
    assert_true(sr.continued >= 1 && sr.halvings == 0 && sr.substeps == 1);
    cdyn_stepper_free(s);
    cdyn_step_options od = o;
    od.mcp.max_iter = 100;
    od.continuation = 0;
    cdyn_state *z = NULL;
    assert_int_equal(cdyn_state_create(m, NULL, &z, NULL), CDYN_OK);
    cdyn_state_copy(z, x, NULL);
    assert_int_equal(cdyn_stepper_create(m, &od, &s, NULL), CDYN_OK);
    assert_int_equal(cdyn_step(s, NULL, z, &sr), CDYN_OK);
    assert_int_equal(sr.continued, 0);
    for (int i = 0; i < 7; i++)
        assert_true(fabs(y->q[i] - z->q[i]) <= 1e-9);
    for (int i = 0; i < 6; i++)
        assert_true(fabs(y->v[i] - z->v[i]) <= 1e-7 * (1 + fabs(z->v[i])));
    cdyn_stepper_free(s);
    cdyn_state_free(y);
    cdyn_state_free(z);
    o.continuation = 0;
    o.max_halvings = 6;
    assert_int_equal(cdyn_stepper_create(m, &o, &s, NULL), CDYN_OK);
    assert_int_equal(cdyn_step(s, NULL, x, &sr), CDYN_OK);
    /* substeps of h / 2^j (j <= halvings) that add up to h: at least halvings + 1 of them
       (h/2 + h/4 + ... + 2 h/2^k), at most 2^halvings */
    print_message("halving: %d substeps, %d halvings\n", sr.substeps, sr.halvings);
    assert_true(sr.halvings >= 1 && sr.substeps >= sr.halvings + 1 &&
                sr.substeps <= 1 << sr.halvings);
    assert_true(fabs(x->t - (c->t + 0.02)) < 1e-15);
    cdyn_stepper_free(s);
    cdyn_state_free(x);
    cdyn_state_free(c);
    cdyn_model_free(m);
}

static void test_refusals(void **unused)
{
    (void)unused;
    cdyn_model *m = compliant_sphere(0.05, 0.2, 0.2, 9.8, 1e4, 0);
    cdyn_step_options o;
    cdyn_step_defaults(&o, CDYN_SCHEME_IMPLICIT_NCP);
    cdyn_stepper *s = NULL;
    cdyn_report rep;
    o.backend = CDYN_BACKEND_LEMKE;
    assert_int_equal(cdyn_stepper_create(m, &o, &s, &rep), CDYN_EINVAL);
    o.backend = CDYN_BACKEND_AUTO;
    assert_int_equal(cdyn_stepper_create(m, &o, &s, &rep), CDYN_OK);
    assert_int_equal(cdyn_stepper_options(s)->backend, CDYN_BACKEND_FB_DENSE);
    cdyn_stepper_free(s);
    o.sparse_above = 5;
    assert_int_equal(cdyn_stepper_create(m, &o, &s, &rep), CDYN_OK);
    assert_int_equal(cdyn_stepper_options(s)->backend, CDYN_BACKEND_FB_SPARSE);
    cdyn_stepper_free(s);
    cdyn_model_free(m);
    /* the friction QP needs a compliant tangential direction: a row with K_t = C_t = 0 keeps the
     * smoothed NCP rows (docs/api.md), so the step is the one without the QP */
    m = compliant_sphere_kt(0.05, 0.2, 0.2, 9.8, 1e4, 0.0, 0.0);
    cdyn_state *x[2] = {NULL, NULL};
    for (int qp = 0; qp < 2; qp++) {
        cdyn_step_defaults(&o, CDYN_SCHEME_IMPLICIT_NCP);
        o.friction_qp = qp;
        assert_int_equal(cdyn_stepper_create(m, &o, &s, &rep), CDYN_OK);
        assert_int_equal(cdyn_state_create(m, NULL, &x[qp], NULL), CDYN_OK);
        x[qp]->q[2] = 0.049; /* pressed in: the row takes part */
        x[qp]->v[0] = 0.5;   /* and slides */
        cdyn_step_report sr;
        for (int k = 0; k < 10; k++)
            assert_int_equal(cdyn_step(s, NULL, x[qp], &sr), CDYN_OK);
        cdyn_stepper_free(s);
    }
    assert_memory_equal(x[0]->q, x[1]->q, 7 * sizeof(double));
    assert_memory_equal(x[0]->v, x[1]->v, 6 * sizeof(double));
    cdyn_state_free(x[0]);
    cdyn_state_free(x[1]);
    cdyn_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_jacobian_fd),         cmocka_unit_test(test_jacobian_one_sided),         cmocka_unit_test(test_billiard_paper),
        cmocka_unit_test(test_sphere_slip_end),     cmocka_unit_test(test_energy),
        cmocka_unit_test(test_failure_and_halving), cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_billiard_friction_qp),
        cmocka_unit_test(test_jacobian_fd_damped),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
