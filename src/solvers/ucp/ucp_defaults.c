/* The UCP options' defaults (cdyn_ucp_defaults in cdyn/ucp.h), in a file of their own: the
 * entry steps in ucp_build.c (cdyn_ucp_prepare) start from them, and the algorithm in ucp.c
 * calls those steps: the calls between the two files run one way. */
#include "cdyn/ucp.h"

#include <stddef.h>

void cdyn_ucp_defaults(cdyn_ucp_options *opts)
{
    if (opts == NULL)
        return;
    opts->comp_tol = 1e-10;
    opts->max_pairs = 200;
    opts->max_restarts = 20;
    opts->escape = CDYN_UCP_ESCAPE_PAPER;
    opts->seed = 1;
    opts->max_adjacent = 512;
    cdyn_lp_defaults(&opts->lp);
    opts->allocator = NULL;
}
