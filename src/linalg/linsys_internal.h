/* Internal to src/linalg/linsys*.c: the function table behind cdyn_linsys and the backends'
 * constructors. A backend's init gets the object and its state in one block
 * (cdyn_linsys_block), fills ls->ops and ls->be from the validated spec, and frees the block
 * itself on failure; its release (may be NULL) frees what hangs on ls->be (SuiteSparse's
 * objects), cdyn_linsys_free the block. One allocation for the dense kinds, as the MCP's own
 * table had. */
#ifndef CDYN_LINALG_LINSYS_INTERNAL_H
#define CDYN_LINALG_LINSYS_INTERNAL_H

#include "linalg/linsys.h"

typedef struct cdyn_linsys_ops {
    cdyn_status (*factor)(cdyn_linsys *ls, const double *values, cdyn_report *r);
    cdyn_status (*solve)(cdyn_linsys *ls, int trans, int nrhs, double *b, cdyn_report *r);
    void (*forget)(cdyn_linsys *ls); /* NULL: nothing kept between factors */
    double *(*values)(cdyn_linsys *ls);
    void (*release)(cdyn_linsys *ls); /* may be NULL */
} cdyn_linsys_ops;

struct cdyn_linsys {
    const cdyn_linsys_ops *ops;
    const cdyn_allocator *allocator;
    cdyn_linsys_kind kind;
    int n;
    double rcond_min, refactor_rcond; /* defaults resolved by the backend's init */
    double max_abs;                   /* of the last factor's values (LU kinds) */
    void (*dense_norms)(void *ctx, double *anorm1, double *amax); /* the spec's */
    void *dense_norms_ctx;
    void *be;
};

/* The object with `bytes` of backend state after it (ls->be, 16-byte aligned), the header
 * filled from the spec; NULL when out of memory. */
cdyn_linsys *cdyn_linsys_block(const cdyn_linsys_spec *spec, size_t bytes);

cdyn_status cdyn_linsys_dense_init(const cdyn_linsys_spec *spec, cdyn_linsys **out,
                                   cdyn_report *r);
cdyn_status cdyn_linsys_klu_init(const cdyn_linsys_spec *spec, cdyn_linsys **out,
                                 cdyn_report *r);
cdyn_status cdyn_linsys_cholmod_init(const cdyn_linsys_spec *spec, cdyn_linsys **out,
                                     cdyn_report *r);

#endif
