/* simple_nqueens: the parallel n-queens count of paper 000 (see
 * simple_nqueens.h for the algorithm and its costs). */
#include "simple_nqueens.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Seeds: a complete count of rows up to this many before giving up on a
 * deeper k (16 bytes each: 32 MiB), and the most an explicit depth may ask. */
#define SEEDS_CAP          ((uint64_t)1 << 21)
#define SEEDS_CAP_EXPLICIT ((uint64_t)1 << 25)
/* Seeds per processor wanted: the dynamic partition balances with guided
 * chunks and needs fewer than the static one, whose balance comes from the
 * law of large numbers alone. */
#define SEEDS_PER_PROC_DYNAMIC 128
#define SEEDS_PER_PROC_STATIC  1024
#define DEFAULT_SHUFFLE        0x9E3779B97F4A7C15ull

/* One partial placement of the first k rows: the three masks of the row
 * below it, and how many solutions each solution below it stands for (2
 * when its mirror image is not searched). */
typedef struct {
  uint32_t cols, ld, rd, weight;
} seed_t;

/* Set bits of a mask with few of them (the free squares of the last row:
 * mostly 0 or 1), one step per bit: cheaper than a popcount that a build
 * without -mpopcnt makes a library call. */
static inline int few_bits(uint32_t x) {
  int c = 0;
  for (; x; x &= x - 1) c++;
  return c;
}

/* ------------------------------------------------------------------------
 * The sequential search: bitmask depth-first search with an explicit
 * stack; the last row is counted (its free squares) instead of descended. */

uint64_t simple_nqueens_search(int n, uint32_t cols, uint32_t ld, uint32_t rd) {
  if (n < 1 || n > SIMPLE_NQUEENS_MAX_N) return 0;
  const uint32_t all = (1u << n) - 1u;
  cols &= all;
  int rem = n - few_bits(cols); /* rows left to place */
  if (rem == 0) return 1;
  uint32_t av = all & ~(cols | ld | rd);
  if (rem == 1) return (uint64_t)few_bits(av);
  uint32_t st_av[SIMPLE_NQUEENS_MAX_N], st_c[SIMPLE_NQUEENS_MAX_N], st_l[SIMPLE_NQUEENS_MAX_N],
      st_r[SIMPLE_NQUEENS_MAX_N];
  int top = 0;
  uint64_t count = 0;
  for (;;) {
    if (av) {
      uint32_t b = av & (0u - av);
      av ^= b;
      uint32_t nc = cols | b, nl = (ld | b) << 1, nr = (rd | b) >> 1;
      uint32_t nav = all & ~(nc | nl | nr);
      if (rem == 2) {
        count += (uint64_t)few_bits(nav);
        continue;
      }
      if (!nav) continue;
      st_av[top] = av;
      st_c[top] = cols;
      st_l[top] = ld;
      st_r[top] = rd;
      top++;
      cols = nc;
      ld = nl;
      rd = nr;
      av = nav;
      rem--;
    } else {
      if (top == 0) break;
      top--;
      av = st_av[top];
      cols = st_c[top];
      ld = st_l[top];
      rd = st_r[top];
      rem++;
    }
  }
  return count;
}

/* ------------------------------------------------------------------------
 * Seeds. */

typedef struct {
  int n, k, sym;
  uint32_t all;
  seed_t *out;    /* NULL: count only */
  uint64_t count; /* seeds so far */
  uint64_t cap;   /* stop counting beyond this */
} enum_t;

static void enum_rows(enum_t *e, int row, uint32_t cols, uint32_t ld, uint32_t rd,
                      uint32_t weight) {
  if (e->count > e->cap) return;
  if (row == e->k) {
    if (e->out) e->out[e->count] = (seed_t){cols, ld, rd, weight};
    e->count++;
    return;
  }
  uint32_t av = e->all & ~(cols | ld | rd);
  while (av) {
    uint32_t b = av & (0u - av);
    av ^= b;
    int c = __builtin_ctz(b);
    uint32_t w = weight;
    if (e->sym && row == 0) {
      /* Left half: its mirror (right half) is not searched. Middle column
       * (n odd): the mirror keeps it, and the halving moves to row 1. */
      if (2 * c + 1 < e->n)
        w = 2;
      else if (2 * c + 1 > e->n)
        continue;
      else
        w = 1;
    } else if (e->sym && row == 1 && weight == 1 && e->n > 1) {
      /* First-row queen in the middle: keep the second row's left half. */
      if (2 * c + 1 > e->n) continue;
      w = 2; /* (2c + 1 == n is the middle column again: attacked) */
    }
    enum_rows(e, row + 1, cols | b, (ld | b) << 1, (rd | b) >> 1, w);
    if (e->count > e->cap) return;
  }
}

