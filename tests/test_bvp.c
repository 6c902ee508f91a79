/* Boundary-value problems of the implicit compliant scheme (cdyn/bvp.h): the paper's disk with
 * N = 21, the billiard consistency check (the BVP recovers the IVP's launch velocity), boundary
 * conditions at the solution, an unreachable target, and refusals. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cdyn/bvp.h"
#include "cdyn/design.h"
#include "step_scenes.h"

static cdyn_state **new_traj(const cdyn_model *m, int N)
{
    cdyn_state **traj = calloc((size_t)N + 1, sizeof *traj);
    for (int l = 0; l <= N; l++)
        assert_int_equal(cdyn_state_create(m, NULL, &traj[l], NULL), CDYN_OK);
    return traj;
}

static void free_traj(cdyn_state **traj, int N)
{
    for (int l = 0; l <= N; l++)
        cdyn_state_free(traj[l]);
    free(traj);
}

/* Song-Kumar-Pang's disk (m = 0.1, r = 0.1, I = 5e-4, mu = 4, g = 9.81), K = 1e6 N/m. */
static cdyn_model *disk(void)
{
    return scene_disk(4.0, 1e6, 0.0);
}

static void disk_start(cdyn_state *x, double v0)
{
    const double dn = 0.1 * 9.81 / 1e6;
    x->q[1] = 0.1 - dn;
    x->v[0] = v0;
    x->v[2] = 1.0;
    x->delta[0] = dn;
    x->lambda[0] = 0.1 * 9.81;
}

/* Start fixed but v_x; x(T) = x_end at T = 0.022 s (omega0 = omega0_; sensitivities when
 * nsens > 0). */
static cdyn_status disk_bvp_sens(const cdyn_model *m, int N, double v_guess, const double *upper0,
                                 double x_end, double omega0, int nsens, const int *which,
                                 double *sens, cdyn_state **traj, cdyn_bvp_report *rep);
static cdyn_status disk_problem(const cdyn_model *m, int N, double v_guess, const double *upper0,
                                double x_end, double omega0, int nsens, const int *which,
                                double *sens, int shoot, cdyn_state **traj, cdyn_bvp_report *rep);

/* Model-parameter sensitivities for the next disk_problem call (nparam = 0: none). */
typedef struct disk_params {
    int nparam;
    const cdyn_bvp_param *params;
    double *sens;
} disk_params;
static disk_params disk_param_request;
static int disk_fd_jacobian; /* the step blocks by central differences (the oracle) */

static cdyn_status disk_bvp(const cdyn_model *m, int N, double v_guess, const double *upper0,
                            cdyn_state **traj, cdyn_bvp_report *rep)
{
    return disk_bvp_sens(m, N, v_guess, upper0, 0.02, 1.0, 0, NULL, NULL, traj, rep);
}

static cdyn_status disk_bvp_sens(const cdyn_model *m, int N, double v_guess, const double *upper0,
                                 double x_end, double omega0, int nsens, const int *which,
                                 double *sens, cdyn_state **traj, cdyn_bvp_report *rep)
{
    return disk_problem(m, N, v_guess, upper0, x_end, omega0, nsens, which, sens, 0, traj, rep);
}

/* The disk BVP by cdyn_bvp_solve (shoot = 0) or cdyn_bvp_shoot with `shoot` segments. */
static cdyn_status disk_problem(const cdyn_model *m, int N, double v_guess, const double *upper0,
                                double x_end, double omega0, int nsens, const int *which,
                                double *sens, int shoot, cdyn_state **traj, cdyn_bvp_report *rep)
{
    static const int fixed0[8] = {1, 1, 1, 0, 1, 1, 1, 1}, fixedN[8] = {1, 0, 0, 0, 0, 0, 0, 0};
    const double valueN[8] = {x_end, 0, 0, 0, 0, 0, 0, 0};
    double value0[8];
    disk_start(traj[0], v_guess);
    traj[0]->v[2] = omega0;
    cdyn_bvp_state_pack(m, traj[0], value0);
    cdyn_bvp_conditions bc = {fixed0, fixedN, value0, valueN, 0, NULL, NULL, NULL, upper0};
    cdyn_bvp_options o;
    cdyn_bvp_defaults(&o);
    o.N = N;
    o.step.h = 0.022 / N;
    o.step.mcp.max_iter = 200;
    o.nsens = nsens;
    o.sens_which = which;
    o.sens = sens;
    o.shoot_segments = shoot; /* 1: single shooting, > 1: that many segments */
    o.step.fd_jacobian = disk_fd_jacobian;
    o.nparam = disk_param_request.nparam;
    o.params = disk_param_request.params;
    o.param_sens = disk_param_request.sens;
    return shoot ? cdyn_bvp_shoot(m, &o, &bc, traj, rep) : cdyn_bvp_solve(m, &o, &bc, traj, rep);
}

