/* Bortoff (2020), Sec. 2: the bouncing ball of the Baumgarte contact model with the FREE /
 * CONTACT / BALLISTIC state machine (CDYN_SCHEME_BAUMGARTE). The paper's model: m = 1 kg,
 * g = 9.81, released at rest from h = 1 m, h = q (a point on the ground line; here a disk on a
 * vertical prismatic joint whose coordinate is its gap), alpha0 = 100, alpha2 = 1e6 and
 *   Fig. 2   alpha1 = 1 (caption): "after four bounces, the ball comes to rest", h -> 0, lambda > 0
 *            (computed: with alpha1 = 1 the ball keeps bouncing, apex -> 0.111 m; a sweep over
 *            alpha1 shows which damping gives four bounces)
 *   listing  alpha1 = 20 (the myBouncingBall code of the paper)
 *   Fig. 3   alpha1 = 0: the apex height grows from bounce to bounce
 *   Fig. 4   close-up of one exit from contact with alpha1 = 0: h crosses zero near 4.356 s,
 *            lambda = 9.81 there, and lambda changes sign near "4.262 s" (as printed).
 * The apex gain per bounce with alpha1 = 0 has a closed form (tests/test_step_baumgarte.c):
 * dA = h_e - U(h_e) / g with alpha0 h_e + alpha2 h_e^3 = g, U = alpha0 h^2 / 2 + alpha2 h^4 / 4.
 *
 *   bouncing_ball [--out DIR] [--h STEP]
 *
 * Writes DIR/bouncing_ball_{fig2,listing,fig3,a10}.csv (t, h, hdot, lambda, mode; a10: the
 * sweep's alpha1 = 10, which gives the caption's four bounces) and prints the
 * computed-vs-published table (Markdown). Exit status 1 when a step fails or a check of the
 * closed forms does not hold. */
#define _POSIX_C_SOURCE 200809L /* mkdir */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cdyn/cdyn.h"

static const double G = 9.81, MASS = 1.0, RADIUS = 0.05, H0 = 1.0;

static cdyn_model *ball_model(const double alpha[3], cdyn_report *r)
{
    cdyn_builder_options bo;
    cdyn_builder_defaults(&bo, 2);
    cdyn_builder *b = NULL;
    cdyn_model *m = NULL;
    if (cdyn_builder_create(&bo, &b, r) != CDYN_OK)
        return NULL;
    cdyn_body_desc d;
    cdyn_body_desc_defaults(&d);
    d.joint = CDYN_JOINT_PRISMATIC;
    d.frame = cdyn_pose_planar(0.0, RADIUS, 0.0); /* so that q is the gap */
    d.axis[0] = 0.0, d.axis[1] = 1.0, d.axis[2] = 0.0;
    d.mass = MASS;
    d.inertia[2] = 0.4 * MASS * RADIUS * RADIUS;
    cdyn_geom_desc ground, disk;
    cdyn_geom_desc_defaults(&ground);
    cdyn_geom_desc_defaults(&disk);
    disk.type = CDYN_GEOM_CIRCLE;
    disk.size[0] = RADIUS;
    cdyn_contact_pair_desc p;
    cdyn_contact_pair_desc_defaults(&p);
    memcpy(p.baumgarte, alpha, sizeof p.baumgarte);
    int id = 0;
    if (cdyn_builder_add_body(b, &d, &disk.body, r) == CDYN_OK &&
        cdyn_builder_add_geom(b, &ground, &p.geom_a, r) == CDYN_OK &&
        cdyn_builder_add_geom(b, &disk, &p.geom_b, r) == CDYN_OK &&
        cdyn_builder_add_contact_pair(b, &p, &id, r) == CDYN_OK)
        cdyn_builder_build(b, &m, r);
    cdyn_builder_free(b);
    return m;
}

