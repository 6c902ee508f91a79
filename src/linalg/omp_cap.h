/* Internal: run a call with a cap on the OpenMP threads that the libraries it calls may start.
 *
 * CHOLMOD's supernodal factorization (SuiteSparse 5.12) has OpenMP regions with a fixed
 * num_threads(CHOLMOD_OMP_NUM_THREADS) clause (4 in Debian's build): the clause overrides
 * omp_set_num_threads and OMP_NUM_THREADS, and only the thread-limit-var ICV (OMP_THREAD_LIMIT)
 * caps it. A library must not change process-wide state, so cdyn sets the ICV for the calling
 * thread only, for the duration of the call: the call runs inside a host teams region of one
 * team with thread_limit(cap) (OpenMP 5.0), whose ICV the regions nested in it obey; the
 * previous value is back when the region ends. This works when cdyn is compiled by GCC, whose
 * OpenMP runtime (libgomp) is the one Debian's CHOLMOD uses; CDYN_HAVE_OMP_CAP says so (set by
 * src/CMakeLists.txt). Without it the callers avoid the OpenMP regions instead (sparse_chol.c
 * then factors simplicially, which has none). OpenMP 5.0 allows a host teams region only outside
 * any parallel region; libgomp (GCC 12) also runs one inside a caller's parallel region, with the
 * same effect (checked by hand: two threads of a caller's region each factoring under the cap, no
 * thread started, the caller's later regions unaffected), but that is libgomp's behaviour, not
 * the standard's.
 *
 * Thread safety: reentrant; the cap is per calling thread. */
#ifndef CDYN_LINALG_OMP_CAP_H
#define CDYN_LINALG_OMP_CAP_H

/* 1 when cdyn_omp_capped can cap the OpenMP team sizes, 0 when it only calls fn. */
int cdyn_omp_cap_available(void);

/* fn(arg) with every OpenMP parallel region it starts limited to cap threads in total (the
 * calling thread included); cap >= 1. */
void cdyn_omp_capped(int cap, void (*fn)(void *), void *arg);

#endif
