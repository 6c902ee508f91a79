/* Bortoff Sec. 4, Fig. 13: a delta robot touches a brick softly. The gripper's finger approaches
 * the brick's side at 0.2 mm/s while the position gain k_p is lowered to zero (velocity control),
 * touches it, and holds it with a small force without moving it.
 *
 *   delta_robot [--out DIR] [--quick]
 *
 * Geometry (ours: the paper gives none; a Clavel delta of common size). Base joints on a circle of
 * radius RB = 0.2 m at 0, 120, 240 degrees about the vertical axis, proximal links LA = 0.2 m
 * turned by the servos (angle theta_i below the horizontal), distal parallelograms LB = 0.5 m, the
 * flange's joints on a circle of RE = 0.05 m; the base is 0.55 m above the table. A finger (a
 * sphere of 5 mm) hangs 0.1 m below the flange. The flange only translates, so the robot's
 * dynamics is that of its effective translational mass M_EFF on three prismatic joints; the
 * servos act through the delta's Jacobian: the controller's Cartesian force F becomes servo
 * torques tau = J^-T F (J = d theta / d p) and the robot applies J^T tau to the flange.
 *
 * Brick: 32 x 16 x 11.4 mm (a 2 x 4 brick's size), weighted to 50 g, on the table with mu = 0.5;
 * it moves only if pushed with more than mu m g = 0.245 N.
 *
 * Controller (the paper's eq. 11 per axis, with the model's M and bias as gravity compensation):
 * u = k_p (r - y) + k_d (r' - y') + r'', F = M u + bias. The reference brings the finger within
 * GAP0 = 1.9 mm of the brick by t = 2.5 s (a cubic), then advances at V_REF = 0.2 mm/s; k_p falls
 * from KP0 to 0 by t = 9 s as (1 - s)^2, which keeps 0 <= k_p <= k_d^2 (eq. 12). With k_p = 0 and
 * the finger stopped by the brick, F = M_EFF k_d V_REF: k_d = 200 1/s gives the paper's 40 mN hold.
 *
 * Contacts: implicit compliant step (h = 1 ms) with the friction QP; finger pad K = 1e3 N/m, brick
 * on table K = 1e5 N/m per corner, damped. Writes DIR/delta_robot.csv. Exit 1 when a check
 * fails. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cdyn/cdyn.h>

#define RB 0.2
#define RE 0.05
#define LA 0.2
#define LB 0.5
#define BASE_Z 0.55
#define FINGER_DROP 0.1
#define FINGER_R 0.005
#define M_EFF 1.0
#define BRICK_M 0.05
#define BRICK_HX 0.016
#define BRICK_HY 0.008
#define BRICK_HZ 0.0057
#define MU 0.5
#define G 9.81
#define GAP0 0.0019
#define V_REF 0.0002
#define T_APPROACH 2.5
#define T_KP_ZERO 9.0
#define KP0 400.0
#define KD 200.0
#define K_FINGER 1e3
#define K_TABLE 1e5
#define H 1e-3
#define T_END 20.0

static const double PI = 3.14159265358979323846;

/* ---- delta kinematics (p: flange position relative to the base centre, z up) ---- */

/* Arm i's frame: rotated by -phi_i about z. The elbow for angle theta and the flange joint. */
static void arm_points(int i, const double *p, double theta, double *elbow, double *ej)
{
    const double phi = 2 * PI * i / 3, c = cos(phi), s = sin(phi);
    ej[0] = c * p[0] + s * p[1] + RE;
    ej[1] = -s * p[0] + c * p[1];
    ej[2] = p[2];
    elbow[0] = RB + LA * cos(theta);
    elbow[1] = 0;
    elbow[2] = -LA * sin(theta);
}

/* Inverse kinematics: theta_i (below the horizontal) with |elbow - joint| = LB, elbow out.
 * Returns nonzero outside the workspace. */
static int delta_ik(const double *p, double *theta)
{
    for (int i = 0; i < 3; i++) {
        double el[3], e[3];
        arm_points(i, p, 0.0, el, e);
        /* |(LA cos t - a, -ey, -LA sin t - ez)|^2 = LB^2 with a = ex - RB:
         * 2 LA (-ez sin t ... ) -> A sin t + B cos t = C */
        const double a = e[0] - RB;
        const double A = -2 * LA * e[2], B = 2 * LA * a;
        const double C = LA * LA + a * a + e[1] * e[1] + e[2] * e[2] - LB * LB;
        const double rho = hypot(A, B);
        if (!(fabs(C) <= rho))
            return 1;
        theta[i] = atan2(A, B) - acos(C / rho);
    }
    return 0;
}

