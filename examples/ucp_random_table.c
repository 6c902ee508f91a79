/* Reproduces Table 1 of Pang, Trinkle & Lo (Section 5): twenty random feasible quasistatic
 * contact problems (n_q = 3, n_theta = 2 n_c, n_c up to 40) solved by the UCP algorithm with the
 * paper's procedure (original Step 3, then the modified one with at most 20 restarts).
 *
 *   ucp_random_table [--seeds K] [--finger two-link|contact-frame] [--census MAXV] [--csv FILE]
 *
 * Prints a Markdown table, ours next to the paper's columns, on stdout. The instances are ours:
 * the paper's generator (S. Sudarsky's code) is not published; ours follows the paper's recipe
 * (docs/theory.md). Because of that the question "does a solution exist?" is answered
 * independently for every instance by the exhaustive vertex census (cdyn_ucp_enumerate, at most
 * MAXV vertices of X, default 30000; 0 turns it off); "yes (found)" marks an instance the census
 * could not finish but the algorithm solved. With K > 1 a summary over K instances per
 * row follows (seeds 1000*row + 0..K-1; the main table uses seed 1000*row). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cdyn/ucp.h"

typedef struct row {
    int nc;
    double mu_max;
    int n_alpha;
    int star; /* the paper's "*": solved only by the modified Step 3 */
    int paper_pairs;
    double paper_best; /* best x^T y in the paper (0: solved) */
} row;

/* Table 1 of the paper: n_c, range of mu = (0, mu_max), |alpha|, pairs found, best x^T y. */
static const row table1[20] = {
    {3, 1.0, 6, 0, 2, 0},           {10, 1.0, 20, 0, 1, 0},        {10, 2.0, 20, 1, 5, 0},
    {15, 1.2, 29, 0, 2, 0},         {18, 0.8, 27, 0, 1, 0},        {20, 1.0, 40, 0, 1, 0},
    {20, 1.5, 40, 1, 4, 0},         {20, 1.2, 40, 0, 2, 0},        {20, 1.0, 30, 0, 2, 0},
    {20, 1.0, 30, 0, 2, 0},         {20, 1.0, 40, 0, 4, 0},        {30, 1.0, 60, 0, 2, 0},
    {30, 0.5, 45, 0, 1, 0},         {30, 0.6, 45, 1, 24, 0},       {40, 1.0, 80, 0, 1, 0},
    {40, 1.0, 80, 0, 1, 0},         {10, 1.3, 15, 0, 52, 0.00001}, {15, 1.2, 24, 0, 39, 14.61551},
    {30, 0.6, 45, 0, 49, 24.32773}, {40, 1.0, 60, 0, 52, 1.23990},
};

typedef struct result {
    cdyn_status status;
    cdyn_ucp_stats stats;
    int exists; /* 1 yes, 0 no (complete census), -1 unknown */
    long vertices;
} result;

static int run_one(const row *r, uint64_t seed, cdyn_ucp_finger finger, long census_cap,
                   result *out)
{
    cdyn_ucp_random_spec spec = {r->nc, r->mu_max, r->n_alpha, seed, finger};
    cdyn_ucp_instance *inst = NULL;
    cdyn_report rep;
    if (cdyn_ucp_random(&spec, NULL, &inst, &rep) != CDYN_OK) {
        fprintf(stderr, "generator failed: %s\n", rep.message);
        return -1;
    }
    out->status = cdyn_ucp_solve(&inst->problem, NULL, NULL, &out->stats, &rep);
    if (out->status != CDYN_OK && out->status != CDYN_ENOSOLUTION)
        fprintf(stderr, "  n_c=%d seed=%llu: %s (%s)\n", r->nc, (unsigned long long)seed,
                cdyn_status_str(out->status), rep.message);
    out->exists = -1;
    out->vertices = 0;
    if (census_cap > 0) {
        cdyn_ucp_census c;
        cdyn_status cs = cdyn_ucp_enumerate(&inst->problem, NULL, census_cap, NULL, &c, &rep);
        out->vertices = c.vertices;
        out->exists = cs == CDYN_OK ? 1 : (cs == CDYN_ENOSOLUTION && c.complete ? 0 : -1);
    }
    cdyn_ucp_instance_free(inst);
    return 0;
}

static const char *exists_text(int e)
{
    return e == 1 ? "yes" : e == 0 ? "no" : "unknown";
}

