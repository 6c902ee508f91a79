/* A robot from a URDF file (issue 20): examples/data/arm3.urdf, a three-link arm whose revolute
 * joints turn about z, loaded with cdyn_builder_add_urdf and stood upright with the loader's
 * base_pose (a quarter turn about x: the arm's x-y plane becomes the world's vertical x-z
 * plane, its y axis points up). Checks against closed forms:
 *   1. holding torques: h(q, 0) = g sum_{k >= i} m_k (x_k - x_i) for joint i, x_k the horizontal
 *      position of link k's centre of mass and x_i that of joint i (statics of a planar chain of
 *      rods); rounding is the only difference (tolerance 1e-12 relative);
 *   2. a single-link pendulum (examples/data/pendulum.urdf, a uniform rod) released 0.002 rad
 *      from hanging: the implicit scheme is backward Euler, which maps the linear oscillation
 *      z = dtheta + i omega_dot / w to z / (1 + i w h) each step, so its period is
 *      T_h = 2 pi h / atan(w h) and |z| shrinks by (1 + (w h)^2)^(-1/2) per step, with
 *      w^2 = m g (L/2) / I_pivot, I_pivot = m L^2 / 3; T_h is the textbook period
 *      T_0 = 2 pi sqrt(I_pivot / (m g L/2)) stretched by (w h) / atan(w h).
 *   3. the same rod with a damped hinge (examples/data/pendulum_damped.urdf, damping d): its
 *      decay rate per second in the implicit scheme, 1/(2h) ln(1 + (h d + h^2 k)/I_pivot), and in
 *      the pyramid LCP, 1/(2h) ln(1 + h d / I_pivot) (k = m g L/2), both next to the textbook
 *      sigma = d / (2 I_pivot) they approach as h -> 0.
 * Then the arm swings from the horizontal for 2 s (implicit scheme, h = 1 ms) with the joint
 * damping and limits of arm3.urdf (the shoulder strikes its lower stop at -2) and its energy is
 * recorded: the damping, the stops and the scheme take energy (no closed form for the three
 * links: printed, not checked). urdf_arm_limits.c adds two limit checks:
 *   4. the arm started on its stops at rest: the stops' torques equal the statics of check 1;
 *   5. examples/data/pendulum_limited.urdf reaches its stop in the step backward Euler's closed
 *      form of the free swing predicts.
 *
 *   urdf_arm [--out DIR] [--quick]
 *
 * Writes DIR/urdf_arm_swing.csv (t, q1, q2, q3, energy), DIR/urdf_arm_pendulum.csv (t,
 * dtheta, the closed-form envelope), DIR/urdf_arm_damped.csv (t, dtheta of both schemes,
 * theta0 exp(-sigma t)), DIR/urdf_arm_stops.csv (t, the stops' net torques, the statics) and
 * DIR/urdf_arm_limit.csv (t, dtheta, the free swing's closed form, the limit, its torque). Exit
 * status 1 when a check fails. */
#define _POSIX_C_SOURCE 200809L /* mkdir */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cdyn/cdyn.h"
#include "urdf_arm.h"

#ifndef CDYN_EXAMPLE_DATA_DIR
#define CDYN_EXAMPLE_DATA_DIR "examples/data"
#endif

static const double G = 9.81, PI = 3.14159265358979323846;
/* The arm's rods as written in arm3.urdf (mass, length), for the closed forms. */
static const double MASS[3] = {1.2, 0.8, 0.3}, LEN[3] = {0.4, 0.3, 0.15};
static const double ROD_M = 1.0, ROD_L = 0.5; /* pendulum.urdf */
static const double ROD_D = 0.02;             /* pendulum_damped.urdf: hinge damping */

cdyn_model *urdf_arm_load(const char *file, unsigned skip, cdyn_urdf_map **map)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", CDYN_EXAMPLE_DATA_DIR, file);
    cdyn_report r;
    cdyn_builder *b = NULL;
    cdyn_model *m = NULL;
    cdyn_urdf_options o;
    cdyn_urdf_defaults(&o);
    o.base_pose.quat[0] = cos(PI / 4); /* a quarter turn about x: local y up */
    o.base_pose.quat[1] = sin(PI / 4);
    o.skip = skip;
    if (cdyn_builder_create(NULL, &b, &r) != CDYN_OK ||
        cdyn_builder_add_urdf(b, path, &o, map, &r) != CDYN_OK ||
        cdyn_builder_build(b, &m, &r) != CDYN_OK)
        fprintf(stderr, "urdf_arm: %s: %s\n", file, r.message);
    cdyn_builder_free(b);
    return m;
}

