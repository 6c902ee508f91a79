/* Random feasible quasistatic problems in the manner of Pang–Trinkle–Lo, Section 5: a planar
 * object touched by nc point fingers with two revolute joints each (ntheta = 2 nc, nq = 3).
 * Y is made nonempty by choosing a force inside the friction cones first and deriving g_obj and
 * g_man from equations (2)-(3); X by choosing an object velocity and v_n >= 0 first and deriving
 * the joint velocities from (4), which keeps X nonempty for every alpha. */
#include "cdyn/ucp.h"

#include <math.h>
#include <string.h>

#include "core/carve.h"
#include "core/memory.h"
#include "core/report.h"

#define ELLIPSE_A 1.0
#define ELLIPSE_B 0.7
#define UCP_PI 3.14159265358979323846

static double unif(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return (double)((x * 0x2545F4914F6CDD1Dull) >> 11) * 0x1.0p-53;
}

static double range(uint64_t *s, double lo, double hi)
{
    return lo + (hi - lo) * unif(s);
}

void cdyn_ucp_instance_free(cdyn_ucp_instance *instance)
{
    if (instance != NULL)
        cdyn_mem_free(instance->allocator_, instance->block_);
}

cdyn_status cdyn_ucp_random(const cdyn_ucp_random_spec *spec, const cdyn_allocator *allocator,
                            cdyn_ucp_instance **out, cdyn_report *report)
{
    cdyn_report_clear(report, "ucp-random");
    if (out == NULL)
        return cdyn_fail(report, CDYN_EINVAL, "ucp_random: NULL output");
    *out = NULL;
    if (spec == NULL)
        return cdyn_fail(report, CDYN_EINVAL, "ucp_random: NULL spec");
    if (spec->nc < 1 || spec->nc > 10000)
        return cdyn_fail(report, CDYN_EINVAL, "ucp_random: nc = %d (need 1..10000)", spec->nc);
    if (!(spec->mu_max > 0.0) || !isfinite(spec->mu_max))
        return cdyn_fail(report, CDYN_EINVAL, "ucp_random: mu_max must be finite and > 0");
    if ((unsigned)spec->finger > (unsigned)CDYN_UCP_FINGER_CONTACT_FRAME)
        return cdyn_fail(report, CDYN_EINVAL, "ucp_random: unknown finger model %d",
                         (int)spec->finger);
    const int nc = spec->nc, nq = 3, nt = 2 * nc;
    if (spec->n_alpha < 0 || spec->n_alpha > nt)
        return cdyn_fail(report, CDYN_EINVAL, "ucp_random: n_alpha = %d (need 0..%d)",
                         spec->n_alpha, nt);

    cdyn_carve cv = {sizeof(cdyn_ucp_instance), 0};
    size_t JJ = cdyn_carve_mul(&cv, (size_t)nc, (size_t)nt);
    size_t oWn = cdyn_carve_take(&cv, (size_t)(nq * nc), sizeof(double));
    size_t oWt = cdyn_carve_take(&cv, (size_t)(nq * nc), sizeof(double));
    size_t oJn = cdyn_carve_take(&cv, JJ, sizeof(double));
    size_t oJt = cdyn_carve_take(&cv, JJ, sizeof(double));
    size_t omu = cdyn_carve_take(&cv, (size_t)nc, sizeof(double));
    size_t oal = cdyn_carve_take(&cv, (size_t)nt, sizeof(int));
    size_t oth = cdyn_carve_take(&cv, (size_t)nt, sizeof(double));
    size_t otau = cdyn_carve_take(&cv, (size_t)nt, sizeof(double));
    size_t ogo = cdyn_carve_take(&cv, (size_t)nq, sizeof(double));
    size_t ogm = cdyn_carve_take(&cv, (size_t)nt, sizeof(double));
    size_t owx = cdyn_carve_take(&cv, (size_t)(3 * nc), sizeof(double));
    size_t owy = cdyn_carve_take(&cv, (size_t)(3 * nc), sizeof(double));
    size_t oct = cdyn_carve_take(&cv, (size_t)(2 * nc), sizeof(double));
    size_t operm = cdyn_carve_take(&cv, (size_t)nt, sizeof(int));
    if (cv.overflow)
        return cdyn_fail(report, CDYN_ENOMEM, "ucp_random: out of memory");
    char *blk = cdyn_mem_alloc(allocator, cv.off);
    if (blk == NULL)
        return cdyn_fail(report, CDYN_ENOMEM, "ucp_random: out of memory");
    memset(blk, 0, cv.off);
    cdyn_ucp_instance *inst = (cdyn_ucp_instance *)blk;
    double *Wn = (double *)(blk + oWn), *Wt = (double *)(blk + oWt);
    double *Jn = (double *)(blk + oJn), *Jt = (double *)(blk + oJt), *mu = (double *)(blk + omu);
    int *alpha = (int *)(blk + oal), *perm = (int *)(blk + operm);
    double *th = (double *)(blk + oth), *tau = (double *)(blk + otau);
    double *g_obj = (double *)(blk + ogo), *g_man = (double *)(blk + ogm);
    double *wx = (double *)(blk + owx), *wy = (double *)(blk + owy), *pts = (double *)(blk + oct);

    uint64_t rng = spec->seed ? spec->seed : 0x9E3779B97F4A7C15ull;
    double qdot[3];
    for (int k = 0; k < 3; ++k)
        qdot[k] = range(&rng, -1.0, 1.0);
    for (int i = 0; i < nc; ++i) {
        /* contact point on the ellipse, inward normal n, tangent t with n x t = +1 */
        double phi = range(&rng, 0.0, 2.0 * UCP_PI);
        double rx = ELLIPSE_A * cos(phi), ry = ELLIPSE_B * sin(phi);
        double ox = cos(phi) / ELLIPSE_A, oy = sin(phi) / ELLIPSE_B, on = hypot(ox, oy);
        ox /= on, oy /= on;
        double nx = -ox, ny = -oy, tx = -ny, ty = nx;
        pts[2 * i] = rx, pts[2 * i + 1] = ry;
        Wn[0 + 3 * i] = nx, Wn[1 + 3 * i] = ny, Wn[2 + 3 * i] = rx * ny - ry * nx;
        Wt[0 + 3 * i] = tx, Wt[1 + 3 * i] = ty, Wt[2 + 3 * i] = rx * ty - ry * tx;

        /* finger Jacobian J_w (world tip velocity per joint rate, 2x2) */
        double J00, J01, J10, J11;
        if (spec->finger == CDYN_UCP_FINGER_CONTACT_FRAME) {
            J00 = nx, J10 = ny, J01 = tx, J11 = ty; /* joint 2i along n, joint 2i+1 along t */
        } else {
            /* two links whose tip is at the contact, base outside along a tilted normal */
            double l1 = range(&rng, 0.8, 1.2), l2 = range(&rng, 0.8, 1.2);
            double D = range(&rng, 0.55, 0.9) * (l1 + l2);
            double psi = range(&rng, -UCP_PI / 3, UCP_PI / 3);
            double dx = ox * cos(psi) - oy * sin(psi), dy = ox * sin(psi) + oy * cos(psi);
            double px = -D * dx, py = -D * dy; /* tip relative to the base */
            double c2 = (D * D - l1 * l1 - l2 * l2) / (2.0 * l1 * l2);
            double q2 = acos(fmax(-1.0, fmin(1.0, c2))) * (unif(&rng) < 0.5 ? -1.0 : 1.0);
            double q1 = atan2(py, px) - atan2(l2 * sin(q2), l1 + l2 * cos(q2));
            double s1 = sin(q1), c1 = cos(q1), s12 = sin(q1 + q2), c12 = cos(q1 + q2);
            J00 = -l1 * s1 - l2 * s12, J01 = -l2 * s12, J10 = l1 * c1 + l2 * c12, J11 = l2 * c12;
        }
        int j0 = 2 * i, j1 = 2 * i + 1;
        int frame = spec->finger == CDYN_UCP_FINGER_CONTACT_FRAME; /* exact selection rows */
        Jn[i + (size_t)j0 * nc] = frame ? 1.0 : nx * J00 + ny * J10;
        Jn[i + (size_t)j1 * nc] = frame ? 0.0 : nx * J01 + ny * J11;
        Jt[i + (size_t)j0 * nc] = frame ? 0.0 : tx * J00 + ty * J10;
        Jt[i + (size_t)j1 * nc] = frame ? 1.0 : tx * J01 + ty * J11;

        /* friction and a force inside the cone */
        mu[i] = spec->mu_max * unif(&rng);
        double cn = range(&rng, 0.1, 1.0), ct = mu[i] * cn * range(&rng, -1.0, 1.0);
        wy[i] = cn, wy[nc + i] = ct + mu[i] * cn, wy[2 * nc + i] = mu[i] * cn - ct;

        /* velocities: v_n >= 0 and a random tip sliding speed fix the finger tip velocity u,
         * then the joint rates solve J_w thetadot = u */
        double vn = unif(&rng), ut = range(&rng, -1.0, 1.0);
        double wnq = nx * qdot[0] + ny * qdot[1] + Wn[2 + 3 * i] * qdot[2];
        double wtq = tx * qdot[0] + ty * qdot[1] + Wt[2 + 3 * i] * qdot[2];
        double un = wnq - vn, ux = un * nx + ut * tx, uy = un * ny + ut * ty;
        double det = J00 * J11 - J01 * J10;
        th[j0] = (J11 * ux - J01 * uy) / det;
        th[j1] = (-J10 * ux + J00 * uy) / det;
        double vt = wtq - ut;
        wx[i] = vn, wx[nc + i] = vt > 0.0 ? vt : 0.0, wx[2 * nc + i] = vt < 0.0 ? -vt : 0.0;
    }
    /* g_obj = -(Wn c_n + Wt c_t); tau random, g_man = tau - J^T c. */
    for (int k = 0; k < nq; ++k) {
        double acc = 0.0;
        for (int i = 0; i < nc; ++i) {
            double cn = wy[i], ct = wy[nc + i] - mu[i] * wy[i];
            acc += Wn[k + 3 * i] * cn + Wt[k + 3 * i] * ct;
        }
        g_obj[k] = -acc;
    }
    for (int j = 0; j < nt; ++j) {
        tau[j] = range(&rng, -1.0, 1.0);
        double acc = 0.0;
        for (int i = 0; i < nc; ++i) {
            double cn = wy[i], ct = wy[nc + i] - mu[i] * wy[i];
            acc += Jn[i + (size_t)j * nc] * cn + Jt[i + (size_t)j * nc] * ct;
        }
        g_man[j] = tau[j] - acc;
    }
    /* alpha: a random subset of n_alpha joints (partial Fisher-Yates shuffle) */
    for (int j = 0; j < nt; ++j)
        perm[j] = j;
    for (int k = 0; k < spec->n_alpha; ++k) {
        int r = k + (int)(unif(&rng) * (nt - k));
        if (r >= nt)
            r = nt - 1;
        int t = perm[k];
        perm[k] = perm[r];
        perm[r] = t;
        alpha[perm[k]] = 1;
    }

    inst->problem.nc = nc;
    inst->problem.nq = nq;
    inst->problem.ntheta = nt;
    inst->problem.Wn = Wn;
    inst->problem.Wt = Wt;
    inst->problem.Jn = Jn;
    inst->problem.Jt = Jt;
    inst->problem.mu = mu;
    inst->problem.alpha = alpha;
    inst->problem.theta_dot = th;
    inst->problem.tau = tau;
    inst->problem.g_obj = g_obj;
    inst->problem.g_man = g_man;
    inst->witness_x = wx;
    inst->witness_y = wy;
    inst->contacts = pts;
    inst->allocator_ = allocator;
    inst->block_ = blk;
    *out = inst;
    return CDYN_OK;
}