/* Seeds of depth k (count only when out is NULL); cap + 1 if more than cap. */
static uint64_t seeds_of(int n, int k, int sym, seed_t *out, uint64_t cap) {
  enum_t e = {n, k, sym, (1u << n) - 1u, out, 0, cap};
  enum_rows(&e, 0, 0, 0, 0, 1);
  return e.count;
}

/* The smallest k with at least `target` seeds (no deeper than the cap
 * allows); under symmetry with n odd at least 2, where the halving of the
 * middle column's seeds happens. */
static int choose_depth(int n, int sym, uint64_t target, uint64_t *nseeds) {
  int k = (sym && n % 2 == 1 && n > 1) ? 2 : 1;
  uint64_t c = seeds_of(n, k, sym, NULL, SEEDS_CAP);
  while (k < n && c < target) {
    uint64_t c2 = seeds_of(n, k + 1, sym, NULL, SEEDS_CAP);
    if (c2 > SEEDS_CAP) break;
    k++;
    c = c2;
  }
  *nseeds = c;
  return k;
}

static uint64_t splitmix64(uint64_t *x) {
  uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* ------------------------------------------------------------------------
 * The node's shared state. */

typedef struct {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int status; /* set up by thread 0: 0 or an error code */
  int depth;
  uint64_t nseeds;
  seed_t *seeds;
  uint32_t *perm; /* static partition: the shuffle */
  /* Dynamic partition: the node's current and next range of seed indices. */
  uint64_t cur_lo, cur_hi, nxt_lo, nxt_hi;
  uint64_t last_grant; /* size of the range drawn last */
  uint64_t ranges;     /* ranges drawn from node 0 */
  int fetcher;         /* thread with a request to node 0 in flight; -1: none */
  int done;            /* node 0 answered that the pool is empty */
  uint64_t g_next;     /* node 0 only: the global pool is [g_next, nseeds) */
} shared_t;

enum { REQ_WORDS = 1, REP_WORDS = 2 };

/* Per-thread view of the call. */
typedef struct {
  simple_t *s;
  shared_t *sh;
  int n, node, nodes, thread, threads, p;
  int tag_req, tag_rep;
  /* A request of this thread to node 0 (remote nodes). */
  uint64_t req_buf[REQ_WORDS], rep_buf[REP_WORDS];
  simple_request_t rep_req;
  int fetching;
  /* Thread 0 of node 0: the posted receive for requests. */
  uint64_t srv_buf[REQ_WORDS];
  simple_request_t srv_req;
  simple_status_t srv_st;
  int empties; /* remote nodes told "empty" */
  uint64_t ranges_served;
  simple_nqueens_info_t info;
} ctx_t;

static void die(ctx_t *c, const char *what, int rc) {
  /* A message that fails halfway through the protocol would leave other
   * nodes waiting for ever: end the job instead. */
  simple_abort(c->s, "simple_nqueens: %s failed: %s", what, simple_strerror(rc));
}

/* Node 0, mutex held: a range of the global pool for a node of r threads
 * (guided: about r / (2 p) of what is left, at least r seeds). */
static void grant(ctx_t *c, uint64_t r, uint64_t *lo, uint64_t *hi) {
  shared_t *sh = c->sh;
  uint64_t rem = sh->nseeds - sh->g_next;
  uint64_t size = (rem * r + 2 * (uint64_t)c->p - 1) / (2 * (uint64_t)c->p);
  if (size < r) size = r;
  if (size > rem) size = rem;
  *lo = sh->g_next;
  *hi = sh->g_next + size;
  sh->g_next += size;
}

/* Mutex held: a range that came in becomes the current or the next one. */
static void install(shared_t *sh, uint64_t lo, uint64_t hi) {
  if (lo >= hi) {
    sh->done = 1;
  } else {
    if (sh->cur_lo >= sh->cur_hi) {
      sh->cur_lo = lo;
      sh->cur_hi = hi;
    } else {
      sh->nxt_lo = lo;
      sh->nxt_hi = hi;
    }
    sh->last_grant = hi - lo;
    sh->ranges++;
  }
  sh->fetcher = -1;
  pthread_cond_broadcast(&sh->cv);
}

/* Remote node, called without the mutex by the thread that became the
 * fetcher: asks node 0 for a range, the answer comes into rep_buf. */
static void start_fetch(ctx_t *c) {
  c->req_buf[0] = (uint64_t)c->threads;
  int rc = simple_irecv(c->s, c->rep_buf, REP_WORDS, SIMPLE_UINT64, 0, c->tag_rep, &c->rep_req);
  if (rc) die(c, "simple_irecv", rc);
  rc = simple_send(c->s, c->req_buf, REQ_WORDS, SIMPLE_UINT64, 0, c->tag_req);
  if (rc) die(c, "simple_send", rc);
  c->fetching = 1;
}

/* The fetcher: the answer, waiting for it if `block`. */
static void finish_fetch(ctx_t *c, int block) {
  if (!c->fetching) return;
  int flag = 1, rc;
  if (block)
    rc = simple_wait(c->s, &c->rep_req, SIMPLE_STATUS_IGNORE);
  else
    rc = simple_test(c->s, &c->rep_req, &flag, SIMPLE_STATUS_IGNORE);
  if (rc) die(c, "waiting for node 0", rc);
  if (!flag) return;
  c->fetching = 0;
  pthread_mutex_lock(&c->sh->mu);
  install(c->sh, c->rep_buf[0], c->rep_buf[1]);
  pthread_mutex_unlock(&c->sh->mu);
}

/* Thread 0 of node 0 on a job of several nodes: answers the request that
 * came in (if `block`, waits for one), and posts the next receive while
 * some node has not been told that the pool is empty. */
static void serve(ctx_t *c, int block) {
  if (c->empties == c->nodes - 1) return;
  int flag = 1, rc;
  if (block)
    rc = simple_wait(c->s, &c->srv_req, &c->srv_st);
  else
    rc = simple_test(c->s, &c->srv_req, &flag, &c->srv_st);
  if (rc) die(c, "receiving a request", rc);
  if (!flag) return;
  uint64_t r = c->srv_buf[0], rep[REP_WORDS];
  if (r < 1) r = 1;
  pthread_mutex_lock(&c->sh->mu);
  grant(c, r, &rep[0], &rep[1]);
  pthread_mutex_unlock(&c->sh->mu);
  if (rep[0] == rep[1])
    c->empties++;
  else
    c->ranges_served++;
  rc = simple_send(c->s, rep, REP_WORDS, SIMPLE_UINT64, c->srv_st.source, c->tag_rep);
  if (rc) die(c, "answering a request", rc);
  if (c->empties < c->nodes - 1) {
    rc = simple_irecv(c->s, c->srv_buf, REQ_WORDS, SIMPLE_UINT64, SIMPLE_ANY_SOURCE, c->tag_req,
                      &c->srv_req);
    if (rc) die(c, "simple_irecv", rc);
  }
}

/* The next chunk [*lo, *hi) of seed indices for this thread; 0 when the
 * search is over for it. */
static int take(ctx_t *c, uint64_t *lo, uint64_t *hi) {
  shared_t *sh = c->sh;
  int server = c->node == 0 && c->thread == 0 && c->nodes > 1;
  pthread_mutex_lock(&sh->mu);
  for (;;) {
    if (sh->cur_lo < sh->cur_hi) {
      uint64_t left = sh->cur_hi - sh->cur_lo;
      uint64_t size = server ? 1 : left / (2 * (uint64_t)c->threads);
      if (size < 1) size = 1;
      *lo = sh->cur_lo;
      *hi = sh->cur_lo + size;
      sh->cur_lo += size;
      int go = 0;
      if (c->node != 0 && !sh->done && sh->fetcher < 0 && sh->nxt_lo >= sh->nxt_hi &&
          2 * (sh->cur_hi - sh->cur_lo) <= sh->last_grant) {
        sh->fetcher = c->thread;
        go = 1;
      }
      pthread_mutex_unlock(&sh->mu);
      if (go) start_fetch(c);
      return 1;
    }
    if (sh->nxt_lo < sh->nxt_hi) {
      sh->cur_lo = sh->nxt_lo;
      sh->cur_hi = sh->nxt_hi;
      sh->nxt_lo = sh->nxt_hi = 0;
      continue;
    }
    if (c->node == 0) {
      if (sh->g_next >= sh->nseeds) break;
      grant(c, (uint64_t)c->threads, &sh->cur_lo, &sh->cur_hi);
      sh->last_grant = sh->cur_hi - sh->cur_lo;
      continue;
    }
    if (sh->done) break;
    if (sh->fetcher == c->thread) {
      pthread_mutex_unlock(&sh->mu);
      finish_fetch(c, 1);
      pthread_mutex_lock(&sh->mu);
      continue;
    }
    if (sh->fetcher < 0) {
      sh->fetcher = c->thread;
      pthread_mutex_unlock(&sh->mu);
      start_fetch(c);
      pthread_mutex_lock(&sh->mu);
      continue;
    }
    /* Another thread of the node is fetching: sleep until it installs. */
    pthread_cond_wait(&sh->cv, &sh->mu);
  }
  pthread_mutex_unlock(&sh->mu);
  return 0;
}

static uint64_t search_seed(const ctx_t *c, uint64_t i) {
  const seed_t *sd = &c->sh->seeds[i];
  return (uint64_t)sd->weight * simple_nqueens_search(c->n, sd->cols, sd->ld, sd->rd);
}

static uint64_t run_dynamic(ctx_t *c) {
  int server = c->node == 0 && c->thread == 0 && c->nodes > 1;
  if (server) {
    int rc = simple_irecv(c->s, c->srv_buf, REQ_WORDS, SIMPLE_UINT64, SIMPLE_ANY_SOURCE, c->tag_req,
                          &c->srv_req);
    if (rc) die(c, "simple_irecv", rc);
  }
  uint64_t sum = 0, lo, hi;
  while (take(c, &lo, &hi)) {
    c->info.chunks++;
    for (uint64_t i = lo; i < hi; i++) sum += search_seed(c, i);
    c->info.seeds_explored += hi - lo;
    if (server) serve(c, 0);
    if (c->fetching) finish_fetch(c, 0);
  }
  /* Node 0's pool is empty: tell every other node so, as it asks. */
  if (server)
    while (c->empties < c->nodes - 1) serve(c, 1);
  return sum;
}

static uint64_t run_static(ctx_t *c) {
  uint64_t S = c->sh->nseeds, P = (uint64_t)c->p, me = (uint64_t)simple_pid(c->s);
  uint64_t lo = S * me / P, hi = S * (me + 1) / P, sum = 0;
  for (uint64_t i = lo; i < hi; i++) sum += search_seed(c, c->sh->perm[i]);
  c->info.chunks = 1;
  c->info.seeds_explored = hi - lo;
  return sum;
}

/* Thread 0 of the node: the seeds, the shuffle, the first ranges. */
static int setup_node(ctx_t *c, const simple_nqueens_opts_t *o) {
  shared_t *sh = c->sh;
  int n = c->n, sym = o->symmetry, stat = o->static_partition;
  uint64_t S;
  int k;
  if (o->depth > 0) {
    k = o->depth;
    if (sym && n % 2 == 1 && n > 1 && k < 2) k = 2;
    S = seeds_of(n, k, sym, NULL, SEEDS_CAP_EXPLICIT);
    if (S > SEEDS_CAP_EXPLICIT) return SIMPLE_ERR_NOMEM;
  } else {
    uint64_t target =
        (uint64_t)c->p * (uint64_t)(stat ? SEEDS_PER_PROC_STATIC : SEEDS_PER_PROC_DYNAMIC);
    k = choose_depth(n, sym, target, &S);
  }
  sh->depth = k;
  sh->nseeds = S;
  sh->seeds = malloc((S ? S : 1) * sizeof *sh->seeds);
  if (!sh->seeds) return SIMPLE_ERR_NOMEM;
  seeds_of(n, k, sym, sh->seeds, S);
  if (stat) {
    sh->perm = malloc((S ? S : 1) * sizeof *sh->perm);
    if (!sh->perm) return SIMPLE_ERR_NOMEM;
    for (uint64_t i = 0; i < S; i++) sh->perm[i] = (uint32_t)i;
    uint64_t x = o->seed ? o->seed : DEFAULT_SHUFFLE;
    for (uint64_t i = S; i > 1; i--) {
      uint64_t j = splitmix64(&x) % i;
      uint32_t t = sh->perm[i - 1];
      sh->perm[i - 1] = sh->perm[j];
      sh->perm[j] = t;
    }
  }
  /* Dynamic: the first half of the seeds is split among the nodes in
   * proportion to their threads (no message to start), the second half is
   * node 0's global pool. */
  uint64_t first = S / 2, P = (uint64_t)c->p;
  uint64_t off = (uint64_t)simple_pid_of(c->s, c->node, 0), r = (uint64_t)c->threads;
  sh->cur_lo = first * off / P;
  sh->cur_hi = first * (off + r) / P;
  sh->nxt_lo = sh->nxt_hi = 0;
  sh->last_grant = sh->cur_hi - sh->cur_lo;
  sh->fetcher = -1;
  sh->done = 0;
  sh->ranges = 0;
  sh->g_next = first;
  return 0;
}

/* The argument checks, combined over the job: every value and its
 * complement go through one MAX allreduce, so max == ~max(~x) tells that
 * all threads passed the same value. */
static int check_args(simple_t *s, int n, const simple_nqueens_opts_t *o, const uint64_t *sol) {
  int bad = 0;
  if (!sol) bad = SIMPLE_ERR_NULL;
  if (n < 1 || n > SIMPLE_NQUEENS_MAX_N) bad = SIMPLE_ERR_ARG;
  if ((o->static_partition != 0 && o->static_partition != 1) ||
      (o->symmetry != 0 && o->symmetry != 1) || o->depth < 0 || o->depth > n)
    bad = SIMPLE_ERR_ARG;
  uint64_t x[5] = {(uint64_t)(int64_t)n, (uint64_t)(int64_t)o->static_partition,
                   (uint64_t)(int64_t)o->symmetry, (uint64_t)(int64_t)o->depth, o->seed};
  uint64_t v[11], r[11];
  v[0] = (uint64_t)bad;
  for (int i = 0; i < 5; i++) {
    v[1 + 2 * i] = x[i];
    v[2 + 2 * i] = ~x[i];
  }
  int rc = simple_allreduce(s, v, r, 11, SIMPLE_UINT64, SIMPLE_MAX);
  if (rc) return rc;
  if (bad) return bad;
  if (r[0]) return SIMPLE_ERR_PEER;
  for (int i = 0; i < 5; i++)
    if (r[1 + 2 * i] != ~r[2 + 2 * i]) return SIMPLE_ERR_ARG;
  return 0;
}

int simple_nqueens_ex(simple_t *s, int n, const simple_nqueens_opts_t *o, uint64_t *solutions,
                      simple_nqueens_info_t *info) {
  if (!s) return SIMPLE_ERR_NOT_IN_JOB;
  static const simple_nqueens_opts_t defaults = {0, 0, 0, 0};
  if (!o) o = &defaults;
  int rc = check_args(s, n, o, solutions);
  if (rc) return rc;

  ctx_t c;
  memset(&c, 0, sizeof c);
  c.s = s;
  c.n = n;
  c.node = simple_node(s);
  c.nodes = simple_nodes(s);
  c.thread = simple_thread(s);
  c.threads = simple_threads(s);
  c.p = simple_nprocs(s);
  c.tag_rep = simple_tag_ub(s);
  c.tag_req = c.tag_rep - 1;

  /* The node's shared state, set up by its thread 0 while the others wait
   * at the barrier; a failure anywhere fails the call everywhere. */
  void *mem = NULL;
  rc = simple_node_malloc(s, sizeof(shared_t), &mem);
  int setup_rc = rc;
  if (!rc) {
    c.sh = mem;
    if (c.thread == 0) {
      memset(c.sh, 0, sizeof *c.sh);
      pthread_mutex_init(&c.sh->mu, NULL);
      pthread_cond_init(&c.sh->cv, NULL);
      c.sh->status = setup_node(&c, o);
    }
    rc = simple_node_barrier(s);
    setup_rc = rc ? rc : c.sh->status;
  }
  int32_t e = setup_rc, emax = 0;
  rc = simple_allreduce(s, &e, &emax, 1, SIMPLE_INT32, SIMPLE_MAX);
  if (!rc && emax) rc = setup_rc ? setup_rc : SIMPLE_ERR_PEER;

  uint64_t mine = 0, total = 0;
  if (!rc) {
    mine = o->static_partition ? run_static(&c) : run_dynamic(&c);
    rc = simple_allreduce(s, &mine, &total, 1, SIMPLE_UINT64, SIMPLE_SUM);
  }
  if (c.sh) {
    c.info.depth = c.sh->depth;
    c.info.seeds = c.sh->nseeds;
    /* Everyone is past the search (the allreduce above) or never began it. */
    int brc = simple_node_barrier(s);
    c.info.ranges = c.sh->ranges;
    if (c.thread == 0) {
      free(c.sh->seeds);
      free(c.sh->perm);
      pthread_mutex_destroy(&c.sh->mu);
      pthread_cond_destroy(&c.sh->cv);
    }
    int frc = simple_node_free(s, mem);
    if (!rc) rc = brc ? brc : frc;
  }
  if (rc) return rc;
  *solutions = total;
  if (info) *info = c.info;
  return 0;
}

int simple_nqueens(simple_t *s, int n, const simple_nqueens_opts_t *o, uint64_t *solutions) {
  return simple_nqueens_ex(s, n, o, solutions, NULL);
}