FILE *urdf_arm_csv(const char *dir, const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (f == NULL)
        fprintf(stderr, "urdf_arm: cannot write %s: %s\n", path, strerror(errno));
    return f;
}

void urdf_arm_statics(const double q[3], double tau[3])
{
    double joint_x[3], com_x[3], phi = 0.0, x = 0.0;
    for (int k = 0; k < 3; ++k) {
        phi += q[k];
        joint_x[k] = x;
        com_x[k] = x + 0.5 * LEN[k] * cos(phi);
        x += LEN[k] * cos(phi);
    }
    for (int i = 0; i < 3; ++i) {
        tau[i] = 0.0;
        for (int k = i; k < 3; ++k)
            tau[i] += G * MASS[k] * (com_x[k] - joint_x[i]);
    }
}

static void print_map(const cdyn_urdf_map *map)
{
    int nl, nj, nc;
    cdyn_urdf_map_sizes(map, &nl, &nj, &nc);
    printf("| link | body | joint | type | limits (lower, upper, effort, velocity) | damping, "
           "friction |\n|---|---|---|---|---|---|\n");
    for (int k = 0; k < nl; ++k) {
        cdyn_urdf_link l;
        cdyn_urdf_joint j;
        cdyn_urdf_link_at(map, k, &l, NULL);
        if (l.parent_joint < 0) {
            printf("| %s | ground | (root) | | | |\n", l.name);
            continue;
        }
        cdyn_urdf_joint_at(map, l.parent_joint, &j, NULL);
        printf("| %s | %d | %s | %s | %g, %g, %g, %g | %g, %g |\n", l.name, l.body, j.name,
               j.type == CDYN_URDF_REVOLUTE ? "revolute" : "other", j.lower, j.upper, j.effort,
               j.velocity, j.damping, j.friction);
    }
    printf("\nDamping is applied (part of h(q, v), implicit in the schemes); joint friction "
           "is left out (CDYN_URDF_SKIP_FRICTION: the implicit scheme does not take it yet); the "
           "limits are enforced (compliant stops in the implicit scheme). %d collision "
           "spheres/boxes loaded.\n\n", nc);
}

/* Check 1: h(q, 0) against the statics of the chain of rods. */
static int holding_torques(const cdyn_model *m, cdyn_data *d)
{
    static const double qs[3][3] = {{0, 0, 0}, {0.3, -0.5, 0.8}, {-1.2, 0.4, 2.0}};
    const double v[3] = {0, 0, 0};
    double worst = 0.0;
    printf("| q (rad) | h(q, 0) (N m) | closed form (N m) |\n|---|---|---|\n");
    for (int c = 0; c < 3; ++c) {
        cdyn_report r;
        if (cdyn_eval(m, d, qs[c], v, CDYN_EVAL_BIAS, &r) != CDYN_OK) {
            fprintf(stderr, "urdf_arm: eval: %s\n", r.message);
            return 1;
        }
        const double *h = cdyn_data_bias(d);
        double tau[3];
        urdf_arm_statics(qs[c], tau);
        for (int i = 0; i < 3; ++i)
            worst = fmax(worst, fabs(h[i] - tau[i]) / fmax(1.0, fabs(tau[i])));
        printf("| (%g, %g, %g) | (%.12f, %.12f, %.12f) | (%.12f, %.12f, %.12f) |\n", qs[c][0],
               qs[c][1], qs[c][2], h[0], h[1], h[2], tau[0], tau[1], tau[2]);
    }
    const int ok = worst <= 1e-12;
    printf("\nholding torques: largest relative difference %.2g (tolerance 1e-12, rounding): "
           "%s\n\n", worst, ok ? "PASS" : "FAIL");
    return !ok;
}

