#include "model/builder_mark.h"

#include "model/model_internal.h"

cdyn_builder_mark cdyn_builder_get_mark(const cdyn_builder *b)
{
    cdyn_builder_mark m = {b->nbody, b->ngeom, b->nvert, b->npair};
    return m;
}

void cdyn_builder_rollback(cdyn_builder *b, cdyn_builder_mark m)
{
    b->nbody = m.nbody;
    b->ngeom = m.ngeom;
    b->nvert = m.nvert;
    b->npair = m.npair;
}

int cdyn_builder_dim(const cdyn_builder *b)
{
    return b->dim;
}

const cdyn_allocator *cdyn_builder_allocator(const cdyn_builder *b)
{
    return b->allocator;
}