/* J = d theta / d p (3 x 3, row i for arm i) from the constraints g_i = |elbow - joint|^2 - LB^2. */
static void delta_jacobian(const double *p, const double *theta, double *J)
{
    for (int i = 0; i < 3; i++) {
        double el[3], e[3];
        arm_points(i, p, theta[i], el, e);
        const double d[3] = {el[0] - e[0], el[1] - e[1], el[2] - e[2]};
        const double dg_dt = 2 * (d[0] * (-LA * sin(theta[i])) + d[2] * (-LA * cos(theta[i])));
        const double phi = 2 * PI * i / 3, c = cos(phi), s = sin(phi);
        /* d joint / d p = R(-phi) (rows (c, s, 0), (-s, c, 0), (0, 0, 1)) */
        const double dg_dp[3] = {-2 * (d[0] * c - d[1] * s), -2 * (d[0] * s + d[1] * c),
                                 -2 * d[2]};
        for (int k = 0; k < 3; k++)
            J[i * 3 + k] = -dg_dp[k] / dg_dt;
    }
}

/* Solve the 3 x 3 system A^T x = b (Cramer). */
static int solve_transposed(const double *A, const double *b, double *x)
{
    double T[9];
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 3; k++)
            T[i * 3 + k] = A[k * 3 + i];
    const double det = T[0] * (T[4] * T[8] - T[5] * T[7]) - T[1] * (T[3] * T[8] - T[5] * T[6]) +
                       T[2] * (T[3] * T[7] - T[4] * T[6]);
    if (!(fabs(det) > 1e-300))
        return 1;
    for (int c = 0; c < 3; c++) {
        double M[9];
        memcpy(M, T, sizeof M);
        for (int r = 0; r < 3; r++)
            M[r * 3 + c] = b[r];
        x[c] = (M[0] * (M[4] * M[8] - M[5] * M[7]) - M[1] * (M[3] * M[8] - M[5] * M[6]) +
                M[2] * (M[3] * M[7] - M[4] * M[6])) / det;
    }
    return 0;
}

/* ---- the scene ---- */

typedef struct scene {
    cdyn_model *model;
    int finger_pair, brick_pairs[8], nbrick_rows;
    double brick_x0; /* the brick's centre, x */
} scene;

