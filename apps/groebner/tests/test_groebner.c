/* simple_groebner on every layout: cyclic-4, katsura-4, cyclic-5, katsura-1
 * and the Arnborg-Lazard system give a reduced Groebner basis (monic,
 * reduced, every S-pair reducing to zero), equal to the sequential run's
 * and not {1} (these systems have solutions); Lazard's basis has the shape
 * an independent computer algebra system gives (SymPy 1.14's groebner over
 * GF(32003), grevlex x > y > z, which agrees term by term): 15 polynomials
 * whose leading monomials are the 15 monomials of degree 4, each with all
 * 20 monomials of degree <= 3 as its other terms; bad arguments. */
#include "harness.h"
#include "simple_groebner.h"

static void spmd(simple_t *s, void *arg) {
  (void)arg;
  struct {
    simple_groebner_system_t sys;
    int n;
  } cases[] = {{SIMPLE_GROEBNER_CYCLIC, 4},
               {SIMPLE_GROEBNER_KATSURA, 4},
               {SIMPLE_GROEBNER_CYCLIC, 5},
               {SIMPLE_GROEBNER_KATSURA, 1},
               {SIMPLE_GROEBNER_LAZARD, 3}};
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    simple_groebner_result_t r, q;
    CHECK_OK(simple_groebner(s, cases[k].sys, cases[k].n, &r));
    CHECK(r.npolys >= 1);
    /* Not the unit ideal: these systems have solutions. */
    CHECK(!(r.npolys == 1 && r.polys[0]->nterms == 1));
    if (simple_pid(s) == 0) {
      CHECK(simple_groebner_is_reduced_basis(r.polys, r.npolys));
      CHECK_OK(simple_groebner_seq(cases[k].sys, cases[k].n, &q));
      CHECK(simple_groebner_equal(&r, &q));
      simple_groebner_free(&q);
    }
    if (cases[k].sys == SIMPLE_GROEBNER_LAZARD) {
      CHECK_EQ(r.npolys, 15);
      int lead_deg4 = 1, seen = 0;
      for (int i = 0; i < r.npolys && i < 15; i++) {
        const uint8_t *e = r.polys[i]->t[0].e;
        lead_deg4 &= e[0] + e[1] + e[2] == 4 && r.polys[i]->nterms == 21;
        seen |= 1 << (e[0] * 5 + e[1]); /* distinct (x, y) exponents: distinct monomials */
      }
      CHECK(lead_deg4);
      CHECK_EQ(__builtin_popcount((unsigned)seen), 15);
    }
    /* Every thread has the same basis: its size and first terms agree. */
    int sz[2] = {r.npolys, r.npolys}, lo;
    CHECK_OK(simple_allreduce(s, &sz[0], &lo, 1, SIMPLE_INT32, SIMPLE_MIN));
    CHECK_EQ(lo, sz[1]);
    simple_groebner_free(&r);
  }
  simple_groebner_result_t r;
  CHECK_RC(simple_groebner(s, SIMPLE_GROEBNER_CYCLIC, 1, &r), SIMPLE_ERR_ARG);
  CHECK_RC(simple_groebner(s, SIMPLE_GROEBNER_KATSURA, SIMPLE_GROEBNER_MAXV, &r), SIMPLE_ERR_ARG);
  CHECK_RC(simple_groebner(s, (simple_groebner_system_t)7, 3, &r), SIMPLE_ERR_ARG);
  CHECK_RC(simple_groebner(s, SIMPLE_GROEBNER_LAZARD, 4, &r), SIMPLE_ERR_ARG);
  CHECK_RC(simple_groebner(s, SIMPLE_GROEBNER_CYCLIC, 4, NULL), SIMPLE_ERR_NULL);
}

TEST_MAIN(spmd)
