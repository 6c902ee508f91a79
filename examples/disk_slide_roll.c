/* Song, Kumar & Pang, Sec. IV.A and Fig. 2: a planar disk (m = 0.1 kg, r = 0.1 m, I = 5e-4 kg m^2,
 * mu = 4, g = 9.81) slides on the line y = 0 with back-spin omega0 = 1 rad/s until friction
 * makes it roll. The slip is s = v + r omega (the paper's Gamma_t = (1, r)); it falls at
 * mu g (1 + m r^2 / I) = 117.72 m/s^2, so rolling starts at tau = (omega0 r + v0) / (mu g (1 +
 * m r^2/I)). The boundary-value problem: which v0 brings the disk to x = 0.02 m at T = 0.022 s?
 * Analytically (the paper's quadratic) v0 = 1.2402 m/s and tau = 0.0114 s.
 *
 * Contact: the implicit compliant scheme with stiff contact (K = 1e6 N/m normal and tangential,
 * no damping, as the paper's billiard), the disk starting at its static compression (so that
 * nothing excites the undamped normal spring).
 *
 *   IVP: the disk launched at v0 = 1.2402: rolling onset and x(T) against tau and 0.02 for
 *        several h (first-order convergence);
 *   BVP: v0 from x(T) = 0.02 with N = 21, 200 and 2000 steps (the paper's figure uses N = 21), the
 *        last from a naive guess (v0 = 0), each through the coarser grids (grid continuation).
 *
 *   disk_slide_roll [--out DIR] [--quick]   (--quick: N = 21 only)
 *
 * Writes DIR/disk_bvp_N21.csv (t, x, v, r omega, slip, analytic x, v, r omega), DIR/disk.csv
 * (the convergence tables) and prints the Markdown tables of docs/examples.md. Exit 1 on any
 * failure or when a comparison is out of tolerance. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <cdyn/cdyn.h>

#include "progress.h"

#define M 0.1
#define R 0.1
#define I_DISK 5e-4
#define MU 4.0
#define G 9.81
#define OMEGA0 1.0
#define T_END 0.022
#define X_END 0.02
#define K_CONTACT 1e6
#define K_TANGENT 1e6 /* stiffer tangents (1e7, 1e8) defeat the N = 2000 solve: see docs */

static const double V0_PAPER = 1.2402, TAU_PAPER = 0.0114;

static cdyn_model *disk_model(cdyn_report *rep)
{
    cdyn_builder_options bo;
    cdyn_builder_defaults(&bo, 2);
    bo.gravity[1] = -G;
    cdyn_builder *b = NULL;
    cdyn_model *m = NULL;
    if (cdyn_builder_create(&bo, &b, rep) != CDYN_OK)
        return NULL;
    cdyn_body_desc d;
    cdyn_body_desc_defaults(&d);
    d.mass = M;
    d.inertia[2] = I_DISK;
    cdyn_geom_desc line, disk;
    cdyn_geom_desc_defaults(&line);
    cdyn_geom_desc_defaults(&disk);
    disk.type = CDYN_GEOM_CIRCLE;
    disk.size[0] = R;
    cdyn_contact_pair_desc pd;
    cdyn_contact_pair_desc_defaults(&pd);
    pd.mu = MU;
    pd.stiffness[0] = K_CONTACT;
    pd.stiffness[4] = K_TANGENT;
    int body, id;
    if (cdyn_builder_add_body(b, &d, &body, rep) == CDYN_OK &&
        (disk.body = body, cdyn_builder_add_geom(b, &line, &pd.geom_a, rep)) == CDYN_OK &&
        cdyn_builder_add_geom(b, &disk, &pd.geom_b, rep) == CDYN_OK &&
        cdyn_builder_add_contact_pair(b, &pd, &id, rep) == CDYN_OK)
        cdyn_builder_build(b, &m, rep);
    cdyn_builder_free(b);
    return m;
}