static cdyn_model *build(cdyn_report *rep)
{
    cdyn_builder_options bo;
    cdyn_builder_defaults(&bo, 3);
    bo.gravity[2] = -G;
    cdyn_builder *b = NULL;
    if (cdyn_builder_create(&bo, &b, rep) != CDYN_OK)
        return NULL;
    /* the flange: x, y, z sliders; the first two nearly massless so that M = M_EFF I */
    cdyn_body_desc links[3];
    for (int k = 0; k < 3; k++) {
        cdyn_body_desc_defaults(&links[k]);
        links[k].joint = CDYN_JOINT_PRISMATIC;
        links[k].axis[0] = k == 0, links[k].axis[1] = k == 1, links[k].axis[2] = k == 2;
        links[k].mass = k < 2 ? 1e-3 : M_EFF - 2e-3;
        links[k].inertia[0] = links[k].inertia[1] = links[k].inertia[2] = 1e-5;
    }
    /* the finger's home: level with the brick's middle, GAP0 + 0.02 m from its -x face */
    links[0].frame = cdyn_pose_planar(-BRICK_HX - FINGER_R - GAP0 - 0.02, 0.0, 0.0);
    links[0].frame.pos[2] = BRICK_HZ;
    int ids[3], brick, gf, gb, gt, id;
    cdyn_status st = cdyn_builder_add_chain(b, CDYN_GROUND, 3, links, ids, rep);
    cdyn_body_desc bd;
    cdyn_body_desc_defaults(&bd);
    bd.mass = BRICK_M;
    bd.inertia[0] = BRICK_M * (4 * BRICK_HY * BRICK_HY + 4 * BRICK_HZ * BRICK_HZ) / 12;
    bd.inertia[1] = BRICK_M * (4 * BRICK_HX * BRICK_HX + 4 * BRICK_HZ * BRICK_HZ) / 12;
    bd.inertia[2] = BRICK_M * (4 * BRICK_HX * BRICK_HX + 4 * BRICK_HY * BRICK_HY) / 12;
    bd.frame.pos[2] = BRICK_HZ - BRICK_M * G / (4 * K_TABLE); /* resting on its compression */
    if (st == CDYN_OK)
        st = cdyn_builder_add_body(b, &bd, &brick, rep);
    cdyn_geom_desc finger, box, table;
    cdyn_geom_desc_defaults(&finger);
    cdyn_geom_desc_defaults(&box);
    cdyn_geom_desc_defaults(&table);
    finger.body = ids[2];
    finger.type = CDYN_GEOM_SPHERE;
    finger.size[0] = FINGER_R;
    box.body = brick;
    box.type = CDYN_GEOM_BOX;
    box.size[0] = BRICK_HX, box.size[1] = BRICK_HY, box.size[2] = BRICK_HZ;
    if (st == CDYN_OK)
        st = cdyn_builder_add_geom(b, &finger, &gf, rep);
    if (st == CDYN_OK)
        st = cdyn_builder_add_geom(b, &box, &gb, rep);
    if (st == CDYN_OK)
        st = cdyn_builder_add_geom(b, &table, &gt, rep);
    cdyn_contact_pair_desc pd;
    cdyn_contact_pair_desc_defaults(&pd);
    pd.mu = MU;
    /* finger on brick: a soft pad, overdamped with the controller */
    pd.geom_a = gb, pd.geom_b = gf;
    pd.stiffness[0] = pd.stiffness[4] = pd.stiffness[8] = K_FINGER;
    pd.damping[0] = pd.damping[4] = pd.damping[8] = 2 * sqrt(K_FINGER * M_EFF);
    if (st == CDYN_OK)
        st = cdyn_builder_add_contact_pair(b, &pd, &id, rep);
    /* brick on table: stiff, critically damped per corner */
    pd.geom_a = gt, pd.geom_b = gb;
    pd.stiffness[0] = pd.stiffness[4] = pd.stiffness[8] = K_TABLE;
    pd.damping[0] = pd.damping[4] = pd.damping[8] = 2 * sqrt(K_TABLE * BRICK_M / 4);
    if (st == CDYN_OK)
        st = cdyn_builder_add_contact_pair(b, &pd, &id, rep);
    cdyn_model *m = NULL;
    if (st == CDYN_OK)
        cdyn_builder_build(b, &m, rep);
    cdyn_builder_free(b);
    return m;
}

/* The reference of the finger's x (relative to its home) and its derivatives. */
static void reference(double t, double *r, double *rd, double *rdd)
{
    const double d = 0.02; /* home is GAP0 + d from the brick */
    if (t < T_APPROACH) {
        const double s = t / T_APPROACH; /* smooth start and end: 3 s^2 - 2 s^3 */
        *r = d * (3 * s * s - 2 * s * s * s);
        *rd = d * (6 * s - 6 * s * s) / T_APPROACH;
        *rdd = d * (6 - 12 * s) / (T_APPROACH * T_APPROACH);
    } else {
        *r = d + V_REF * (t - T_APPROACH);
        *rd = V_REF;
        *rdd = 0;
    }
}

static double gain_kp(double t)
{
    if (t <= T_APPROACH)
        return KP0;
    if (t >= T_KP_ZERO)
        return 0.0;
    const double s = (t - T_APPROACH) / (T_KP_ZERO - T_APPROACH);
    return KP0 * (1 - s) * (1 - s);
}

/* The finger's home (world) and the flange position relative to the base for slider values q. */
static void flange_point(const double *home, const double *q, double *p)
{
    p[0] = home[0] + q[0];
    p[1] = home[1] + q[1];
    p[2] = home[2] + q[2] + FINGER_DROP - BASE_Z;
}

/* Kinematics checks: J against central differences of the inverse kinematics at three flange
 * positions (relative error <= 1e-6), and the force round trip F -> tau = J^-T F -> J^T tau. */
