/* Internal: a bump allocator that stops allocating once it has seen its largest request set.
 * A stepper hands it to the backends (Lemke, FB-Newton, the cone QP) as their cdyn_allocator and
 * resets it before each solve; a request that does not fit the block goes to the parent allocator
 * and is remembered, and the next reset regrows the block to the peak seen, so that after a
 * first solve of each size nothing is allocated any more. Blocks need not be released: reset
 * and destroy free whatever is left (solvers release theirs; per-step arrays need not). */
#ifndef CDYN_CORE_ARENA_H
#define CDYN_CORE_ARENA_H

#include <stddef.h>

#include "cdyn/alloc.h"

typedef struct cdyn_arena {
    const cdyn_allocator *parent; /* NULL: malloc/free */
    char *block;
    size_t size, used;
    size_t peak;           /* largest total (block + overflow) since the last regrow */
    size_t overflow;       /* bytes currently taken from the parent outside the block */
    void *list;            /* the overflow blocks (a doubly linked list) */
    cdyn_allocator as;     /* the interface handed to solvers (ctx = this arena) */
} cdyn_arena;

/* An empty arena (no block yet); never fails. */
void cdyn_arena_init(cdyn_arena *a, const cdyn_allocator *parent);
/* Forget every allocation (freeing the overflow blocks) and, when the last round overflowed,
 * regrow the block to the peak. Returns 0, or -1 when regrowing failed (the arena stays usable, with overflow). */
int cdyn_arena_reset(cdyn_arena *a);
void cdyn_arena_destroy(cdyn_arena *a);

#endif
