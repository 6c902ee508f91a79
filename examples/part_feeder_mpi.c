/* The part feeder's design sweep distributed with MPI: a G x G grid of tab positions (x_p, y_p)
 * over the paper's box 4.75 <= x_p, y_p <= 5.25, palm at 1.7 (Song-Kumar-Pang Fig. 6b; scene and
 * cost in part_feeder_model.h), each point an IVP. Rank r evaluates the points i = r, r + P, ...;
 * the results are summed onto rank 0 (every other entry is an exact zero, so the sum is the
 * value itself), which writes them and the best design. The evaluations do not depend on which
 * rank runs them, so the CSV is the same for any number of ranks: scripts/run-examples.sh runs
 * 1 and 2 ranks and compares the files byte for byte.
 *
 *   mpirun -np P part_feeder_mpi [--grid G] [--csv FILE]
 */
#include "part_feeder_model.h"

#include <mpi.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { NVAL = 5 }; /* cost, x, y, theta, status */

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1, grid = 9;
    const char *csv = NULL;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--grid") == 0 && i + 1 < argc) {
            grid = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--csv") == 0 && i + 1 < argc) {
            csv = argv[++i];
        } else {
            if (rank == 0)
                fprintf(stderr, "usage: part_feeder_mpi [--grid G] [--csv FILE]\n");
            MPI_Finalize();
            return 2;
        }
    }
    if (grid < 2 || grid > 101) {
        if (rank == 0)
            fprintf(stderr, "part_feeder_mpi: --grid between 2 and 101\n");
        MPI_Finalize();
        return 2;
    }
    const int n = grid * grid;
    double *mine = calloc((size_t)n * NVAL, sizeof(double));
    double *all = calloc((size_t)n * NVAL, sizeof(double));
    if (mine == NULL || all == NULL) {
        fprintf(stderr, "part_feeder_mpi: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    /* The output file is opened before the sweep, so a path that cannot be written stops every
       rank at once instead of after minutes of work. */
    FILE *f = NULL;
    int cannot = 0;
    if (rank == 0 && csv != NULL && (f = fopen(csv, "w")) == NULL) {
        fprintf(stderr, "part_feeder_mpi: cannot write %s: %s\n", csv, strerror(errno));
        cannot = 1;
    }
    MPI_Bcast(&cannot, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (cannot) {
        free(mine);
        free(all);
        MPI_Finalize();
        return 1;
    }
    const double t0 = MPI_Wtime();
    for (int i = rank; i < n; i += size) {
        const double xp = 4.75 + 0.5 * (i % grid) / (grid - 1);
        const double yp = 4.75 + 0.5 * (i / grid) / (grid - 1);
        pf_result r;
        pf_run(xp, yp, PF_PALM_B_X, 1, NULL, &r);
        double *v = mine + (size_t)i * NVAL;
        v[0] = pf_cost(&r);
        v[1] = r.x, v[2] = r.y, v[3] = r.theta, v[4] = (double)r.st;
    }
    const double elapsed = MPI_Wtime() - t0;
    MPI_Reduce(mine, all, n * NVAL, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    double slowest = 0;
    MPI_Reduce(&elapsed, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    int bad = 0;
    if (rank == 0) {
        if (f != NULL)
            fprintf(f, "xp,yp,cost,x,y,theta,status\n");
        int best = 0, failed = 0;
        for (int i = 0; i < n; i++) {
            const double *v = all + (size_t)i * NVAL;
            failed += v[4] != 0;
            if (v[0] < all[(size_t)best * NVAL])
                best = i;
            if (f != NULL)
                fprintf(f, "%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%d\n",
                        4.75 + 0.5 * (i % grid) / (grid - 1), 4.75 + 0.5 * (i / grid) / (grid - 1),
                        v[0], v[1], v[2], v[3], (int)v[4]);
        }
        if (f != NULL && fclose(f) != 0) {
            fprintf(stderr, "part_feeder_mpi: write error in %s\n", csv);
            bad = 1;
        }
        const double *v = all + (size_t)best * NVAL;
        printf("%d x %d designs on %d rank(s) in %.2f s: best (x_p, y_p) = (%.4f, %.4f), cost %.4g "
               "(rests at x = %.4f, orientation %.4f rad); %d runs failed\n",
               grid, grid, size, slowest, 4.75 + 0.5 * (best % grid) / (grid - 1),
               4.75 + 0.5 * (best / grid) / (grid - 1), v[0], v[1], pf_wrap(v[3]), failed);
        bad |= failed > 0;
    }
    free(mine);
    free(all);
    MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return bad;
}