/* What one run measured. */
typedef struct run {
    int bounces;           /* CONTACT -> another mode */
    int ballistic_below;   /* exits that entered BALLISTIC below the ground (h < 0 at the switch) */
    double t_rest;         /* start of the last CONTACT phase that lasts to the end (NAN if none) */
    double apex[256];      /* per flight after a bounce: q + v^2 / (2g) */
    int napex;
    double h_end, v_end, lambda_end;
    int mode_end;
    double exit_t[256];    /* lambda's sign change (the exits from CONTACT) */
    double up_t[256];      /* h's upward zero crossing before each exit */
    double up_lambda[256]; /* lambda there (interpolated between the two steps) */
    int nexit;
    long solves, events;
} run;

/* The time s back from the end of a step at which the free flight (q1, v1) left CONTACT, i.e.
 * where lambda = m (g - alpha1 hdot - alpha0 h - alpha2 h^3) vanished: free flight is an exact
 * parabola, so the exit is the root of lambda along it in [0, step] (bisection). */
static double exit_back(const double alpha[3], double q1, double v1, double step)
{
    double lo = 0.0, hi = step;
    for (int k = 0; k < 200 && hi - lo > 1e-15; ++k) {
        const double s = 0.5 * (lo + hi), v = v1 + G * s, q = q1 - v1 * s - 0.5 * G * s * s;
        const double lam = G - alpha[1] * v - alpha[0] * q - alpha[2] * q * q * q;
        if (lam < 0.0)
            lo = s; /* still after the exit */
        else
            hi = s;
    }
    return 0.5 * (lo + hi);
}

static int simulate(const double alpha[3], double h, double T, const char *csv, run *out)
{
    memset(out, 0, sizeof *out);
    out->t_rest = NAN;
    cdyn_report r;
    cdyn_model *m = ball_model(alpha, &r);
    if (m == NULL) {
        fprintf(stderr, "bouncing_ball: model: %s\n", r.message);
        return 1;
    }
    cdyn_step_options o;
    cdyn_step_defaults(&o, CDYN_SCHEME_BAUMGARTE);
    o.h = h;
    cdyn_stepper *s = NULL;
    cdyn_state *x = NULL;
    FILE *f = NULL;
    int fail = 0;
    if (cdyn_stepper_create(m, &o, &s, &r) != CDYN_OK ||
        cdyn_state_create(m, NULL, &x, &r) != CDYN_OK) {
        fprintf(stderr, "bouncing_ball: %s\n", r.message);
        fail = 1;
    }
    if (!fail && csv != NULL && (f = fopen(csv, "w")) == NULL) {
        fprintf(stderr, "bouncing_ball: cannot write %s: %s\n", csv, strerror(errno));
        fail = 1;
    }
    if (fail) {
        cdyn_state_free(x);
        cdyn_stepper_free(s);
        cdyn_model_free(m);
        return 1;
    }
    if (f != NULL)
        fprintf(f, "t,h,hdot,lambda,mode\n%.9g,%.9g,%.9g,%.9g,%d\n", 0.0, H0, 0.0, 0.0, 0);
    x->q[0] = H0;
    const long n = lround(T / h);
    int prev = CDYN_MODE_FREE, counted = 1;
    double qprev = H0, lprev = 0.0, tprev = 0.0;
    for (long k = 0; k < n && !fail; ++k) {
        cdyn_step_report rep;
        if (cdyn_step(s, NULL, x, &rep) != CDYN_OK) {
            fprintf(stderr, "bouncing_ball: t = %g: %s\n", x->t, rep.solver.message);
            fail = 1;
            break;
        }
        out->solves += rep.solver.iterations;
        out->events += rep.events;
        const int mode = x->mode[0];
        if (prev == CDYN_MODE_CONTACT && qprev <= 0.0 && x->q[0] > 0.0 && out->nexit < 256) {
            const double w = -qprev / (x->q[0] - qprev); /* h's upward crossing, in contact */
            out->up_t[out->nexit] = tprev + w * (x->t - tprev);
            out->up_lambda[out->nexit] = lprev + w * (x->lambda[0] - lprev);
        }
        if (prev == CDYN_MODE_CONTACT && mode != CDYN_MODE_CONTACT) {
            out->bounces++;
            out->ballistic_below += mode == CDYN_MODE_BALLISTIC;
            if (mode == CDYN_MODE_FREE && out->nexit < 256)
                out->exit_t[out->nexit++] = x->t - exit_back(alpha, x->q[0], x->v[0], h);
        }
        if (mode == CDYN_MODE_CONTACT && prev != CDYN_MODE_CONTACT) {
            counted = 0;
            out->t_rest = x->t;
        }
        if (mode != CDYN_MODE_CONTACT)
            out->t_rest = NAN;
        if (mode == CDYN_MODE_FREE && !counted && out->napex < 256) {
            out->apex[out->napex++] = x->q[0] + x->v[0] * x->v[0] / (2.0 * G);
            counted = 1;
        }
        if (f != NULL)
            fprintf(f, "%.9g,%.9g,%.9g,%.9g,%d\n", x->t, x->q[0], x->v[0], x->lambda[0], mode);
        prev = mode;
        qprev = x->q[0];
        lprev = x->lambda[0];
        tprev = x->t;
    }
    out->h_end = x->q[0];
    out->v_end = x->v[0];
    out->lambda_end = x->lambda[0];
    out->mode_end = x->mode[0];
    if (f != NULL && fclose(f) != 0) {
        fprintf(stderr, "bouncing_ball: writing %s failed\n", csv);
        fail = 1;
    }
    cdyn_state_free(x);
    cdyn_stepper_free(s);
    cdyn_model_free(m);
    return fail;
}

