/* Internal: the frictional contact file object shared by the text and FCLib readers. */
#ifndef CDYN_IO_FC3D_FILE_H
#define CDYN_IO_FC3D_FILE_H

#include <stddef.h>

#include "cdyn/fc3d.h"

/* A new file object for n contacts with every number zero and comment "": dense (W 3n x 3n)
 * when nblocks < 0, else nblocks blocks (rowptr, colind and values). One allocation, plus one
 * for the comment. NULL when out of memory or when the sizes overflow (*too_big set). */
cdyn_fc3d_file *cdyn_fc3d_file_new(const cdyn_allocator *allocator, int dim, int n,
                                   long long nblocks, int *too_big);

/* Replace the comment by text[0..len) (NUL-terminated copy). 0 when out of memory. */
int cdyn_fc3d_file_set_comment(cdyn_fc3d_file *file, const char *text, size_t len);

/* A planar file (dim 2) as a 3-D problem: the second tangent of every contact gets
 * W_T2T2 = W_T1T1 (or W_NN, or 1 when those are not positive) and no coupling, so r_T2 = 0
 * exactly and the solvers' per-contact scaling sees the contact's own scale. Call once W is
 * read (for blocks, every diagonal block must exist). */
void cdyn_fc3d_file_decouple_planar(cdyn_fc3d_file *file);

/* Ints of work cdyn_fc3d_sort_blocks needs (0 when the count overflows). */
size_t cdyn_fc3d_sort_work(int n, int nblocks);

/* Blocks grouped by block row in any column order (rowptr n + 1, col rowptr[n], no column
 * twice in a row) to the same rows with columns increasing: colind_out[dest[k]] = col[k].
 * Linear time: a bucket pass by column, then one by row. */
void cdyn_fc3d_sort_blocks(int n, const int *rowptr, const int *col, int *colind_out, int *dest,
                           int *work);

#endif
