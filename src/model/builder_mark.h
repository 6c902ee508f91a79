/* Internal: what a module that adds many elements through the public builder calls (the URDF
 * loader) needs to keep its call all or nothing: the builder's sizes at one moment and a rollback
 * to them, and the builder's dimension and allocator. */
#ifndef CDYN_MODEL_BUILDER_MARK_H
#define CDYN_MODEL_BUILDER_MARK_H

#include "cdyn/model.h"

typedef struct cdyn_builder_mark {
    int nbody, ngeom, nvert, npair;
} cdyn_builder_mark;

cdyn_builder_mark cdyn_builder_get_mark(const cdyn_builder *builder);

/* Drop every element added after `mark` (elements only ever refer to earlier ones, so the
 * builder is then exactly as it was; the grown capacity stays). */
void cdyn_builder_rollback(cdyn_builder *builder, cdyn_builder_mark mark);

int cdyn_builder_dim(const cdyn_builder *builder);
const cdyn_allocator *cdyn_builder_allocator(const cdyn_builder *builder);

#endif
