/* Bortoff Sec. 3, Figs. 6-11: the ball maze stood on end. Four concentric rings with a gate each
 * turn together about the maze's horizontal axis (one degree of freedom, q1, driven by a torque
 * u). A ball dropped onto the outer ring is balanced on top of it by feedback that turns the
 * maze; the maze is then turned until the gate comes under the ball, which falls onto the next
 * ring, and so on until it drops inside the innermost ring: the centre.
 *
 *   ball_maze [--out DIR]
 *
 * Model (ours; the paper gives the structure, not the numbers): rings of centre-line radius
 * R_i = 0.20, 0.15, 0.10, 0.05 m and half-thickness W = 3 mm (CDYN_GEOM_ARC on the maze body, a
 * revolute joint, J_m = 1e-3 kg m^2), gates 40 mm wide; a ball of radius r = 10 mm, m = 10 g
 * (solid: I = 2/5 m r^2); contacts compliant (K = 1e4 N/m, critically damped, mu = 0.6) with the
 * friction QP, h = 1 ms.
 *
 * Controller (state feedback, ours; the paper uses two lead compensators). On top of ring i the
 * ball's angle phi from the vertical obeys, linearized with rolling and alpha = q1'' the maze's
 * angular acceleration (Lagrange: T = 1/2 m rho^2 phi'^2 + 1/2 k m (rho phi' - R' q1')^2,
 * V = m g rho cos phi, rho = R' + r, R' = R_i + W, k = 2/5):
 *     phi'' = a phi + b alpha,   a = g / (rho (1 + k)),   b = k R' / (rho (1 + k)).
 * With alpha = -(k1 phi + k2 phi' + k3 e + k4 e'), e = q1 - q1_ref, the closed loop's polynomial
 * is s^4 + (k4 + b k2) s^3 + (k3 - a + b k1) s^2 - a k4 s - a k3; all four poles at -P give
 * k3 = -P^4/a, k4 = -4 P^3/a, k1 = (6 P^2 + a - k3)/b, k2 = (4 P - k4)/b (k3, k4 < 0: the
 * maze first turns the "wrong" way, the non-minimum-phase response the paper notes). P = 6 1/s.
 * The torque is u = J_m alpha. While the ball falls, a PD holds the maze on its reference.
 * q1_ref: held for 1 s after each landing, then moved in 3 s (smooth cubic) to bring gate i to
 * the top. Writes DIR/ball_maze.csv. Exit 1 when the ball does not reach the centre. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cdyn/cdyn.h>

#define NRING 4
#define W 0.003
#define RB 0.01
#define MB 0.01
#define KB 0.4 /* I_b = KB m r^2 */
#define JM 1e-3
#define G 9.81
#define MU 0.6
#define K_CONTACT 1e4
#define GATE 0.04 /* chord of each gate (m) */
#define P_POLE 6.0
#define H 1e-3
#define T_END 16.0
#define T_HOLD 1.0
#define T_MOVE 3.0

static const double PI = 3.14159265358979323846;
static const double RING[NRING] = {0.20, 0.15, 0.10, 0.05};
/* gate centres in the maze frame (polar angle at q1 = 0), alternating sides so that the maze
 * turns one way and then the other, as in the paper */
static const double GATE_AT[NRING] = {0.5 * 3.14159265358979323846 + 1.2,
                                      0.5 * 3.14159265358979323846 - 1.0,
                                      0.5 * 3.14159265358979323846 + 1.4,
                                      0.5 * 3.14159265358979323846 - 0.9};

