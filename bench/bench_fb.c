/* bench_fb: cdyn's FB-Newton (cdyn_lcp_fb_newton) against Siconos Numerics' Newton–FB LCP solver
 * (SICONOS_LCP_NEWTON_FB_FBLSA = lcp_newton_FB) on the same problems, in the same process, from
 * the same arrays and the same starting point z = 0; cdyn's Lemke is timed too for reference.
 * Prints a Markdown table (and optionally a CSV).
 *
 * Problems (bench_common.h): the LCP fixtures tests/data/lcp_*.dat, random SPD and random
 * nonsymmetric P-matrix LCPs (n = 10 ... 1000), and the friction-pyramid LCPs.
 * Usage: bench_fb [--csv PATH] [--data DIR] [--seed S] [--max-n N] [--min-time SEC]
 *                 [--min-runs K] [--max-runs K] */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"

/* ---- running one problem ------------------------------------------------------------- */

/* The first clause of a cdyn failure message ("stagnation", "iteration limit (100) reached"). */
static void reason(char *buf, size_t size, const char *message)
{
    const size_t len = strcspn(message, ":;");
    snprintf(buf, size, "%.*s", (int)(len < 40 ? len : 40), message);
}

static void run_cdyn(const bench_problem *p, const bench_config *cfg, int lemke, double *z,
                     double *w, bench_outcome *o)
{
    bench_cdyn_call c = {.lcp = &p->lcp, .z = z, .w = w};
    cdyn_mcp_defaults(&c.fb);
    cdyn_lemke_defaults(&c.lemke);
    const int st =
        bench_time(lemke ? bench_call_lemke : bench_call_fb, &c, &cfg->budget, &o->time);
    o->claimed_ok = st == CDYN_OK;
    o->iterations = c.report.iterations;
    if (o->claimed_ok) {
        snprintf(o->status, sizeof o->status, "ok");
    } else if (st == CDYN_ENOCONV) {
        char why[48];
        reason(why, sizeof why, c.report.message);
        snprintf(o->status, sizeof o->status, "ENOCONV: %s, last residual %.1e", why,
                 c.report.residual);
    } else {
        snprintf(o->status, sizeof o->status, "%s", bench_status_name((cdyn_status)st));
    }
    bench_judge(&p->lcp, z, o);
    if (!o->claimed_ok)
        o->residual = NAN; /* cdyn leaves z untouched on failure: there is no answer to measure */
}

/* Siconos' tolerance bounds ||min(z, Mz+q)||_2 / ||q||_2 (unscaled when ||q||_2 <= DBL_EPSILON);
 * tol_cdyn / ||q||_2 makes its test imply ours, ||min(z, Mz+q)||_inf <= tol_cdyn (and be at
 * most sqrt(n) times stricter). */
static double siconos_tol(const cdyn_lcp *lcp, double tol_cdyn)
{
    double s = 0.0;
    for (int i = 0; i < lcp->n; ++i)
        s += lcp->q[i] * lcp->q[i];
    const double norm_q = sqrt(s);
    return norm_q > DBL_EPSILON ? tol_cdyn / norm_q : tol_cdyn;
}

static int run_siconos(const bench_problem *p, const bench_config *cfg, double *z, double *w,
                       bench_outcome *o)
{
    cdyn_mcp_options fb;
    cdyn_mcp_defaults(&fb);
    bench_siconos_call c = {.n = p->lcp.n, .z = z, .w = w};
    c.solver =
        siconos_lcp_create_newton_fb(p->lcp.n, p->lcp.M, p->lcp.q, siconos_tol(&p->lcp, fb.tol));
    if (c.solver == NULL)
        return -1;
    const int token = stdout_silence();
    const int info = bench_time(bench_call_siconos, &c, &cfg->budget, &o->time);
    stdout_restore(token);
    const double error = siconos_lcp_error(c.solver);
    const int limit = siconos_lcp_max_iter(c.solver);
    siconos_lcp_free(c.solver);
    o->claimed_ok = info == 0;
    o->iterations = c.iterations;
    if (o->claimed_ok)
        snprintf(o->status, sizeof o->status, "ok");
    else if (info == 1 && c.iterations >= limit)
        snprintf(o->status, sizeof o->status, "info=1, iteration limit");
    else if (info == 2)
        snprintf(o->status, sizeof o->status, "info=2, singular Newton matrix (DGESV)");
    else
        snprintf(o->status, sizeof o->status, "info=%d, error %.1e", info, error);
    /* Siconos returns its last iterate also on failure: its residual is shown. */
    bench_judge(&p->lcp, z, o);
    return 0;
}

/* ---- output and driver ------------------------------------------------------------------ */

typedef struct family_summary {
    int problems, fb_ok, siconos_ok, lemke_ok;
    bench_ratios sic_fb;   /* Siconos Newton–FB / cdyn FB-Newton, both accepted */
    bench_ratios fb_lemke; /* cdyn FB-Newton / cdyn Lemke, both accepted */
} family_summary;

typedef struct bench_state {
    const bench_config *cfg;
    FILE *csv;
    family_summary fam[BENCH_FAMILIES];
    int errors;
} bench_state;

