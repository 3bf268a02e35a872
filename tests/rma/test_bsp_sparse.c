/* The classic all-gather of a sparse vector with BSMP, bsp_init style:
 * each processor owns the nonzeros of a global vector of length n whose
 * index is = its pid mod p (and a multiple of 3), sends each of them to
 * every processor with the index as the tag, and every processor builds
 * the dense vector from its queue (bsp_get_tag + bsp_move for the first
 * half of the messages, bsp_hpmove for the rest). Checked against the
 * definition of the vector. */
#include <stdlib.h>
#include <string.h>

#include "bsp_check.h"

static int n = 5000;

static double value(int i) { return 0.5 * i + 1; }
static int nonzero(int i) { return i % 3 == 0; }

static void spmd(void) {
  bsp_begin(bsp_nprocs());
  int p = bsp_nprocs(), s = bsp_pid();
  int tagsize = sizeof(int);
  bsp_set_tagsize(&tagsize);
  BSP_CHECK(tagsize == 0); /* the tag size in force before */
  bsp_sync();
  int nmsg = -1, nbytes = -1;
  bsp_qsize(&nmsg, &nbytes);
  BSP_CHECK(nmsg == 0 && nbytes == 0);

  for (int i = s; i < n; i += p) {
    if (!nonzero(i)) continue;
    double v = value(i);
    for (int t = 0; t < p; t++) bsp_send(t, &i, &v, sizeof v);
  }
  bsp_sync();
  int expect = 0;
  for (int i = 0; i < n; i++) expect += nonzero(i);
  bsp_qsize(&nmsg, &nbytes);
  BSP_CHECK(nmsg == expect);
  BSP_CHECK(nbytes == expect * (int)sizeof(double));

  double *dense = calloc((size_t)n, sizeof(double));
  for (int k = 0; k < nmsg; k++) {
    int tag = -1, status = -2;
    if (k < nmsg / 2) {
      bsp_get_tag(&status, &tag);
      BSP_CHECK(status == (int)sizeof(double));
      BSP_CHECK(tag >= 0 && tag < n && nonzero(tag));
      double v;
      bsp_move(&v, sizeof v);
      dense[tag] = v;
    } else {
      void *tp, *pp;
      status = bsp_hpmove(&tp, &pp);
      BSP_CHECK(status == (int)sizeof(double));
      memcpy(&tag, tp, sizeof tag);
      BSP_CHECK(tag >= 0 && tag < n && nonzero(tag));
      memcpy(&dense[tag], pp, sizeof(double));
    }
  }
  int status = 0;
  bsp_get_tag(&status, NULL);
  BSP_CHECK(status == -1);
  for (int i = 0; i < n; i++) BSP_CHECK(dense[i] == (nonzero(i) ? value(i) : 0.0));
  /* Messages last one superstep only. */
  bsp_sync();
  bsp_qsize(&nmsg, &nbytes);
  BSP_CHECK(nmsg == 0);
  free(dense);
  bsp_end();
}

int main(int argc, char **argv) {
  bsp_init(spmd, argc, argv);
  if (argc > 1) n = atoi(argv[1]);
  spmd();
  return 0;
}
