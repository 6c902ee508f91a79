#include "core/memory.h"

#include <stdint.h>
#include <stdlib.h>

void *cdyn_mem_alloc(const cdyn_allocator *a, size_t size)
{
    if (size == 0)
        size = 1; /* a zero-size request is still a distinct, freeable block */
    if (a != NULL && a->alloc != NULL)
        return a->alloc(a->ctx, size);
    return malloc(size);
}

void *cdyn_mem_array(const cdyn_allocator *a, size_t count, size_t elem_size)
{
    if (elem_size != 0 && count > SIZE_MAX / elem_size)
        return NULL;
    return cdyn_mem_alloc(a, count * elem_size);
}

void cdyn_mem_free(const cdyn_allocator *a, void *ptr)
{
    if (ptr == NULL)
        return;
    if (a != NULL && a->release != NULL)
        a->release(a->ctx, ptr);
    else
        free(ptr);
}

size_t cdyn_mem_matrix_len(size_t rows, size_t cols)
{
    if (cols != 0 && rows > SIZE_MAX / sizeof(double) / cols)
        return 0;
    return rows * cols;
}
