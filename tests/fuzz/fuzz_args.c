/* Fuzz target: argument validation of the public API. Each input is a
 * sequence of calls with fuzzed datatypes, ops, counts, roots, ranks,
 * NULL-ness, in-place flags, offsets and distribution parameters. Buffers
 * are always as large as the count the call is given may need (a count
 * the caller's memory cannot hold is the caller's bug, not something a
 * library can see), except for counts whose size in bytes overflows, which
 * must be refused. Every call must return a documented code, write
 * nothing outside the buffers (ASan), and leave the job usable. */
#include "fuzz_driver.h"

#define CAP 64 /* elements of the largest type in every buffer */

static _Alignas(16) unsigned char buf_a[CAP * 16], buf_b[CAP * 16], window[256];
static int registered;

static size_t fuzz_count(fuzz_in_t *in) {
  uint8_t c = fuzz_u8(in);
  if (c < 200) return c % (CAP + 1);      /* fits every buffer */
  return SIZE_MAX / (size_t)(1 + c % 16); /* overflows in bytes for most types */
}

static void fuzz_one(simple_t *s, const uint8_t *data, size_t size) {
  fuzz_in_t in = {data, size};
  if (!registered) {
    fuzz_rc(simple_rma_push_reg(s, window, sizeof window), "push_reg");
    fuzz_rc(simple_rma_sync(s), "sync");
    registered = 1;
  }
  for (int calls = 0; calls < 16 && in.n; calls++) {
    uint8_t what = fuzz_u8(&in);
    simple_type_t type = (simple_type_t)(fuzz_u8(&in) % (SIMPLE_TYPE_COUNT__ + 3)) - 1;
    simple_op_t op = (simple_op_t)(fuzz_u8(&in) % (SIMPLE_OP_BUILTIN_COUNT__ + 3)) - 1;
    size_t count = fuzz_count(&in);
    int flags = fuzz_u8(&in);
    int root = (int)(int8_t)fuzz_u8(&in) % 3; /* -2..2: 0 is the only valid one */
    size_t es = simple_type_size(type);
    /* A count that fits no buffer is only given together with a type
     * whose byte size then overflows, or with NULL. */
    if (count > CAP && es && count <= SIZE_MAX / es) count = CAP;
    void *a = flags & 1 ? NULL : buf_a, *b = flags & 2 ? NULL : buf_b;
    const void *send = flags & 4 ? SIMPLE_IN_PLACE : a;
    size_t counts[1] = {count}, displs[1] = {flags & 8 ? 1 : 0};
    if (count > CAP || displs[0] + count > CAP) counts[0] = displs[0] = 0;
    switch (what % 20) {
      case 0: fuzz_rc(simple_allreduce(s, send, b, count, type, op), "allreduce"); break;
      case 1: fuzz_rc(simple_reduce(s, send, b, count, type, op, root), "reduce"); break;
      case 2: fuzz_rc(simple_bcast(s, a, count, type, root), "bcast"); break;
      case 3: fuzz_rc(simple_scan(s, send, b, count, type, op), "scan"); break;
      case 4: fuzz_rc(simple_exscan(s, send, b, count, type, op), "exscan"); break;
      case 5: fuzz_rc(simple_gather(s, send, b, count, type, root), "gather"); break;
      case 6:
        fuzz_rc(simple_scatter(s, a, flags & 4 ? SIMPLE_IN_PLACE : b, count, type, root),
                "scatter");
        break;
      case 7: fuzz_rc(simple_allgather(s, send, b, count, type), "allgather"); break;
      case 8: fuzz_rc(simple_alltoall(s, send, b, count, type), "alltoall"); break;
      case 9:
        fuzz_rc(
            simple_gatherv(s, send, counts[0], b, flags & 16 ? NULL : counts, displs, type, root),
            "gatherv");
        break;
      case 10:
        fuzz_rc(simple_alltoallv(s, send, counts, displs, b, counts, displs, type), "alltoallv");
        break;
      case 11: fuzz_rc(simple_node_allreduce(s, send, b, count, type, op), "node_allreduce"); break;
      case 12: fuzz_rc(simple_node_bcast(s, a, count, type, root), "node_bcast"); break;
      case 13: {
        size_t off = fuzz_u32(&in) % 512, len = fuzz_u32(&in) % 512;
        int pid = (int)(int8_t)fuzz_u8(&in) % 3;
        if (len > sizeof buf_a) len = sizeof buf_a;
        fuzz_rc(flags & 16 ? simple_rma_get(s, pid, window, off, a, len)
                           : simple_rma_put(s, pid, a, window, off, len),
                "put/get");
        fuzz_rc(simple_rma_sync(s), "sync");
        break;
      }
      case 14: {
        simple_dist_t d =
            simple_dist_2d((long)(int16_t)fuzz_u32(&in), (long)(int16_t)fuzz_u32(&in),
                           (simple_axis_t)(fuzz_u8(&in) % 3), (simple_kind_t)(fuzz_u8(&in) % 4),
                           (long)(int8_t)fuzz_u8(&in), (simple_over_t)(fuzz_u8(&in) % 4));
        d.ld = (long)(int8_t)fuzz_u8(&in); /* negative, short, zero or long enough */
        simple_domain_t dom;
        int part, parts[4];
        long li, lj, r0 = (int16_t)fuzz_u32(&in), c0 = (int16_t)fuzz_u32(&in);
        int n_owners = 0;
        fuzz_rc(simple_dist_domain(s, &d, (int)(int8_t)fuzz_u8(&in), &dom), "dist_domain");
        fuzz_rc(simple_dist_owner(s, &d, r0, c0, &part, &li, &lj), "dist_owner");
        fuzz_rc(simple_dist_owners(s, &d, r0, r0 + (int8_t)fuzz_u8(&in), c0,
                                   c0 + (int8_t)fuzz_u8(&in), parts, 4, &n_owners),
                "dist_owners");
        break;
      }
      case 15: {
        simple_range_t r;
        fuzz_rc(simple_range_part((long)(int32_t)fuzz_u32(&in), (long)(int32_t)fuzz_u32(&in),
                                  (simple_kind_t)(fuzz_u8(&in) % 4), (long)(int8_t)fuzz_u8(&in),
                                  (int)(int8_t)fuzz_u8(&in), (int)(int8_t)fuzz_u8(&in), &r),
                "range_part");
        break;
      }
      case 16: {
        simple_request_t req;
        simple_status_t st;
        int tag = (int)(int16_t)fuzz_u32(&in);
        int dest = (int)(int8_t)fuzz_u8(&in) % 3;
        int rc = simple_isend(s, a, count, type, dest, tag, &req);
        fuzz_rc(rc, "isend");
        if (rc == 0) {
          /* A message to ourselves: take it back with a receive of any size. */
          size_t room = fuzz_u8(&in) % (CAP + 1);
          fuzz_rc(simple_recv(s, b, room, type, SIMPLE_ANY_SOURCE, SIMPLE_ANY_TAG, &st), "recv");
          fuzz_rc(simple_wait(s, &req, &st), "wait");
        }
        break;
      }
      case 17: {
        simple_request_t bogus = ((simple_request_t)fuzz_u32(&in) << 32) | fuzz_u32(&in);
        int flag;
        fuzz_rc(simple_test(s, &bogus, &flag, NULL), "test(bogus)");
        simple_buf_t id = ((simple_buf_t)fuzz_u32(&in) << 32) | fuzz_u32(&in);
        fuzz_rc(simple_buf_free(s, id), "buf_free(bogus)");
        break;
      }
      case 18: fuzz_rc(simple_barrier(s), "barrier"); break;
      default: {
        const char *name = simple_errname((int)(int8_t)fuzz_u8(&in));
        if (!name || !simple_strerror(fuzz_u8(&in)) || !simple_type_name(type) ||
            !simple_op_name(op))
          abort();
        break;
      }
    }
  }
}

FUZZ_MAIN()