/* The paper's figure: with N = 21 the launch speed is within 0.015 of the analytic 1.2402 m/s
 * (Song-Kumar-Pang Sec. IV.A), the end condition holds to the solver's tolerance, the fixed start
 * components are kept, and the disk rolls at the end (v + r omega = 0: the transition happened,
 * at the analytic 0.0114 s within h). */
static void test_disk_n21(void **unused)
{
    (void)unused;
    cdyn_model *m = disk();
    const int N = 21;
    cdyn_state **traj = new_traj(m, N);
    cdyn_bvp_report rep;
    assert_int_equal(disk_bvp(m, N, 1.0, NULL, traj, &rep), CDYN_OK);
    assert_true(fabs(traj[0]->v[0] - 1.2402) <= 0.015);
    assert_true(fabs(traj[N]->q[0] - 0.02) <= 1e-9);
    assert_true(traj[0]->v[2] == 1.0 && traj[0]->q[0] == 0.0);
    assert_true(fabs(traj[N]->v[0] + 0.1 * traj[N]->v[2]) < 1e-6);
    double onset = -1;
    for (int l = 1; l <= N && onset < 0; l++)
        if (traj[l]->mode[0] == CDYN_MODE_STICK)
            onset = traj[l]->t;
    assert_true(fabs(onset - 0.0114) <= 0.022 / N);
    assert_int_equal(rep.unknowns, 8 + N * 11);
    free_traj(traj, N);
    cdyn_model_free(m);
}

/* Exact gradients through contact: the launch speed's derivatives with respect to the target
 * x(T) and to the spin omega0, from one factorization at the solution, against central
 * differences of whole BVP solves (the rolling onset stays in the same step under these
 * perturbations: away from a mode switch). */
/* The BVP with the step's analytic Newton blocks against the same BVP with the blocks by central
 * differences of the step's residual (options.step.fd_jacobian): both converge to the solver's
 * tolerance, so the trajectories and the sensitivities agree to the conditioning times it; the
 * issue asks 1e-8 (relative to 1 + |x|). The default friction law (the friction QP). */
static void test_disk_analytic_vs_oracle(void **unused)
{
    (void)unused;
    cdyn_model *m = disk();
    const int N = 21, nx = 8;
    const int which[2] = {nx + 0, 5};
    double sens[2][2 * 22 * 8];
    cdyn_state **traj[2] = {new_traj(m, N), new_traj(m, N)};
    cdyn_bvp_report rep;
    for (int fd = 0; fd < 2; fd++) {
        disk_fd_jacobian = fd;
        assert_int_equal(disk_bvp_sens(m, N, 1.0, NULL, 0.02, 1.0, 2, which, sens[fd], traj[fd],
                                       &rep),
                         CDYN_OK);
    }
    disk_fd_jacobian = 0;
    double err = 0, serr = 0;
    for (int l = 0; l <= N; l++) {
        const cdyn_state *a = traj[0][l], *b = traj[1][l];
        for (int i = 0; i < 3; i++) {
            err = fmax(err, fabs(a->q[i] - b->q[i]) / (1 + fabs(b->q[i])));
            err = fmax(err, fabs(a->v[i] - b->v[i]) / (1 + fabs(b->v[i])));
        }
    }
    for (int t = 0; t < 2 * (N + 1) * nx; t++)
        serr = fmax(serr, fabs(sens[0][t] - sens[1][t]) / (1 + fabs(sens[1][t])));
    print_message("disk BVP N = %d: analytic vs oracle: states %.1e, sensitivities %.1e\n", N, err,
                  serr);
    assert_true(err <= 1e-8);
    assert_true(serr <= 1e-8);
    free_traj(traj[0], N);
    free_traj(traj[1], N);
    cdyn_model_free(m);
}