static int check_kinematics(const double *home)
{
    int bad = 0;
    double worst_j = 0, worst_f = 0;
    const double offs[3][3] = {{0, 0, 0}, {0.05, -0.03, 0.02}, {-0.04, 0.06, -0.05}};
    for (int k = 0; k < 3; k++) {
        double p[3], th[3], J[9], tp[3], tm[3];
        flange_point(home, offs[k], p);
        if (delta_ik(p, th) != 0)
            return 1;
        delta_jacobian(p, th, J);
        double scale = 0;
        for (int i = 0; i < 9; i++)
            scale = fmax(scale, fabs(J[i]));
        for (int c = 0; c < 3; c++) {
            double pp[3] = {p[0], p[1], p[2]}, pm[3] = {p[0], p[1], p[2]};
            pp[c] += 1e-6, pm[c] -= 1e-6;
            if (delta_ik(pp, tp) != 0 || delta_ik(pm, tm) != 0)
                return 1;
            for (int i = 0; i < 3; i++)
                worst_j = fmax(worst_j, fabs((tp[i] - tm[i]) / 2e-6 - J[i * 3 + c]) / scale);
        }
        const double F[3] = {0.04, -0.01, 9.81};
        double tau[3];
        if (solve_transposed(J, F, tau) != 0)
            return 1;
        for (int c = 0; c < 3; c++) {
            double back = 0;
            for (int i = 0; i < 3; i++)
                back += J[i * 3 + c] * tau[i];
            worst_f = fmax(worst_f, fabs(back - F[c]) / 9.81);
        }
        if (k == 0)
            printf("servo angles at home: %.4f, %.4f, %.4f rad (below the horizontal)\n", th[0],
                   th[1], th[2]);
    }
    printf("delta Jacobian vs central differences of the inverse kinematics: %.1e (relative); "
           "force round trip J^T J^-T F: %.1e\n\n", worst_j, worst_f);
    bad |= !(worst_j <= 1e-6) || !(worst_f <= 1e-12);
    return bad;
}

