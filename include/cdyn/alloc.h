/* cdyn — optional caller-supplied allocator.
 *
 * Every options struct that allocates carries a `const cdyn_allocator *allocator`;
 * NULL means the C library's malloc/free. The library never installs a global
 * allocator, so hosts that embed it keep control of memory per call. */
#ifndef CDYN_ALLOC_H
#define CDYN_ALLOC_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cdyn_allocator {
    void *(*alloc)(void *ctx, size_t size); /* return NULL on failure */
    void (*release)(void *ctx, void *ptr);  /* must accept NULL */
    void *ctx;
} cdyn_allocator;

#ifdef __cplusplus
}
#endif
#endif
