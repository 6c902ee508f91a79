/* Internal: allocation through the optional caller allocator, with overflow checks. */
#ifndef CDYN_CORE_MEMORY_H
#define CDYN_CORE_MEMORY_H

#include <stddef.h>

#include "cdyn/alloc.h"

/* NULL allocator means malloc/free. Both return NULL on size overflow or failure. */
void *cdyn_mem_alloc(const cdyn_allocator *a, size_t size);
void *cdyn_mem_array(const cdyn_allocator *a, size_t count, size_t elem_size);
void cdyn_mem_free(const cdyn_allocator *a, void *ptr);

/* Number of doubles in an n-by-m matrix, or 0 when it would overflow size_t. */
size_t cdyn_mem_matrix_len(size_t rows, size_t cols);

#endif
