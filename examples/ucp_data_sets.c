/* Data Sets 1-4 of Pang, Trinkle & Lo (Section 5) solved by the quasistatic UCP, with the
 * recovered forces, velocities and contact modes, and a sweep over the friction coefficients of
 * Data Set 2 (the paper tried 56 unspecified combinations: 41 solved with at most two pairs,
 * 3 needed Step 3, 12 in the "jamming" region had no solution).
 *
 *   ucp_data_sets [grid-points-per-mu]      (default 5: mu_i in {0.1, 0.3, 0.5, 0.7, 0.9})
 *
 * Output is Markdown (docs/quasistatic-ucp.md shows it). */
#include <stdio.h>
#include <stdlib.h>

#include "cdyn/ucp.h"

/* The paper's P = W^T (rows 1-3 normal wrenches, rows 4-6 tangential), theta_dot, mu;
 * d = (0, 0, 0, 0, -1, 0), i.e. g_obj = (0, -1, 0); J_n selects joints 1, 3, 5, J_t 2, 4, 6. */
static const double P1[18] = {0.966,  0.259, 0.000,  0.000,  1.000, 0.240,  -0.707, 0.707,  0.750,
                              -0.259, 0.966, -2.000, -1.000, 0.000, -1.450, -0.707, -0.707, -1.900};
static const double P2[18] = {0.804,  0.595,  1.040,   -0.707, 0.707,  -3.500,
                              -0.973, -0.232, 14.000,  -0.595, 0.804,  -20.900,
                              -0.707, -0.707, -17.900, 0.232,  -0.973, -7.630};
static const double TH1[6] = {0.1, 0.995, 0.1, -0.995, 0.1, 0.995};
static const double TH2[6] = {0.92, -0.391, 0.9276, -0.3747, 0.9306, -0.367};
static const double TH3[6] = {-0.161, 0.987, 0.995, 0.1, -0.774, -0.633};
static const double MU1[3] = {0.5, 0.5, 0.3}, MU2[3] = {0.1, 0.4, 0.3}, MU4[3] = {0.7, 0.9, 0.9};
static const double GOBJ[3] = {0.0, -1.0, 0.0};

typedef struct data {
    double Wn[9], Wt[9], Jn[18], Jt[18];
    cdyn_ucp_problem p;
} data;

static void make(data *d, const double *P, const double *th, const double *mu)
{
    for (int i = 0; i < 3; ++i)
        for (int k = 0; k < 3; ++k) {
            d->Wn[k + 3 * i] = P[3 * i + k];
            d->Wt[k + 3 * i] = P[3 * (3 + i) + k];
        }
    for (int k = 0; k < 18; ++k)
        d->Jn[k] = d->Jt[k] = 0.0;
    for (int i = 0; i < 3; ++i) {
        d->Jn[i + 3 * (2 * i)] = 1.0;
        d->Jt[i + 3 * (2 * i + 1)] = 1.0;
    }
    cdyn_ucp_problem p = {3, 3, 6, d->Wn, d->Wt, d->Jn, d->Jt, mu, NULL, th, NULL, GOBJ, NULL};
    d->p = p;
}

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

static void data_set(int k, const double *P, const double *th, const double *mu)
{
    data d;
    make(&d, P, th, mu);
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
    data_set(1, P1, TH1, MU1);
    data_set(2, P2, TH2, MU2);
    data_set(3, P1, TH3, MU1);
    data_set(4, P2, TH2, MU4);

    /* Data Set 2 with mu_i on a grid in [0.1, 0.9]. */
    int at_most_two = 0, more = 0, step3 = 0, not_found = 0, exist = 0, none = 0, missed = 0;
    int total = 0;
    for (int a = 0; a < g; ++a)
        for (int b = 0; b < g; ++b)
            for (int e = 0; e < g; ++e) {
                double mu[3] = {0.1 + 0.8 * a / (g - 1), 0.1 + 0.8 * b / (g - 1),
                                0.1 + 0.8 * e / (g - 1)};
                data d;
                make(&d, P2, TH2, mu);
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