static double apex_gain(const double alpha[3])
{
    double he = G / alpha[0];
    for (int k = 0; k < 60; ++k)
        he -= (alpha[0] * he + alpha[2] * he * he * he - G) / (alpha[0] + 3 * alpha[2] * he * he);
    return he - (0.5 * alpha[0] * he * he + 0.25 * alpha[2] * he * he * he * he) / G;
}

static int make_dir(const char *dir)
{
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "bouncing_ball: cannot create %s: %s\n", dir, strerror(errno));
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *dir = "out";
    double h = 1e-3;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--out") == 0 && i + 1 < argc) {
            dir = argv[++i];
        } else if (strcmp(argv[i], "--h") == 0 && i + 1 < argc) {
            h = atof(argv[++i]);
        } else {
            fprintf(stderr, "usage: bouncing_ball [--out DIR] [--h STEP]\n");
            return 2;
        }
    }
    if (!(h > 0.0 && h <= 0.01)) {
        fprintf(stderr, "bouncing_ball: --h must be in (0, 0.01]\n");
        return 2;
    }
    if (make_dir(dir) != 0)
        return 1;
    static const double fig2[3] = {100.0, 1.0, 1e6}, listing[3] = {100.0, 20.0, 1e6},
                        fig3[3] = {100.0, 0.0, 1e6};
    const double T = 10.0;
    char path[1024];
    static run r2, rl, r3, r2long;
    int fail = 0;
    snprintf(path, sizeof path, "%s/bouncing_ball_fig2.csv", dir);
    fail |= simulate(fig2, h, T, path, &r2);
    snprintf(path, sizeof path, "%s/bouncing_ball_listing.csv", dir);
    fail |= simulate(listing, h, T, path, &rl);
    snprintf(path, sizeof path, "%s/bouncing_ball_fig3.csv", dir);
    fail |= simulate(fig3, h, T, path, &r3);
    fail |= simulate(fig2, h, 100.0, NULL, &r2long);
    if (fail)
        return 1;

    printf("Bortoff (2020) bouncing ball: m = %g kg, released at h = %g m, alpha0 = 100, "
           "alpha2 = 1e6; cdyn_step with the baumgarte scheme, h = %g s, event_tol = 1e-9 s, "
           "%g s simulated.\n\n", MASS, H0, h, T);
    printf("| case | quantity | published | computed |\n|---|---|---|---|\n");
    printf("| Fig. 2, alpha1 = 1 | bounces before rest | 4 | none: %d bounces in %g s, %d in "
           "100 s, still bouncing |\n", r2.bounces, T, r2long.bounces);
    printf("| Fig. 2, alpha1 = 1 | final state | h -> 0, lambda > 0 | steady bouncing, apex "
           "%.5f m at 100 s (last three: %.6f, %.6f) |\n", r2long.apex[r2long.napex - 1],
           r2long.apex[r2long.napex - 3], r2long.apex[r2long.napex - 2]);
    printf("| listing, alpha1 = 20 | bounces before rest | (Fig. 2: 4) | %d, at rest in CONTACT "
           "from t = %.3f s; %d exit(s) through BALLISTIC below the ground |\n",
           rl.bounces, rl.t_rest, rl.ballistic_below);
    printf("| listing, alpha1 = 20 | h, lambda at %g s | 0, m g = %.2f N | %.2g m, %.15g N |\n",
           T, MASS * G, rl.h_end, rl.lambda_end);
    const double dA = apex_gain(fig3);
    double gmin = INFINITY, gmax = -INFINITY;
    for (int k = 0; k < r3.napex; ++k) {
        const double g = r3.apex[k] - (k == 0 ? H0 : r3.apex[k - 1]);
        gmin = fmin(gmin, g);
        gmax = fmax(gmax, g);
    }
    printf("| Fig. 3, alpha1 = 0 | apex growth per bounce | grows (closed form: %.6f m) | "
           "%.6f .. %.6f m over %d bounces; apex %.4f m after the last |\n",
           dA, gmin, gmax, r3.napex, r3.apex[r3.napex - 1]);
    int k5 = 4; /* the exit near 4.3 s is the fifth */
    if (r3.nexit > k5) {
        printf("| Fig. 4, alpha1 = 0 | h crosses 0 upward | 4.356 s | %.4f s |\n", r3.up_t[k5]);
        printf("| Fig. 4, alpha1 = 0 | lambda there | 9.81 N | %.3f N |\n", r3.up_lambda[k5]);
        printf("| Fig. 4, alpha1 = 0 | lambda changes sign (exit) | 4.262 s (printed; after h's "
               "crossing by the text) | %.4f s |\n", r3.exit_t[k5]);
    }
    /* Which damping gives the caption's "four bounces"? */
    printf("\nDamping sweep (alpha0 = 100, alpha2 = 1e6, 30 s): bounces before the ball stays in "
           "CONTACT (Fig. 2's caption: four).\n\n| alpha1 | bounces | at rest from (s) | h at "
           "30 s (m) |\n|---|---|---|---|\n");
    static const double sweep[7] = {1.0, 2.0, 5.0, 8.0, 10.0, 12.0, 20.0};
    static run rs;
    for (int k = 0; k < 7 && !fail; ++k) {
        const double a[3] = {100.0, sweep[k], 1e6};
        snprintf(path, sizeof path, "%s/bouncing_ball_a10.csv", dir);
        fail |= simulate(a, h, 30.0, sweep[k] == 10.0 ? path : NULL, &rs);
        if (isnan(rs.t_rest) || fabs(rs.h_end) > 1e-9 || fabs(rs.v_end) > 1e-9)
            printf("| %g | %d | still bouncing | %.3g |\n", sweep[k], rs.bounces, rs.h_end);
        else
            printf("| %g | %d | %.3f | %.2g |\n", sweep[k], rs.bounces, rs.t_rest, rs.h_end);
    }
    if (fail)
        return 1;

    printf("\nMode changes: %ld (Fig. 2), %ld (listing), %ld (Fig. 3) in %g s; linear solves: "
           "%ld, %ld, %ld.\n", r2.events, rl.events, r3.events, T, r2.solves, rl.solves, r3.solves);
    printf("CSV: %s/bouncing_ball_{fig2,listing,fig3,a10}.csv\n", dir);

    /* Checks of the closed forms (the example fails when they do not hold). */
    int bad = 0;
    if (!(rl.mode_end == CDYN_MODE_CONTACT && fabs(rl.h_end) < 1e-12 &&
          fabs(rl.lambda_end - MASS * G) < 1e-9)) {
        fprintf(stderr, "bouncing_ball: the damped ball is not at rest (h %g, lambda %g)\n",
                rl.h_end, rl.lambda_end);
        bad = 1;
    }
    if (!(r3.napex >= 5 && fabs(gmin - dA) < 0.01 * dA && fabs(gmax - dA) < 0.01 * dA)) {
        fprintf(stderr, "bouncing_ball: the apex gain with alpha1 = 0 is not %g\n", dA);
        bad = 1;
    }
    return bad;
}
