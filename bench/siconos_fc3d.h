/* The peer for bench_fc3d: Siconos Numerics' frictional contact solvers (fc3d_driver) on a
 * problem read by Siconos' own reader from a Siconos text file. */
#ifndef CDYN_BENCH_SICONOS_FC3D_H
#define CDYN_BENCH_SICONOS_FC3D_H

typedef struct siconos_fc3d siconos_fc3d;

typedef enum siconos_fc3d_solver {
    SICONOS_FC3D_NSGS = 0, /* SICONOS_FRICTION_3D_NSGS */
    SICONOS_FC3D_NSN_AC,   /* SICONOS_FRICTION_3D_NSN_AC */
    SICONOS_FC3D_NSN_FB,   /* SICONOS_FRICTION_3D_NSN_FB */
    SICONOS_FC3D_SOLVERS
} siconos_fc3d_solver;

const char *siconos_fc3d_name(siconos_fc3d_solver solver);

/* Read a FrictionContactProblem text file (dimension 3); NULL when Siconos cannot. */
siconos_fc3d *siconos_fc3d_load(const char *path);
/* Contacts. */
int siconos_fc3d_contacts(const siconos_fc3d *s);

/* Solve from r = 0 with tolerance tol (Siconos' own error measure) and iteration limit
 * max_iter; r and u receive the result (3n each). Returns Siconos' info (0: converged by its
 * measure); *iterations the iterations done. */
int siconos_fc3d_solve(siconos_fc3d *s, siconos_fc3d_solver solver, double tol, int max_iter,
                       double *r, double *u, int *iterations);

void siconos_fc3d_free(siconos_fc3d *s);

#endif