static void test_disk_sensitivity(void **unused)
{
    (void)unused;
    cdyn_model *m = disk();
    const int N = 21, nx = 8;
    cdyn_state **traj = new_traj(m, N);
    const int which[2] = {nx + 0, 5}; /* valueN[x], value0[omega] */
    double sens[2 * 22 * 8];
    cdyn_bvp_report rep;
    assert_int_equal(disk_bvp_sens(m, N, 1.0, NULL, 0.02, 1.0, 2, which, sens, traj, &rep),
                     CDYN_OK);
    const double dv_dxT = sens[(0 * (N + 1) + 0) * nx + 3], dv_dw = sens[(1 * (N + 1) + 0) * nx + 3];
    /* the end position's derivative with respect to its own target is 1 */
    assert_true(fabs(sens[(0 * (N + 1) + N) * nx + 0] - 1.0) < 1e-9);
    const double e = 1e-5;
    double vp, vm;
    assert_int_equal(disk_bvp_sens(m, N, 1.0, NULL, 0.02 + e, 1.0, 0, NULL, NULL, traj, &rep),
                     CDYN_OK);
    vp = traj[0]->v[0];
    assert_int_equal(disk_bvp_sens(m, N, 1.0, NULL, 0.02 - e, 1.0, 0, NULL, NULL, traj, &rep),
                     CDYN_OK);
    vm = traj[0]->v[0];
    const double fd_xT = (vp - vm) / (2 * e);
    assert_int_equal(disk_bvp_sens(m, N, 1.0, NULL, 0.02, 1.0 + e, 0, NULL, NULL, traj, &rep),
                     CDYN_OK);
    vp = traj[0]->v[0];
    assert_int_equal(disk_bvp_sens(m, N, 1.0, NULL, 0.02, 1.0 - e, 0, NULL, NULL, traj, &rep),
                     CDYN_OK);
    vm = traj[0]->v[0];
    const double fd_w = (vp - vm) / (2 * e);
    print_message("dv0/dxT = %.8f (central differences %.8f), dv0/dw0 = %.8f (%.8f)\n", dv_dxT,
                  fd_xT, dv_dw, fd_w);
    assert_true(fabs(dv_dxT - fd_xT) <= 1e-5 * fabs(fd_xT));
    assert_true(fabs(dv_dw - fd_w) <= 1e-5 * fmax(fabs(fd_w), 1e-3));
    /* a free component is refused */
    const int bad_which[1] = {3};
    assert_int_equal(disk_bvp_sens(m, N, 1.0, NULL, 0.02, 1.0, 1, bad_which, sens, traj, &rep),
                     CDYN_EINVAL);
    free_traj(traj, N);
    cdyn_model_free(m);
}

/* Finer grids from a naive guess (v0 = 0), through the coarser grids (grid continuation): the
 * launch speed approaches the analytic 1.2402 m/s within 13 h (a first-order scheme's bound,
 * issue 8) plus the tangential compliance's share: sliding friction mu m g stretches the
 * tangential spring by mu m g / K_t, a shift of x(T) the launch speed makes up over T, i.e.
 * about mu m g / (K_t T) = 1.8e-4 m/s. */
static void test_disk_fine_grids(void **unused)
{
    (void)unused;
    cdyn_model *m = disk();
    const int Ns[2] = {200, 2000};
    for (int i = 0; i < 2; i++) {
        const int N = Ns[i];
        const double h = 0.022 / N, bound = 13 * h + 4 * 0.1 * 9.81 / (1e6 * 0.022);
        cdyn_state **traj = new_traj(m, N);
        cdyn_bvp_report rep;
        assert_int_equal(disk_bvp(m, N, 0.0, NULL, traj, &rep), CDYN_OK);
        print_message("N = %d: v0 = %.6f, |v0 - 1.2402| = %.2e (bound %.2e)\n", N,
                      traj[0]->v[0], fabs(traj[0]->v[0] - 1.2402), bound);
        assert_true(fabs(traj[0]->v[0] - 1.2402) <= bound);
        assert_true(fabs(traj[N]->q[0] - 0.02) <= 1e-9);
        free_traj(traj, N);
    }
    cdyn_model_free(m);
}

/* The exact v0 of the rigid disk: sliding with back-spin w0 = 1 rad/s, the slip s = v + r w falls
 * at mu g (1 + m r^2 / I) = 117.72 m/s^2 until tau = s0 / 117.72, v at mu g = 39.24 m/s^2, then it
 * rolls at v(tau); x(T) = v0 tau - 39.24 tau^2 / 2 + v(tau) (T - tau) = 0.02 m at T = 0.022 s,
 * solved by bisection (the paper rounds it to 1.2402). */
static double disk_v0_exact(void)
{
    double lo = 0.5, hi = 3.0;
    for (int it = 0; it < 200; it++) {
        const double v0 = 0.5 * (lo + hi), tau = (v0 + 0.1) / 117.72;
        const double x = v0 * tau - 0.5 * 39.24 * tau * tau + (v0 - 39.24 * tau) * (0.022 - tau);
        if (x > 0.02)
            hi = v0;
        else
            lo = v0;
    }
    return 0.5 * (lo + hi);
}

/* The bound taken literally: |v0_h - v0| <= 13 h at N = 200 and 2000 against the exact
 * v0, with a tangential spring stiff enough (K_t = 1e8 N/m) that its share mu m g / (K_t T) is
 * negligible; with the friction QP each N takes 1-2 Newton iterations (the NCP rows: 67). The
 * error is first order: about 12 h at both N. */
