/* cdyn — the 3-D Coulomb frictional contact problem (one time step, exact cone).
 *
 * Given n contacts, the Delassus operator W (3n x 3n, made of 3x3 blocks W_ij), q (3n) and the
 * friction coefficients mu (n), find reactions r and velocities u = W r + q such that for every
 * contact i, with r_i = (r_N, r_T) (normal first, then the two tangential components) and the
 * modified velocity  û_i = u_i + mu_i ||u_Ti|| e_N:
 *
 *     K_mu_i  ∋  r_i  ⊥  û_i  ∈  K*_mu_i,
 *     K_mu = {x : ||x_T|| <= mu x_N}  (the Coulomb cone),  K*_mu = {y : mu ||y_T|| <= y_N}.
 *
 * This is the De Saxcé–Feng form of Signorini's condition and Coulomb's law: r = 0 when the
 * contact opens (u_N >= 0), u = 0 when it sticks (r inside the cone), and r_T = -mu r_N
 * u_T/||u_T|| with u_N = 0 when it slides. It is not a QP (the law is not associated).
 *
 * Residual (what every solver reports and tests against its tolerance): the natural map
 *     e_i(r) = r_i - P_{K_mu_i}(r_i - û_i)           (u = W r + q recomputed from r)
 *     residual    = sqrt(sum_i ||e_i||_2^2) + rounding bound
 *     relative    = residual / ||q||_2   (= residual when q = 0)
 * e(r) = 0 exactly at the solutions; the natural map is the measure of Siconos'
 * fc3d_compute_error. The rounding bound, sqrt(sum_i ((k_i + 2) eps (1 + mu_i)
 * ||sum_j |W_ij| |r_j| + |q_i| ||)^2) with k_i = 1 + 3 (blocks of row i) the terms summed per
 * component, is what rounding in u can hide:
 * it is negligible at real solutions and keeps iterates that run off to infinity (where u loses
 * every digit and e looks tiny) from passing for solutions.
 *
 * Entry points
 *   cdyn_fc3d_solve     default: Gauss–Seidel warm start, then semismooth Newton (Alart–Curnier,
 *                       then Fischer–Burmeister), Gauss–Seidel again and Newton as fallbacks.
 *   cdyn_fc3d_solver_create / _solve / _free
 *                       the same with a solver object that keeps its workspace (and KLU's
 *                       symbolic analysis) from problem to problem while the shape stays.
 *   cdyn_fc3d_nsgs      nonsmooth block Gauss–Seidel with an exact local 3x3 solver.
 *   cdyn_fc3d_newton    semismooth Newton on the Alart–Curnier or the SOC Fischer–Burmeister
 *                       function, with a line search; KLU (sparse) or LAPACK (dense) systems.
 *   cdyn_fc3d_residual  the residual above.
 *   cdyn_fc3d_file_*    Siconos text files (dense and SBM) and FCLib HDF5 files.
 *
 * Conventions: r is in/out. On entry it is the initial guess (zeros for a cold start; it must
 * be finite); it and u (which may be NULL) are written only when the call returns CDYN_OK, so a
 * failed call leaves them as they were. Statuses:
 *   CDYN_OK         relative residual <= tol (report->residual_rel)
 *   CDYN_EINVAL     bad input: NULL, n <= 0, both or neither of W and blocks, a malformed block
 *                   structure, NaN/Inf in W, q, mu or r, a negative mu, bad options
 *   CDYN_ENOCONV    an iteration limit was reached (the message names it)
 *   CDYN_ENUMERIC   stall: the line search (Newton) or the sweeps (Gauss–Seidel) stopped
 *                   reducing the residual before the tolerance
 *   CDYN_ESINGULAR  a Newton matrix or a diagonal block W_ii was singular and regularization did
 *                   not help
 *   CDYN_ENOMEM     allocation failed
 *   CDYN_ETOOBIG    sizes whose arrays do not fit in memory addresses (a dense W of more than
 *                   about 2^31 entries on a 32-bit size_t; never on 64-bit machines in practice)
 * The library never prints. Thread safety: every function is reentrant. */
#ifndef CDYN_FC3D_H
#define CDYN_FC3D_H

#include <stddef.h>

#include "cdyn/alloc.h"
#include "cdyn/status.h"

