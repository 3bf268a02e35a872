/* simple_groebner: Groebner bases by Buchberger's algorithm over the prime
 * field GF(32003) with every thread of the job (paper 003's Groebner
 * application, Figure 5), the basis held in shared objects
 * (include/simple/shobj.h) and read through the node-shared cache.
 *
 * Method: grevlex order; the normal selection strategy, all at once: each
 * round takes every pending pair of the lowest lcm degree, spreads them over
 * all threads (pair k to thread k mod p), and each thread reduces its
 * S-polynomials fully by the basis, whose polynomials it reads in place
 * through the cache (a polynomial homed on another node crosses the network
 * once per node). The non-zero remainders (shared values, their names
 * gathered) are added by thread 0 of node 0 in pair order, each reduced by
 * the basis and the ones added before it, then made monic; the new names
 * are broadcast and every thread forms the new pairs (Buchberger's first
 * criterion drops pairs with coprime leading monomials). At the end the
 * basis is made minimal and inter-reduced: the reduced Groebner basis,
 * which is unique, so the parallel and the sequential runs must agree.
 *
 * Systems: cyclic-n (n variables), katsura-n (n + 1 variables) and the
 * Arnborg-Lazard system (3 variables), the paper's input.
 */
#ifndef SIMPLE_GROEBNER_H
#define SIMPLE_GROEBNER_H

#include <stdint.h>

#include <simple.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SIMPLE_GROEBNER_PRIME 32003u
#define SIMPLE_GROEBNER_MAXV  12

/* One term: a coefficient in [1, p) and the exponents. 16 bytes. */
typedef struct {
  uint32_t coef;
  uint8_t e[SIMPLE_GROEBNER_MAXV];
} simple_groebner_term_t;

/* A polynomial: terms in decreasing grevlex order, no zero coefficient.
 * Allocated as one block (malloc): free() it. */
typedef struct {
  int32_t nterms, nvars;
  simple_groebner_term_t t[];
} simple_groebner_poly_t;

/* The input systems: cyclic-n (n variables), katsura-n (n + 1 variables),
 * and the Arnborg-Lazard system of the PoSSo test suite (3 variables, 3
 * equations of degrees 4, 5, 6: the "Lazard" input of paper 003's Figure
 * 5), whose n must be 3. */
typedef enum {
  SIMPLE_GROEBNER_CYCLIC,
  SIMPLE_GROEBNER_KATSURA,
  SIMPLE_GROEBNER_LAZARD
} simple_groebner_system_t;

typedef struct {
  int npolys;                     /* the reduced basis's size */
  simple_groebner_poly_t **polys; /* sorted by decreasing leading monomial; free with
                                     simple_groebner_free */
  long pairs, reductions_to_zero; /* pairs reduced, and how many gave 0 */
  double time_s;                  /* wall time (max over threads) */
  simple_shobj_stats_t cache;     /* this node's shared-object counters */
} simple_groebner_result_t;

/* The input system: *out gets npolys polynomials (free each, then the
 * array); n in 2..SIMPLE_GROEBNER_MAXV (cyclic), 1..MAXV-1 (katsura) or 3
 * (lazard); SIMPLE_ERR_ARG otherwise. O(n^3) time, O(n^2) terms. */
int simple_groebner_system(simple_groebner_system_t sys, int n, simple_groebner_poly_t ***out,
                           int *npolys);

/* Collective over every thread of the job: the reduced Groebner basis of
 * the system, on every thread. SIMPLE_ERR_ARG for a bad system or n. */
int simple_groebner(simple_t *s, simple_groebner_system_t sys, int n,
                    simple_groebner_result_t *res);

/* The same on one processor, no job needed: the sequential reference. */
int simple_groebner_seq(simple_groebner_system_t sys, int n, simple_groebner_result_t *res);

/* Checks that polys[0..k) is a reduced Groebner basis: monic, no term of
 * any divisible by another's leading monomial, and every S-polynomial
 * reducing to 0. Returns 1 if so. Sequential, O(k^2) reductions. */
int simple_groebner_is_reduced_basis(simple_groebner_poly_t *const *polys, int k);

/* 1 when the two bases are the same list of polynomials. */
int simple_groebner_equal(const simple_groebner_result_t *a, const simple_groebner_result_t *b);

void simple_groebner_free(simple_groebner_result_t *res);

#ifdef __cplusplus
}
#endif

#endif