static void test_disk_fine_grids_stiff(void **unused)
{
    (void)unused;
    cdyn_model *m = scene_disk_kt(4.0, 1e6, 1e8, 0.0);
    const double v0 = disk_v0_exact();
    assert_true(fabs(v0 - 1.2402) < 5e-5); /* the paper's rounding */
    const int Ns[2] = {200, 2000};
    for (int i = 0; i < 2; i++) {
        const int N = Ns[i];
        const double h = 0.022 / N;
        cdyn_state **traj = new_traj(m, N);
        disk_start(traj[0], 0.0);
        static const int fixed0[8] = {1, 1, 1, 0, 1, 1, 1, 1}, fixedN[8] = {1, 0, 0, 0, 0, 0, 0, 0};
        const double valueN[8] = {0.02, 0, 0, 0, 0, 0, 0, 0};
        double value0[8];
        cdyn_bvp_state_pack(m, traj[0], value0);
        cdyn_bvp_conditions bc = {fixed0, fixedN, value0, valueN, 0, NULL, NULL, NULL, NULL};
        cdyn_bvp_options o;
        cdyn_bvp_defaults(&o);
        o.N = N;
        o.step.h = h;
        o.step.mcp.max_iter = 200;
        o.step.friction_qp = 1;
        cdyn_bvp_report rep;
        assert_int_equal(cdyn_bvp_solve(m, &o, &bc, traj, &rep), CDYN_OK);
        print_message("K_t = 1e8, friction QP, N = %d: v0 = %.7f, |v0 - %.7f| = %.2e = %.1f h "
                      "(bound 13 h)\n", N, traj[0]->v[0], v0, fabs(traj[0]->v[0] - v0),
                      fabs(traj[0]->v[0] - v0) / h);
        assert_true(fabs(traj[0]->v[0] - v0) <= 13 * h);
        assert_true(fabs(traj[N]->q[0] - 0.02) <= 1e-9);
        free_traj(traj, N);
    }
    cdyn_model_free(m);
}

/* The disk's BVP asked for the sensitivity to bad: CDYN_EINVAL naming params[0]; frees traj. */
static void param_refused(const cdyn_bvp_param *bad, double *psens, int N, cdyn_state **traj)
{
    cdyn_model *m = disk();
    cdyn_bvp_report rep;
    disk_param_request = (disk_params){1, bad, psens};
    assert_int_equal(disk_bvp(m, N, 1.0, NULL, traj, &rep), CDYN_EINVAL);
    assert_non_null(strstr(rep.solver.message, "params[0]"));
    disk_param_request = (disk_params){0, NULL, NULL};
    free_traj(traj, N);
    cdyn_model_free(m);
}

/* Exact gradients with respect to model parameters: dv0/dmu and dv0/dK (normal + tangential,
 * which scene_disk sets together) from one factorization at the solution, against central
 * differences of whole BVP solves on rebuilt models (N = 21; the perturbations keep the rolling
 * onset in its step). */
static void test_disk_param_sensitivity(void **unused)
{
    (void)unused;
    const int N = 21, nx = 8;
    const cdyn_bvp_param params[3] = {{CDYN_BVP_PARAM_MU, 0, 0},
                                      {CDYN_BVP_PARAM_STIFFNESS_N, 0, 0},
                                      {CDYN_BVP_PARAM_STIFFNESS_T, 0, 0}};
    double *psens = calloc((size_t)3 * (N + 1) * nx, sizeof(double));
    cdyn_model *m = disk();
    cdyn_state **traj = new_traj(m, N);
    cdyn_bvp_report rep;
    disk_param_request = (disk_params){3, params, psens};
    assert_int_equal(disk_bvp(m, N, 1.0, NULL, traj, &rep), CDYN_OK);
    disk_param_request = (disk_params){0, NULL, NULL};
    const double dv_dmu = psens[3], dv_dk = psens[(N + 1) * nx + 3] + psens[2 * (N + 1) * nx + 3];
    cdyn_model_free(m);
    double vp, vm;
    const double emu = 1e-3, ek = 1e2;
    m = scene_disk(4.0 + emu, 1e6, 0.0);
    assert_int_equal(disk_bvp(m, N, 1.0, NULL, traj, &rep), CDYN_OK);
    vp = traj[0]->v[0];
    cdyn_model_free(m);
    m = scene_disk(4.0 - emu, 1e6, 0.0);
    assert_int_equal(disk_bvp(m, N, 1.0, NULL, traj, &rep), CDYN_OK);
    vm = traj[0]->v[0];
    cdyn_model_free(m);
    const double fd_mu = (vp - vm) / (2 * emu);
    m = scene_disk(4.0, 1e6 + ek, 0.0);
    assert_int_equal(disk_bvp(m, N, 1.0, NULL, traj, &rep), CDYN_OK);
    vp = traj[0]->v[0];
    cdyn_model_free(m);
    m = scene_disk(4.0, 1e6 - ek, 0.0);
    assert_int_equal(disk_bvp(m, N, 1.0, NULL, traj, &rep), CDYN_OK);
    vm = traj[0]->v[0];
    cdyn_model_free(m);
    const double fd_k = (vp - vm) / (2 * ek);
    print_message("dv0/dmu = %.8e (central differences %.8e), dv0/dK = %.8e (%.8e)\n", dv_dmu,
                  fd_mu, dv_dk, fd_k);
    assert_true(fabs(dv_dmu - fd_mu) <= 1e-5 * fabs(fd_mu));
    assert_true(fabs(dv_dk - fd_k) <= 1e-4 * fabs(fd_k));
    /* bad requests are refused */
    const cdyn_bvp_param bad = {CDYN_BVP_PARAM_MU, 7, 0};
    param_refused(&bad, psens, N, traj);
    free(psens);
}

