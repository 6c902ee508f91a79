/* Internal: the implicit scheme's compliant joint-limit rows (docs/theory.md, "Time stepping"
 * Sec. 10). Row l (limit_rows.h: dof j, sign s, gap g_l(q) = s (q_j - bound)) adds the unknowns
 * delta_l and lambda_l >= 0 after the contacts' beta, y = (..., beta, delta_L (n), lambda_L (n)),
 * and the rows, each paired with the unknown of its index:
 *   dynamics row j:  ... - h s lambda_l                                   (added)
 *   delta_l:         [lambda_l - (K_l + C_l/h) delta_l + (C_l/h) delta0_l] / (K_l + C_l/h)
 *   lambda_l:        K_l (g_l(q) + delta_l)   ⊥ lambda_l >= 0
 * (the scalings with scale_normal, else 1), the joint-space twin of a contact's normal row with
 * K_l = m_eff / (tau zeta)^2, C_l = 2 m_eff / tau from the joint's limit_solref and m_eff = 1 /
 * (M^-1)_jj at the model's default q. The BVP does not take them (its forms never attach limits;
 * it refuses such models); the per-step derivatives do (delta_l is state: the next step's
 * delta0_l). */
#ifndef CDYN_STEP_IMPLICIT_LIMITS_H
#define CDYN_STEP_IMPLICIT_LIMITS_H

#include "step/implicit_ncp_form.h"
#include "step/limit_rows.h"

struct ncp_limits {
    const lim_rows *rows;
    int n;
    double *K, *C; /* n: stiffness and damping of each stop */
    double *d0;    /* n: delta at the start of the step */
};

/* K and C of the stepper's limit rows (lim) for model m; arrays from allocator a (one block at
 * L->K). CDYN_ENOMEM, CDYN_ESINGULAR (M not positive definite at the default q). */
cdyn_status ncp_limits_create(const cdyn_model *m, const lim_rows *lim, const cdyn_allocator *a,
                              ncp_limits *L, cdyn_report *r);
void ncp_limits_free(ncp_limits *L, const cdyn_allocator *a);

/* Attach L to a form just set up (ncp_form_setup): ny grows by 2 n, lambda_L's bounds set. */
void ncp_limits_attach(ncp_form *f, const ncp_limits *L);
/* lambda_L >= 0 in f's bounds (after a reset of all of them). */
void ncp_limits_bounds(const ncp_form *f);
/* Where delta_L starts in y (lambda_L follows n later). */
static inline int ncp_limits_offset(const ncp_form *f)
{
    return f->nx + f->k * f->nd + f->k;
}

/* The rows above into F (the dynamics rows' term added), and their Jacobian in y into JY. */
void ncp_limits_F(const ncp_form *f, const double *y, double *F);
void ncp_limits_jac(const ncp_form *f, ncp_sink *JY);

/* For the per-step derivatives (implicit_derivs.c): the gap row's scaling (K_l with
 * scale_normal, else 1), and dF/d delta0_l, the state's only entry in limit row l's rows (its
 * constitutive row: (C_l/h) times that row's scaling). */
double ncp_limits_gap_scale(const ncp_form *f, int l);
double ncp_limits_d0_coef(const ncp_form *f, int l);

/* The start: delta0 and (delta, lambda) from the state x0, and for a stop the free motion
 * drives into (predicted gap g + h s v0_j + delta < 0 without force) the predicted penetration p
 * as a compression, lambda = a p / 2, delta = -g - p / 2, as the contacts' predictor. */
void ncp_limits_start(const ncp_form *f, ncp_limits *L, const cdyn_state *x0, double h,
                      double *y);
/* delta, lambda and the modes of the solution y into x1. */
void ncp_limits_store(const ncp_form *f, const double *y, cdyn_state *x1);

#endif
