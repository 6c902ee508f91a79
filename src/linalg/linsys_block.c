/* The one allocation of a linear-system object: its header, filled from the spec, and the
 * backend's state after it. Apart from linsys.c, which dispatches to the backends, so that the
 * backends and the front do not call each other. */
#include "linalg/linsys_internal.h"

#include <math.h>
#include <stdint.h>

#include "core/memory.h"

cdyn_linsys *cdyn_linsys_block(const cdyn_linsys_spec *spec, size_t bytes)
{
    const size_t head = (sizeof(cdyn_linsys) + 15) / 16 * 16;
    if (bytes > SIZE_MAX - head)
        return NULL;
    cdyn_linsys *ls = cdyn_mem_alloc(spec->allocator, head + bytes);
    if (ls == NULL)
        return NULL;
    ls->ops = NULL;
    ls->allocator = spec->allocator;
    ls->kind = spec->kind;
    ls->n = spec->n;
    ls->rcond_min = spec->rcond_min;
    ls->refactor_rcond = spec->refactor_rcond;
    ls->max_abs = NAN;
    ls->dense_norms = spec->dense_norms;
    ls->dense_norms_ctx = spec->dense_norms_ctx;
    ls->be = (char *)ls + head;
    return ls;
}