static void print_row(const bench_problem *p, const bench_outcome *fb, const bench_outcome *sic,
                      const bench_outcome *lemke)
{
    char t1[32], t2[32], t3[160], r1[32], r2[32], st1[160], st2[160], ratio[32];
    bench_fmt_ms(t1, sizeof t1, fb->time.median);
    bench_fmt_ms(t2, sizeof t2, sic->time.median);
    bench_fmt_ms(t3, sizeof t3, lemke->time.median);
    if (!lemke->accepted) {
        const size_t len = strlen(t3);
        snprintf(t3 + len, sizeof t3 - len, " (%s)", lemke->status);
    }
    bench_fmt_res(r1, sizeof r1, fb->residual);
    bench_fmt_res(r2, sizeof r2, sic->residual);
    snprintf(st1, sizeof st1, "%s", fb->status);
    bench_mark(st1, sizeof st1, fb);
    snprintf(st2, sizeof st2, "%s", sic->status);
    bench_mark(st2, sizeof st2, sic);
    if (fb->accepted && sic->accepted)
        snprintf(ratio, sizeof ratio, "%.2f", sic->time.median / fb->time.median);
    else
        snprintf(ratio, sizeof ratio, "n/a");
    printf("| %s | %d | %s | %d | %s | %s | %s | %d | %s | %s | %s | %s |\n", p->name, p->lcp.n,
           st1, fb->iterations, r1, t1, st2, sic->iterations, r2, t2, ratio, t3);
}

static void run_one(void *ctx, const bench_problem *p)
{
    bench_state *st = ctx;
    family_summary *fs = &st->fam[p->family];
    const int n = p->lcp.n;
    double *z = malloc(sizeof(double) * (size_t)n), *w = malloc(sizeof(double) * (size_t)n);
    bench_guard guard = {0};
    if (z == NULL || w == NULL || bench_guard_take(&guard, &p->lcp) != 0) {
        fprintf(stderr, "bench_fb: out of memory for %s\n", p->name);
        ++st->errors;
        goto done;
    }

    bench_outcome fb = {0}, sic = {0}, lemke = {0};
    run_cdyn(p, st->cfg, 0, z, w, &fb);
    if (run_siconos(p, st->cfg, z, w, &sic) != 0) {
        fprintf(stderr, "bench_fb: could not set up Siconos for %s\n", p->name);
        ++st->errors;
        goto done;
    }
    run_cdyn(p, st->cfg, 1, z, w, &lemke);
    if (!bench_guard_intact(&guard, &p->lcp)) {
        fprintf(stderr, "bench_fb: a solver modified the problem data of %s\n", p->name);
        ++st->errors;
    }
    print_row(p, &fb, &sic, &lemke);
    fflush(stdout);
    bench_csv_row(st->csv, p, "cdyn_lcp_fb_newton", &fb);
    bench_csv_row(st->csv, p, "siconos_newton_fb", &sic);
    bench_csv_row(st->csv, p, "cdyn_lemke", &lemke);

    fs->problems++;
    fs->fb_ok += fb.accepted;
    fs->siconos_ok += sic.accepted;
    fs->lemke_ok += lemke.accepted;
    if (fb.accepted && sic.accepted)
        bench_ratios_add(&fs->sic_fb, sic.time.median / fb.time.median);
    if (fb.accepted && lemke.accepted)
        bench_ratios_add(&fs->fb_lemke, fb.time.median / lemke.time.median);
done:
    free(z);
    free(w);
    bench_guard_free(&guard);
}

