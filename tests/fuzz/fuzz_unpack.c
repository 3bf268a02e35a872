/* Fuzz target: the unpack paths of messages. Buffer-id messages are packed
 * from the input in typed pieces, sent to ourselves (the buffer is handed
 * over), received and unpacked with fuzzed types and counts; BSMP messages
 * with fuzzed tag sizes and payloads go through a superstep and are read
 * back with get_tag, move (fuzzed room) and hpmove. Every byte read back
 * is compared with what went in. */
#include "fuzz_driver.h"

#define REQUIRE(cond, what)                                           \
  do {                                                                \
    if (!(cond)) {                                                    \
      fprintf(stderr, "fuzz: %s:%d: %s\n", __FILE__, __LINE__, what); \
      abort();                                                        \
    }                                                                 \
  } while (0)

static void check_same(const void *a, const void *b, size_t n, const char *what) {
  if (n && memcmp(a, b, n) != 0) {
    fprintf(stderr, "fuzz: %s: the bytes read back differ from those sent\n", what);
    abort();
  }
}

static void buffer_ids(simple_t *s, fuzz_in_t *in) {
  simple_buf_t id;
  int rc = simple_buf_create(s, fuzz_u8(in), &id);
  fuzz_rc(rc, "buf_create");
  if (rc) return;
  unsigned char sent[512];
  size_t nsent = 0;
  /* Typed pieces from the input. */
  for (int k = fuzz_u8(in) % 8; k > 0 && in->n; k--) {
    simple_type_t t = (simple_type_t)(fuzz_u8(in) % SIMPLE_TYPE_COUNT__);
    size_t es = simple_type_size(t), cnt = fuzz_u8(in) % 8;
    if (cnt * es > in->n || nsent + cnt * es > sizeof sent) break;
    fuzz_rc(simple_buf_pack(s, id, in->p, cnt, t), "buf_pack");
    memcpy(sent + nsent, in->p, cnt * es);
    nsent += cnt * es;
    in->p += cnt * es;
    in->n -= cnt * es;
  }
  void *p;
  size_t bytes;
  fuzz_rc(simple_buf_data(s, id, &p, &bytes), "buf_data");
  REQUIRE(bytes == nsent, "buf_data: size differs from the bytes packed");
  check_same(p, sent, nsent, "buf_data");
  int tag = fuzz_u8(in);
  fuzz_rc(simple_buf_send(s, id, simple_pid(s), tag), "buf_send");
  simple_status_t st;
  fuzz_rc(simple_buf_recv(s, SIMPLE_ANY_SOURCE, tag, &id, &st), "buf_recv");
  REQUIRE(st.bytes == nsent, "buf_recv: status bytes differ from the bytes sent");
  /* Unpack with fuzzed types and counts: what fits comes back in order,
   * what does not is refused with nothing read. */
  size_t at = 0;
  unsigned char out[512];
  for (int k = fuzz_u8(in) % 12; k > 0; k--) {
    simple_type_t t = (simple_type_t)(fuzz_u8(in) % (SIMPLE_TYPE_COUNT__ + 1));
    size_t cnt = fuzz_u8(in) % 16, es = simple_type_size(t);
    if (cnt * es > sizeof out) continue;
    rc = simple_buf_unpack(s, id, out, cnt, t);
    fuzz_rc(rc, "buf_unpack");
    if (rc == 0) {
      check_same(out, sent + at, cnt * es, "buf_unpack");
      at += cnt * es;
    } else if (es && at + cnt * es <= nsent) {
      REQUIRE(0, "buf_unpack refused a piece that fits");
    }
  }
  fuzz_rc(simple_buf_free(s, id), "buf_free");
  REQUIRE(simple_buf_free(s, id) != 0, "a freed id was accepted");
}

static void bsmp(simple_t *s, fuzz_in_t *in) {
  size_t want = fuzz_u8(in) % 24, tagsize = want;
  fuzz_rc(simple_bsmp_set_tagsize(s, &tagsize), "set_tagsize"); /* tagsize: the old size */
  fuzz_rc(simple_rma_sync(s), "sync");                          /* the new one takes effect */
  tagsize = want;
  fuzz_rc(simple_bsmp_set_tagsize(s, &tagsize), "set_tagsize"); /* keeps it, reads it back */
  REQUIRE(tagsize == want, "set_tagsize: the tag size in force is not the one set");
  unsigned char tags[8][24], payloads[8][64];
  size_t lens[8];
  int nmsg = fuzz_u8(in) % 8;
  for (int k = 0; k < nmsg; k++) {
    for (size_t i = 0; i < tagsize; i++) tags[k][i] = fuzz_u8(in);
    lens[k] = fuzz_u8(in) % 64;
    for (size_t i = 0; i < lens[k]; i++) payloads[k][i] = fuzz_u8(in);
    fuzz_rc(simple_bsmp_send(s, simple_pid(s), tags[k], payloads[k], lens[k]), "bsmp_send");
  }
  fuzz_rc(simple_rma_sync(s), "sync");
  size_t nq, nb;
  fuzz_rc(simple_bsmp_qsize(s, &nq, &nb), "qsize");
  REQUIRE(nq == (size_t)nmsg, "qsize: not the number of messages sent");
  for (int k = 0; k < nmsg; k++) {
    ptrdiff_t status;
    unsigned char tag[24], payload[64];
    fuzz_rc(simple_bsmp_get_tag(s, &status, tag), "get_tag");
    REQUIRE(status == (ptrdiff_t)lens[k], "get_tag: not the payload size sent");
    check_same(tag, tags[k], tagsize, "get_tag");
    if (fuzz_u8(in) & 1) {
      const void *tp, *pp;
      fuzz_rc(simple_bsmp_hpmove(s, &tp, &pp, &status), "hpmove");
      check_same(pp, payloads[k], lens[k], "hpmove");
    } else {
      size_t room = fuzz_u8(in) % 65;
      fuzz_rc(simple_bsmp_move(s, payload, room), "move");
      check_same(payload, payloads[k], room < lens[k] ? room : lens[k], "move");
    }
  }
  ptrdiff_t status;
  unsigned char tag[24];
  fuzz_rc(simple_bsmp_get_tag(s, &status, tag), "get_tag(empty)");
  REQUIRE(status == -1, "get_tag on an empty queue");
  REQUIRE(simple_bsmp_move(s, tag, sizeof tag) != 0, "move on an empty queue was accepted");
}

static void fuzz_one(simple_t *s, const uint8_t *data, size_t size) {
  fuzz_in_t in = {data, size};
  if (fuzz_u8(&in) & 1)
    bsmp(s, &in);
  else
    buffer_ids(s, &in);
}

FUZZ_MAIN()
