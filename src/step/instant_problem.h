/* Internal: the instantaneous contact problem (cdyn/instant.h) reduced to contact space, shared
 * by the pyramid (sign-combination LCPs) and cone (mixed NCP) formulations. Notation:
 * docs/theory.md. */
#ifndef CDYN_STEP_INSTANT_PROBLEM_H
#define CDYN_STEP_INSTANT_PROBLEM_H

#include "cdyn/instant.h"

/* Touching contacts c = 0..nc-1 (a subset of the model's rows). Direction rows k = c*nd + d,
 * d = 0 normal, 1 t, 2 o (nd = 1 + ntan; ntan = 1 planar, 2 spatial). lam_f (mall = nc*nd) is
 * the full force vector in these rows; a = D lam_f + g0 the relative accelerations and
 * vdot = y0 + Y lam_f. */
typedef struct inst_problem {
    int nv, ntan, nd;
    int ncm;      /* rows of the model */
    int nc;       /* touching contacts */
    int nroll;    /* of them rolling */
    int nrf;      /* rolling with mu > 0: these carry tangential unknowns */
    int mall;     /* nc * nd */
    int *row;     /* nc: model contact row */
    int *rf;      /* nc: index among the rolling contacts with friction, or -1 */
    int *slide;   /* nc: 1 sliding, 0 rolling */
    double *mu;   /* nc */
    double *mut;  /* nc*ntan: sliding contacts' -mu v_d / |v_T| (0 otherwise) */
    double *GT;   /* nv x mall: G^T, G the Jacobian rows of the touching contacts */
    double *Y;    /* nv x mall: M^-1 G^T */
    double *D;    /* mall x mall: G M^-1 G^T */
    double *y0;   /* nv: M^-1 (tau - h) */
    double *g0;   /* mall: G y0 + (dG/dt) v */
    double dnorm; /* ||D||_inf */
} inst_problem;

/* Counts of the touching rows (cdyn_inst_scan), known before anything is allocated. */
typedef struct inst_counts {
    int nc, nroll, nrf;
} inst_counts;

/* Check the rows of the evaluated data (penetration, impact) and count the touching ones. */
cdyn_status cdyn_inst_scan(const cdyn_model *m, const cdyn_data *d, const double *v,
                           const cdyn_instant_options *o, inst_counts *cnt, cdyn_report *r);
/* Fill row, rf, slide, mu, mut of p (arrays already carved; p->nv, ntan, nd, nc set). */
void cdyn_inst_fill(const cdyn_model *m, const cdyn_data *d, const double *v,
                    const cdyn_instant_options *o, inst_problem *p);
/* Y, D, y0, g0 from M = L L^T (L: nv*nv scratch). CDYN_ESINGULAR if M is not positive
 * definite. */
cdyn_status cdyn_inst_reduce(const cdyn_data *d, const double *tau, inst_problem *p, double *L,
                             cdyn_report *r);
/* Forces per model row from lam_f (3 n_c: n, t, o blocks) and the relative accelerations of
 * every model row from vdot. */
void cdyn_inst_outputs(const cdyn_data *d, const inst_problem *p, const double *lamf,
                       const double *vdot, double *lam, double *acc);

/* A linear map from n unknowns to lam_f: column j has cnt[j] <= nd entries (idx, val) stored at
 * j*nd. */
typedef struct inst_map {
    int n;
    int *cnt, *idx;
    double *val;
} inst_map;

void cdyn_inst_map_apply(const inst_problem *p, const inst_map *C, const double *x, double *lamf);

/* The physical solution of lam_f: vdot, a, and the modes of the touching contacts. */
typedef struct inst_solution {
    double *lamf; /* mall */
    double *a;    /* mall */
    double *vdot; /* nv */
} inst_solution;

void cdyn_inst_evaluate(const inst_problem *p, inst_solution *s);

/* Pyramid: every sign combination. lamf receives the chosen solution's forces; the counts go
 * to res. Workspace pointers (sizes in instant.c). */
typedef struct inst_pyr_work {
    inst_map C;
    int *rowk;      /* LCP row -> direction row */
    double *rowsgn; /* LCP row sign */
    double *A, *b, *z, *w;
    double *store; /* nstore * mall distinct lam_f */
    int nstore;
    double *lamf_try;
} inst_pyr_work;

cdyn_status cdyn_inst_pyramid(const inst_problem *p, const cdyn_instant_options *o,
                              inst_pyr_work *wk, double *lamf, cdyn_instant_result *res,
                              double *residual, cdyn_report *r);

/* Cone: the mixed NCP. */
typedef struct inst_cone_work {
    inst_map C;
    double *DC; /* mall x N */
    double *x, *lo, *up;
    double *S, *srhs; /* start system (n0 x n0, n0), n0 = nc + nrf*ntan */
    double *rwork;    /* 4 n0 (condition estimate) */
    int *ipiv;        /* 2 n0 */
    double *a;        /* mall: accelerations, scratch of the callbacks */
} inst_cone_work;

cdyn_status cdyn_inst_cone(const inst_problem *p, const cdyn_instant_options *o, inst_cone_work *wk,
                           double *lamf, cdyn_instant_result *res, double *residual,
                           cdyn_report *r);

/* Number of MCP unknowns of the cone formulation. */
static inline int cdyn_inst_cone_size(const inst_problem *p)
{
    return p->nc + p->nrf * (p->ntan + 1);
}

/* Number of LCP unknowns of the pyramid formulation. */
static inline int cdyn_inst_pyr_size(const inst_problem *p)
{
    return p->nc + p->nrf * p->ntan;
}

#endif