/* The launch speed v0 of the disk's BVP for the disk of radius r over the line y = line_y. */
static double disk_v0(double r, double line_y, cdyn_state **traj, int N)
{
    cdyn_model *m = scene_disk_shaped(4.0, 1e6, 1e6, 0.0, r, line_y);
    cdyn_bvp_report rep;
    assert_int_equal(disk_bvp(m, N, 1.0, NULL, traj, &rep), CDYN_OK);
    cdyn_model_free(m);
    return traj[0]->v[0];
}

/* Geometric sensitivities: dv0/dr (the disk's radius) and dv0/dy (the line's offset, the
 * start's penetration at fixed q), against central differences of whole BVP solves on models
 * rebuilt with the geometry moved (eps = 1e-8 m: the start's penetration is 1e-6 m). */
static void test_disk_geom_sensitivity(void **unused)
{
    (void)unused;
    const int N = 21, nx = 8;
    const cdyn_bvp_param params[2] = {{CDYN_BVP_PARAM_GEOM_SIZE, 1, 0},
                                      {CDYN_BVP_PARAM_GEOM_POS, 0, 1}};
    double *psens = calloc((size_t)2 * (N + 1) * nx, sizeof(double));
    cdyn_model *m = disk();
    cdyn_state **traj = new_traj(m, N);
    cdyn_bvp_report rep;
    disk_param_request = (disk_params){2, params, psens};
    assert_int_equal(disk_bvp(m, N, 1.0, NULL, traj, &rep), CDYN_OK);
    disk_param_request = (disk_params){0, NULL, NULL};
    cdyn_model_free(m);
    const double dv_dr = psens[3], dv_dy = psens[(N + 1) * nx + 3], e = 1e-8;
    const double fd_r = (disk_v0(0.1 + e, 0, traj, N) - disk_v0(0.1 - e, 0, traj, N)) / (2 * e);
    const double fd_y = (disk_v0(0.1, e, traj, N) - disk_v0(0.1, -e, traj, N)) / (2 * e);
    print_message("dv0/dr = %.8e (central differences %.8e), dv0/dy = %.8e (%.8e)\n", dv_dr,
                  fd_r, dv_dy, fd_y);
    assert_true(fabs(dv_dr - fd_r) <= 1e-5 * fabs(fd_r));
    assert_true(fabs(dv_dy - fd_y) <= 1e-5 * fabs(fd_y));
    /* a component the geometry does not have */
    const cdyn_bvp_param bad = {CDYN_BVP_PARAM_GEOM_SIZE, 1, 2};
    param_refused(&bad, psens, N, traj);
    free(psens);
}

/* Design with exact gradients: the friction coefficient for which the disk's BVP launch speed is
 * a given v*, found by cdyn_design_minimize on (v0(mu) - v*)^2 with the gradient
 * 2 (v0 - v*) dv0/dmu from the parameter sensitivities. v* is the BVP's answer at mu = 3.5, so
 * the design must come back to 3.5 (to 1e-6), from mu = 4.5 within [2, 6]. */
typedef struct mu_design {
    int N;
    double target;
    int solves;
} mu_design;

static int mu_cost(void *ctx, int thread, const double *p, double *f, double *g)
{
    (void)thread;
    mu_design *d = ctx;
    cdyn_model *m = scene_disk(p[0], 1e6, 0.0);
    cdyn_state **traj = new_traj(m, d->N);
    const cdyn_bvp_param prm = {CDYN_BVP_PARAM_MU, 0, 0};
    double *ps = calloc((size_t)(d->N + 1) * 8, sizeof(double));
    disk_param_request = (disk_params){g != NULL ? 1 : 0, &prm, ps};
    cdyn_bvp_report rep;
    const cdyn_status st = disk_bvp(m, d->N, 1.0, NULL, traj, &rep);
    disk_param_request = (disk_params){0, NULL, NULL};
    d->solves++;
    const double e = traj[0]->v[0] - d->target;
    *f = e * e;
    if (g != NULL)
        g[0] = 2 * e * ps[3];
    free(ps);
    free_traj(traj, d->N);
    cdyn_model_free(m);
    return st != CDYN_OK;
}

