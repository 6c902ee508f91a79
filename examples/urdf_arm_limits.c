/* urdf_arm's joint-limit checks (issue 20), in the implicit scheme, whose stops are compliant
 * complementarity rows that report their torque (docs/theory.md, "Time stepping" Sec. 10):
 *   1. a limit reached at the predicted step: examples/data/pendulum_limited.urdf, the rod of
 *      pendulum.urdf (I_pivot = m L^2 / 3, k = m g L/2, w^2 = k / I_pivot) with its lower limit
 *      0.01 rad past hanging, released 0.02 rad the other side. Backward Euler maps the linear
 *      swing to theta_n = theta0 rho^-n cos(n phi), rho = sqrt(1 + (w h)^2), phi = atan(w h), so
 *      the stop first acts in the first step n whose free theta_n is below the limit (the
 *      nonlinear swing differs from the linear one by less than theta0^3, checked to be smaller
 *      than the linear swing's distance from the limit at both ends of that step). The textbook
 *      time, theta0 cos(w t) = -theta0 / 2 at t* = 2 pi / (3 w), is printed beside it.
 *   2. holding torques in static equilibrium: arm3.urdf with its limits (+-2.5 rad) started at
 *      q = (2.5, -2.5, 2.5), where gravity presses the shoulder on its upper stop, the elbow on
 *      its lower and the wrist on its upper; once at rest the stops carry the chain's statics,
 *      lambda_lower - lambda_upper = h_i(q, 0) = urdf_arm_statics(q) at the rest state q. */
#include <math.h>
#include <stdio.h>

#include "urdf_arm.h"

static const double G = 9.81, PI = 3.14159265358979323846;
static const double ROD_M = 1.0, ROD_L = 0.5; /* pendulum_limited.urdf */

/* A state for m and DIR/csv for a run with stepper s; NULL (nothing left allocated) on failure. */
static FILE *start_run(const cdyn_model *m, const cdyn_stepper *s, const char *dir,
                       const char *csv, cdyn_state **x)
{
    *x = NULL;
    FILE *f = NULL;
    if (s == NULL || cdyn_state_create(m, NULL, x, NULL) != CDYN_OK ||
        (f = urdf_arm_csv(dir, csv)) == NULL) {
        cdyn_state_free(*x);
        *x = NULL;
    }
    return f;
}

int urdf_arm_limit_reached(const char *dir, int quick)
{
    cdyn_model *m = urdf_arm_load("pendulum_limited.urdf", 0u, NULL);
    if (m == NULL)
        return 1;
    const double h = 1e-3, th0 = 0.02, lower = -0.01, hang = -0.5 * PI;
    const double I = ROD_M * ROD_L * ROD_L / 3.0, w = sqrt(ROD_M * G * 0.5 * ROD_L / I);
    const double rho = sqrt(1.0 + w * w * h * h), phi = atan(w * h);
    int npred = 0;
    while (th0 * pow(rho, -npred) * cos(npred * phi) >= lower)
        npred++;
    /* the free linear swing's distance from the limit at the two ends of the predicted step */
    const double before = th0 * pow(rho, 1 - npred) * cos((npred - 1) * phi) - lower;
    const double after = lower - th0 * pow(rho, -npred) * cos(npred * phi);
    const double tstar = acos(lower / th0) / w;
    cdyn_stepper *s = urdf_arm_implicit(m, h, 0.0);
    cdyn_state *x = NULL;
    FILE *f = start_run(m, s, dir, "urdf_arm_limit.csv", &x);
    if (f == NULL) {
        cdyn_stepper_free(s);
        cdyn_model_free(m);
        return 1;
    }
    fprintf(f, "t,dtheta,free_closed_form,lower,lambda\n");
    x->q[0] = hang + th0;
    const int n = (int)((quick ? 1.0 : 2.0) / h);
    int hit = 0, fail = 0; /* hit: the first step after which a stop acts */
    double deepest = 0.0;
    for (int k = 1; k <= n && !fail; ++k) {
        if (cdyn_step(s, NULL, x, NULL) != CDYN_OK) {
            fprintf(stderr, "urdf_arm: limited pendulum step %d failed\n", k);
            fail = 1;
        }
        const double dth = x->q[0] - hang;
        int acting = 0;
        for (int l = 0; l < x->nl; ++l)
            acting |= x->limit_mode[l] != CDYN_LIMIT_FREE;
        if (acting && hit == 0)
            hit = k;
        deepest = fmax(deepest, lower - dth);
        fprintf(f, "%.6f,%.12e,%.12e,%.3f,%.12e\n", x->t, dth,
                th0 * pow(rho, -k) * cos(k * phi), lower, x->limit_lambda[0]);
    }
    fclose(f);
    const int clear = before > th0 * th0 * th0 && after > th0 * th0 * th0;
    const int ok = !fail && clear && hit == npred;
    printf("Limited pendulum (pendulum_limited.urdf: the same rod on a revolute hinge, lower "
           "limit %g rad past hanging), implicit scheme, h = %g s, released %g rad the other "
           "side of hanging:\n\n", -lower, h, th0);
    printf("| quantity | closed form | computed |\n|---|---|---|\n");
    printf("| first step with the stop acting | %d (%.3f s): the first n with theta0 rho^-n "
           "cos(n phi) < %g; the linear swing is %.1e above and %.1e below the limit at that "
           "step's ends, theta0^3 = %.0e | %d (%.3f s) |\n", npred, npred * h, lower, before,
           after, th0 * th0 * th0, hit, hit * h);
    printf("| textbook time theta0 cos(w t*) = %g | t* = acos(-1/2)/w = %.6f s | (the scheme's "
           "phase lag atan(w h)/(w h) - 1 = %.1e stretches it by %.1e s) |\n", lower, tstar,
           phi / (w * h) - 1.0, tstar * (w * h / phi - 1.0));
    printf("\nThe compliant stop then sends the rod back (gravity pulls it away from a stop past "
           "hanging); in %g s the rod went at most %.3e rad beyond it (printed: the stop's "
           "deflection).\n", n * h, fmax(deepest, 0.0));
    printf("\nlimit reached: in the predicted step: %s\n\n", ok ? "PASS" : "FAIL");
    cdyn_state_free(x);
    cdyn_stepper_free(s);
    cdyn_model_free(m);
    return !ok;
}

