/* Pang–Trinkle–Lo, Section 5: the quasistatic grasp Data Sets 1-4, transcribed as printed.
 * Shared by examples/ucp_data_sets.c and tests/test_ucp.c (one transcription, not two).
 *
 * P = W^T is printed 6x3: rows 1-3 the normal wrenches w_in^T, rows 4-6 the tangential ones; the
 * input vector d = (0, 0, 0, g_obj) with g_obj = (0, -1, 0) (gravity); alpha = all six joints,
 * J_n selects joints 1, 3, 5 and J_t joints 2, 4, 6. Data Sets 1 and 3 share P and mu, 2 and 4
 * share P and theta_dot. g_man is not given (it does not enter X or Y): NULL. */
#ifndef CDYN_EXAMPLES_PTL_DATA_SETS_H
#define CDYN_EXAMPLES_PTL_DATA_SETS_H

#include "cdyn/ucp.h"

static const double PTL_P1[18] = {0.966,  0.259, 0.000,  0.000,  1.000, 0.240,
                                  -0.707, 0.707, 0.750,  -0.259, 0.966, -2.000,
                                  -1.000, 0.000, -1.450, -0.707, -0.707, -1.900};
static const double PTL_P2[18] = {0.804,  0.595,  1.040,   -0.707, 0.707,  -3.500,
                                  -0.973, -0.232, 14.000,  -0.595, 0.804,  -20.900,
                                  -0.707, -0.707, -17.900, 0.232,  -0.973, -7.630};
static const double PTL_TH1[6] = {0.1, 0.995, 0.1, -0.995, 0.1, 0.995};
static const double PTL_TH2[6] = {0.92, -0.391, 0.9276, -0.3747, 0.9306, -0.367};
static const double PTL_TH3[6] = {-0.161, 0.987, 0.995, 0.1, -0.774, -0.633};
static const double PTL_MU1[3] = {0.5, 0.5, 0.3};
static const double PTL_MU2[3] = {0.1, 0.4, 0.3};
static const double PTL_MU4[3] = {0.7, 0.9, 0.9};
static const double PTL_GOBJ[3] = {0.0, -1.0, 0.0};

typedef struct ptl_data_set {
    double Wn[9], Wt[9], Jn[18], Jt[18];
    cdyn_ucp_problem p; /* points into the arrays above and into the caller's mu, theta_dot */
} ptl_data_set;

/* Data Set `which` (1-4) with its printed friction coefficients and joint velocities. */
static inline void ptl_make_with(ptl_data_set *d, const double *P, const double *theta_dot,
                                 const double *mu)
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
    cdyn_ucp_problem p = {3,    3,         6,    d->Wn,    d->Wt, d->Jn, d->Jt,
                          mu,   NULL,      theta_dot, NULL, PTL_GOBJ, NULL};
    d->p = p;
}

static inline void ptl_make(ptl_data_set *d, int which)
{
    const double *P = (which == 1 || which == 3) ? PTL_P1 : PTL_P2;
    const double *th = which == 1 ? PTL_TH1 : which == 3 ? PTL_TH3 : PTL_TH2;
    const double *mu = (which == 1 || which == 3) ? PTL_MU1 : which == 2 ? PTL_MU2 : PTL_MU4;
    ptl_make_with(d, P, th, mu);
}

#endif