int main(int argc, char **argv)
{
    const char *dir = "out";
    double t_end = T_END;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--out") == 0 && i + 1 < argc)
            dir = argv[++i];
        else if (strcmp(argv[i], "--quick") == 0)
            t_end = 15.0;
        else {
            fprintf(stderr, "usage: delta_robot [--out DIR] [--quick]\n");
            return 2;
        }
    }
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "delta_robot: cannot create %s: %s\n", dir, strerror(errno));
        return 1;
    }
    cdyn_report rep;
    cdyn_model *m = build(&rep);
    if (m == NULL) {
        fprintf(stderr, "delta_robot: model: %s\n", rep.message);
        return 1;
    }
    const double home[3] = {-BRICK_HX - FINGER_R - GAP0 - 0.02, 0.0, BRICK_HZ};
    printf("Delta robot soft touch (Bortoff Sec. 4, Fig. 13)\n\n");
    int bad = check_kinematics(home);
    if (bad)
        fprintf(stderr, "delta_robot: the delta kinematics checks failed\n");

    cdyn_step_options o;
    cdyn_step_defaults(&o, CDYN_SCHEME_IMPLICIT_NCP);
    o.h = H;
    o.friction_qp = 1;
    o.max_halvings = 4;
    cdyn_stepper *s = NULL;
    cdyn_state *x = NULL;
    cdyn_data *data = NULL;
    FILE *f = NULL;
    char path[1024];
    snprintf(path, sizeof path, "%s/delta_robot.csv", dir);
    if (cdyn_stepper_create(m, &o, &s, &rep) != CDYN_OK ||
        cdyn_state_create(m, NULL, &x, &rep) != CDYN_OK ||
        cdyn_data_create(m, NULL, &data, &rep) != CDYN_OK) {
        fprintf(stderr, "delta_robot: %s\n", rep.message);
        bad = 1;
        goto done;
    }
    if ((f = fopen(path, "w")) == NULL) {
        fprintf(stderr, "delta_robot: cannot write %s: %s\n", path, strerror(errno));
        bad = 1;
        goto done;
    }
    fprintf(f, "t,x_ref,x,gap,force,kp,brick_dx,tau1,tau2,tau3\n");
    const int nv = cdyn_model_nv(m), nsteps = (int)lround(t_end / H);
    const double bx0 = x->q[3];
    double tau[16] = {0}, t_touch = -1, peak = 0, hold = 0, brick_dx = 0;
    int nhold = 0, lost = 0;
    for (int k = 0; k < nsteps; k++) {
        const double t = x->t;
        if (cdyn_eval(m, data, x->q, x->v, CDYN_EVAL_MASS | CDYN_EVAL_BIAS, &rep) != CDYN_OK) {
            fprintf(stderr, "delta_robot: %s\n", rep.message);
            bad = 1;
            break;
        }
        const double *M = cdyn_data_mass(data), *bias = cdyn_data_bias(data);
        double r, rd, rdd, u[3], F[3], p[3], th[3], J[9], servo[3];
        reference(t, &r, &rd, &rdd);
        const double kp = gain_kp(t);
        const double ref[3] = {r, 0, 0}, refd[3] = {rd, 0, 0}, refdd[3] = {rdd, 0, 0};
        for (int i = 0; i < 3; i++)
            u[i] = kp * (ref[i] - x->q[i]) + KD * (refd[i] - x->v[i]) + refdd[i];
        for (int i = 0; i < 3; i++) {
            F[i] = bias[i];
            for (int j = 0; j < 3; j++)
                F[i] += M[i + (size_t)j * nv] * u[j];
        }
        /* through the servos: tau = J^-T F, and the flange receives J^T tau */
        flange_point(home, x->q, p);
        if (delta_ik(p, th) != 0 || (delta_jacobian(p, th, J), solve_transposed(J, F, servo))) {
            fprintf(stderr, "delta_robot: the flange left the workspace at t = %.3f\n", t);
            bad = 1;
            break;
        }
        for (int c = 0; c < 3; c++) {
            tau[c] = 0;
            for (int i = 0; i < 3; i++)
                tau[c] += J[i * 3 + c] * servo[i];
        }
        cdyn_step_report sr;
        if (cdyn_step(s, tau, x, &sr) != CDYN_OK) {
            fprintf(stderr, "delta_robot: step at t = %.3f: %s\n", t, sr.solver.message);
            bad = 1;
            break;
        }
        const double force = x->lambda[0];
        if (force > 0 && t_touch < 0)
            t_touch = x->t;
        if (t_touch >= 0 && !(force > 0))
            lost++;
        peak = fmax(peak, force);
        if (x->t > t_end - 2.0) {
            hold += force;
            nhold++;
        }
        brick_dx = fmax(brick_dx, fabs(x->q[3] - bx0));
        const double gap = -BRICK_HX - FINGER_R - (home[0] + x->q[0]);
        if (k % 10 == 9)
            fprintf(f, "%.3f,%.8f,%.8f,%.8e,%.6e,%.3f,%.6e,%.6e,%.6e,%.6e\n", x->t, r, x->q[0], gap,
                    force, kp, x->q[3] - bx0, servo[0], servo[1], servo[2]);
    }
    hold = nhold > 0 ? hold / nhold : 0;
    if (!bad) {
        const double t_expect = T_APPROACH + GAP0 / V_REF, f_hold = M_EFF * KD * V_REF;
        const double limit = MU * BRICK_M * G, dx_bound = 2 * peak / (4 * K_TABLE);
        printf("| quantity | computed | paper | our expectation |\n|---|---|---|---|\n");
        printf("| contact at | %.3f s | 12 s | %.3f s (%.1f mm at 0.2 mm/s after 2.5 s) |\n",
               t_touch, t_expect, GAP0 * 1e3);
        printf("| peak force | %.1f mN | 90 mN | below mu m g = %.0f mN (the brick stays) |\n",
               peak * 1e3, limit * 1e3);
        printf("| holding force | %.2f mN | 40 mN | M k_d v_ref = %.2f mN |\n", hold * 1e3,
               f_hold * 1e3);
        printf("| brick displacement | %.2g m | none | <= 2 F_peak / (4 K) = %.2g m |\n", brick_dx,
               dx_bound);
        printf("| steps without contact after the touch | %d | 0 (no bounce) | 0 |\n", lost);
        const int ok = fabs(t_touch - t_expect) <= 0.1 && peak < limit &&
                       fabs(hold - f_hold) <= 0.02 * f_hold && brick_dx <= dx_bound && lost == 0;
        if (!ok) {
            fprintf(stderr, "delta_robot: a soft-touch check failed\n");
            bad = 1;
        }
    }
done:
    if (f != NULL && fclose(f) != 0) {
        fprintf(stderr, "delta_robot: write error in %s\n", path);
        bad = 1;
    }
    cdyn_data_free(data);
    cdyn_state_free(x);
    cdyn_stepper_free(s);
    cdyn_model_free(m);
    return bad;
}