static cdyn_model *build(cdyn_report *rep)
{
    cdyn_builder_options bo;
    cdyn_builder_defaults(&bo, 2);
    bo.gravity[1] = -G;
    cdyn_builder *b = NULL;
    if (cdyn_builder_create(&bo, &b, rep) != CDYN_OK)
        return NULL;
    cdyn_body_desc maze, ball;
    cdyn_body_desc_defaults(&maze);
    maze.joint = CDYN_JOINT_REVOLUTE;
    maze.mass = 0.5;
    maze.inertia[2] = JM;
    cdyn_body_desc_defaults(&ball);
    ball.mass = MB;
    ball.inertia[2] = KB * MB * RB * RB;
    ball.frame = cdyn_pose_planar(0.002, RING[0] + W + RB + 0.037, 0.0); /* dropped from 37 mm */
    int body_maze, body_ball, gball, id;
    cdyn_status st = cdyn_builder_add_body(b, &maze, &body_maze, rep);
    if (st == CDYN_OK)
        st = cdyn_builder_add_body(b, &ball, &body_ball, rep);
    cdyn_geom_desc g;
    cdyn_geom_desc_defaults(&g);
    g.body = body_ball;
    g.type = CDYN_GEOM_CIRCLE;
    g.size[0] = RB;
    if (st == CDYN_OK)
        st = cdyn_builder_add_geom(b, &g, &gball, rep);
    cdyn_contact_pair_desc pd;
    cdyn_contact_pair_desc_defaults(&pd);
    pd.mu = MU;
    pd.stiffness[0] = pd.stiffness[4] = K_CONTACT;
    pd.damping[0] = pd.damping[4] = 2 * sqrt(K_CONTACT * MB);
    pd.margin = 0.02;
    for (int i = 0; i < NRING && st == CDYN_OK; i++) {
        /* the arc's frame points away from its gate: the gap is centred at its polar angle pi */
        const double half_gap = asin(0.5 * GATE / RING[i]);
        g.body = body_maze;
        g.type = CDYN_GEOM_ARC;
        g.frame = cdyn_pose_planar(0, 0, GATE_AT[i] - PI);
        g.size[0] = W, g.size[1] = RING[i], g.size[2] = PI - half_gap;
        st = cdyn_builder_add_geom(b, &g, &pd.geom_a, rep);
        pd.geom_b = gball;
        if (st == CDYN_OK)
            st = cdyn_builder_add_contact_pair(b, &pd, &id, rep);
    }
    cdyn_model *m = NULL;
    if (st == CDYN_OK)
        cdyn_builder_build(b, &m, rep);
    cdyn_builder_free(b);
    return m;
}

typedef struct gains {
    double a, b, k[4];
} gains;

/* Pole placement for the ball on top of ring i (file comment). */
static gains ring_gains(int i)
{
    gains g;
    const double Rp = RING[i] + W, rho = Rp + RB;
    g.a = G / (rho * (1 + KB));
    g.b = -KB * Rp / (rho * (1 + KB)); /* phi clockwise from the vertical, q1 counter-clockwise */
    const double P = P_POLE, P2 = P * P, P3 = P2 * P, P4 = P2 * P2;
    g.k[2] = -P4 / g.a;
    g.k[3] = -4 * P3 / g.a;
    g.k[0] = (6 * P2 + g.a - g.k[2]) / g.b;
    g.k[1] = (4 * P - g.k[3]) / g.b;
    return g;
}

/* Smooth move from a to b over [t0, t0 + T_MOVE] (cubic): value, rate and acceleration. */
static void move(double a, double b, double t0, double t, double *r, double *rd, double *rdd)
{
    double s = (t - t0) / T_MOVE;
    if (s <= 0) {
        *r = a, *rd = *rdd = 0;
        return;
    }
    if (s >= 1) {
        *r = b, *rd = *rdd = 0;
        return;
    }
    *r = a + (b - a) * (3 * s * s - 2 * s * s * s);
    *rd = (b - a) * (6 * s - 6 * s * s) / T_MOVE;
    *rdd = (b - a) * (6 - 12 * s) / (T_MOVE * T_MOVE);
}