/* The state at rest on the line (static compression m g / K), moving at v0 with omega0. */
static void start_state(cdyn_state *x, double v0)
{
    const double dn = M * G / K_CONTACT;
    x->t = 0;
    x->q[0] = 0;
    x->q[1] = R - dn;
    x->q[2] = 0;
    x->v[0] = v0;
    x->v[1] = 0;
    x->v[2] = OMEGA0;
    memset(x->delta, 0, 3 * sizeof(double));
    memset(x->lambda, 0, 3 * sizeof(double));
    x->delta[0] = dn;
    x->lambda[0] = M * G;
    x->mode[0] = CDYN_MODE_SLIP;
}

static double analytic_tau(double v0)
{
    return (OMEGA0 * R + v0) / (MU * G * (1 + M * R * R / I_DISK));
}

/* x(t), v(t) and r omega(t) of the rigid solution from v0. */
static void analytic(double v0, double t, double *x, double *v, double *rw)
{
    const double tau = analytic_tau(v0), ts = fmin(t, tau);
    const double a = MU * G, alpha = MU * M * G * R / I_DISK;
    *x = v0 * ts - 0.5 * a * ts * ts;
    *v = v0 - a * ts;
    *rw = R * (OMEGA0 - alpha * ts);
    if (t > tau)
        *x += *v * (t - tau);
}

/* The first time the contact sticks (the scheme's mode: slip velocity zero), from a
 * trajectory. */
static double onset(cdyn_state **traj, int n)
{
    for (int l = 1; l <= n; l++)
        if (traj[l]->mode[0] == CDYN_MODE_STICK)
            return traj[l]->t;
    return NAN;
}

static cdyn_state **new_traj(const cdyn_model *m, int N)
{
    cdyn_state **traj = calloc((size_t)N + 1, sizeof *traj);
    for (int l = 0; traj != NULL && l <= N; l++)
        if (cdyn_state_create(m, NULL, &traj[l], NULL) != CDYN_OK)
            return NULL;
    return traj;
}

static void free_traj(cdyn_state **traj, int N)
{
    for (int l = 0; traj != NULL && l <= N; l++)
        cdyn_state_free(traj[l]);
    free(traj);
}

static int run_ivp(const cdyn_model *m, int N, double *x_end, double *tau)
{
    cdyn_step_options o;
    cdyn_step_defaults(&o, CDYN_SCHEME_IMPLICIT_NCP);
    o.h = T_END / N;
    cdyn_stepper *s = NULL;
    cdyn_report rep;
    cdyn_state **traj = new_traj(m, N);
    if (traj == NULL || cdyn_stepper_create(m, &o, &s, &rep) != CDYN_OK) {
        fprintf(stderr, "disk: IVP set-up failed: %s\n", traj == NULL ? "out of memory" : rep.message);
        free_traj(traj, N);
        return 1;
    }
    start_state(traj[0], V0_PAPER);
    int bad = 0;
    for (int l = 1; l <= N && !bad; l++) {
        cdyn_state_copy(traj[l], traj[l - 1], NULL);
        cdyn_step_report sr;
        if (cdyn_step(s, NULL, traj[l], &sr) != CDYN_OK) {
            fprintf(stderr, "disk: IVP step %d: %s\n", l, sr.solver.message);
            bad = 1;
        }
    }
    *x_end = traj[N]->q[0];
    *tau = onset(traj, N);
    cdyn_stepper_free(s);
    free_traj(traj, N);
    return bad;
}

typedef struct bvp_result {
    double v0, tau, seconds;
    int unknowns, nonzeros, iterations, steps;
} bvp_result;


/* The BVP's progress line: Newton iteration and natural residual of the solve under way (in
 * place on a terminal, one line per iteration in a log: progress.h). */