#include "cdyn/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* W stored by 3x3 blocks in block-row compressed form (the layout of Siconos' SBM matrices):
 * the blocks of block row i are k = rowptr[i] .. rowptr[i+1]-1, block column colind[k]
 * (strictly increasing within a row), values[9k .. 9k+8] the block column-major. Missing
 * blocks are zero. */
typedef struct cdyn_fc3d_blocks {
    const int *rowptr;    /* n + 1, rowptr[0] = 0, nondecreasing */
    const int *colind;    /* rowptr[n] */
    const double *values; /* 9 * rowptr[n] */
} cdyn_fc3d_blocks;

/* A problem (a view: nothing is copied). Exactly one of W and blocks is set. */
typedef struct cdyn_fc3d {
    int n;                          /* contacts, > 0 */
    const double *W;                /* dense 3n x 3n, column-major; or NULL */
    const cdyn_fc3d_blocks *blocks; /* or W by 3x3 blocks; or NULL */
    const double *q;                /* 3n: (q_N, q_T1, q_T2) per contact */
    const double *mu;               /* n, >= 0 */
} cdyn_fc3d;

/* What a solver says about one call (filled on success and failure). */
typedef struct cdyn_fc3d_report {
    cdyn_status status;
    char method[CDYN_REPORT_METHOD];  /* the solver that produced the answer: "nsgs",
                                         "newton-ac", "newton-fb" (or the one that failed last) */
    char message[CDYN_REPORT_TEXT];   /* reason, empty on plain success */
    int sweeps;                       /* Gauss–Seidel sweeps, all stages */
    int newton_iterations;            /* Newton iterations, all stages */
    int factorizations;               /* Newton matrices factored */
    double residual;                  /* absolute natural-map residual at the result (or at the
                                         best iterate when the call failed) */
    double residual_rel;              /* residual / ||q||_2 */
} cdyn_fc3d_report;

/* The natural-map residual of r (3n values), absolute and relative (either pointer may be
 * NULL); u (3n, may be NULL) receives W r + q. CDYN_EINVAL for an invalid problem or r. */
CDYN_API cdyn_status cdyn_fc3d_residual(const cdyn_fc3d *problem, const double *r, double *u,
                                        double *residual, double *relative);

/* Validate a problem (everything the solvers check): CDYN_OK, or CDYN_EINVAL with the first
 * offending entry in report->message (CDYN_ETOOBIG as above). report may be NULL. */
CDYN_API cdyn_status cdyn_fc3d_check(const cdyn_fc3d *problem, cdyn_fc3d_report *report);

/* ---- nonsmooth block Gauss–Seidel ----------------------------------------------------------- */

typedef enum cdyn_fc3d_local {
    CDYN_FC3D_LOCAL_AUTO = 0, /* Newton (Alart–Curnier, 3 unknowns); enumeration if it fails */
    CDYN_FC3D_LOCAL_NEWTON,   /* Newton only */
    CDYN_FC3D_LOCAL_ENUM      /* enumeration of take-off, stick and slip (exact) */
} cdyn_fc3d_local;

typedef struct cdyn_fc3d_nsgs_options {
    int max_sweeps;        /* default 1000 */
    double tol;            /* relative residual target (default 1e-10) */
    double omega;          /* over-relaxation r_i := omega r_i,new + (1 - omega) r_i,old;
                              in (0, 2), default 1 */
    cdyn_fc3d_local local; /* local solver (default AUTO) */
    int check_every;       /* compute the full residual every this many sweeps (default 1) */
    double stall_ratio;    /* stall when the residual has not dropped below stall_ratio times
                              its value 50 sweeps earlier (default 0.999; 0 disables) */
    const cdyn_allocator *allocator; /* NULL: malloc/free */
} cdyn_fc3d_nsgs_options;

CDYN_API void cdyn_fc3d_nsgs_defaults(cdyn_fc3d_nsgs_options *opts);

/* Sweeps over the contacts in order; contact i solves its own one-contact problem with W_ii and
 * q_i + sum_{j != i} W_ij r_j exactly. A singular W_ii gives CDYN_ESINGULAR. */
CDYN_API cdyn_status cdyn_fc3d_nsgs(const cdyn_fc3d *problem, const cdyn_fc3d_nsgs_options *opts,
                                    double *r, double *u, cdyn_fc3d_report *report);