static void test_design_mu_exact_gradient(void **unused)
{
    (void)unused;
    mu_design d = {21, 0, 0};
    cdyn_model *m = scene_disk(3.5, 1e6, 0.0);
    cdyn_state **traj = new_traj(m, 21);
    cdyn_bvp_report rep;
    assert_int_equal(disk_bvp(m, 21, 1.0, NULL, traj, &rep), CDYN_OK);
    d.target = traj[0]->v[0];
    free_traj(traj, 21);
    cdyn_model_free(m);
    const double lo = 2.0, hi = 6.0;
    double p = 4.5;
    cdyn_design_options o;
    cdyn_design_defaults(&o);
    o.gradient = CDYN_DESIGN_GRAD_USER;
    o.tol = 1e-12;
    cdyn_design_result res;
    d.solves = 0;
    const cdyn_status st = cdyn_design_minimize(1, mu_cost, &d, &lo, &hi, &p, &o, &res, NULL);
    print_message("design over mu with exact gradients: mu = %.9f (target 3.5) after %d "
                  "iterations, %d BVP solves\n", p, res.iterations, d.solves);
    assert_int_equal(st, CDYN_OK);
    assert_true(fabs(p - 3.5) < 1e-6);
}

/* No launch speed below 0.5 m/s reaches x = 0.02 m: a clean CDYN_ENOSOLUTION with the miss as
 * the residual, the trajectory untouched. */
static void test_disk_unreachable(void **unused)
{
    (void)unused;
    cdyn_model *m = disk();
    const int N = 21;
    cdyn_state **traj = new_traj(m, N);
    const double upper0[8] = {INFINITY, INFINITY, INFINITY, 0.5, INFINITY, INFINITY, INFINITY,
                              INFINITY};
    cdyn_bvp_report rep;
    traj[N]->q[0] = 123.0; /* must stay untouched */
    assert_int_equal(disk_bvp(m, N, 0.3, upper0, traj, &rep), CDYN_ENOSOLUTION);
    assert_true(rep.solver.residual > 1e-3);
    assert_true(traj[N]->q[0] == 123.0);
    free_traj(traj, N);
    cdyn_model_free(m);
}

/* The billiard consistency check of Song-Kumar-Pang: run the IVP (K = 1e4, h = 0.01, N steps)
 * from v0 = (1, 0.5, 0), w0 = (40, -20, -10); then solve the BVP with the start fixed but for
 * (v_x, v_y) and the end position fixed to the IVP's: it recovers v0 to 1e-6. With the NCP
 * friction rows and with the friction QP (Proposition 1) in both the IVP and the BVP; by the
 * whole-trajectory Newton and by single shooting. */
