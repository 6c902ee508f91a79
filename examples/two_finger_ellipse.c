/* Yashima & Yamaguchi, Sec. IV: a planar ellipse (3.0 kg, axes 0.37 m and 0.30 m) held at rest
 * by two 2-DOF fingers (links 0.3 m, 0.5 kg; palm 0.2 m) in a vertical plane, tau0 = 2.5 N m on
 * both first joints. For a grid of second-joint torques (tau1, tau2) the instantaneous problem
 * (cdyn_instant_solve, friction pyramid = the exact planar law, sign-combination LCPs by Lemke)
 * gives the contact modes of both fingers (RR, RS, SR, SS: finger 1 then finger 2; R rolling,
 * S sliding, B breaking) and the object's vertical acceleration, for mu = 0.2 and 0.4 (their
 * Figs. 7 and 8). Every grid point is also solved as the mixed NCP of the circular cone (the
 * same law in the plane) by FB-Newton and by box-constrained merit minimization, as a check.
 *
 *   two_finger_ellipse [--out DIR] [--n N] [--lo T] [--hi T]
 *
 * Writes DIR/two_finger_ellipse_map_mu0.2.csv, ..._mu0.4.csv (the maps), ..._diag.csv
 * (tau1 = tau2) and prints a summary. Configuration and conventions: docs/examples.md. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "two_finger_model.h"

#define PI 3.14159265358979323846

static int fail(const char *what, cdyn_status st, const cdyn_report *rep)
{
    fprintf(stderr, "two_finger_ellipse: %s: %s: %s\n", what, cdyn_status_str(st),
            rep ? rep->message : "");
    return 1;
}

typedef tw_grasp grasp;

static int build(double mu, grasp *g)
{
    cdyn_report rep;
    cdyn_status st = tw_build(mu, g, &rep);
    return st == CDYN_OK ? 0 : fail("model", st, &rep);
}

typedef struct point {
    cdyn_status st;
    cdyn_instant_mode mode[2];
    double vdot[7], ln[2], lt[2];
    cdyn_instant_result res;
} point;

static void solve(grasp *g, const cdyn_instant_options *o, double t1, double t2, point *pt,
                  cdyn_report *rep)
{
    double tau[TW_N];
    tw_torques(TW_TAU0, t1, t2, tau);
    memset(&pt->res, 0, sizeof pt->res);
    pt->res.vdot = pt->vdot;
    pt->res.mode = pt->mode;
    pt->res.lambda_n = pt->ln;
    pt->res.lambda_t = pt->lt;
    pt->st = cdyn_instant_solve(g->model, g->data, g->q, g->v, tau, o, &pt->res, rep);
}

static char mode_letter(cdyn_instant_mode m)
{
    switch (m) {
    case CDYN_INSTANT_ROLL_ROLL:
        return 'R';
    case CDYN_INSTANT_ROLL_SLIDE:
        return 'S';
    case CDYN_INSTANT_ROLL_BREAK:
        return 'B';
    default:
        return '?';
    }
}

/* Map codes for the plots: 0 RR, 1 RS, 2 SR, 3 SS, 4 a contact breaks, 5 not determinate,
 * 6 no solution. */
static int code_of(const point *p, char label[4])
{
    if (p->st != CDYN_OK) {
        strcpy(label, "--");
        return 6;
    }
    label[0] = mode_letter(p->mode[0]);
    label[1] = mode_letter(p->mode[1]);
    label[2] = '\0';
    if (p->res.determinate == 0) {
        strcpy(label, "ND");
        return 5;
    }
    if (label[0] == 'B' || label[1] == 'B')
        return 4;
    return (label[0] == 'S') * 2 + (label[1] == 'S');
}

/* Largest |difference| of the accelerations, and whether the modes agree. */
static double compare(const point *a, const point *b, int *same_modes)
{
    double d = 0.0;
    for (int i = 0; i < 7; ++i)
        d = fmax(d, fabs(a->vdot[i] - b->vdot[i]));
    *same_modes = a->mode[0] == b->mode[0] && a->mode[1] == b->mode[1];
    return d;
}

typedef struct summary {
    int count[7];
    int pmatrix, determinate, asym, cone_ok[2], cone_same[2];
    double cone_diff[2], max_ax, max_alpha;
} summary;