/* ---- semismooth Newton ---------------------------------------------------------------------- */

typedef enum cdyn_fc3d_formulation {
    CDYN_FC3D_ALART_CURNIER = 0, /* Alart–Curnier augmented Lagrangian */
    CDYN_FC3D_FISCHER_BURMEISTER /* Fischer–Burmeister function for second-order cones */
} cdyn_fc3d_formulation;

typedef enum cdyn_fc3d_linear {
    CDYN_FC3D_LINEAR_AUTO = 0, /* dense LAPACK LU for n <= dense_max, else sparse KLU */
    CDYN_FC3D_LINEAR_DENSE,
    CDYN_FC3D_LINEAR_SPARSE
} cdyn_fc3d_linear;

typedef struct cdyn_fc3d_newton_options {
    cdyn_fc3d_formulation formulation; /* default ALART_CURNIER */
    int max_iter;                      /* default 100 */
    double tol;                        /* relative residual target (default 1e-10) */
    cdyn_fc3d_linear linear;           /* default AUTO */
    int dense_max;                     /* contacts up to which AUTO goes dense (default 8) */
    double rho;                        /* Alart-Curnier augmentation: > 0 one value for every
                                          contact and part; 0 (default): split per contact,
                                          rho_N = 1 / W_ii,NN, rho_T = 1 / max W_ii,TT */
    double armijo;                     /* sufficient decrease sigma in (0, 1) (default 1e-4) */
    int max_backtracks;                /* step halvings per line search (default 30) */
    int nonmonotone;                   /* merit values remembered by the nonmonotone line search
                                          (default 5; 1 = monotone Armijo) */
    const cdyn_allocator *allocator;   /* NULL: malloc/free (KLU itself uses SuiteSparse's
                                          allocation hooks) */
} cdyn_fc3d_newton_options;

CDYN_API void cdyn_fc3d_newton_defaults(cdyn_fc3d_newton_options *opts);

/* Newton on Phi(r) = 0 (the chosen formulation) with the nonmonotone Armijo line search on
 * ||Phi||^2 / 2. Success is judged on the natural-map residual. When the Newton matrix is
 * singular it is regularized (J + delta I, delta growing); CDYN_ESINGULAR only when that fails. */
CDYN_API cdyn_status cdyn_fc3d_newton(const cdyn_fc3d *problem,
                                      const cdyn_fc3d_newton_options *opts, double *r, double *u,
                                      cdyn_fc3d_report *report);

/* ---- default entry point -------------------------------------------------------------------- */

typedef struct cdyn_fc3d_options {
    double tol;                    /* relative residual target (default 1e-10); overrides the
                                      stages' own tol */
    int warm_sweeps;               /* Gauss–Seidel sweeps before Newton (default 2; 0: none) */
    cdyn_fc3d_nsgs_options nsgs;   /* warm start and fallback */
    cdyn_fc3d_newton_options newton; /* formulation ignored: AC first, then FB */
    int try_fb;                    /* nonzero (default): Fischer–Burmeister after AC fails */
    int fallback_nsgs;             /* nonzero (default): full Gauss–Seidel after Newton fails */
    const cdyn_allocator *allocator; /* used by every stage; NULL: malloc/free */
} cdyn_fc3d_options;

CDYN_API void cdyn_fc3d_defaults(cdyn_fc3d_options *opts);

/* Gauss–Seidel warm start (warm_sweeps sweeps, or until tol), then Newton-AC from its result
 * and, if that fails, from the caller's start; then Newton-FB from the best point so far and
 * from the caller's start; then
 * Gauss–Seidel with nsgs.max_sweeps from the best point, and Newton-AC once more from its
 * result. When all of that fails and the caller's start is not 0, all of it once more from 0
 * (a warm start is a guess). When that fails too (and fallback_nsgs is set): Gauss–Seidel from
 * the caller's start without the stall test, with Newton-AC from its iterate after every
 * nsgs.max_sweeps sweeps, 4 times (hyperstatic piles need that many sweeps). report->method
 * names the stage that produced the answer ("nsgs", "newton-ac", "newton-fb",
 * "nsgs+newton-ac"); the counters sum all stages. Returns the status
 * of the last stage tried when none succeeds. */
CDYN_API cdyn_status cdyn_fc3d_solve(const cdyn_fc3d *problem, const cdyn_fc3d_options *opts,
                                     double *r, double *u, cdyn_fc3d_report *report);

