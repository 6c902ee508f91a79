/* Song-Kumar-Pang Fig. 6: a rectangular part leaves a frictionless chute, strikes a protrusion
 * whose upper-left corner is (x_p, y_p) and lands on a palm (scene: part_feeder_model.h).
 *
 *   part_feeder [--out DIR] [--quick]
 *
 * (a) The IVP with (x_p, y_p) = (5, 5) and the palm centred at x = 3.2 (the paper's Fig. 6a),
 *     implicit compliant step h = 1 ms for 2.5 s, with the friction QP inside the iteration
 *     (Proposition 1); the same run with the smoothed NCP friction rows for comparison. Checked:
 *     the part ends at rest lying on the palm, each supporting corner sagging m g / (2 K) and the
 *     palm carrying m g.
 *
 * Writes DIR/part_feeder_ivp.csv (t, x, y, theta, palm and tab normal forces). Exit status 1 when
 * a run fails or a check is out of tolerance. */
#include "part_feeder_model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define H 1e-3
#define T_END 2.5

typedef struct pf_result {
    cdyn_status st;
    double x, y, theta;           /* the part at T_END */
    double first_tab, first_palm; /* first contact times (s), -1 when none */
    double palm_force, ke_end;    /* normal force on the palm and kinetic energy at T_END */
    int iterations;               /* Newton iterations, all steps */
    char message[400];
} pf_result;

/* Run the scene to T_END with the tab at (xp, yp), the palm at palm_x; rows to f when not NULL. */
static void pf_run(double xp, double yp, double palm_x, int friction_qp, FILE *f, pf_result *out)
{
    memset(out, 0, sizeof *out);
    out->first_tab = out->first_palm = -1;
    cdyn_report rep;
    cdyn_model *m = pf_model(xp, yp, palm_x, &rep);
    if (m == NULL) {
        out->st = rep.status;
        snprintf(out->message, sizeof out->message, "%s", rep.message);
        return;
    }
    cdyn_step_options o;
    cdyn_step_defaults(&o, CDYN_SCHEME_IMPLICIT_NCP);
    o.h = H;
    o.max_halvings = 6;
    o.friction_qp = friction_qp;
    cdyn_stepper *s = NULL;
    cdyn_state *x = NULL;
    out->st = cdyn_stepper_create(m, &o, &s, &rep);
    if (out->st == CDYN_OK)
        out->st = cdyn_state_create(m, NULL, &x, &rep);
    if (out->st != CDYN_OK) {
        snprintf(out->message, sizeof out->message, "%s", rep.message);
        goto done;
    }
    pf_initial_state(x);
    const int nsteps = (int)lround(T_END / H);
    cdyn_step_report sr;
    for (int k = 0; k < nsteps; k++) {
        if ((out->st = cdyn_step(s, NULL, x, &sr)) != CDYN_OK) {
            snprintf(out->message, sizeof out->message, "t = %.3f s: %s", x->t,
                     sr.solver.message);
            goto done;
        }
        out->iterations += sr.solver.iterations;
        /* rows (part_feeder_model.h): corners 2i (palm), 2i + 1 (tab); 8..15 the palm's
         * corners, 16..23 the tab's */
        double fpalm = 0, ftab = 0;
        for (int i = 0; i < 24; i++) {
            const int on_palm = i < 8 ? i % 2 == 0 : i < 16;
            if (on_palm)
                fpalm += x->lambda[3 * i];
            else
                ftab += x->lambda[3 * i];
        }
        if (out->first_tab < 0 && ftab > 0)
            out->first_tab = x->t;
        if (out->first_palm < 0 && fpalm > 0)
            out->first_palm = x->t;
        out->palm_force = fpalm;
        if (f != NULL)
            fprintf(f, "%.4f,%.6f,%.6f,%.6f,%.6g,%.6g\n", x->t, x->q[0], x->q[1], x->q[2], fpalm,
                    ftab);
    }
    out->x = x->q[0];
    out->y = x->q[1];
    out->theta = x->q[2];
    const double I = PF_MASS * (4 * PF_A * PF_A + 4 * PF_B * PF_B) / 12.0;
    out->ke_end = 0.5 * PF_MASS * (x->v[0] * x->v[0] + x->v[1] * x->v[1]) +
                  0.5 * I * x->v[2] * x->v[2];
done:
    cdyn_state_free(x);
    cdyn_stepper_free(s);
    cdyn_model_free(m);
}