static int run_map(const char *dir, double mu, int n, double lo, double hi, summary *s)
{
    grasp g;
    memset(&g, 0, sizeof g);
    if (build(mu, &g) != 0)
        return 1;
    char path[1024];
    snprintf(path, sizeof path, "%s/two_finger_ellipse_map_mu%.1f.csv", dir, mu);
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        fprintf(stderr, "two_finger_ellipse: cannot write %s\n", path);
        return 1;
    }
    fprintf(f, "tau1,tau2,label,code,ax,ay,alpha,lambda_n1,lambda_t1,lambda_n2,lambda_t2,"
               "pmatrix,feasible,distinct,determinate\n");
    cdyn_instant_options lem, fb, bm;
    cdyn_instant_defaults(&lem);
    fb = lem;
    fb.friction = CDYN_INSTANT_CONE;
    fb.ncp_solver = CDYN_INSTANT_FB_NEWTON;
    bm = fb;
    bm.ncp_solver = CDYN_INSTANT_BOX_MERIT;
    memset(s, 0, sizeof *s);
    int *codes = malloc((size_t)n * (size_t)n * sizeof(int));
    if (codes == NULL) {
        fclose(f);
        return 1;
    }
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            const double t1 = lo + (hi - lo) * j / (n - 1), t2 = lo + (hi - lo) * i / (n - 1);
            point p, pc[2];
            cdyn_report rep;
            solve(&g, &lem, t1, t2, &p, &rep);
            char label[4];
            const int code = code_of(&p, label);
            codes[i * n + j] = code;
            ++s->count[code];
            if (p.st != CDYN_OK) {
                fprintf(stderr, "two_finger_ellipse: mu %.1f tau (%.3f, %.3f): %s: %s\n", mu, t1,
                        t2, cdyn_status_str(p.st), rep.message);
                fprintf(f, "%.4f,%.4f,%s,%d,,,,,,,,,,,\n", t1, t2, label, code);
                continue;
            }
            s->pmatrix += p.res.pmatrix == 1;
            s->determinate += p.res.determinate == 1;
            s->max_ax = fmax(s->max_ax, fabs(p.vdot[0]));
            s->max_alpha = fmax(s->max_alpha, fabs(p.vdot[2]));
            for (int k = 0; k < 2; ++k) {
                cdyn_report rc;
                solve(&g, k == 0 ? &fb : &bm, t1, t2, &pc[k], &rc);
                if (pc[k].st != CDYN_OK)
                    continue;
                int same = 0;
                const double d = compare(&p, &pc[k], &same);
                ++s->cone_ok[k];
                s->cone_same[k] += same;
                s->cone_diff[k] = fmax(s->cone_diff[k], d);
            }
            fprintf(f, "%.4f,%.4f,%s,%d,%.6e,%.6e,%.6e,%.6e,%.6e,%.6e,%.6e,%d,%d,%d,%d\n", t1, t2,
                    label, code, p.vdot[0], p.vdot[1], p.vdot[2], p.ln[0], p.lt[0], p.ln[1],
                    p.lt[1], p.res.pmatrix, p.res.feasible, p.res.distinct, p.res.determinate);
        }
    fclose(f);
    /* Mirror symmetry: the mode at (tau1, tau2) is the swapped mode at (tau2, tau1). */
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            const int a = codes[i * n + j], b = codes[j * n + i];
            const int swapped = (a == 1) ? 2 : (a == 2) ? 1 : a;
            s->asym += (a != 4 && swapped != b);
        }
    free(codes);
    tw_free(&g);
    return 0;
}