cdyn_stepper *urdf_arm_implicit(const cdyn_model *m, double h, double tol)
{
    cdyn_step_options o;
    cdyn_step_defaults(&o, CDYN_SCHEME_IMPLICIT_NCP);
    o.h = h;
    if (tol > 0)
        o.mcp.tol = tol;
    cdyn_stepper *s = NULL;
    cdyn_report r;
    if (cdyn_stepper_create(m, &o, &s, &r) != CDYN_OK)
        fprintf(stderr, "urdf_arm: stepper: %s\n", r.message);
    return s;
}

/* Check 2: the pendulum's period and decay against the scheme's closed forms. */
static int pendulum(const char *dir, int quick)
{
    cdyn_model *m = urdf_arm_load("pendulum.urdf", 0u, NULL);
    if (m == NULL)
        return 1;
    const double h = 1e-3, theta0 = 0.002;
    const double Ip = ROD_M * ROD_L * ROD_L / 3.0, w = sqrt(ROD_M * G * 0.5 * ROD_L / Ip);
    const double T0 = 2.0 * PI / w, Th = 2.0 * PI * h / atan(w * h);
    const int periods = quick ? 3 : 8;
    const int nsteps = (int)(periods * Th / h) + 1;
    cdyn_stepper *s = urdf_arm_implicit(m, h, 0.0);
    cdyn_state *x = NULL;
    cdyn_report r;
    if (s == NULL || cdyn_state_create(m, NULL, &x, &r) != CDYN_OK) {
        cdyn_stepper_free(s);
        cdyn_model_free(m);
        return 1;
    }
    const double hang = -0.5 * PI; /* the rod along -y: straight down once upright */
    x->q[0] = hang + theta0;
    FILE *f = urdf_arm_csv(dir, "urdf_arm_pendulum.csv");
    if (f == NULL) {
        cdyn_state_free(x);
        cdyn_stepper_free(s);
        cdyn_model_free(m);
        return 1;
    }
    fprintf(f, "t,dtheta,envelope\n");
    double up[16], prev = theta0;
    int nup = 0, fail = 0;
    for (int n = 1; n <= nsteps && !fail; ++n) {
        if (cdyn_step(s, NULL, x, NULL) != CDYN_OK) {
            fprintf(stderr, "urdf_arm: pendulum step %d failed\n", n);
            fail = 1;
        }
        const double dth = x->q[0] - hang;
        fprintf(f, "%.9f,%.12e,%.12e\n", x->t, dth, theta0 * pow(1.0 + w * w * h * h, -0.5 * n));
        if (prev < 0.0 && dth >= 0.0 && nup < 16) /* upward crossing, interpolated */
            up[nup++] = x->t - h * dth / (dth - prev);
        prev = dth;
    }
    fclose(f);
    /* |z| after n steps, z = dtheta + i omega / w */
    const double z = hypot(x->q[0] - hang, x->v[0] / w);
    const double z_closed = theta0 * pow(1.0 + w * w * h * h, -0.5 * (double)nsteps);
    const double T = nup >= 2 ? (up[nup - 1] - up[0]) / (nup - 1) : NAN;
    const double eT = fabs(T - Th) / Th, eZ = fabs(z - z_closed) / z_closed;
    /* the rod's nonlinearity lengthens the period by theta0^2 / 16 (1e-6 relative here) and
     * weakens the restoring force alike; crossing times interpolated linearly across one step
     * are off by O((w h)^2 h) */
    const int ok = eT <= 1e-5 && eZ <= 1e-5;
    printf("Single-link pendulum (pendulum.urdf: m = %g kg, L = %g m, I_pivot = m L^2/3), "
           "implicit scheme, h = %g s, released %g rad from hanging, %d steps:\n\n",
           ROD_M, ROD_L, h, theta0, nsteps);
    printf("| quantity | closed form | computed | relative difference |\n|---|---|---|---|\n");
    printf("| period, textbook T_0 = 2 pi sqrt(I_pivot/(m g L/2)) | %.9f s | %.9f s | %.2g "
           "(the scheme's (w h)/atan(w h) - 1 = %.2g) |\n", T0, T, fabs(T - T0) / T0,
           w * h / atan(w * h) - 1.0);
    printf("| period of the scheme, 2 pi h / atan(w h) | %.9f s | %.9f s | %.2g |\n", Th, T, eT);
    printf("| amplitude after %d steps, theta0 (1 + (w h)^2)^(-n/2) | %.9e | %.9e | %.2g |\n",
           nsteps, z_closed, z, eZ);
    printf("\npendulum: period and decay of the scheme within 1e-5 (the rod's nonlinearity, "
           "theta0^2/16 = %.1g, and the crossings' interpolation): %s\n\n", theta0 * theta0 / 16,
           ok ? "PASS" : "FAIL");
    cdyn_state_free(x);
    cdyn_stepper_free(s);
    cdyn_model_free(m);
    return fail || !ok;
}

