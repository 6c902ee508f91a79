/* Internal to the FCLib reader (built only with FCLib and HDF5): the walk that checks a file
 * before FCLib reads it (fc3d_fclib_walk.c), the entry lists of FCLib's matrices and the reduction
 * of a global problem to a local one (fc3d_fclib_reduce.c), used by fc3d_fclib.c. */
#ifndef CDYN_IO_FC3D_FCLIB_H
#define CDYN_IO_FC3D_FCLIB_H

#include <hdf5.h>
#include <stddef.h>

#include "cdyn/alloc.h"
#include "cdyn/status.h"

typedef struct h5matrix {
    int nzmax, m, n, nz;
    int has_info; /* FCLib allocates mat->info only then (older FCLib leaves it unset otherwise) */
} h5matrix;

/* What the walk found: the kind of problem, its dimension and the shapes of its matrices. */
typedef struct walked {
    int global;
    int d;
    h5matrix W, M, H;
} walked;

/* Checks every group, dataset, class and length FCLib will touch in the open file (name: for
 * messages): CDYN_EFORMAT with the reason if FCLib would fail, print or overflow on it. */
cdyn_status cdyn_fclib_walk(hid_t file, const char *name, cdyn_report *report, walked *w);

/* A matrix as an entry list (repeated entries add up). */
typedef struct triplets {
    int count;
    int *row;
    int *col;
    double *x;
} triplets;

/* count entries (at least one slot each); on failure t is empty. */
cdyn_status cdyn_triplets_alloc(const cdyn_allocator *a, size_t count, triplets *t,
                                cdyn_report *report);
void cdyn_triplets_free(const cdyn_allocator *a, triplets *t);

/* The local problem of FCLib's global one (M v = H r + f, u = H^T v + w): W = H^T M^-1 H by
 * entries and q = H^T M^-1 f + w (m entries), for a positive definite M (nv x nv): by rows of H
 * when M is diagonal, through a sparse Cholesky factor otherwise. CDYN_EFORMAT when M is not
 * positive definite or not stored whole and symmetric. */
cdyn_status cdyn_fclib_reduce(const triplets *M, const triplets *H, int nv, int m, const double *f,
                              const double *w, const cdyn_allocator *a, triplets *W, double *q,
                              cdyn_report *report);

#endif
