/* Data Sets 1-4 of Pang, Trinkle & Lo (Section 5) solved by the quasistatic UCP, with the
 * recovered forces, velocities and contact modes, and a sweep over the friction coefficients of
 * Data Set 2 (the paper tried 56 unspecified combinations: 41 solved with at most two pairs,
 * 3 needed Step 3, 12 in the "jamming" region had no solution).
 *
 *   ucp_data_sets [grid-points-per-mu]      (default 5: mu_i in {0.1, 0.3, 0.5, 0.7, 0.9})
 *
 * Output is Markdown (docs/theory.md shows it). */
#include <stdio.h>
#include <stdlib.h>

#include "cdyn/ucp.h"
#include "ptl_data_sets.h"

static const char *mode(double vn, double vt, double cn)
{
    const double tol = 1e-9;
    if (vn > tol)
        return "breaking";
    if (vt > tol)
        return "sliding +";
    if (vt < -tol)
        return "sliding -";
    return cn > tol ? "rolling" : "touching, no force";
}

static void data_set(int k)
{
    ptl_data_set d;
    ptl_make(&d, k);
    double cn[3], ct[3], vn[3], vt[3], q[3], tau[6];
    cdyn_ucp_solution s = {NULL, NULL, cn, ct, vn, vt, q, NULL, tau};
    cdyn_ucp_stats st;
    cdyn_report rep;
    cdyn_status rc = cdyn_ucp_solve(&d.p, NULL, &s, &st, &rep);
    cdyn_ucp_census c;
    cdyn_status cs = cdyn_ucp_enumerate(&d.p, NULL, 10000, NULL, &c, NULL);
    printf("| %d | %s | %d | %d | %.4g | %ld of %ld%s |", k,
           rc == CDYN_OK ? "solved" : "no solution found", st.pairs, st.linear_programs,
           rc == CDYN_OK ? 0.0 : st.best_xty,
           cs == CDYN_OK || cs == CDYN_ENOSOLUTION ? c.solutions : -1, c.vertices,
           c.complete ? "" : " (incomplete)");
    if (rc == CDYN_OK) {
        printf(" (%.4f, %.4f, %.4f) | (%.4f, %.4f, %.4f) | (%.4f, %.4f, %.4f) | (%.4f, %.4f, "
               "%.4f) | (%.4f, %.4f, %.4f) | %s / %s / %s |\n",
               cn[0], cn[1], cn[2], ct[0], ct[1], ct[2], vn[0], vn[1], vn[2], vt[0], vt[1], vt[2],
               q[0], q[1], q[2], mode(vn[0], vt[0], cn[0]), mode(vn[1], vt[1], cn[1]),
               mode(vn[2], vt[2], cn[2]));
    } else
        printf(" - | - | - | - | - | - |\n");
}

int main(int argc, char **argv)
{
    int g = argc > 1 ? atoi(argv[1]) : 5;
    if (g < 2)
        g = 2;
    printf("| Data Set | result | pairs | LPs | best x^T y | complementary vertices of X (census) "
           "| c_n | c_t | v_n | v_t | qdot | contact modes |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (int k = 1; k <= 4; ++k)
        data_set(k);

    /* Data Set 2 with mu_i on a grid in [0.1, 0.9]. */
    int at_most_two = 0, more = 0, step3 = 0, not_found = 0, exist = 0, none = 0, missed = 0;
    int total = 0;
    for (int a = 0; a < g; ++a)
        for (int b = 0; b < g; ++b)
            for (int e = 0; e < g; ++e) {
                double mu[3] = {0.1 + 0.8 * a / (g - 1), 0.1 + 0.8 * b / (g - 1),
                                0.1 + 0.8 * e / (g - 1)};
                ptl_data_set d;
                ptl_make_with(&d, PTL_P2, PTL_TH2, mu);
                cdyn_ucp_stats st;
                cdyn_status rc = cdyn_ucp_solve(&d.p, NULL, NULL, &st, NULL);
                cdyn_ucp_census c;
                cdyn_status cs = cdyn_ucp_enumerate(&d.p, NULL, 10000, NULL, &c, NULL);
                total++;
                exist += cs == CDYN_OK;
                none += cs == CDYN_ENOSOLUTION && c.complete;
                if (rc == CDYN_OK) {
                    if (st.stationary > 0)
                        step3++;
                    else if (st.pairs <= 2)
                        at_most_two++;
                    else
                        more++;
                } else {
                    not_found++;
                    missed += cs == CDYN_OK;
                }
            }
    printf("\nData Set 2, mu_i on a %d x %d x %d grid in [0.1, 0.9] (%d combinations):\n\n", g, g,
           g, total);
    printf("| solved, at most two pairs, no Step 3 | solved, more pairs, no Step 3 | solved with "
           "Step 3 | no solution found | census: solution exists | census: no solution | "
           "missed (exists, not found) |\n|---|---|---|---|---|---|---|\n");
    printf("| %d | %d | %d | %d | %d | %d | %d |\n", at_most_two, more, step3, not_found, exist,
           none, missed);
    return 0;
}
