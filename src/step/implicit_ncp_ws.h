/* Internal: the implicit scheme's workspace, shared by the stepping logic (implicit_ncp.c:
 * rows, start, pins, attempts, continuation, modes) and its MCP solver (implicit_ncp_solver.c:
 * the solver object, its callbacks, the Newton matrix's pattern and fill-reducing order). */
#ifndef CDYN_STEP_IMPLICIT_NCP_WS_H
#define CDYN_STEP_IMPLICIT_NCP_WS_H

#include "cdyn/mcp.h"
#include "step/implicit_limits.h"
#include "step/implicit_ncp_form.h"
#include "step/step_internal.h"

/* Solvers kept: a contact set that comes and goes between a few sets (a rocking or bouncing
 * body) finds each set's solver, pattern and KLU analysis again (the measurement behind 4:
 * docs/theory.md, implicit NCP, "Sparse Newton matrices"). */
#define NCP_KEPT 4

/* One kept solver: for the sparse backend, of one set of rows with their friction laws (key)
 * and one fill-reducing order (that of step size order_h); for the dense one, of one size. */
typedef struct ncp_kept {
    cdyn_mcp_solver *solver; /* NULL: empty */
    cdyn_arena arena;        /* the solver's and the pattern's memory */
    int k, ny;               /* the rows and the unknowns */
    int *key;                /* nc: w->key of those rows (sparse) */
    double order_h;
    int *colptr, *rowind, *seqpos; /* the pattern (sparse; ncp_ws has the same fields) */
    double *seqval;
    size_t nseq;
    unsigned long used; /* ncp_ws.clock at the last use */
} ncp_kept;

typedef struct ncp_ws {
    ncp_form f;
    int nd;
    int *rows;          /* nc */
    double *mu;         /* nc */
    double *A, *Ch;     /* nc nd x nd blocks */
    double *Ai;         /* nc nd x nd blocks: A^-1 of the rows taking part (the form's cache) */
    double *beta;       /* nc: the last step's friction multiplier per model row */
    double *y, *x0;     /* ny max, nx max */
    double *ystart;     /* ny max: the start, for a retry */
    double *ypath;      /* ny max: the continuation's last solution */
    double *uv;         /* 3 nc: Gamma_d v0 of every row (the predictor) */
    double *fdwork;     /* 5 ny max: fd_jacobian's work */
    double *ybest;      /* ny max: the best point a failed solve evaluated (cb_F) */
    double *Fbest;      /* ny max: F there */
    double *Fv;         /* ny max: F for the full problem's residual */
    double best_res;    /* its natural residual (INFINITY: none yet) */
    int *pin;           /* nc: row c's friction unknowns (lambda_T, beta) held at 0 */
    int *pin0;          /* nc: the first pins of the step */
    int *qp_rows;       /* nc: the rows the friction QP takes */
    int *key;           /* nc: 2 row + (row uses the QP): what the pattern depends on */
    int *pairs;         /* npair: the pairs of the rows taking part */
    unsigned char *der_keep; /* the model's derivative pattern: the positions those pairs fill */
    /* The MCP solver for the current rows, its sparse pattern and the positions of
     * ncp_form_jac's entries in it (seqpos: its calls do not depend on the values; seqval: the
     * values in that order, a SEQ sink): those of the kept entry in use (kept[cur]). */
    cdyn_mcp_solver *solver;
    int *colptr, *rowind;
    int *seqpos;
    double *seqval;
    size_t nseq;
    /* The solvers of the NCP_KEPT most recently used structures (ncp_solver), each with its own
     * arena; nkept of them in use (NCP_KEPT; white-box tests set 1, the single solver
     * re-created at every change, to compare against). */
    ncp_kept kept[NCP_KEPT];
    int nkept, cur;        /* cur: -1 none */
    unsigned long clock;   /* ncp_solver calls: the entries' last use */
    cdyn_mcp mcp;
    /* Sparse backend: one fill-reducing order (COLAMD) of the unknowns of every model row (the
     * full layout: q, v, then delta, lambda, beta of all n_c rows), found once per step size h
     * (full_h; each row's friction law, and so the pattern, depends on K + C/h) on the pattern
     * with every row taking part; each active set's KLU analysis takes its restriction, so
     * that a change of the active set costs KLU's block search, not a new ordering. */
    double full_h;        /* 0: no order yet */
    int *rank;            /* nyf: each full-layout unknown's position in that order */
    int *order;           /* ny max: the current rows' order (scratch) */
    int nyf;
    int fd;                 /* options.fd_jacobian */
    cdyn_step_report *prof; /* the running step's report: times and counts */
    /* The last successful step, for its derivatives (implicit_derivs.c): the form (its arrays
     * are the workspace's, valid until the next step), copies of y, x0 and tau. */
    ncp_form flast;
    double *ylast, *x0last, *taulast; /* ny max, nx max, nv */
    int last_ok, last_tau;
    int other_law; /* nonzero: the rows take the other friction law (ncp_other_law) */
    ncp_limits lim; /* the joint-limit rows, attached to every form (implicit_limits.h) */
} ncp_ws;

/* Seconds, for the step report's profile (C11's timespec_get: the library stays portable). */
double ncp_now(void);

/* The MCP solver for the current rows and laws in w->solver, and w->mcp set up to run it: a
 * kept one when one fits (dense: the size; sparse: the rows, their laws and the order), else a
 * new one in place of the least recently used; sparse, with the restriction of the full
 * layout's order (found once per step size). */
cdyn_status ncp_solver(cdyn_stepper *s, ncp_ws *w, const cdyn_state *x0, cdyn_report *r);

#endif