static int bvp_progress(void *ctx, int iteration, double residual)
{
    progress_line(stderr, "  BVP N = %d: Newton iteration %d, residual %.2e", *(const int *)ctx,
                  iteration, residual);
    return 0;
}
static int run_bvp(const cdyn_model *m, int N, double v_guess, FILE *csv, bvp_result *out)
{
    const int nx = cdyn_bvp_state_size(m); /* x, y, theta, vx, vy, omega, delta_n, delta_t */
    int fixed0[8] = {1, 1, 1, 0, 1, 1, 1, 1}, fixedN[8] = {1, 0, 0, 0, 0, 0, 0, 0};
    double value0[8], valueN[8] = {X_END, 0, 0, 0, 0, 0, 0, 0};
    if (nx != 8)
        return 1;
    cdyn_state **traj = new_traj(m, N);
    if (traj == NULL) {
        fprintf(stderr, "disk: out of memory\n");
        return 1;
    }
    start_state(traj[0], v_guess);
    cdyn_bvp_state_pack(m, traj[0], value0);
    cdyn_bvp_conditions bc = {fixed0, fixedN, value0, valueN, 0, NULL, NULL, NULL, NULL};
    cdyn_bvp_options o;
    cdyn_bvp_defaults(&o);
    o.N = N;
    o.step.h = T_END / N;
    o.step.mcp.max_iter = 200;
    if (N >= 1000) { /* a long solve: a progress line on stderr (the tables stay on stdout) */
        o.step.mcp.progress = bvp_progress;
        o.step.mcp.progress_ctx = &N;
    }
    cdyn_bvp_report rep;
    const clock_t c0 = clock();
    const cdyn_status st = cdyn_bvp_solve(m, &o, &bc, traj, &rep);
    out->seconds = (double)(clock() - c0) / CLOCKS_PER_SEC;
    if (N >= 1000)
        progress_done(stderr);
    if (st != CDYN_OK) {
        fprintf(stderr, "disk: BVP N = %d: %s: %s\n", N, cdyn_status_str(st), rep.solver.message);
        free_traj(traj, N);
        return 1;
    }
    out->v0 = traj[0]->v[0];
    out->tau = onset(traj, N);
    out->unknowns = rep.unknowns;
    out->nonzeros = rep.nonzeros;
    out->iterations = rep.solver.iterations;
    out->steps = rep.continuation_steps;
    if (csv != NULL) {
        fprintf(csv, "t,x,v,r_omega,slip,x_rigid,v_rigid,r_omega_rigid\n");
        for (int l = 0; l <= N; l++) {
            double xa, va, rwa;
            analytic(V0_PAPER, traj[l]->t, &xa, &va, &rwa);
            fprintf(csv, "%.6f,%.8f,%.8f,%.8f,%.8f,%.8f,%.8f,%.8f\n", traj[l]->t, traj[l]->q[0],
                    traj[l]->v[0], R * traj[l]->v[2], traj[l]->v[0] + R * traj[l]->v[2], xa, va,
                    rwa);
        }
    }
    free_traj(traj, N);
    return 0;
}