static void billiard_consistency(int friction_qp, int shoot)
{
    cdyn_builder_options bo;
    cdyn_builder_defaults(&bo, 3);
    bo.gravity[2] = -9.8;
    cdyn_builder *b = NULL;
    assert_int_equal(cdyn_builder_create(&bo, &b, NULL), CDYN_OK);
    cdyn_body_desc d;
    cdyn_body_desc_defaults(&d);
    d.mass = 0.2;
    d.inertia[0] = d.inertia[1] = d.inertia[2] = 0.4 * 0.2 * 0.05 * 0.05;
    int body, gp, gs, id;
    assert_int_equal(cdyn_builder_add_body(b, &d, &body, NULL), CDYN_OK);
    cdyn_geom_desc p, s;
    cdyn_geom_desc_defaults(&p);
    cdyn_geom_desc_defaults(&s);
    s.body = body;
    s.type = CDYN_GEOM_SPHERE;
    s.size[0] = 0.05;
    assert_int_equal(cdyn_builder_add_geom(b, &p, &gp, NULL), CDYN_OK);
    assert_int_equal(cdyn_builder_add_geom(b, &s, &gs, NULL), CDYN_OK);
    cdyn_contact_pair_desc pd;
    cdyn_contact_pair_desc_defaults(&pd);
    pd.geom_a = gp;
    pd.geom_b = gs;
    pd.mu = 0.2;
    pd.stiffness[0] = pd.stiffness[4] = pd.stiffness[8] = 1e4;
    assert_int_equal(cdyn_builder_add_contact_pair(b, &pd, &id, NULL), CDYN_OK);
    cdyn_model *m = NULL;
    assert_int_equal(cdyn_builder_build(b, &m, NULL), CDYN_OK);
    cdyn_builder_free(b);

    const int N = 40;
    const double v0[6] = {1, 0.5, 0, 40, -20, -10};
    cdyn_step_options so;
    cdyn_step_defaults(&so, CDYN_SCHEME_IMPLICIT_NCP);
    so.friction_qp = friction_qp;
    cdyn_stepper *st = NULL;
    cdyn_state *x = NULL;
    assert_int_equal(cdyn_stepper_create(m, &so, &st, NULL), CDYN_OK);
    assert_int_equal(cdyn_state_create(m, NULL, &x, NULL), CDYN_OK);
    x->q[2] = 0.05;
    memcpy(x->v, v0, sizeof v0);
    for (int l = 0; l < N; l++)
        assert_int_equal(cdyn_step(st, NULL, x, NULL), CDYN_OK);

    /* x = (q 7, v 6, delta 3) */
    int fixed0[16], fixedN[16] = {0};
    double value0[16] = {0}, valueN[16] = {0};
    for (int i = 0; i < 16; i++)
        fixed0[i] = !(i == 7 || i == 8); /* v_x, v_y free */
    value0[2] = 0.05;
    value0[3] = 1.0;
    memcpy(value0 + 7, v0, sizeof v0);
    fixedN[0] = fixedN[1] = 1;
    valueN[0] = x->q[0];
    valueN[1] = x->q[1];
    cdyn_bvp_conditions bc = {fixed0, fixedN, value0, valueN, 0, NULL, NULL, NULL, NULL};
    cdyn_bvp_options o;
    cdyn_bvp_defaults(&o);
    o.N = N;
    o.step.friction_qp = friction_qp;
    cdyn_state **traj = new_traj(m, N);
    traj[0]->q[2] = 0.05;
    memcpy(traj[0]->v, v0, sizeof v0);
    traj[0]->v[0] = 0.9; /* a guess off by 0.1 m/s in each */
    traj[0]->v[1] = 0.6;
    cdyn_bvp_report rep;
    assert_int_equal(shoot ? cdyn_bvp_shoot(m, &o, &bc, traj, &rep)
                           : cdyn_bvp_solve(m, &o, &bc, traj, &rep),
                     CDYN_OK);
    assert_true(fabs(traj[0]->v[0] - 1.0) < 1e-6 && fabs(traj[0]->v[1] - 0.5) < 1e-6);
    assert_true(fabs(traj[N]->q[0] - x->q[0]) < 1e-9 && fabs(traj[N]->q[1] - x->q[1]) < 1e-9);
    free_traj(traj, N);
    cdyn_state_free(x);
    cdyn_stepper_free(st);
    cdyn_model_free(m);
}

static void test_billiard_consistency(void **unused)
{
    (void)unused;
    billiard_consistency(0, 0);
    billiard_consistency(1, 0);
    billiard_consistency(0, 1);
}

/* Single and multiple shooting are second, independent solvers of the same discrete problem: on
 * the disk (N = 21 and 200) they find the whole-trajectory Newton's launch speed to 1e-8 (and
 * meet the end condition to 1e-9), single shooting in a few Newton iterations on the one unknown,
 * multiple shooting (3 segments: 1 + 2 x 8 unknowns) with the same trajectory to 1e-8. Refusals:
 * user rows, as many free start components as end conditions. */