/* The decay rate of a scheme's linear map from the deviations th[0..n] of a small-angle run:
 * least squares for th[k + 2s] = a th[k + s] + b th[k] (stride s steps, s h = 10 ms), whose
 * roots are the s-th powers of the map's eigenvalues, |z|^2 = -b for a complex pair: rate =
 * -ln(-b) / (2 s h). */
static double fitted_rate(const double *th, int n, double h)
{
    const int st = (int)lround(0.01 / h) > 1 ? (int)lround(0.01 / h) : 1;
    double s11 = 0, s12 = 0, s22 = 0, r1 = 0, r2 = 0;
    for (int k = 0; k + 2 * st <= n; ++k) {
        const double x1 = th[k + st], x2 = th[k], y = th[k + 2 * st];
        s11 += x1 * x1;
        s12 += x1 * x2;
        s22 += x2 * x2;
        r1 += x1 * y;
        r2 += x2 * y;
    }
    const double b = (s11 * r2 - s12 * r1) / (s11 * s22 - s12 * s12);
    return b < 0 ? -0.5 * log(-b) / (h * st) : NAN;
}

/* Check 3: the damped pendulum's decay rate (pendulum_damped.urdf) in the implicit scheme and in
 * the pyramid LCP, against each scheme's closed form and the textbook sigma = d / (2 I_pivot). */
