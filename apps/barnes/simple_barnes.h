/* simple_barnes: Barnes-Hut gravitational N-body simulation in 3D (paper
 * 003's Barnes-Hut, Figure 6; SPLASH-2's Barnes) with every thread of the
 * job, the oct-tree's cells read through the node-shared object cache
 * (include/simple/shobj.h).
 *
 * Each step:
 *   1. every thread has every body's position (simple_allgatherv) and sorts
 *      the bodies by their Morton key in the bounding cube (the same order
 *      everywhere); thread t takes the t-th of p contiguous blocks, a
 *      contiguous range of keys;
 *   2. thread t cuts its key range into the largest aligned oct-tree cells
 *      inside it (its branch cells) and builds their subtrees; every cell
 *      becomes one shared value holding its eight children's summaries
 *      (mass, centre of mass, box, and the child's name or body), so nearby
 *      tree nodes travel together (the paper's grouping);
 *   3. the branch cells' summaries are gathered on every thread, and each
 *      builds the few cells above them (the top of the tree) itself;
 *   4. bodies are walked in groups of up to 16 consecutive bodies: one walk
 *      per group builds an interaction list (cells far enough from the
 *      group's box by the opening angle theta, and bodies), each opened
 *      cell read through simple_shobj_read (a remote cell is fetched once
 *      per node and then hit), then each body of the group sums its list;
 *   5. leapfrog (kick, drift, kick) on the thread's bodies.
 * Forces are Newton's with Plummer softening eps (G = 1), monopoles.
 *
 * Cost per step: the sort O(n log n) on every thread, the tree O(n/p log n)
 * per thread, the walk O((n/p) log n / theta^3) per thread plus one fetch
 * per remote cell a node opens, one allgatherv of 72 n bytes.
 */
#ifndef SIMPLE_BARNES_H
#define SIMPLE_BARNES_H

#include <simple.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SIMPLE_BARNES_MAX_BODIES 10000000

typedef struct {
  int bodies;           /* n, >= 2 (default 25000, the paper's) */
  int steps;            /* time steps (default 2) */
  double dt;            /* time step (default 0.025) */
  double theta;         /* opening angle, (0, 1.2] (default 0.5) */
  double eps;           /* softening (default 0.025) */
  unsigned seed;        /* the Plummer model's draw (default 1) */
  int per_thread_cache; /* 1: one cache per thread (for comparison), default 0 */
} simple_barnes_opts_t;

typedef struct {
  double p_start[3], p_end[3]; /* total momentum */
  double p_scale;              /* sum of m |v| at the end: momentum's scale */
  double time_s;               /* the steps' wall time (max over threads) */
  simple_shobj_stats_t cache;  /* this node's shared-object counters over the run */
} simple_barnes_result_t;

/* Collective over every thread of the job. pos, acc (if not NULL) get the
 * final positions and the accelerations at them (3 n doubles each, by body)
 * on every thread that passes them. Errors: SIMPLE_ERR_ARG for bodies < 2
 * or > SIMPLE_BARNES_MAX_BODIES, steps < 0, dt, theta or eps out of range
 * (the same on every thread); SIMPLE_ERR_NOMEM; the shared-object layer's. */
int simple_barnes(simple_t *s, const simple_barnes_opts_t *opts, simple_barnes_result_t *res,
                  double *pos, double *acc);

/* The initial bodies (the Plummer model of opts->seed): 3 n positions, 3 n
 * velocities, n masses; for checking. */
int simple_barnes_bodies(const simple_barnes_opts_t *opts, double *pos, double *vel, double *mass);

/* The direct O(n) sum of the acceleration on body i from every other
 * body (softened as simple_barnes): the reference of the check. */
void simple_barnes_direct(int n, const double *pos, const double *mass, double eps, int i,
                          double a[3]);

#ifdef __cplusplus
}
#endif

#endif