int main(int argc, char **argv)
{
    int seeds = 1;
    long census_cap = 30000;
    cdyn_ucp_finger finger = CDYN_UCP_FINGER_TWO_LINK;
    FILE *csv = NULL;
    for (int a = 1; a < argc; ++a) {
        if (strcmp(argv[a], "--seeds") == 0 && a + 1 < argc)
            seeds = atoi(argv[++a]);
        else if (strcmp(argv[a], "--census") == 0 && a + 1 < argc)
            census_cap = atol(argv[++a]);
        else if (strcmp(argv[a], "--finger") == 0 && a + 1 < argc) {
            const char *f = argv[++a];
            finger = strcmp(f, "contact-frame") == 0 ? CDYN_UCP_FINGER_CONTACT_FRAME
                                                     : CDYN_UCP_FINGER_TWO_LINK;
        } else if (strcmp(argv[a], "--csv") == 0 && a + 1 < argc) {
            csv = fopen(argv[++a], "w");
            if (csv == NULL) {
                fprintf(stderr, "cannot write %s\n", argv[a]);
                return 1;
            }
        } else {
            fprintf(stderr,
                    "usage: %s [--seeds K] [--finger two-link|contact-frame] "
                    "[--census MAXV] [--csv FILE]\n",
                    argv[0]);
            return 2;
        }
    }
    if (seeds < 1)
        seeds = 1;
    if (csv != NULL)
        fprintf(csv, "problem,seed,nc,mu_max,alpha,alpha_bar,status,pairs,lps,pivots,"
                     "stationary,restarts,modified,best_xty,exists,vertices\n");

    printf("Fingers: %s. Census limit: %ld vertices of X.\n\n",
           finger == CDYN_UCP_FINGER_TWO_LINK ? "two-link" : "contact-frame", census_cap);
    printf("| No. | n_c | range of mu | abs(alpha) | abs(alpha-bar) | pairs | best x^T y | LPs "
           "| result | solution exists? (census: vertices of X) | paper: pairs | paper: best "
           "x^T y |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    int solved = 0, paper_solved = 0, agg_solved[20] = {0}, agg_modified[20] = {0};
    int agg_exist[20] = {0}, agg_none[20] = {0}, agg_found_exist[20] = {0};
    double agg_pairs[20] = {0};
    for (int k = 0; k < 20; ++k) {
        const row *r = &table1[k];
        paper_solved += r->paper_best == 0.0;
        for (int s = 0; s < seeds; ++s) {
            uint64_t seed = 1000u * (uint64_t)(k + 1) + (uint64_t)s;
            result res;
            if (run_one(r, seed, finger, census_cap, &res) != 0)
                return 1;
            int ok = res.status == CDYN_OK;
            if (ok && res.exists != 1)
                res.exists = 2; /* the algorithm's answer is itself a proof of existence */
            agg_solved[k] += ok;
            agg_modified[k] += ok && res.stats.solved_by_modified;
            agg_pairs[k] += res.stats.pairs;
            agg_exist[k] += res.exists >= 1;
            agg_none[k] += res.exists == 0;
            agg_found_exist[k] += ok;
            if (csv != NULL)
                fprintf(csv, "%d,%llu,%d,%.2f,%d,%d,%s,%d,%d,%d,%d,%d,%d,%.6g,%s,%ld\n", k + 1,
                        (unsigned long long)seed, r->nc, r->mu_max, r->n_alpha,
                        2 * r->nc - r->n_alpha, ok ? "solved" : "not-found", res.stats.pairs,
                        res.stats.linear_programs, res.stats.pivots, res.stats.stationary,
                        res.stats.restarts, res.stats.solved_by_modified, res.stats.best_xty,
                        exists_text(res.exists), res.vertices);
            if (s == 0) {
                solved += ok;
                printf("| %s%d | %d | (0, %.1f) | %d | %d | %d | %.5g | %d | %s | %s (%ld) | "
                       "%s%d | %.5f |\n",
                       ok && res.stats.solved_by_modified ? "*" : "", k + 1, r->nc, r->mu_max,
                       r->n_alpha, 2 * r->nc - r->n_alpha, res.stats.pairs,
                       ok ? 0.0 : res.stats.best_xty, res.stats.linear_programs,
                       ok ? "solved" : "not found", exists_text(res.exists), res.vertices,
                       r->star ? "*" : "", r->paper_pairs, r->paper_best);
            }
            fflush(stdout);
        }
    }
    printf("\nSolved: %d of 20 (paper: %d of 20).\n", solved, paper_solved);
    if (seeds > 1) {
        printf("\n%d instances per row:\n\n", seeds);
        printf("| No. | n_c | range of mu | abs(alpha) | solved | by the modified Step 3 | "
               "solvable | proven unsolvable (census) | solved / solvable | mean pairs "
               "|\n|---|---|---|---|---|---|---|---|---|---|\n");
        int tot = 0, tot_exist = 0, tot_none = 0, tot_found_exist = 0;
        for (int k = 0; k < 20; ++k) {
            tot += agg_solved[k];
            tot_exist += agg_exist[k];
            tot_none += agg_none[k];
            tot_found_exist += agg_found_exist[k];
            printf("| %d | %d | (0, %.1f) | %d | %d/%d | %d | %d | %d | %d/%d | %.1f |\n", k + 1,
                   table1[k].nc, table1[k].mu_max, table1[k].n_alpha, agg_solved[k], seeds,
                   agg_modified[k], agg_exist[k], agg_none[k], agg_found_exist[k], agg_exist[k],
                   agg_pairs[k] / seeds);
        }
        printf("\nAll rows: %d of %d instances solved. Known solvable (census or found): %d; "
               "proven unsolvable by the census: %d; unknown: %d. The algorithm found %d of the "
               "%d known solvable.\n",
               tot, 20 * seeds, tot_exist, tot_none, 20 * seeds - tot_exist - tot_none,
               tot_found_exist, tot_exist);
    }
    if (csv != NULL)
        fclose(csv);
    return 0;
}