static void test_shooting(void **unused)
{
    (void)unused;
    cdyn_model *m = disk();
    const int Ns[2] = {21, 200};
    for (int k = 0; k < 2; k++) {
        const int N = Ns[k];
        cdyn_state **a = new_traj(m, N), **b = new_traj(m, N);
        cdyn_bvp_report ra, rb;
        assert_int_equal(disk_problem(m, N, 1.0, NULL, 0.02, 1.0, 0, NULL, NULL, 0, a, &ra),
                         CDYN_OK);
        const cdyn_status sb = disk_problem(m, N, 1.0, NULL, 0.02, 1.0, 0, NULL, NULL, 1, b, &rb);
        if (sb != CDYN_OK)
            print_message("shooting: %s\n", rb.solver.message);
        assert_int_equal(sb, CDYN_OK);
        print_message("disk N = %d: v0 %.10f (trajectory Newton), %.10f (shooting, %d Newton "
                      "iterations)\n", N, a[0]->v[0], b[0]->v[0], rb.solver.iterations);
        assert_true(fabs(a[0]->v[0] - b[0]->v[0]) < 1e-8);
        assert_true(fabs(b[N]->q[0] - 0.02) <= 1e-9);
        assert_true(rb.solver.iterations >= 1 && rb.solver.iterations <= 10);
        /* multiple shooting, 3 segments: the same answer; the trajectory is continuous across
         * the segments' joints (the continuity rows hold to the tolerance) */
        const cdyn_status sm = disk_problem(m, N, 1.0, NULL, 0.02, 1.0, 0, NULL, NULL, 3, b, &rb);
        if (sm != CDYN_OK)
            print_message("multiple shooting: %s\n", rb.solver.message);
        assert_int_equal(sm, CDYN_OK);
        print_message("disk N = %d, 3 segments: v0 %.10f (%d Newton iterations, %d unknowns)\n",
                      N, b[0]->v[0], rb.solver.iterations, rb.unknowns);
        assert_true(fabs(a[0]->v[0] - b[0]->v[0]) < 1e-8);
        assert_int_equal(rb.unknowns, 1 + 2 * 8);
        for (int l = 0; l <= N; l++)
            assert_true(fabs(b[l]->q[0] - a[l]->q[0]) < 1e-8 && b[l]->t == a[l]->t);
        free_traj(a, N);
        free_traj(b, N);
    }
    const int N = 5;
    cdyn_state **t = new_traj(m, N);
    disk_start(t[0], 1.0);
    double value0[8], valueN[8] = {0.02, 0, 0, 0, 0, 0, 0, 0};
    cdyn_bvp_state_pack(m, t[0], value0);
    const int fixed0[8] = {1, 1, 1, 0, 0, 1, 1, 1};
    int fixedN[8] = {1, 0, 0, 0, 0, 0, 0, 0};
    cdyn_bvp_conditions bc = {fixed0, fixedN, value0, valueN, 0, NULL, NULL, NULL, NULL};
    cdyn_bvp_options o;
    cdyn_bvp_defaults(&o);
    o.N = N;
    cdyn_bvp_report rep;
    assert_int_equal(cdyn_bvp_shoot(m, &o, &bc, t, &rep), CDYN_EINVAL);
    assert_non_null(strstr(rep.solver.message, "must match"));
    bc.nuser = 1;
    assert_int_equal(cdyn_bvp_shoot(m, &o, &bc, t, &rep), CDYN_EINVAL);
    assert_non_null(strstr(rep.solver.message, "user rows"));
    assert_int_equal(cdyn_bvp_shoot(NULL, &o, &bc, t, &rep), CDYN_EINVAL);
    bc.nuser = 0;
    cdyn_state *holey[N + 1];
    memcpy(holey, t, sizeof holey);
    holey[N] = NULL; /* a trajectory with a hole is refused, not dereferenced */
    fixedN[1] = 1;
    assert_int_equal(cdyn_bvp_shoot(m, &o, &bc, holey, &rep), CDYN_EINVAL);
    assert_non_null(strstr(rep.solver.message, "traj[5]"));
    free_traj(t, N);
    cdyn_model_free(m);
}

static void test_refusals(void **unused)
{
    (void)unused;
    cdyn_model *m = disk();
    cdyn_state **traj = new_traj(m, 5);
    cdyn_bvp_options o;
    cdyn_bvp_defaults(&o);
    o.N = 5;
    const int fixed0[8] = {1, 1, 1, 1, 1, 1, 1, 1};
    const double value0[8] = {0};
    cdyn_bvp_conditions bc = {fixed0, NULL, value0, NULL, 0, NULL, NULL, NULL, NULL};
    cdyn_bvp_report rep;
    assert_int_equal(cdyn_bvp_solve(NULL, &o, &bc, traj, &rep), CDYN_EINVAL);
    assert_int_equal(cdyn_bvp_solve(m, &o, NULL, traj, &rep), CDYN_EINVAL);
    assert_int_equal(cdyn_bvp_solve(m, &o, &bc, NULL, &rep), CDYN_EINVAL);
    o.N = 0;
    assert_int_equal(cdyn_bvp_solve(m, &o, &bc, traj, &rep), CDYN_EINVAL);
    o.N = 5;
    o.step.h = -1;
    assert_int_equal(cdyn_bvp_solve(m, &o, &bc, traj, &rep), CDYN_EINVAL);
    o.step.h = 0.01;
    traj[0]->v[0] = NAN;
    assert_int_equal(cdyn_bvp_solve(m, &o, &bc, traj, &rep), CDYN_EINVAL);
    traj[0]->v[0] = 0;
    /* 8 start conditions and one at the end: 9 for 8 components */
    const int fixedN[8] = {1, 0, 0, 0, 0, 0, 0, 0};
    bc.fixedN = fixedN;
    bc.valueN = value0;
    assert_int_equal(cdyn_bvp_solve(m, &o, &bc, traj, &rep), CDYN_EINVAL);
    assert_non_null(strstr(rep.solver.message, "exactly as many"));
    assert_int_equal(cdyn_bvp_state_size(m), 8);
    free_traj(traj, 5);
    cdyn_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_disk_n21),
        cmocka_unit_test(test_disk_unreachable),
        cmocka_unit_test(test_disk_sensitivity),
        cmocka_unit_test(test_disk_analytic_vs_oracle),
        cmocka_unit_test(test_disk_param_sensitivity),
        cmocka_unit_test(test_disk_geom_sensitivity),
        cmocka_unit_test(test_design_mu_exact_gradient),
        cmocka_unit_test(test_disk_fine_grids),
        cmocka_unit_test(test_disk_fine_grids_stiff),
        cmocka_unit_test(test_billiard_consistency),
        cmocka_unit_test(test_shooting),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
