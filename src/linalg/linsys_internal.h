/* Internal to src/linalg/linsys*.c: the function table behind cdyn_linsys and the backends'
 * constructors. A backend's init fills ls->ops and ls->be (its state, from ls->allocator) from
 * the validated spec; its release frees ls->be and what hangs on it. */
#ifndef CDYN_LINALG_LINSYS_INTERNAL_H
#define CDYN_LINALG_LINSYS_INTERNAL_H

#include "linalg/linsys.h"

typedef struct cdyn_linsys_ops {
    cdyn_status (*factor)(cdyn_linsys *ls, const double *values, cdyn_report *r);
    cdyn_status (*solve)(cdyn_linsys *ls, int trans, int nrhs, double *b, cdyn_report *r);
    void (*forget)(cdyn_linsys *ls); /* NULL: nothing kept between factors */
    double *(*values)(cdyn_linsys *ls);
    void (*release)(cdyn_linsys *ls);
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

cdyn_status cdyn_linsys_dense_init(cdyn_linsys *ls, const cdyn_linsys_spec *spec,
                                   cdyn_report *r);
cdyn_status cdyn_linsys_klu_init(cdyn_linsys *ls, const cdyn_linsys_spec *spec, cdyn_report *r);
cdyn_status cdyn_linsys_cholmod_init(cdyn_linsys *ls, const cdyn_linsys_spec *spec,
                                     cdyn_report *r);

#endif
