/* Buffo & Maciel, Sec. 5: a sphere held by three 3-link fingers with PUMA-560-like geometry and
 * inertias (three_finger_model.h). For several friction coefficients:
 *
 *  - all contacts sliding (the sphere slips down through the grasp at 0.05 m/s): the problem is
 *    an LCP in the normal forces (Yashima–Yamaguchi eq. 5 friction), solved by Lemke, with the
 *    P-matrix test;
 *  - all contacts rolling (the grasp at rest): the mixed NCP of the circular friction cone,
 *    solved by box-constrained merit minimization (Fischer–Burmeister merit, and the paper's
 *    slack merit) and by FB-Newton, from the rolling start and from zero; the solutions are
 *    compared; also the Yashima–Yamaguchi pyramid (64 sign-combination LCPs, Lemke).
 *
 * Contact is "maintained" when every normal force is positive; the grasp "holds" when every
 * contact also keeps rolling (inside the friction cone). Torques: each finger compensates its own
 * gravity load and presses its tip into the sphere with SQUEEZE newtons.
 *
 *   three_finger_sphere [--out DIR]
 *
 * Writes DIR/three_finger_sphere.csv and prints the Markdown table of docs/examples.md. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "three_finger_model.h"

static const double SQUEEZE = 10.0;    /* N per fingertip */
static const double SLIP_SPEED = 0.05; /* m/s, the sphere's downward velocity (sliding case) */
static const double AGREE_TOL = 1e-8;  /* the NCP solvers' solutions must agree to this */

typedef struct outcome {
    cdyn_status st;
    int iterations;
    double residual;
    double vdot[TF_NV], ln[3], lt[3], lo[3];
    cdyn_instant_mode mode[3];
    cdyn_instant_result res;
    char message[CDYN_REPORT_TEXT];
} outcome;

static void solve(tf_hand *h, const double *v, const double *tau, const cdyn_instant_options *o,
                  outcome *out)
{
    memset(out, 0, sizeof *out);
    out->res.vdot = out->vdot;
    out->res.lambda_n = out->ln;
    out->res.lambda_t = out->lt;
    out->res.lambda_o = out->lo;
    out->res.mode = out->mode;
    cdyn_report rep;
    out->st = cdyn_instant_solve(h->model, h->data, h->q, v, tau, o, &out->res, &rep);
    out->iterations = rep.iterations;
    out->residual = rep.residual;
    snprintf(out->message, sizeof out->message, "%s", rep.message);
}

static double max_diff(const outcome *a, const outcome *b)
{
    double d = 0.0;
    for (int i = 0; i < TF_NV; ++i)
        d = fmax(d, fabs(a->vdot[i] - b->vdot[i]));
    for (int c = 0; c < 3; ++c) {
        d = fmax(d, fabs(a->ln[c] - b->ln[c]));
        d = fmax(d, fabs(a->lt[c] - b->lt[c]));
        d = fmax(d, fabs(a->lo[c] - b->lo[c]));
    }
    return d;
}

static char letter(cdyn_instant_mode m)
{
    switch (m) {
    case CDYN_INSTANT_ROLL_ROLL:
        return 'R';
    case CDYN_INSTANT_ROLL_SLIDE:
    case CDYN_INSTANT_SLIDE_SLIDE:
        return 'S';
    case CDYN_INSTANT_ROLL_BREAK:
    case CDYN_INSTANT_SLIDE_BREAK:
        return 'B';
    default:
        return '-';
    }
}

static void modes(const outcome *o, char s[4])
{
    for (int c = 0; c < 3; ++c)
        s[c] = o->st == CDYN_OK ? letter(o->mode[c]) : '?';
    s[3] = '\0';
}

static int maintained(const outcome *o)
{
    if (o->st != CDYN_OK)
        return 0;
    for (int c = 0; c < 3; ++c)
        if (!(o->ln[c] > 0.0))
            return 0;
    return 1;
}

static int holds(const outcome *o)
{
    if (!maintained(o))
        return 0;
    for (int c = 0; c < 3; ++c)
        if (o->mode[c] != CDYN_INSTANT_ROLL_ROLL)
            return 0;
    return 1;
}

/* Largest |lam_T| / (mu lam_n) of the three contacts (1: on the cone). */
static double cone_use(const outcome *o, double mu)
{
    double u = 0.0;
    for (int c = 0; c < 3; ++c)
        if (o->ln[c] > 0.0)
            u = fmax(u, hypot(o->lt[c], o->lo[c]) / (mu * o->ln[c]));
    return u;
}

