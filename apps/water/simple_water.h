/* simple_water: molecular dynamics of liquid water by the method of
 * SPLASH-2's Water-nsquared (paper 003's coarse-grained application,
 * Figure 4), with every thread of the job.
 *
 * Model: flexible three-site water (SPC-like charges -0.82 e on O and
 * +0.41 e on each H; Lennard-Jones between oxygens, sigma 3.166 A, epsilon
 * 0.1554 kcal/mol; harmonic O-H bonds and an H-H spring for the angle:
 * the intra-molecular forces), in a periodic cubic box at 1 g/cm^3.
 * Inter-molecular forces are summed over every pair of molecules whose
 * oxygens are closer than half the box (minimum image: the n-squared
 * method), smoothly switched off over the last angstrom before that cutoff
 * so that the total energy is a smooth function of the positions and is
 * conserved. Integration: Gear's fifth-order predictor-corrector, as
 * SPLASH-2's Water.
 *
 * Parallel method (SPLASH-2's): the molecules are split in p contiguous
 * blocks, one per thread (p = every thread of the job); thread t computes
 * the pairs (i, j) with i in its block and j among the n/2 molecules after
 * i (cyclically), adding both molecules' forces into a private array, and
 * the arrays are summed over all threads (simple_allreduce, 9 n doubles);
 * each thread then corrects and predicts its own molecules and the
 * positions are gathered on every thread (simple_allgatherv).
 *
 * Cost per step: n^2 / (2 p) pair tests (about 1/2 of them within the
 * cutoff, 9 site interactions each) + an allreduce of 72 n bytes + an
 * allgatherv of 72 n bytes.
 */
#ifndef SIMPLE_WATER_H
#define SIMPLE_WATER_H

#include <simple.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SIMPLE_WATER_MIN_MOLECULES 8
#define SIMPLE_WATER_MAX_MOLECULES 1000000

typedef struct {
  int molecules; /* n (default 1728 = 12^3, the paper's) */
  int steps;     /* time steps (default 5) */
  double dt;     /* time step in ps (default 0.0001: 0.1 fs) */
  unsigned seed; /* initial orientations and velocities (default 1) */
} simple_water_opts_t;

typedef struct {
  double e_start, e_end; /* total energy (kcal/mol) before the first and after the last step */
  double ke_end, pe_end; /* its kinetic and potential parts at the end */
  double drift;          /* |e_end - e_start| / ke_end: what conservation is judged by */
  double time_s;         /* the steps' wall time (max over threads) */
} simple_water_result_t;

/* Collective over every thread of the job: runs the simulation. pos, if
 * not NULL, gets the final site positions (9 n doubles: molecule by
 * molecule, O then H then H, x y z) on every thread that passes it.
 * Errors: SIMPLE_ERR_ARG for n outside [SIMPLE_WATER_MIN_MOLECULES,
 * SIMPLE_WATER_MAX_MOLECULES], steps < 0 or dt <= 0 (the same on every
 * thread); SIMPLE_ERR_NOMEM. */
int simple_water(simple_t *s, const simple_water_opts_t *opts, simple_water_result_t *res,
                 double *pos);

/* The same code on one processor, outside any job or inside one (no
 * communication): the reference the parallel run is checked against. */
int simple_water_seq(const simple_water_opts_t *opts, simple_water_result_t *res, double *pos);

#ifdef __cplusplus
}
#endif

#endif
