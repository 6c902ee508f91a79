/* Internal: adding one entry to a Newton-matrix sink (implicit_ncp_form.h, ncp_sink), inline
 * for the assembly loops of implicit_ncp_jac.c and implicit_limits.c — a header of its own so
 * that neither file depends on the other for it. */
#ifndef CDYN_STEP_IMPLICIT_NCP_SINK_H
#define CDYN_STEP_IMPLICIT_NCP_SINK_H

#include "linalg/csc.h"
#include "step/implicit_ncp_form.h"

/* Add v at (i, j) of the sink (NULL: not wanted). */
static inline void ncp_sink_put(ncp_sink *s, int i, int j, double v)
{
    if (s == NULL)
        return;
    switch (s->mode) {
    case NCP_SINK_DENSE:
        s->dense[(size_t)i + (size_t)j * s->ld] += v;
        break;
    case NCP_SINK_CSC: {
        const int p = cdyn_csc_find(s->colptr, s->rowind, i, j);
        if (p >= 0)
            s->values[p] += v;
        else
            s->missing++;
        break;
    }
    case NCP_SINK_SEQ:
        s->values[s->n++] = v;
        break;
    default:
        if (s->ti != NULL) {
            s->ti[s->n] = i;
            s->tj[s->n] = j;
        }
        s->n++;
        break;
    }
}

#endif