/* ---- solver object: many problems, one workspace ------------------------------------------
 * The default entry point on memory kept from call to call, for a simulator solving one problem
 * per step. Its shape is n, dense W or blocks, and W's block pattern (for a dense W, its nonzero
 * 3x3 blocks). The workspace of a shape — the block view, the chain's vectors, and Newton's
 * arrays with the Newton matrix's pattern and KLU's symbolic analysis (made at the first Newton
 * stage) — is built once and reused. The solver keeps the workspaces of its two most recently
 * used shapes (a contact set flickering between two shapes stops allocating once both were seen);
 * a problem of another shape replaces the least recently used one, built once (allocation and
 * analysis) and then kept. A solve of a kept shape allocates nothing of cdyn's;
 * KLU allocates its numeric factor (through SuiteSparse's hooks) at the first factorization of
 * every Newton stage and when a refactorization is rejected, as the one-shot call does, so that
 * the answers are the one-shot call's bit for bit. */
typedef struct cdyn_fc3d_solver cdyn_fc3d_solver;

/* Allocate a solver with opts (copied; NULL: defaults; opts->allocator serves every allocation
 * of the solver). problem may be NULL (the shape is taken at the first solve); otherwise it must
 * be a valid problem (as cdyn_fc3d_check) and its shape is built here. *out is NULL on failure.
 * Statuses: CDYN_EINVAL (bad options or problem, out NULL), CDYN_ETOOBIG, CDYN_ENOMEM. */
CDYN_API cdyn_status cdyn_fc3d_solver_create(const cdyn_fc3d *problem,
                                             const cdyn_fc3d_options *opts,
                                             cdyn_fc3d_solver **out, cdyn_fc3d_report *report);

/* Solve problem, any shape (see above), from the start r: r, u, statuses and report as for
 * cdyn_fc3d_solve, with the same answers. A failed build (CDYN_ENOMEM) leaves r and u as they
 * were and the solver usable (the next solve of that shape tries again). Not for concurrent use.
 */
CDYN_API cdyn_status cdyn_fc3d_solver_solve(cdyn_fc3d_solver *solver, const cdyn_fc3d *problem,
                                            double *r, double *u, cdyn_fc3d_report *report);

/* Shapes the solver has built so far (1 for a solver whose problems kept one shape; 0 for NULL).
 */
CDYN_API int cdyn_fc3d_solver_shapes(const cdyn_fc3d_solver *solver);

/* Free a solver; accepts NULL. */
CDYN_API void cdyn_fc3d_solver_free(cdyn_fc3d_solver *solver);

/* ---- files ------------------------------------------------------------------------------------
 * Siconos' text format for FrictionContactProblem (whitespace-separated tokens):
 *   d                    contact dimension: 3, or 2 (planar problems, see below)
 *   n                    number of contacts, > 0
 *   W as a NumericsMatrix:
 *     0  m m  m m        dense: storage code 0, rows, columns, rows and columns again,
 *                        then the m*m entries column by column (m = d n)
 *     1  m m             SBM: storage code 1, rows, columns, then nbblocks, blocknumber0,
 *                        blocknumber1, the cumulative block sizes (d, 2d, ...) of the block
 *                        rows and of the block columns, filled1 (= n + 1), filled2
 *                        (= nbblocks), the block-row pointers (filled1), the block-column
 *                        indices (filled2), then per block its ordinal and its d*d entries
 *                        column by column. nbblocks = 0 ends the matrix (W = 0).
 *   q (d n numbers), mu (n numbers), then free text (Siconos writes a flag; kept as comment).
 * Planar problems (d = 2: normal, one tangent) are read as 3-D problems whose second tangent is
 * decoupled (W_T2T2 = W_T1T1 of the same contact, or W_NN, or 1 when those are not positive;
 * no coupling; q_T2 = 0): their solutions are exactly the planar ones with r_T2 = u_T2 = 0.
 * The file object records d.
 * Orientation: Siconos prints its column-major buffers as they are, so each printed line of a
 * dense W is a column, and SBM blocks are read column by column too (SBM_get_value reads
 * block[row + col * nbRows]).
 * Readers report like the LCP reader (include/cdyn/io.h, a cdyn_report): CDYN_EFORMAT with
 * "line L, token T" and what was expected (a truncated input names the missing token),
 * CDYN_EIO, CDYN_ENOMEM, CDYN_ETOOBIG, CDYN_EINVAL (NULL arguments). Numbers must be finite and
 * decimal, mu >= 0; sizes the remaining text cannot hold are refused before allocating.
 * Unsorted block columns within a block row (Siconos allows them) are sorted; a repeated block
 * is an error. */