int main(int argc, char **argv)
{
    const char *dir = "out";
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--out") == 0 && i + 1 < argc) {
            dir = argv[++i];
        } else {
            fprintf(stderr, "usage: ball_maze [--out DIR]\n");
            return 2;
        }
    }
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "ball_maze: cannot create %s: %s\n", dir, strerror(errno));
        return 1;
    }
    cdyn_report rep;
    cdyn_model *m = build(&rep);
    if (m == NULL) {
        fprintf(stderr, "ball_maze: model: %s\n", rep.message);
        return 1;
    }
    cdyn_step_options o;
    cdyn_step_defaults(&o, CDYN_SCHEME_IMPLICIT_NCP);
    o.h = H;
    o.friction_qp = 1;
    o.max_halvings = 6;
    cdyn_stepper *s = NULL;
    cdyn_state *x = NULL;
    FILE *f = NULL;
    int bad = 0;
    char path[1024];
    snprintf(path, sizeof path, "%s/ball_maze.csv", dir);
    if (cdyn_stepper_create(m, &o, &s, &rep) != CDYN_OK ||
        cdyn_state_create(m, NULL, &x, &rep) != CDYN_OK) {
        fprintf(stderr, "ball_maze: %s\n", rep.message);
        bad = 1;
        goto done;
    }
    if ((f = fopen(path, "w")) == NULL) {
        fprintf(stderr, "ball_maze: cannot write %s: %s\n", path, strerror(errno));
        bad = 1;
        goto done;
    }
    fprintf(f, "t,q1,q1_ref,phi,radius,lambda1,lambda2,lambda3,lambda4,ring\n");
    gains gn[NRING];
    for (int i = 0; i < NRING; i++)
        gn[i] = ring_gains(i);
    /* ring: the ring the ball is balanced on (-1 while it falls); next: the one it falls onto */
    int ring = -1, next = 0, nsteps = (int)lround(T_END / H);
    double land[NRING], leave[NRING], phimax[NRING], ref_from = 0, ref_to = 0, move_at = INFINITY;
    for (int i = 0; i < NRING; i++)
        land[i] = leave[i] = -1, phimax[i] = 0;
    double tau[4] = {0};
    for (int k = 0; k < nsteps && !bad; k++) {
        const double t = x->t, bx = x->q[1], by = x->q[2], vx = x->v[1], vy = x->v[2];
        const double r2 = bx * bx + by * by;
        const double phi = atan2(bx, by), phid = (by * vx - bx * vy) / r2;
        double r, rd, rdd;
        move(ref_from, ref_to, move_at, t, &r, &rd, &rdd);
        const double e = x->q[0] - r, ed = x->v[0] - rd;
        double alpha;
        if (ring >= 0) {
            const double *kk = gn[ring].k;
            alpha = rdd - (kk[0] * phi + kk[1] * phid + kk[2] * e + kk[3] * ed);
            phimax[ring] = fmax(phimax[ring], fabs(phi));
        } else {
            alpha = rdd - 25 * e - 10 * ed;
        }
        tau[0] = JM * alpha;
        cdyn_step_report sr;
        if (cdyn_step(s, tau, x, &sr) != CDYN_OK) {
            fprintf(stderr, "ball_maze: step at t = %.3f: %s\n", t, sr.solver.message);
            bad = 1;
            break;
        }
        /* landing on the next ring: its contact carries force */
        if (next < NRING && x->lambda[3 * next] > 0) {
            ring = next++;
            land[ring] = x->t;
            ref_from = ref_to = r;
            move_at = x->t + T_HOLD;
            /* bring the gate to the top: GATE_AT + q1 = pi/2 */
            ref_to = 0.5 * PI - GATE_AT[ring];
        }
        /* through the gate: the ball is inside the ring it was on */
        if (ring >= 0 && hypot(x->q[1], x->q[2]) < RING[ring] - W - RB) {
            leave[ring] = x->t;
            ref_from = ref_to = x->q[0];
            move_at = INFINITY;
            ring = -1;
        }
        if (k % 10 == 9)
            fprintf(f, "%.3f,%.6f,%.6f,%.6f,%.6f,%.6g,%.6g,%.6g,%.6g,%d\n", x->t, x->q[0], r,
                    atan2(x->q[1], x->q[2]), hypot(x->q[1], x->q[2]), x->lambda[0], x->lambda[3],
                    x->lambda[6], x->lambda[9], ring + 1);
    }
    if (!bad) {
        const double rad = hypot(x->q[1], x->q[2]);
        printf("Ball maze (Bortoff Sec. 3, Fig. 10): rings R = 0.20/0.15/0.10/0.05 m, gates %.0f mm, "
               "ball r = %.0f mm, pole placement at -%.0f 1/s\n\n", GATE * 1e3, RB * 1e3, P_POLE);
        printf("| ring | lands at (s) | falls through its gate at (s) | max |phi| while balanced "
               "(rad) | gains k1, k2, k3, k4 |\n|---|---|---|---|---|\n");
        for (int i = 0; i < NRING; i++)
            printf("| %d (R = %.2f m) | %.3f | %.3f | %.3f | %.1f, %.2f, %.2f, %.2f |\n", i + 1,
                   RING[i], land[i], leave[i], phimax[i], gn[i].k[0], gn[i].k[1], gn[i].k[2],
                   gn[i].k[3]);
        /* the centre's distance when the ball touches the inner ring's inside; the compliant
         * contact lets it rest a few micrometres beyond */
        const double touch = RING[NRING - 1] - W - RB;
        printf("\nPaper: contact with the outer ring at about 0.1 s; then ring by ring through the "
               "gates to the centre.\nComputed: first contact at %.3f s; at t = %.0f s the ball is "
               "%.6f m from the centre, inside the inner ring (it touches the ring's inside at "
               "%.6f m; %s %.1e m).\n", land[0], T_END, rad, touch,
               rad > touch ? "the compliant contact is pressed" : "clear of it by",
               fabs(rad - touch));
        int ok = rad < touch + 1e-3 && fabs(land[0] - 0.1) < 0.05;
        for (int i = 0; i < NRING; i++)
            ok = ok && land[i] > 0 && leave[i] > land[i];
        if (!ok) {
            fprintf(stderr, "ball_maze: the ball did not go ring by ring to the centre\n");
            bad = 1;
        }
    }
done:
    if (f != NULL && fclose(f) != 0) {
        fprintf(stderr, "ball_maze: write error in %s\n", path);
        bad = 1;
    }
    cdyn_state_free(x);
    cdyn_stepper_free(s);
    cdyn_model_free(m);
    return bad;
}