static int damped(const char *dir, int quick)
{
    cdyn_model *m = urdf_arm_load("pendulum_damped.urdf", 0u, NULL);
    if (m == NULL)
        return 1;
    const double h = 1e-3, theta0 = 0.002, hang = -0.5 * PI;
    const double Ip = ROD_M * ROD_L * ROD_L / 3.0, k = ROD_M * G * 0.5 * ROD_L;
    const double sigma = ROD_D / (2 * Ip);
    const int n = (int)((quick ? 4.0 : 10.0) / h);
    const cdyn_scheme schemes[2] = {CDYN_SCHEME_IMPLICIT_NCP, CDYN_SCHEME_PYRAMID_LCP};
    /* each scheme's map has det = |z|^2: I / (I + h d + h^2 k) (backward Euler in q and v),
     * I / (I + h d) (semi-implicit: (M + h D)(v+ - v) = -h (k theta + d v), theta+ = theta +
     * h v+); docs/theory.md, "Time stepping" Sec. 10 */
    const double closed[2] = {0.5 * log1p((h * ROD_D + h * h * k) / Ip) / h,
                              0.5 * log1p(h * ROD_D / Ip) / h};
    double *th = malloc(sizeof(double) * 2 * (size_t)(n + 1)), rate[2] = {NAN, NAN};
    int fail = th == NULL;
    for (int sc = 0; sc < 2 && !fail; ++sc) {
        cdyn_step_options o;
        cdyn_step_defaults(&o, schemes[sc]);
        o.h = h;
        cdyn_stepper *s = NULL;
        cdyn_state *x = NULL;
        cdyn_report r;
        if (cdyn_stepper_create(m, &o, &s, &r) != CDYN_OK ||
            cdyn_state_create(m, NULL, &x, &r) != CDYN_OK) {
            fprintf(stderr, "urdf_arm: damped pendulum: %s\n", r.message);
            fail = 1;
        }
        double *t = th + (size_t)sc * (n + 1);
        if (!fail) {
            x->q[0] = hang + theta0;
            t[0] = theta0;
        }
        for (int i = 1; i <= n && !fail; ++i) {
            if (cdyn_step(s, NULL, x, NULL) != CDYN_OK) {
                fprintf(stderr, "urdf_arm: damped pendulum step %d failed\n", i);
                fail = 1;
            }
            t[i] = x->q[0] - hang;
        }
        if (!fail)
            rate[sc] = fitted_rate(t, n, h);
        cdyn_state_free(x);
        cdyn_stepper_free(s);
    }
    FILE *f = fail ? NULL : urdf_arm_csv(dir, "urdf_arm_damped.csv");
    fail |= f == NULL;
    if (f != NULL) {
        fprintf(f, "t,dtheta_implicit,dtheta_pyramid,envelope_sigma\n");
        for (int i = 0; i <= n; i += 10)
            fprintf(f, "%.6f,%.12e,%.12e,%.12e\n", i * h, th[i], th[n + 1 + i],
                    theta0 * exp(-sigma * i * h));
        fclose(f);
    }
    free(th);
    cdyn_model_free(m);
    if (fail)
        return 1;
    const double e0 = fabs(rate[0] - closed[0]) / closed[0];
    const double e1 = fabs(rate[1] - closed[1]) / closed[1];
    /* the fit is exact for the linearized map; the rod's nonlinearity (theta0^2 / 16 = 2.5e-7
     * in the frequency) and rounding remain */
    const int ok = e0 <= 1e-5 && e1 <= 1e-5;
    printf("Damped pendulum (pendulum_damped.urdf: the same rod, <dynamics damping=\"%g\"/>), "
           "h = %g s, released %g rad from hanging, %d steps; decay rate of the amplitude per "
           "second, fitted to the trajectory (a two-term recurrence in theta):\n\n",
           ROD_D, h, theta0, n);
    printf("| scheme | closed form of the scheme | computed | relative difference | textbook "
           "sigma = d / (2 I_pivot) |\n|---|---|---|---|---|\n");
    printf("| implicit NCP | 1/(2h) ln(1 + (h d + h^2 k)/I) = %.9f 1/s | %.9f 1/s | %.2g | "
           "%.9f 1/s (backward Euler adds h k / (2 I) = %.6f) |\n",
           closed[0], rate[0], e0, sigma, h * k / (2 * Ip));
    printf("| pyramid LCP | 1/(2h) ln(1 + h d / I) = %.9f 1/s | %.9f 1/s | %.2g | %.9f 1/s (the "
           "semi-implicit step is h sigma^2 = %.1e below) |\n",
           closed[1], rate[1], e1, sigma, h * sigma * sigma);
    printf("\ndamped pendulum: both schemes' decay rates within 1e-5 of their closed forms: "
           "%s\n\n", ok ? "PASS" : "FAIL");
    return !ok;
}

/* Kinetic + potential energy of the arm at the state (data evaluated with MASS there). */
static double energy(const cdyn_model *m, cdyn_data *d, const int body[3], const double *v)
{
    const double *M = cdyn_data_mass(d);
    double T = 0.0, V = 0.0;
    for (int i = 0; i < 3 && v != NULL; ++i) /* v NULL: the potential energy alone */
        for (int j = 0; j < 3; ++j)
            T += 0.5 * v[i] * M[i + 3 * j] * v[j];
    for (int k = 0; k < 3; ++k) {
        double pos[3], R[9];
        cdyn_data_body_pose(d, body[k], pos, R);
        const double z = pos[2] + R[2] * 0.5 * LEN[k]; /* the rod's centre at (L/2, 0, 0) */
        V += MASS[k] * G * z;
    }
    (void)m;
    return T + V;
}