static int print_header(const bench_config *cfg)
{
    cdyn_mcp_options fb;
    cdyn_mcp_defaults(&fb);
    int sic_iter = 0;
    double sic_tol = 0.0;
    if (siconos_newton_fb_defaults(&sic_iter, &sic_tol) != 0)
        return -1;
    printf("Same process, same problem arrays and the same starting point z = 0 for every solver; "
           "seed %llu; median wall time of repeated runs (until %.2g s in total and at least %d "
           "runs, at most %d); OPENBLAS_NUM_THREADS=1.\n\n",
           (unsigned long long)cfg->seed, cfg->budget.min_time, cfg->budget.min_runs,
           cfg->budget.max_runs);
    printf("- **cdyn FB-Newton**: `cdyn_lcp_fb_newton` with `cdyn_mcp_defaults`: stops when "
           "||min(z, Mz+q)||∞ ≤ %.0e (absolute), at most %d Newton iterations, %s merit, Armijo "
           "line search with memory %d (1 = monotone), LAPACK LU for the Newton systems. Its z "
           "is left unchanged on failure, so the residual column is empty then and the status "
           "gives the natural residual of the last iterate.\n",
           fb.tol, fb.max_iter, fb.merit == CDYN_MCP_FB ? "Fischer–Burmeister" : "penalized FB",
           fb.nonmonotone_memory);
    printf("- **Siconos Newton–FB**: `linearComplementarity_driver` with `solver_options_create"
           "(SICONOS_LCP_NEWTON_FB_FBLSA)` (= `lcp_newton_FB`, Facchinei–Pang's VFBLSA via "
           "`newton_LSA`); defaults (iteration limit `iparam[SICONOS_IPARAM_MAX_ITER]` = %d, "
           "default tolerance %.0e) except the tolerance. Siconos' error "
           "(`lcp_compute_error`, used both as the stopping test and as the driver's final "
           "check) is ||min(z, Mz+q)||₂ / ||q||₂, a relative 2-norm, where cdyn's is an "
           "absolute ∞-norm; `dparam[SICONOS_DPARAM_TOL]` is set per problem to %.0e / ||q||₂, "
           "so that Siconos' test implies cdyn's (it is up to √n times stricter). Siconos keeps "
           "its Newton matrix in the options between the repeated runs (allocated once); on "
           "failure it returns its last iterate, whose residual is shown. info=2 means that the LU "
           "factorization of a Newton matrix failed (exactly singular): `newton_LSA` then stops, "
           "where cdyn retries with a diagonal shift and falls back to a gradient step.\n",
           sic_iter, sic_tol, fb.tol);
    printf("- **cdyn Lemke**: `cdyn_lemke` with `cdyn_lemke_defaults`, for reference (status "
           "in brackets when it is not accepted).\n");
    printf("- **iter** = Newton iterations as each solver reports them (cdyn: "
           "`report.iterations`; Siconos: `iparam[SICONOS_IPARAM_ITER_DONE]`).\n");
    printf("- **residual** = ||min(z, Mz+q)||∞ computed by `cdyn_lcp_residual` on each solver's "
           "z. A result is *accepted* when the solver reports success and residual ≤ %.0e·(||q||∞ "
           "+ ||M||∞·||z||∞); \"residual rejected\" marks claimed successes that fail this test. "
           "— = no solution returned.\n",
           BENCH_ACCEPT_TOL);
    printf("- **ratio** = Siconos Newton–FB time / cdyn FB-Newton time (> 1: cdyn faster), "
           "shown when both are accepted.\n");
    printf("- Problems: `fixtures` = tests/data/lcp_*.dat (Siconos test set); `spd_n` = "
           "`lcpgen_spd`; `pmatrix_n` = `lcpgen_pmatrix` (nonsymmetric positive definite); "
           "`pyramid_ncK` = `lcpgen_pyramid` (K contacts, 4 directions, n = 6K, mu = %.2g; "
           "degenerate, M only copositive); the spd and pyramid problems are those of the Lemke "
           "section.\n\n",
           BENCH_PYRAMID_MU);
    printf("| problem | n | cdyn FB-Newton | iter | residual | ms | Siconos Newton–FB | iter | "
           "residual | ms | ratio | cdyn Lemke ms |\n");
    printf("|---|---:|---|---:|---:|---:|---|---:|---:|---:|---:|---:|\n");
    return 0;
}

static void print_summary(const bench_state *st, const bench_family *families, int count)
{
    printf("\n| family | problems | accepted cdyn FB | accepted Siconos FB | accepted cdyn Lemke "
           "| ratio Siconos/cdyn FB, geo. mean (min–max) | cdyn FB time / cdyn Lemke time, geo. "
           "mean (min–max) |\n|---|---:|---:|---:|---:|---|---|\n");
    for (int i = 0; i < count; ++i) {
        const family_summary *fs = &st->fam[families[i]];
        if (fs->problems == 0)
            continue;
        char r1[64], r2[64];
        bench_ratios_fmt(r1, sizeof r1, &fs->sic_fb);
        bench_ratios_fmt(r2, sizeof r2, &fs->fb_lemke);
        printf("| %s | %d | %d | %d | %d | %s | %s |\n", bench_family_name(families[i]),
               fs->problems, fs->fb_ok, fs->siconos_ok, fs->lemke_ok, r1, r2);
    }
}

int main(int argc, char **argv)
{
    if (bench_single_threaded_blas(argv) != 0)
        return 2;
    bench_config cfg;
    bench_config_defaults(&cfg);
    if (bench_parse_args(argc, argv, &cfg) != 0)
        return 2;

    bench_state st = {.cfg = &cfg};
    if (cfg.csv_path != NULL) {
        st.csv = fopen(cfg.csv_path, "w");
        if (st.csv == NULL) {
            fprintf(stderr, "bench_fb: cannot write %s: %s\n", cfg.csv_path, strerror(errno));
            return 2;
        }
        bench_csv_header(st.csv);
    }

    static const bench_family families[] = {BENCH_FIXTURES, BENCH_SPD, BENCH_PMATRIX,
                                            BENCH_PYRAMID};
    const int count = (int)(sizeof families / sizeof families[0]);
    if (print_header(&cfg) != 0) {
        fprintf(stderr, "bench_fb: cannot read Siconos' default options\n");
        return 2;
    }
    st.errors += bench_for_each_problem(&cfg, families, count, run_one, &st);
    print_summary(&st, families, count);

    if (st.csv != NULL)
        fclose(st.csv);
    if (st.errors > 0)
        fprintf(stderr, "bench_fb: %d harness error(s), see above\n", st.errors);
    return st.errors > 0 ? 1 : 0;
}