/* The part's orientation modulo a full turn, in (-pi, pi]: 0 = as it left the chute's bottom
 * face down, pi = turned over. */
static double wrap(double a)
{
    const double two_pi = 2 * 3.14159265358979323846;
    a = fmod(a, two_pi);
    if (a > two_pi / 2)
        a -= two_pi;
    if (a <= -two_pi / 2)
        a += two_pi;
    return a;
}

/* (a): the IVP at the paper's (5, 5) with the palm at 3.2. Returns nonzero when a check fails. */
static int ivp(const char *dir)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/part_feeder_ivp.csv", dir);
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        fprintf(stderr, "part_feeder: cannot write %s\n", path);
        return 1;
    }
    fprintf(f, "t,x,y,theta,lambda_palm,lambda_tab\n");
    pf_result r, ncp;
    pf_run(5.0, 5.0, 3.2, 1, f, &r);
    if (fclose(f) != 0) {
        fprintf(stderr, "part_feeder: write error in %s\n", path);
        return 1;
    }
    pf_run(5.0, 5.0, 3.2, 0, NULL, &ncp);
    printf("(a) IVP, (x_p, y_p) = (5, 5), palm at x = 3.2, h = 1 ms, %g s\n\n", T_END);
    if (r.st != CDYN_OK) {
        printf("failed: %s (%s)\n", cdyn_status_str(r.st), r.message);
        return 1;
    }
    const double sag = PF_MASS * PF_G / (2 * PF_K), mg = PF_MASS * PF_G;
    const double th = wrap(r.theta);
    printf("| quantity | computed | expected |\n|---|---|---|\n");
    printf("| strikes the tab at | %.3f s | |\n| lands on the palm at | %.3f s | |\n", r.first_tab,
           r.first_palm);
    printf("| rests at x | %.4f m | on the palm, [%.1f, %.1f] |\n", r.x, 3.2 - PF_PALM_HW,
           3.2 + PF_PALM_HW);
    printf("| orientation | %.4f rad | 0 or pi (lying flat; pi = turned over) |\n", th);
    printf("| height of the centre | %.6f m | B - m g / (2K) = %.6f m |\n", r.y, PF_B - sag);
    printf("| force on the palm | %.6f N | m g = %.6f N |\n", r.palm_force, mg);
    printf("| kinetic energy | %.1e J | 0 |\n", r.ke_end);
    printf("| Newton iterations | %d | |\n\n", r.iterations);
    if (ncp.st == CDYN_OK)
        printf("With the smoothed NCP friction rows instead (gamma = 1e-4 N): rests at x = %.4f, "
               "orientation %.4f rad.\n\n", ncp.x, wrap(ncp.theta));
    else
        printf("With the smoothed NCP friction rows instead (gamma = 1e-4 N) the step fails: %s "
               "(%s)\n\n", cdyn_status_str(ncp.st), ncp.message);
    const int flat = fabs(th) < 1e-3 || fabs(fabs(th) - 3.14159265358979) < 1e-3;
    const int ok = flat && fabs(r.y - (PF_B - sag)) <= 1e-3 * sag &&
                   fabs(r.palm_force - mg) <= 1e-6 * mg && r.ke_end <= 1e-12 &&
                   fabs(r.x - 3.2) <= PF_PALM_HW;
    if (!ok)
        fprintf(stderr, "part_feeder: (a) the part is not at rest lying on the palm\n");
    return !ok;
}

int main(int argc, char **argv)
{
    const char *dir = ".";
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--out") == 0 && i + 1 < argc) {
            dir = argv[++i];
        } else if (strcmp(argv[i], "--quick") == 0) {
            continue;
        } else {
            fprintf(stderr, "usage: part_feeder [--out DIR] [--quick]\n");
            return 2;
        }
    }
    return ivp(dir);
}