/* The velocity index of each of arm3.urdf's joints, or -1. */
static void joint_dofs(const cdyn_urdf_map *map, const cdyn_model *arm, int body[3], int dof[3])
{
    static const char *const names[3] = {"shoulder", "elbow", "wrist"};
    for (int k = 0; k < 3; ++k) {
        cdyn_urdf_joint j;
        cdyn_body_info bi;
        body[k] = dof[k] = -1;
        if (cdyn_urdf_find_joint(map, names[k], &j, NULL) == CDYN_OK &&
            cdyn_model_body_info(arm, j.body, &bi) == CDYN_OK) {
            body[k] = j.body;
            dof[k] = bi.vadr;
        }
    }
}

/* The stops' net torque on each joint, lambda_lower - lambda_upper (N m). */
static void net_stop_torques(const cdyn_model *arm, const cdyn_state *x, const int body[3],
                             double net[3])
{
    net[0] = net[1] = net[2] = 0.0;
    for (int l = 0; l < x->nl; ++l) {
        int b = -1, upper = 0;
        cdyn_model_limit_row(arm, l, &b, &upper);
        for (int k = 0; k < 3; ++k)
            if (b == body[k])
                net[k] += upper ? -x->limit_lambda[l] : x->limit_lambda[l];
    }
}

int urdf_arm_on_stops(const char *dir, const cdyn_urdf_map *map, const cdyn_model *arm)
{
    int body[3], dof[3];
    joint_dofs(map, arm, body, dof);
    if (dof[0] < 0 || dof[1] < 0 || dof[2] < 0) {
        fprintf(stderr, "urdf_arm: arm3.urdf's joints not found in the map\n");
        return 1;
    }
    const double h = 1e-3, T = 10.0, q0[3] = {2.5, -2.5, 2.5};
    /* the step solves its rows to mcp.tol, and the dynamics rows' residual (N m s) over h is a
     * torque: the default 1e-10 leaves 1e-7 N m of noise at rest, so this run asks 1e-12 */
    const double tol = 1e-12, bound = 10 * tol / h;
    cdyn_stepper *s = urdf_arm_implicit(arm, h, tol);
    cdyn_state *x = NULL;
    FILE *f = start_run(arm, s, dir, "urdf_arm_stops.csv", &x);
    if (f == NULL) {
        cdyn_stepper_free(s);
        return 1;
    }
    fprintf(f, "t,net1,net2,net3,statics1,statics2,statics3\n");
    for (int k = 0; k < 3; ++k)
        x->q[dof[k]] = q0[k];
    double q[3], net[3], tau[3], vmax = 0.0;
    int fail = 0;
    const int n = (int)(T / h + 0.5);
    for (int i = 1; i <= n && !fail; ++i) {
        if (cdyn_step(s, NULL, x, NULL) != CDYN_OK) {
            fprintf(stderr, "urdf_arm: arm on its stops, step %d failed\n", i);
            fail = 1;
        }
        for (int k = 0; k < 3; ++k)
            q[k] = x->q[dof[k]];
        net_stop_torques(arm, x, body, net);
        urdf_arm_statics(q, tau);
        fprintf(f, "%.6f,%.12e,%.12e,%.12e,%.12e,%.12e,%.12e\n", x->t, net[0], net[1], net[2],
                tau[0], tau[1], tau[2]);
    }
    fclose(f);
    double worst = 0.0;
    for (int k = 0; k < 3; ++k) {
        worst = fmax(worst, fabs(net[k] - tau[k]));
        vmax = fmax(vmax, fabs(x->v[dof[k]]));
    }
    /* at rest (|v| <= 1e-8 rad/s: the solver's noise, 1e-9 measured) the balance is
     * h(q, 0) = J^T lambda to the rows' residual: tol/h per row, 10 tol/h allowing for the rows'
     * scaling and their coupling through M */
    const int ok = !fail && vmax <= 1e-8 && worst <= bound;
    printf("arm3.urdf with its limits, started at rest at q = (2.5, -2.5, 2.5) (gravity presses "
           "the shoulder on its upper stop, the elbow on its lower, the wrist on its upper), "
           "implicit scheme, h = %g s, Newton tolerance %g, %g s later (largest |v| %.1e "
           "rad/s):\n\n", h, tol, T, vmax);
    printf("| joint | q (rad) | stop's net torque lambda_lower - lambda_upper (N m) | statics "
           "g sum_{k>=i} m_k (x_k - x_i) at q (N m) | difference (N m) |\n"
           "|---|---|---|---|---|\n");
    static const char *const names[3] = {"shoulder", "elbow", "wrist"};
    for (int k = 0; k < 3; ++k)
        printf("| %s | %.9f | %.12f | %.12f | %.1e |\n", names[k], q[k], net[k], tau[k],
               fabs(net[k] - tau[k]));
    printf("\nholding torques on the stops: at rest (|v| <= 1e-8 rad/s) and within 10 tol/h = "
           "%.0e N m of the statics: %s\n\n", bound, ok ? "PASS" : "FAIL");
    cdyn_state_free(x);
    cdyn_stepper_free(s);
    return !ok;
}