static int run_diagonal(const char *dir, double lo, double hi, int *monotone)
{
    const double mus[2] = {0.2, 0.4};
    grasp g[2];
    memset(g, 0, sizeof g);
    for (int k = 0; k < 2; ++k)
        if (build(mus[k], &g[k]) != 0)
            return 1;
    char path[1024];
    snprintf(path, sizeof path, "%s/two_finger_ellipse_diag.csv", dir);
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        fprintf(stderr, "two_finger_ellipse: cannot write %s\n", path);
        return 1;
    }
    fprintf(f, "tau,ay_mu0.2,label_mu0.2,ay_mu0.4,label_mu0.4\n");
    cdyn_instant_options o;
    cdyn_instant_defaults(&o);
    const int n = 301;
    double prev[2] = {-INFINITY, -INFINITY};
    *monotone = 1;
    for (int i = 0; i < n; ++i) {
        const double t = lo + (hi - lo) * i / (n - 1);
        fprintf(f, "%.4f", t);
        for (int k = 0; k < 2; ++k) {
            point p;
            cdyn_report rep;
            solve(&g[k], &o, t, t, &p, &rep);
            char label[4];
            code_of(&p, label);
            if (p.st != CDYN_OK) {
                fprintf(f, ",,%s", label);
                *monotone = 0;
                continue;
            }
            fprintf(f, ",%.6e,%s", p.vdot[1], label);
            *monotone &= p.vdot[1] >= prev[k] - 1e-9;
            prev[k] = p.vdot[1];
        }
        fprintf(f, "\n");
    }
    fclose(f);
    for (int k = 0; k < 2; ++k)
        tw_free(&g[k]);
    return 0;
}

int main(int argc, char **argv)
{
    const char *dir = "out";
    int n = 41;
    double lo = 0.0, hi = 4.0;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--out") == 0 && i + 1 < argc)
            dir = argv[++i];
        else if (strcmp(argv[i], "--n") == 0 && i + 1 < argc)
            n = atoi(argv[++i]);
        else if (strcmp(argv[i], "--lo") == 0 && i + 1 < argc)
            lo = atof(argv[++i]);
        else if (strcmp(argv[i], "--hi") == 0 && i + 1 < argc)
            hi = atof(argv[++i]);
        else {
            fprintf(stderr, "usage: two_finger_ellipse [--out DIR] [--n N] [--lo T] [--hi T]\n");
            return 2;
        }
    }
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "two_finger_ellipse: cannot create %s: %s\n", dir, strerror(errno));
        return 1;
    }
    if (n < 2 || !(hi > lo)) {
        fprintf(stderr, "two_finger_ellipse: need n >= 2 and hi > lo\n");
        return 2;
    }
    grasp g;
    memset(&g, 0, sizeof g);
    if (build(0.4, &g) != 0)
        return 1;
    cdyn_report rep;
    cdyn_status st = cdyn_eval(g.model, g.data, g.q, g.v, CDYN_EVAL_CONTACTS, &rep);
    if (st != CDYN_OK)
        return fail("eval", st, &rep);
    printf("Grasp: object centre at (0, %.4f) m; finger 1 joints (%.2f, %.2f) deg; gaps %.1e, "
           "%.1e m\n",
           g.q[1], g.q[3] * 180 / PI, g.q[4] * 180 / PI, cdyn_data_gap(g.data)[0],
           cdyn_data_gap(g.data)[1]);
    tw_free(&g);

    printf("Mode maps: %dx%d grid, tau1, tau2 in [%.2f, %.2f] N m, tau0 = %.1f N m\n\n", n, n, lo,
           hi, TW_TAU0);
    printf("| mu | RR | RS | SR | SS | breaking | not determinate | failed | P-matrix | "
           "asymmetric | cone FB-Newton: solved, same modes, max abs dvdot | cone box merit: "
           "solved, same modes, max abs dvdot |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    const double mus[2] = {0.2, 0.4};
    int bad = 0;
    for (int k = 0; k < 2; ++k) {
        summary s;
        if (run_map(dir, mus[k], n, lo, hi, &s) != 0)
            return 1;
        printf("| %.1f | %d | %d | %d | %d | %d | %d | %d | %d | %d | %d, %d, %.1e | %d, %d, "
               "%.1e |\n",
               mus[k], s.count[0], s.count[1], s.count[2], s.count[3], s.count[4], s.count[5],
               s.count[6], s.pmatrix, s.asym, s.cone_ok[0], s.cone_same[0], s.cone_diff[0],
               s.cone_ok[1], s.cone_same[1], s.cone_diff[1]);
        bad |= s.count[6] > 0;
    }
    int monotone = 0;
    if (run_diagonal(dir, lo, hi, &monotone) != 0)
        return 1;
    printf("\nObject acceleration along tau1 = tau2: a_y %s with the torque (both mu).\n",
           monotone ? "increases monotonically" : "does NOT increase monotonically");
    printf("CSV: %s/two_finger_ellipse_map_mu0.2.csv, _mu0.4.csv, _diag.csv\n", dir);
    return bad;
}