static const char *pm(const outcome *o)
{
    return o->res.pmatrix == 1 ? "yes" : o->res.pmatrix == 0 ? "no" : "-";
}

/* "l1, l2, l3" or "no solution" into buf (64 chars). */
static const char *sliding_forces(const outcome *o, char *buf)
{
    if (o->st == CDYN_ENOSOLUTION)
        return "no solution";
    if (o->st != CDYN_OK)
        return cdyn_status_str(o->st);
    snprintf(buf, 64, "%.3f, %.3f, %.3f", o->ln[0], o->ln[1], o->ln[2]);
    return buf;
}

static void csv_row(FILE *f, double mu, const char *problem, const char *solver, const outcome *o,
                    double diff)
{
    char m[4];
    modes(o, m);
    fprintf(f, "%.2f,%s,%s,%s,%d,%.3e,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%s,%d,%d,%d,%.3e,%.6f\n",
            mu, problem, solver, o->st == CDYN_OK ? "ok" : cdyn_status_str(o->st), o->iterations,
            o->residual, o->ln[0], o->ln[1], o->ln[2], hypot(o->lt[0], o->lo[0]),
            hypot(o->lt[1], o->lo[1]), hypot(o->lt[2], o->lo[2]), o->vdot[2], m, maintained(o),
            o->res.pmatrix, o->res.determinate, diff, cone_use(o, mu));
}

/* A finer sweep over mu for the plot: normal force of contact 1 when sliding down (empty when
 * there is no solution), spinning and rolling (cone MNCP by box merit), the rolling solution's
 * cone use, and the rolling modes. */
static int sweep(const char *dir)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/three_finger_sphere_sweep.csv", dir);
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        fprintf(stderr, "three_finger_sphere: cannot write %s\n", path);
        return 1;
    }
    fprintf(f, "mu,lambda_n_down,lambda_n_spin,lambda_n_rolling,cone_use,modes,holds\n");
    for (int i = 0; i <= 95; ++i) {
        tf_params par;
        tf_defaults(&par);
        par.mu = 0.05 + 0.01 * i;
        tf_hand h;
        cdyn_report rep;
        if (tf_build(&par, &h, &rep) != CDYN_OK) {
            fclose(f);
            return 1;
        }
        double v[TF_NV], tau[TF_NV];
        outcome o[3];
        for (int c = 0; c < 3; ++c) {
            memset(v, 0, sizeof v);
            if (c == 0)
                v[2] = -SLIP_SPEED;
            if (c == 1)
                v[5] = SLIP_SPEED / par.sphere_radius;
            cdyn_instant_options opt;
            cdyn_instant_defaults(&opt);
            if (c == 2)
                opt.friction = CDYN_INSTANT_CONE;
            if (tf_squeeze_torques(&h, v, SQUEEZE, tau, &rep) == CDYN_OK)
                solve(&h, v, tau, &opt, &o[c]);
            else
                o[c].st = CDYN_EINVAL;
        }
        char m[4];
        modes(&o[2], m);
        fprintf(f, "%.2f", par.mu);
        for (int c = 0; c < 3; ++c) {
            if (o[c].st == CDYN_OK)
                fprintf(f, ",%.6f", o[c].ln[0]);
            else
                fprintf(f, ",");
        }
        fprintf(f, ",%.6f,%s,%d\n", cone_use(&o[2], par.mu), m, holds(&o[2]));
        tf_free(&h);
    }
    fclose(f);
    return 0;
}

/* 1 when the sliding-down LCP at this mu has a solution and a P-matrix, 0 when not, -1 on an
 * error. */
static int sliding_down_is_p(double mu)
{
    tf_params par;
    tf_defaults(&par);
    par.mu = mu;
    tf_hand h;
    cdyn_report rep;
    if (tf_build(&par, &h, &rep) != CDYN_OK)
        return -1;
    double v[TF_NV] = {0}, tau[TF_NV];
    v[2] = -SLIP_SPEED;
    outcome o;
    cdyn_instant_options opt;
    cdyn_instant_defaults(&opt);
    int ok = -1;
    if (tf_squeeze_torques(&h, v, SQUEEZE, tau, &rep) == CDYN_OK) {
        solve(&h, v, tau, &opt, &o);
        ok = o.st == CDYN_OK ? o.res.pmatrix == 1 : o.st == CDYN_ENOSOLUTION ? 0 : -1;
    }
    tf_free(&h);
    return ok;
}

