#include "coll/util_coll1.h"

#include <string.h>

#include "net/net.h"

int simple__c1_net_exscan(simple__node_t *n, int lane, void *part, void *res, void *tmp,
                          void *spare, size_t count, simple_type_t type, simple_op_t op) {
  int me = n->node, P = n->nodes, have = 0, rc = 0;
  size_t bytes = count * simple_type_size(type);
  unsigned char *pa = part, *re = res, *tm = tmp, *sp = spare, *x;
  for (int mask = 1; mask < P; mask <<= 1) {
    int partner = me ^ mask;
    if (partner >= P) continue; /* our block is the last; nobody above needs it */
    rc = simple__net_sendrecv(n, lane, pa, bytes, partner, tm, bytes, partner, SIMPLE__TAG_SCAN);
    if (rc) return rc;
    if (partner < me) {
      /* The partner's block lies just below ours: it goes on the left. */
      if (have) {
        memcpy(sp, tm, bytes);
        simple__op_apply(op, type, sp, re, count);
        x = re, re = sp, sp = x;
      } else {
        memcpy(re, tm, bytes);
        have = 1;
      }
      /* The partial is needed only if a later step sends it. */
      if ((mask << 1) < P) {
        simple__op_apply(op, type, tm, pa, count);
        x = pa, pa = tm, tm = x;
      }
    } else {
      simple__op_apply(op, type, pa, tm, count);
    }
  }
  if (have && re != (unsigned char *)res) memcpy(res, re, bytes);
  return 0;
}
