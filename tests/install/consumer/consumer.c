/* A program outside the project: solves a 2x2 LCP through the installed cdyn.
 * M = [2 1; 1 2], q = (-5, -6): both z positive, so M z = -q gives z = (4/3, 7/3). */
#include <math.h>
#include <stdio.h>

#include <cdyn/cdyn.h>

int main(void)
{
    const double M[4] = {2.0, 1.0, 1.0, 2.0};
    const double q[2] = {-5.0, -6.0};
    const cdyn_lcp lcp = {2, M, q};
    double z[2], w[2];
    cdyn_report report;
    cdyn_status st = cdyn_lcp_solve(&lcp, NULL, z, w, &report);
    printf("cdyn %s: %s, z = (%.6f, %.6f)\n", cdyn_version(), cdyn_status_str(st), z[0], z[1]);
    if (st != CDYN_OK || fabs(z[0] - 4.0 / 3.0) > 1e-12 || fabs(z[1] - 7.0 / 3.0) > 1e-12)
        return 1;
    return 0;
}
