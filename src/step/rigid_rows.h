/* Internal: what the rigid schemes' derivative files share about the step's rows: each contact
 * row's mode at the solution (rigid_row), the data's matrices dense (rmats), and which of a
 * row's equations is a velocity condition. Types and an inline only, so that rigid_derivs.c and
 * rigid_param_derivs.c (which rigid_derivs.c calls) do not depend on each other. */
#ifndef CDYN_STEP_RIGID_ROWS_H
#define CDYN_STEP_RIGID_ROWS_H

#include "step/rigid_last.h"

/* A contact row's equations at the step's solution (P: its impulse, u = Gamma v+ + (Psi_n/h,
 * 0, 0): its velocity, both nd values per row). */
typedef enum rigid_kind {
    RD_FREE = 0,   /* P = 0 */
    RD_STICK = 1,  /* u = 0 */
    RD_SMOOTH = 2, /* u_n = 0, P_T = 0 (held, no friction) */
    RD_PYR_SLIP = 3, /* u_n = 0; per sliding group g: P_g = sum_S beta_k d_k, sum_S beta_k =
                        mu P_n, d_k . u_T + sigma_g = 0 (k in S_g, the final basis); a
                        sticking group's axes: u_d = 0 (P_g: P_T, or the box's axis) */
    RD_COULOMB_SLIP = 4, /* u_n = 0, P_T = -mu P_n u_T / |u_T|: the exact cone's sliding */
    RD_CONE_SLIP = 5     /* u_n = mu |u_T|, P_T = -mu P_n u_T / |u_T|: the cone step's */
} rigid_kind;

typedef struct rigid_row {
    int kind;       /* rigid_kind */
    int slide;      /* RD_PYR_SLIP: bit g set for the sliding groups */
    int gnb[2];     /* RD_PYR_SLIP: |S_g| (0 for a sticking group) */
    const int *dir; /* RD_PYR_SLIP: the directions of S_0, then of S_1 */
} rigid_row;

/* The data's matrices dense: its own when it keeps them (dense data), else arena copies of
 * the CSC forms (rigid_mats, rigid_derivs_data.c). */
typedef struct rmats {
    const double *M, *idq, *idv; /* n_v x n_v (idq, idv: when asked) */
    const double *G[3];          /* Gamma_d, n_c x n_v (O: NULL in planar models) */
} rmats;

/* Whether equation yo[c] + d of row c (mode rc) is its velocity u_d = 0 (else P_d = 0 or a
 * friction law); shared by rigid_derivs.c and rigid_param_derivs.c. */
static inline int rigid_velocity_row(const rigid_last *L, const rigid_row *rc, int d)
{
    if (rc->kind == RD_STICK)
        return 1;
    if (rc->kind == RD_FREE)
        return 0;
    if (d == 0)
        return 1;
    /* a pyramid's sticking group: its axes (diamond: both; box: axis d in group d - 1) */
    return rc->kind == RD_PYR_SLIP && !(rc->slide >> (L->ngroup == 2 ? d - 1 : 0) & 1);
}

#endif