static int swing(const char *dir, int quick)
{
    cdyn_urdf_map *map = NULL;
    cdyn_model *m = urdf_arm_load("arm3.urdf", CDYN_URDF_SKIP_FRICTION, &map);
    if (m == NULL)
        return 1;
    printf("arm3.urdf loaded upright (base_pose: a quarter turn about x):\n\n");
    print_map(map);
    int body[3], fail = 0;
    static const char *const names[3] = {"upper", "fore", "hand"};
    for (int k = 0; k < 3; ++k) {
        cdyn_urdf_link l;
        fail |= cdyn_urdf_find_link(map, names[k], &l, NULL) != CDYN_OK;
        body[k] = l.body;
    }
    cdyn_data *d = NULL;
    cdyn_report r;
    if (fail || cdyn_data_create(m, NULL, &d, &r) != CDYN_OK) {
        cdyn_urdf_map_free(map);
        cdyn_model_free(m);
        return 1;
    }
    fail |= holding_torques(m, d);

    const double h = 1e-3, Tend = quick ? 0.5 : 2.0;
    cdyn_stepper *s = urdf_arm_implicit(m, h, 0.0);
    cdyn_state *x = NULL;
    FILE *f = s != NULL && cdyn_state_create(m, NULL, &x, &r) == CDYN_OK
                  ? urdf_arm_csv(dir, "urdf_arm_swing.csv")
                  : NULL;
    if (f == NULL) {
        fail = 1;
    } else {
        fprintf(f, "t,q1,q2,q3,energy\n");
        cdyn_eval(m, d, x->q, x->v, CDYN_EVAL_MASS, NULL);
        const double E0 = energy(m, d, body, x->v);
        double E = E0, Emax = E0, Kmax = 0.0, beyond = 0.0;
        int stop_steps = 0;
        const int n = (int)(Tend / h + 0.5);
        for (int k = 0; k <= n; ++k) {
            cdyn_eval(m, d, x->q, x->v, CDYN_EVAL_MASS, NULL);
            E = energy(m, d, body, x->v);
            Emax = fmax(Emax, E);
            Kmax = fmax(Kmax, E - energy(m, d, body, NULL));
            fprintf(f, "%.6f,%.12f,%.12f,%.12f,%.12f\n", x->t, x->q[0], x->q[1], x->q[2], E);
            for (int j = 0; j < 3; ++j) {
                cdyn_body_info bi;
                cdyn_model_body_info(m, body[j], &bi);
                beyond = fmax(beyond, fmax(bi.lower - x->q[j], x->q[j] - bi.upper));
            }
            for (int l = 0; l < x->nl; ++l)
                stop_steps += x->limit_mode[l] != CDYN_LIMIT_FREE;
            if (k < n && cdyn_step(s, NULL, x, NULL) != CDYN_OK) {
                fprintf(stderr, "urdf_arm: swing step %d failed\n", k);
                fail = 1;
                break;
            }
        }
        fclose(f);
        printf("Swing from the horizontal, at rest, for %g s (implicit scheme, h = %g s; "
               "potential energy 0 at the joints' height): energy %.6f J at the start, %.6f J "
               "at the end, at most %.6f J on the way; the largest kinetic energy was %.6f J "
               "(the joints' damping from the file, 0.5, 0.2 and 0.05 N m s/rad, the stops' "
               "damping and backward Euler's own dissipation take it; no closed form for three "
               "links, not checked). The stops acted in %d row-steps; the joints went at most "
               "%.3g rad "
               "beyond their limits (printed: the compliant stops' deflection).\n\n",
               Tend, h, E0, E, Emax, Kmax, stop_steps, fmax(beyond, 0.0));
    }
    if (!fail)
        fail |= urdf_arm_on_stops(dir, map, m);
    cdyn_state_free(x);
    cdyn_stepper_free(s);
    cdyn_data_free(d);
    cdyn_urdf_map_free(map);
    cdyn_model_free(m);
    return fail;
}

static int make_dir(const char *dir)
{
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "urdf_arm: cannot create %s: %s\n", dir, strerror(errno));
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *dir = "out";
    int quick = 0;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--out") == 0 && i + 1 < argc) {
            dir = argv[++i];
        } else if (strcmp(argv[i], "--quick") == 0) {
            quick = 1;
        } else {
            fprintf(stderr, "usage: urdf_arm [--out DIR] [--quick]\n");
            return 2;
        }
    }
    if (make_dir(dir) != 0)
        return 1;
    int fail = swing(dir, quick);
    fail |= pendulum(dir, quick);
    fail |= damped(dir, quick);
    fail |= urdf_arm_limit_reached(dir, quick);
    printf("%s\n", fail ? "urdf_arm: a check FAILED" : "urdf_arm: all checks passed");
    return fail;
}