int main(int argc, char **argv)
{
    const char *dir = "out";
    int quick = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--out") == 0 && i + 1 < argc)
            dir = argv[++i];
        else if (strcmp(argv[i], "--quick") == 0)
            quick = 1;

        else {
            fprintf(stderr, "usage: disk_slide_roll [--out DIR] [--quick]\n");
            return 2;
        }
    }
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "disk: cannot create %s: %s\n", dir, strerror(errno));
        return 1;
    }
    cdyn_report rep;
    cdyn_model *m = disk_model(&rep);
    if (m == NULL) {
        fprintf(stderr, "disk: model: %s\n", rep.message);
        return 1;
    }
    char path[1024];
    snprintf(path, sizeof path, "%s/disk.csv", dir);
    FILE *summary = fopen(path, "w");
    if (summary == NULL) {
        fprintf(stderr, "disk: cannot write %s: %s\n", path, strerror(errno));
        cdyn_model_free(m);
        return 1;
    }
    fprintf(summary, "problem,N,h,v0,tau,x_T,unknowns,nonzeros,iterations,seconds\n");
    int bad = 0;

    printf("Disk sliding to rolling (Song-Kumar-Pang Sec. IV.A), implicit compliant scheme\n\n");
    printf("IVP from v0 = %.4f m/s: rolling onset and x(T) (analytic %.4f s and %.4f m)\n\n",
           V0_PAPER, analytic_tau(V0_PAPER), X_END);
    printf("| N | h (ms) | onset (s) | x(T) (m) | |x(T) - 0.02| |\n|---|---|---|---|---|\n");
    const int ivp_n[3] = {22, 220, 2200};
    for (int i = 0; i < (quick ? 1 : 3); i++) {
        double xe = 0, tau = 0;
        bad |= run_ivp(m, ivp_n[i], &xe, &tau);
        printf("| %d | %.4f | %.5f | %.6f | %.1e |\n", ivp_n[i], 1e3 * T_END / ivp_n[i], tau, xe,
               fabs(xe - X_END));
        fprintf(summary, "ivp,%d,%g,%.6f,%.6f,%.8f,,,,\n", ivp_n[i], T_END / ivp_n[i], V0_PAPER,
                tau, xe);
    }

    printf("\nBVP: v0 such that x(T) = %.2f m at T = %.3f s (analytic v0 = %.4f m/s, tau = %.4f "
           "s)\n\n", X_END, T_END, V0_PAPER, TAU_PAPER);
    printf("| N | h (ms) | v0 (m/s) | |v0 - 1.2402| | within 13 h | onset (s) | unknowns | "
           "nonzeros | Newton iterations | time (s) |\n|---|---|---|---|---|---|---|---|---|---|\n");
    const int bvp_n[3] = {21, 200, 2000};
    for (int i = 0; i < (quick ? 1 : 3); i++) {
        const int N = bvp_n[i];
        const double h = T_END / N;
        FILE *csv = NULL;
        if (N == 21) {
            snprintf(path, sizeof path, "%s/disk_bvp_N21.csv", dir);
            csv = fopen(path, "w");
            if (csv == NULL) {
                fprintf(stderr, "disk: cannot write %s: %s\n", path, strerror(errno));
                bad = 1;
            }
        }
        bvp_result res;
        /* the largest from a naive guess: v0 = 0 */
        if (run_bvp(m, N, N == 2000 ? 0.0 : 1.0, csv, &res) != 0) {
            bad = 1;
            if (csv != NULL)
                fclose(csv);
            continue;
        }
        if (csv != NULL && fclose(csv) != 0) {
            fprintf(stderr, "disk: write error in %s\n", path);
            bad = 1;
        }
        const double err = fabs(res.v0 - V0_PAPER);
        printf("| %d | %.4f | %.5f | %.2e | %s (%.2e) | %.5f | %d | %d | %d | %.3f |\n", N,
               1e3 * h, res.v0, err, err <= 13 * h ? "yes" : "no", 13 * h, res.tau, res.unknowns,
               res.nonzeros, res.iterations, res.seconds);
        fprintf(summary, "bvp,%d,%g,%.8f,%.6f,%.6f,%d,%d,%d,%.4f\n", N, h, res.v0, res.tau, X_END,
                res.unknowns, res.nonzeros, res.iterations, res.seconds);
        /* The paper's figure (N = 21) within 0.015; the 13 h bound is reported, not enforced. */
        if (N == 21 && err > 0.015) {
            fprintf(stderr, "disk: N = %d: |v0 - 1.2402| = %.3g out of tolerance\n", N, err);
            bad = 1;
        }
    }
    if (fclose(summary) != 0) {
        fprintf(stderr, "disk: write error in %s/disk.csv\n", dir);
        bad = 1;
    }
    cdyn_model_free(m);
    return bad;
}