typedef struct cdyn_fc3d_file {
    int dim;            /* d as in the file (2 or 3) */
    int n;              /* contacts */
    int sparse;         /* nonzero: W held by blocks (the file's SBM storage or HDF5) */
    double *W;          /* dense 3n x 3n column-major, or NULL */
    int *rowptr;        /* blocks (when sparse), else NULL */
    int *colind;
    double *values;
    double *q;          /* 3n */
    double *mu;         /* n */
    char *comment;      /* trailing text, trimmed; "" when none and for FCLib files */
    cdyn_fc3d_blocks blocks; /* view on rowptr/colind/values */
} cdyn_fc3d_file;

/* Read a text file; allocator may be NULL (malloc/free) and is remembered for
 * cdyn_fc3d_file_free. report may be NULL. On failure *out is left unchanged. */
CDYN_API cdyn_status cdyn_fc3d_file_read(const char *path, const cdyn_allocator *allocator,
                                         cdyn_fc3d_file **out, cdyn_report *report);
/* Parse text held in memory (exactly `length` bytes; need not be NUL-terminated). */
CDYN_API cdyn_status cdyn_fc3d_file_parse(const char *text, size_t length,
                                          const cdyn_allocator *allocator, cdyn_fc3d_file **out,
                                          cdyn_report *report);
CDYN_API void cdyn_fc3d_file_free(cdyn_fc3d_file *file);

/* The problem view of a file (valid while the file lives); NULL gives a problem every solver
 * rejects. */
CDYN_API cdyn_fc3d cdyn_fc3d_file_problem(const cdyn_fc3d_file *file);

/* Write a problem in Siconos' text format (d = 3; dense W as dense, blocks as SBM), values with
 * 17 significant digits so a read gives back the same doubles. comment may be NULL (Siconos
 * readers ignore what follows mu). CDYN_EINVAL for an invalid problem, CDYN_EIO. */
CDYN_API cdyn_status cdyn_fc3d_file_write(const char *path, const cdyn_fc3d *problem,
                                          const char *comment, cdyn_report *report);

/* FCLib HDF5 files: available when the library was built with FCLib (Debian libfclib-dev);
 * otherwise cdyn_fc3d_fclib_read returns CDYN_EINVAL with a message saying so and
 * cdyn_fc3d_has_fclib() is 0. Local problems (/fclib_local) without the mixed part V, R: W (any
 * of FCLib's triplet, CSC or CSR forms; repeated entries add up) is stored by blocks. Global
 * problems (/fclib_global: M v = H r + f, u = H^T v + w) without G, b are reduced to
 * W = H^T M^-1 H, q = H^T M^-1 f + w: directly for a diagonal M, else through a sparse Cholesky
 * factor of M (stored whole, symmetric positive definite; otherwise CDYN_EFORMAT). spacedim 2
 * is read like a planar text file. The file's structure (every group, dataset, type and length
 * FCLib reads) is checked with the HDF5 API before FCLib reads it, since FCLib exits the process
 * on malformed files; HDF5's automatic error printing is switched off around the calls and
 * restored (it is HDF5's per-process, or per-thread, setting). Unlike the rest of cdyn this
 * reader is reentrant only as far as HDF5 is: with a non-thread-safe HDF5 build, do not run it
 * in two threads at once. */
CDYN_API int cdyn_fc3d_has_fclib(void);
CDYN_API cdyn_status cdyn_fc3d_fclib_read(const char *path, const cdyn_allocator *allocator,
                                          cdyn_fc3d_file **out, cdyn_report *report);

/* Read either kind: FCLib when the name ends in .hdf5 or .h5 (and is not *.hdf5.dat), else
 * text. */
CDYN_API cdyn_status cdyn_fc3d_file_load(const char *path, const cdyn_allocator *allocator,
                                         cdyn_fc3d_file **out, cdyn_report *report);

#ifdef __cplusplus
}
#endif
#endif
