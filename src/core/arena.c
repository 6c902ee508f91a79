#include "core/arena.h"

#include "core/memory.h"

#include <stdint.h>

/* Every overflow block carries its size and list links in front: release keeps the count right,
 * and reset frees the blocks nobody released (per-step arrays of the schemes). */
typedef union arena_header {
    struct {
        size_t size;
        union arena_header *prev, *next;
    } h;
    max_align_t align;
} arena_header;

static void *arena_alloc(void *ctx, size_t size)
{
    cdyn_arena *a = ctx;
    const size_t align = sizeof(max_align_t);
    if (size > SIZE_MAX - align)
        return NULL;
    size_t rounded = (size + align - 1) / align * align;
    if (a->block != NULL && rounded <= a->size - a->used) {
        void *p = a->block + a->used;
        a->used += rounded;
        if (a->used + a->overflow > a->peak)
            a->peak = a->used + a->overflow;
        return p;
    }
    if (rounded > SIZE_MAX - sizeof(arena_header))
        return NULL;
    arena_header *hd = cdyn_mem_alloc(a->parent, sizeof(arena_header) + rounded);
    if (hd == NULL)
        return NULL;
    hd->h.size = rounded;
    hd->h.prev = NULL;
    hd->h.next = a->list;
    if (a->list != NULL)
        ((arena_header *)a->list)->h.prev = hd;
    a->list = hd;
    a->overflow += rounded;
    if (a->used + a->overflow > a->peak)
        a->peak = a->used + a->overflow;
    return hd + 1;
}

static void arena_release(void *ctx, void *ptr)
{
    cdyn_arena *a = ctx;
    if (ptr == NULL)
        return;
    char *p = ptr;
    if (a->block != NULL && p >= a->block && p < a->block + a->size)
        return; /* bump memory: freed all at once by the next reset */
    arena_header *hd = (arena_header *)ptr - 1;
    if (hd->h.prev != NULL)
        hd->h.prev->h.next = hd->h.next;
    else
        a->list = hd->h.next;
    if (hd->h.next != NULL)
        hd->h.next->h.prev = hd->h.prev;
    a->overflow -= hd->h.size;
    cdyn_mem_free(a->parent, hd);
}

void cdyn_arena_init(cdyn_arena *a, const cdyn_allocator *parent)
{
    a->parent = parent;
    a->block = NULL;
    a->list = NULL;
    a->size = a->used = a->peak = a->overflow = 0;
    a->as.alloc = arena_alloc;
    a->as.release = arena_release;
    a->as.ctx = a;
}

static void free_overflow(cdyn_arena *a)
{
    while (a->list != NULL) {
        arena_header *hd = a->list;
        a->list = hd->h.next;
        cdyn_mem_free(a->parent, hd);
    }
    a->overflow = 0;
}

int cdyn_arena_reset(cdyn_arena *a)
{
    free_overflow(a);
    a->used = 0;
    if (a->peak <= a->size)
        return 0;
    /* Room for the peak and some slack, so that slightly larger problems do not regrow. */
    size_t want = a->peak + a->peak / 4;
    char *grown = cdyn_mem_alloc(a->parent, want);
    if (grown == NULL)
        return -1;
    cdyn_mem_free(a->parent, a->block);
    a->block = grown;
    a->size = want;
    a->peak = 0;
    return 0;
}

void cdyn_arena_destroy(cdyn_arena *a)
{
    free_overflow(a);
    cdyn_mem_free(a->parent, a->block);
    a->block = NULL;
    a->size = a->used = a->peak = 0;
}