int main(int argc, char **argv)
{
    const char *dir = "out";
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--out") == 0 && i + 1 < argc)
            dir = argv[++i];
        else {
            fprintf(stderr, "usage: three_finger_sphere [--out DIR]\n");
            return 2;
        }
    }
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "three_finger_sphere: cannot create %s: %s\n", dir, strerror(errno));
        return 1;
    }
    char path[1024];
    snprintf(path, sizeof path, "%s/three_finger_sphere.csv", dir);
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        fprintf(stderr, "three_finger_sphere: cannot write %s\n", path);
        return 1;
    }
    fprintf(f, "mu,problem,solver,status,iterations,residual,lambda_n1,lambda_n2,lambda_n3,"
               "lambda_T1,lambda_T2,lambda_T3,sphere_az,modes,maintained,pmatrix,determinate,"
               "diff_vs_fb_newton,cone_use\n");

    const double mus[6] = {0.1, 0.2, 0.3, 0.5, 0.8, 1.0};
    tf_params par;
    tf_defaults(&par);
    printf("Sphere r = %.2f m, m = %.1f kg at height %.2f m; finger bases at %.2f m; squeeze "
           "%.0f N per tip; sliding cases: the sphere moves down, or spins about the vertical, at "
           "%.2f m/s past the fingertips.\n\n",
           par.sphere_radius, par.sphere_mass, par.height, par.base_radius, SQUEEZE, SLIP_SPEED);
    printf("| mu | sliding down (LCP, Lemke): lambda_n (N) | P-matrix | maintained | spinning "
           "(LCP, Lemke): lambda_n (N) | P-matrix | maintained | all rolling (MNCP): lambda_n (N) "
           "| max abs(lambda_T)/(mu lambda_n) | modes | grasp | iterations from the normal start: "
           "box merit FB / slack / FB-Newton | solvers agree (max diff) | pyramid LCP modes |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    int failures = 0, zero_ok[3] = {0, 0, 0}, rolling_ok[3] = {0, 0, 0};
    double hold_ratio = NAN;
    for (int k = 0; k < 6; ++k) {
        par.mu = mus[k];
        tf_hand h;
        cdyn_report rep;
        cdyn_status st = tf_build(&par, &h, &rep);
        if (st != CDYN_OK) {
            fprintf(stderr, "three_finger_sphere: build: %s\n", rep.message);
            fclose(f);
            return 1;
        }
        double v[TF_NV] = {0}, tau[TF_NV];

        /* All sliding: the sphere slips down, or spins about the vertical, past the fingertips
           (which are at rest) at SLIP_SPEED. */
        outcome slide[2];
        cdyn_instant_options o;
        cdyn_instant_defaults(&o);
        for (int c = 0; c < 2; ++c) {
            memset(v, 0, sizeof v);
            if (c == 0)
                v[2] = -SLIP_SPEED;
            else
                v[5] = SLIP_SPEED / par.sphere_radius;
            st = tf_squeeze_torques(&h, v, SQUEEZE, tau, &rep);
            if (st == CDYN_OK)
                solve(&h, v, tau, &o, &slide[c]);
            else
                slide[c].st = st;
            csv_row(f, mus[k], c == 0 ? "all-sliding-down" : "all-sliding-spin", "lemke", &slide[c],
                    0.0);
            failures += slide[c].st != CDYN_OK && slide[c].st != CDYN_ENOSOLUTION;
        }

        /* All rolling: the cone MNCP by three solvers from three starts (no retries, so every
           failure shows), and the pyramid. roll[3 * start + solver]. */
        memset(v, 0, sizeof v);
        st = tf_squeeze_torques(&h, v, SQUEEZE, tau, &rep);
        outcome roll[9], pyr;
        static const char *snames[3] = {"rolling", "normal", "zero"};
        static const char *vnames[3] = {"fb-newton", "box-merit-fb", "box-merit-slack"};
        static const cdyn_instant_start starts[3] = {
            CDYN_INSTANT_START_ROLLING, CDYN_INSTANT_START_NORMAL, CDYN_INSTANT_START_ZERO};
        for (int s = 0; s < 9; ++s) {
            cdyn_instant_defaults(&o);
            o.friction = CDYN_INSTANT_CONE;
            o.ncp_solver = s % 3 == 0 ? CDYN_INSTANT_FB_NEWTON : CDYN_INSTANT_BOX_MERIT;
            o.box_merit.merit = s % 3 == 2 ? CDYN_BOX_MERIT_SLACK : CDYN_BOX_MERIT_FB;
            o.ncp_start = starts[s / 3];
            o.ncp_retry = 0;
            if (st == CDYN_OK)
                solve(&h, v, tau, &o, &roll[s]);
            else
                roll[s].st = st;
        }
        cdyn_instant_defaults(&o);
        solve(&h, v, tau, &o, &pyr);
        /* The reference is FB-Newton from the normal start; the cross-check compares the three
           solvers from that start (the rolling start is the answer itself when the grasp
           holds). */
        const outcome *ref = &roll[3];
        double worst = 0.0;
        for (int s = 0; s < 9; ++s) {
            const double d =
                roll[s].st == CDYN_OK && ref->st == CDYN_OK ? max_diff(&roll[s], ref) : INFINITY;
            char name[64];
            snprintf(name, sizeof name, "%s/%s-start", vnames[s % 3], snames[s / 3]);
            csv_row(f, mus[k], "all-rolling-cone", name, &roll[s], d);
            if (s / 3 == 1)
                worst = fmax(worst, d);
            if (s / 3 == 2)
                zero_ok[s % 3] += roll[s].st == CDYN_OK && d <= AGREE_TOL;
            if (s / 3 == 0)
                rolling_ok[s % 3] += roll[s].st == CDYN_OK && d <= AGREE_TOL;
        }
        const int agree = worst <= AGREE_TOL;
        if (holds(ref))
            hold_ratio = cone_use(ref, mus[k]) * mus[k];
        csv_row(f, mus[k], "all-rolling-pyramid", "lemke", &pyr, 0.0);
        failures += !agree || pyr.st != CDYN_OK;

        char mr[4], mp[4], sf[2][64];
        modes(ref, mr);
        modes(&pyr, mp);
        printf(
            "| %.1f | %s | %s | %s | %s | %s | %s | %.3f, %.3f, %.3f | %.3f | %s | %s | %d / %d / "
            "%d | %s (%.1e) | %s |\n",
            mus[k], sliding_forces(&slide[0], sf[0]), pm(&slide[0]),
            maintained(&slide[0]) ? "yes" : "no", sliding_forces(&slide[1], sf[1]), pm(&slide[1]),
            maintained(&slide[1]) ? "yes" : "no", ref->ln[0], ref->ln[1], ref->ln[2],
            cone_use(ref, mus[k]), mr,
            holds(ref)        ? "holds (rolling)"
            : maintained(ref) ? "contact kept, slips"
                              : "contact lost",
            roll[4].iterations, roll[5].iterations, roll[3].iterations, agree ? "yes" : "NO", worst,
            mp);
        tf_free(&h);
    }
    fclose(f);
    printf("\nmodes: R rolling -> rolling, S -> sliding (or sliding -> sliding), B -> breaking, "
           "contacts 1-3. Solvers agree: forces (N) and accelerations (SI) within %.0e of "
           "FB-Newton.\n",
           AGREE_TOL);
    printf("Converged to that solution from the rolling start: box merit FB %d, slack %d, "
           "FB-Newton %d of 6; from zero: %d, %d, %d of 6.\n",
           rolling_ok[1], rolling_ok[2], rolling_ok[0], zero_ok[1], zero_ok[2], zero_ok[0]);
    printf("The rolling solution needs mu >= max abs(lambda_T)/lambda_n = %.4f (circular cone).\n",
           hold_ratio);
    /* Where the sliding-down LCP loses the P-property: bisection between 0.5 and 0.8. */
    double lo = 0.5, hi = 0.8;
    if (sliding_down_is_p(lo) == 1 && sliding_down_is_p(hi) == 0) {
        for (int it = 0; it < 40; ++it) {
            const double mid = 0.5 * (lo + hi);
            const int r = sliding_down_is_p(mid);
            if (r < 0)
                break;
            *(r ? &lo : &hi) = mid;
        }
        printf("Sliding down: the LCP matrix is a P-matrix for mu < %.4f and loses the property "
               "there (the normal forces grow without bound as mu approaches it).\n",
               0.5 * (lo + hi));
    }
    if (sweep(dir) != 0)
        return 1;
    printf("CSV: %s, %s/three_finger_sphere_sweep.csv\n", path, dir);
    return failures != 0;
}
