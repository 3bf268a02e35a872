/* Block fan-out Cholesky over shared objects: see simple_cholesky.h.
 * Blocks are column-major, for OpenBLAS's Fortran LAPACK and BLAS: nb x nb
 * for the generated matrix (the last row and column of blocks may be
 * smaller), of the widths of the supernodal partition for a sparse one
 * (off[]: at most nb). */
#include "simple_cholesky.h"

#include <errno.h>
#include <math.h>
#include <metis.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

void dpotrf_(const char *uplo, const int *n, double *a, const int *lda, int *info);
void dtrsm_(const char *side, const char *uplo, const char *ta, const char *diag, const int *m,
            const int *n, const double *alpha, const double *a, const int *lda, double *b,
            const int *ldb);
void dgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,
            const double *alpha, const double *a, const int *lda, const double *b, const int *ldb,
            const double *beta, double *c, const int *ldc);
void dsyrk_(const char *uplo, const char *t, const int *n, const int *k, const double *alpha,
            const double *a, const int *lda, const double *beta, double *c, const int *ldc);
void openblas_set_num_threads(int n);

double simple_cholesky_entry(int n, double shift, int i, int j) {
  double a = 1.0 / (1.0 + fabs((double)(i - j))) + 0.5 * cos((double)(i + j)) / n;
  if (i == j) a += n / 2.0 + shift;
  return a;
}

/* A sparse matrix after its fill-reducing ordering: the lower triangle's
 * entries (row >= column, new numbering) sorted by block (column block,
 * then row block), each block's range, and the block structure of the
 * factor L (fill included). Built by thread 0 of each node, shared by the
 * node's threads, read-only. */
typedef struct {
  int n, nb, N;
  long nnz;
  int *row, *col; /* [nnz] */
  double *val;
  long *start;       /* [N*N + 1]: block (I, J)'s entries: start[I*N+J] .. */
  unsigned char *nz; /* [N*N]: block (I, J), I >= J, of L is non-zero */
  int *perm;         /* [n]: new index -> original index */
  int *off;          /* [N + 1]: block I is rows and columns off[I] .. off[I+1]-1 (nb widest) */
  int *bparent;      /* [N]: the block elimination tree: the first I > J with (I, J) non-zero */
  double *work;      /* [N]: block column J's share of the flops (sum of its columns' counts^2) */
} sparse_t;

/* The node's board of finished blocks, in node memory shared by its
 * threads: a finished block's owner posts its name here for the threads of
 * its own node (the push: a waiter reads one flag in shared memory instead
 * of an accumulator at the block's home, three MPI atomics and a get per
 * look), and a thread that found a block of another node in its directory
 * entry posts it here for its node-mates. Waiters spin briefly on the flag,
 * then sleep on the condition variable; a poster wakes them only when some
 * are asleep. */
typedef struct {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  atomic_int sleepers; /* threads in (or entering) pthread_cond_timedwait */
  atomic_int failed;   /* a thread of this node saw the factorization fail */
  atomic_uchar *ready; /* [N*N]: names[b] is posted */
  simple_obj_t *names; /* [N*N] */
} board_t;

typedef struct {
  simple_t *s;
  simple_shobj_space_t *sp;
  board_t *board;              /* this node's, shared by its threads */
  const int *node_of;          /* [p]: the node of each thread */
  int mynode, multi;           /* multi: the job has more than one node */
  unsigned char *need;         /* [N*N*p]: thread t uses block b (multi only; NULL: poll) */
  long expected, received;     /* pushes this thread gets from other nodes */
  long remote;                 /* blocks read by a thread of another node than their owner's */
  long pushed;                 /* pushes among nodes (the job's, the same on every thread) */
  uint64_t epoch;              /* this call's number on this thread (the same on all) */
  int n, nb, N, p, pr, pc, me; /* nb: the widest block */
  int *off;             /* [N + 1]: block boundaries (sparse: the matrix's; dense: nb apart) */
  int *clo, *cpr, *cpc; /* [N] sparse: column J's blocks go to a pr x pc grid of the
                           threads clo[J] .. clo[J] + pr pc - 1 (NULL: dense) */
  double shift;
  simple_obj_t *dir;     /* [N*N]: every block's directory accumulator (the lower ones) */
  simple_obj_t *known;   /* [N*N]: block names this thread has found */
  int64_t pivot;         /* the failing pivot + 1 when this thread's failed, else 0 */
  double *work;          /* nb x nb */
  unsigned char *inbox;  /* a push being taken: header and block */
  struct pushbuf **out;  /* pushes in flight (their buffers) */
  struct pushbuf *alarm; /* the failure push's buffer (held by c: never freed in flight) */
  simple_request_t *reqs;
  int nout, capout;
  int *sent_to;         /* [p]: pushes this thread sent to each thread, this call */
  const sparse_t *sp_a; /* the sparse matrix, permuted; NULL: the generated dense one */
} ctx_t;

static int bsize(const ctx_t *c, int i) { return c->off[i + 1] - c->off[i]; }
static int owner(const ctx_t *c, int i, int j) {
  if (c->clo) return c->clo[j] + (i % c->cpr[j]) * c->cpc[j] + j % c->cpc[j];
  return (i % c->pr) * c->pc + (j % c->pc);
}
static int nzb(const ctx_t *c, int i, int j) {
  return !c->sp_a || c->sp_a->nz[(size_t)i * c->N + j];
}

/* Block (i, j) of A into a (column-major, mi x mj). */
static void load_block(const ctx_t *c, int i, int j, int mi, int mj, double *a) {
  if (!c->sp_a) {
    for (int y = 0; y < mj; y++)
      for (int x = 0; x < mi; x++)
        a[(size_t)y * mi + x] = simple_cholesky_entry(c->n, c->shift, i * c->nb + x, j * c->nb + y);
    return;
  }
  const sparse_t *m = c->sp_a;
  memset(a, 0, sizeof(double) * (size_t)mi * mj);
  size_t b = (size_t)i * c->N + j;
  for (long e = m->start[b]; e < m->start[b + 1]; e++) {
    int x = m->row[e] - c->off[i], y = m->col[e] - c->off[j];
    a[(size_t)y * mi + x] = m->val[e];
    if (i == j) a[(size_t)x * mi + y] = m->val[e];
  }
}

/* Posts block b's name on the node's board; wakes the node's sleepers. */
static void board_post(board_t *bd, size_t b, simple_obj_t name) {
  bd->names[b] = name;
  atomic_store(&bd->ready[b], 1); /* seq_cst: ordered before the load of sleepers */
  if (atomic_load(&bd->sleepers)) {
    pthread_mutex_lock(&bd->mu);
    pthread_cond_broadcast(&bd->cv);
    pthread_mutex_unlock(&bd->mu);
  }
}

/* Marks the node failed and wakes its sleepers. */
static void post_failure(board_t *bd) {
  atomic_store(&bd->failed, 1);
  pthread_mutex_lock(&bd->mu);
  pthread_cond_broadcast(&bd->cv);
  pthread_mutex_unlock(&bd->mu);
}

/* The pushes: with several nodes, the owner of a finished block sends its
 * name and its bytes (simple_isend) to one thread of each other node that
 * will use it, the node's first such thread (known from the block
 * structure before the factorization: the receiver); the receiver puts
 * the bytes into its node's cache (simple_shobj_offer) and posts the name
 * on its node's board, where its node-mates that use the block find it.
 * So no thread polls another node's directory entry or fetches a block it
 * uses: on a transport without remote memory access (TCP) such a get
 * waits until the block's owner next enters MPI, which a thread inside
 * dgemm does not. A receiver takes its pushes whenever it waits (for a
 * block of any node, and at the end): a node-mate may be waiting on the
 * board for a block pushed to it. Cost per push: one message of 32 + 8 mi
 * mj bytes per block and node that uses it, whatever the node's thread
 * count, against a round trip per block. */
#define PUSH_TAG   4242
#define PUSH_HDR   32
#define FAIL_BLOCK UINT64_MAX /* a failure push's block index */

/* A push's bytes, shared by its messages to several threads until the
 * last one completes. */
struct pushbuf {
  int refs;
  _Alignas(8) unsigned char data[];
};

/* Block b's receivers: on each node but `home`, the node's first thread
 * that reads b (a node's threads have consecutive ranks). Returns the
 * first receiver from thread t on, or c->p when none is left; *last (-1
 * at the start) keeps the node of the one before. */
static int next_receiver(const ctx_t *c, size_t b, int t, int home, int *last) {
  const unsigned char *need = c->need + b * (size_t)c->p;
  for (; t < c->p; t++)
    if (need[t] && c->node_of[t] != home && c->node_of[t] != *last) {
      *last = c->node_of[t];
      return t;
    }
  return c->p;
}

/* need[b p + t]: thread t reads block b during the factorization. One pass
 * over the updates: O(sum over blocks of their column) per thread. */
static int plan_pushes(ctx_t *c) {
  size_t nn = (size_t)c->N * c->N, p = (size_t)c->p;
  if (!c->multi) return 0;
  /* The mailbox, for the failure push at least. */
  c->inbox = malloc(PUSH_HDR + sizeof(double) * (size_t)c->nb * c->nb);
  c->sent_to = calloc(p, sizeof *c->sent_to);
  if ((c->alarm = malloc(sizeof *c->alarm + PUSH_HDR))) c->alarm->refs = 1;
  if (!c->inbox || !c->sent_to || !c->alarm) return SIMPLE_ERR_NOMEM;
  if (nn * p > ((size_t)64 << 20)) return 0; /* too big: poll instead */
  if (!(c->need = calloc(nn * p, 1))) return SIMPLE_ERR_NOMEM;
  for (int j = 0; j < c->N; j++)
    for (int i = j; i < c->N; i++) {
      if (!nzb(c, i, j)) continue;
      size_t t = (size_t)owner(c, i, j);
      for (int k = 0; k < j; k++)
        if (nzb(c, i, k) && nzb(c, j, k)) {
          c->need[((size_t)i * c->N + k) * p + t] = 1;
          c->need[((size_t)j * c->N + k) * p + t] = 1;
        }
      if (i > j) c->need[((size_t)j * c->N + j) * p + t] = 1;
    }
  for (size_t b = 0; b < nn; b++) {
    int home = c->node_of[owner(c, (int)(b / c->N), (int)(b % c->N))];
    int receivers = 0;
    for (int last = -1, t = next_receiver(c, b, 0, home, &last); t < c->p;
         t = next_receiver(c, b, t + 1, home, &last)) {
      receivers++;
      c->expected += t == c->me;
    }
    c->pushed += receivers;
    c->remote += receivers > 0;
  }
  return 0;
}

/* Completes the pushes in flight that are done (wait: all of them). */
static int pushes_sent(ctx_t *c, int wait) {
  int rc = 0, k = 0;
  for (int i = 0; i < c->nout; i++) {
    int done = 0;
    int r =
        wait ? simple_wait(c->s, &c->reqs[i], NULL) : simple_test(c->s, &c->reqs[i], &done, NULL);
    if (wait && !r) done = 1;
    if (r && !rc) rc = r;
    if (done || r) {
      if (--c->out[i]->refs == 0) free(c->out[i]);
    } else {
      c->out[k] = c->out[i];
      c->reqs[k++] = c->reqs[i];
    }
  }
  c->nout = k;
  return rc;
}

/* Sends pb's first `bytes` bytes to thread t; pb stays until it has left. */
static int send_push(ctx_t *c, struct pushbuf *pb, size_t bytes, int t) {
  if (c->nout == c->capout) {
    int cap = c->capout ? 2 * c->capout : 64;
    struct pushbuf **o = realloc(c->out, sizeof *o * (size_t)cap);
    if (o) c->out = o;
    simple_request_t *r = o ? realloc(c->reqs, sizeof *r * (size_t)cap) : NULL;
    if (r) c->reqs = r;
    if (!o || !r) return SIMPLE_ERR_NOMEM;
    c->capout = cap;
  }
  int rc = simple_isend(c->s, pb->data, bytes, SIMPLE_BYTE, t, PUSH_TAG, &c->reqs[c->nout]);
  if (rc) return rc;
  pb->refs++;
  c->out[c->nout++] = pb;
  c->sent_to[t]++;
  return 0;
}

/* Sends finished block b (its name, and its bytes at a) to the threads of
 * other nodes that use it. */
static int push(ctx_t *c, size_t b, simple_obj_t name, const double *a) {
  if (!c->need) return 0;
  size_t bytes = simple_shobj_size(name);
  struct pushbuf *pb = NULL;
  for (int last = -1, t = next_receiver(c, b, 0, c->mynode, &last); t < c->p;
       t = next_receiver(c, b, t + 1, c->mynode, &last)) {
    if (!pb) {
      if (!(pb = malloc(sizeof *pb + PUSH_HDR + bytes))) return SIMPLE_ERR_NOMEM;
      pb->refs = 0;
      uint64_t m[4] = {b, name.where, name.what, c->epoch};
      memcpy(pb->data, m, PUSH_HDR);
      memcpy(pb->data + PUSH_HDR, a, bytes);
    }
    int rc = send_push(c, pb, PUSH_HDR + bytes, t);
    if (rc) {
      if (!pb->refs) free(pb);
      return rc;
    }
  }
  return pushes_sent(c, 0);
}

/* This thread's factorization failed at pivot piv (0-based): its node's
 * board says so, and a failure push (block FAIL_BLOCK, a header alone)
 * goes to every thread of the other nodes, each of which looks at its
 * mailbox while it waits. No thread reads another node's memory to learn
 * of a failure: on a transport without remote memory access (TCP) such a
 * read waits until that node next enters MPI, which a thread inside dgemm
 * does not (a shared failure accumulator read that way took 4-6 ms of
 * 17-21 on the virtual cluster, 2 x 2, D1000). Cost: p messages of 32
 * bytes, on failure only. */
static void announce_failure(ctx_t *c, int64_t piv) {
  c->pivot = piv + 1;
  post_failure(c->board);
  if (!c->multi) return;
  uint64_t m[4] = {FAIL_BLOCK, (uint64_t)piv, 0, c->epoch};
  memcpy(c->alarm->data, m, PUSH_HDR);
  for (int t = 0; t < c->p; t++)
    /* Without room to track it, a blocking send (32 bytes: eager in
     * practice): a thread never told would wait forever. */
    if (c->node_of[t] != c->mynode && send_push(c, c->alarm, PUSH_HDR, t) &&
        !simple_send(c->s, c->alarm->data, PUSH_HDR, SIMPLE_BYTE, t, PUSH_TAG))
      c->sent_to[t]++;
}

/* Collective over the job, after a factorization that failed somewhere:
 * the threads stopped taking pushes mid-way, so each learns how many were
 * sent to it (an all-to-all of counts), takes the rest, and waits for its
 * own sends: no message outlives the call, no buffer is freed under MPI. */
static int drain_pushes(ctx_t *c) {
  int *got = malloc(sizeof(int) * (size_t)c->p);
  if (!got) return SIMPLE_ERR_NOMEM;
  int rc = simple_alltoall(c->s, c->sent_to, got, 1, SIMPLE_INT32);
  long owed = -c->received;
  for (int t = 0; t < c->p && !rc; t++) owed += got[t];
  free(got);
  size_t cap = PUSH_HDR + sizeof(double) * (size_t)c->nb * c->nb;
  for (; owed > 0 && !rc; owed--)
    rc = simple_recv(c->s, c->inbox, cap, SIMPLE_BYTE, SIMPLE_ANY_SOURCE, PUSH_TAG, NULL);
  int r2 = pushes_sent(c, 1);
  return rc ? rc : r2;
}

/* Takes the pushes that have arrived (up to 64 looks at the mailbox while
 * some are due, one when none is and `any`: every 64th look on a job of
 * several nodes also polls MPI): each block's bytes into the node's cache,
 * its name on the board. SIMPLE_ERR_ARG on a failure push (the node's
 * board then says so too). */
static int take_pushes(ctx_t *c, int any) {
  int rc = c->nout ? pushes_sent(c, 0) : 0;
  if (rc) return rc;
  size_t cap = PUSH_HDR + sizeof(double) * (size_t)c->nb * c->nb;
  for (int look = 0; look < (c->received < c->expected ? 64 : any); look++) {
    int flag = 0;
    simple_status_t st;
    rc = simple_iprobe(c->s, SIMPLE_ANY_SOURCE, PUSH_TAG, &flag, &st);
    if (rc) return rc;
    if (!flag) continue;
    rc = simple_recv(c->s, c->inbox, cap, SIMPLE_BYTE, st.source, PUSH_TAG, &st);
    if (rc) return rc;
    look = -1; /* found one: look again from the start */
    uint64_t m[4];
    memcpy(m, c->inbox, PUSH_HDR);
    /* A push of an earlier call that failed (its receivers stopped before
     * taking it) is dropped. */
    if (m[3] != c->epoch) continue;
    c->received++;
    if (m[0] == FAIL_BLOCK) {
      post_failure(c->board);
      return SIMPLE_ERR_ARG;
    }
    simple_obj_t name = {m[1], m[2]};
    if (m[0] >= (uint64_t)c->N * c->N || st.bytes != PUSH_HDR + simple_shobj_size(name))
      return SIMPLE_ERR_ARG;
    /* A cache without room keeps nothing: the reader then fetches. */
    rc = simple_shobj_offer(c->s, c->sp, name, c->inbox + PUSH_HDR, simple_shobj_size(name));
    if (rc && rc != SIMPLE_ERR_CACHE_FULL) return rc;
    board_post(c->board, m[0], name);
  }
  return 0;
}

/* Sleeps on the board until block b is posted, the node fails, or ns
 * nanoseconds pass. */
static void board_sleep(board_t *bd, size_t b, long ns) {
  pthread_mutex_lock(&bd->mu);
  atomic_fetch_add(&bd->sleepers, 1); /* seq_cst: before the load of ready */
  if (!atomic_load(&bd->ready[b]) && !atomic_load(&bd->failed)) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += ns;
    while (ts.tv_nsec >= 1000000000) ts.tv_sec++, ts.tv_nsec -= 1000000000;
    pthread_cond_timedwait(&bd->cv, &bd->mu, &ts);
  }
  atomic_fetch_sub(&bd->sleepers, 1);
  pthread_mutex_unlock(&bd->mu);
}

/* SIMPLE_ERR_ARG when the factorization failed somewhere: this node's
 * board, or a failure push in this thread's mailbox (one look). */
static int failed(ctx_t *c) {
  if (atomic_load_explicit(&c->board->failed, memory_order_relaxed)) return SIMPLE_ERR_ARG;
  return c->multi ? take_pushes(c, 1) : 0;
}

/* The name of finished block (i, j), waiting for it; SIMPLE_ERR_ARG when
 * the factorization failed meanwhile somewhere (failed()).
 * A block finished on this node is on the board: ~100 spins on its flag,
 * then sleeps of up to 1 ms on the board's condition variable (woken by
 * the post), looking for a failure (failed()) between sleeps. A
 * block of another node: pushed to this thread (its bytes already in the
 * node's cache when its name arrives, see the pushes), or else its
 * directory entry polled at the block's home (an accumulator get),
 * sleeping on the board between looks (20 us doubling to 1.3 ms), and the
 * name posted on the board for the node's other threads. */
static int await(ctx_t *c, int i, int j, simple_obj_t *name) {
  size_t b = (size_t)i * c->N + j;
  simple_obj_t *k = &c->known[b];
  board_t *bd = c->board;
  if (simple_shobj_kind(*k)) goto found;
  if (c->node_of[owner(c, i, j)] == c->mynode) {
    for (int spin = 0; spin < 100; spin++) {
      if (atomic_load_explicit(&bd->ready[b], memory_order_acquire)) goto posted;
      sched_yield();
    }
    for (unsigned looks = 1;; looks++) {
      /* A node-mate may wait on the board for a block pushed to this
       * thread: while some are due, look for them every 20 us. */
      int due = c->received < c->expected, rc = due ? take_pushes(c, 0) : 0;
      if (rc) return rc;
      board_sleep(bd, b, due ? 20000L : 1000000L);
      if (atomic_load_explicit(&bd->ready[b], memory_order_acquire)) goto posted;
      if ((!due || looks % 16 == 0) && (rc = failed(c))) return rc;
    }
  }
  if (c->need && c->need[b * (size_t)c->p + c->me]) {
    /* A block pushed to this node (to this thread, or to the node's first
     * thread that reads it, which posts it): take this thread's pushes
     * until the block is posted, sleeping 20 us on the board between looks
     * (a node-mate's post wakes it). Measured on the virtual cluster,
     * 2 x 2, BCSSTK15, 2 runs each: 0.15-0.17 s at 20 us, 0.30-0.50 at
     * 5 us (the looks take the core from the node-mate that computes),
     * 0.18-0.24 at 50 us, 0.36 with 20 us doubling to 160 us. */
    for (unsigned looks = 1;; looks++) {
      int rc = take_pushes(c, 0);
      if (rc) return rc;
      if (atomic_load_explicit(&bd->ready[b], memory_order_acquire)) goto posted;
      if (looks % 16 == 0 && (rc = failed(c))) return rc;
      board_sleep(bd, b, 20000L);
    }
  }
  for (unsigned polls = 1;; polls++) {
    if (atomic_load_explicit(&bd->ready[b], memory_order_acquire)) goto posted;
    int rc = simple_shobj_get(c->s, c->sp, c->dir[b], k, sizeof *k, NULL);
    if (rc) return rc;
    if (simple_shobj_kind(*k)) {
      board_post(bd, b, *k);
      goto found;
    }
    if ((rc = failed(c))) return rc;
    /* The block's owner is still computing: sleep on the board (a
     * node-mate's post wakes us), 20 us doubling to 1.3 ms between looks,
     * leaving the core and the network to the threads that compute. */
    board_sleep(bd, b, 20000L << (polls < 6 ? polls : 6));
  }
posted:
  *k = bd->names[b];
found:
  *name = *k;
  return 0;
}

static int factor(ctx_t *c) {
  double one = 1, minus = -1;
  for (int j = 0; j < c->N; j++)
    for (int i = j; i < c->N; i++) {
      if (owner(c, i, j) != c->me || !nzb(c, i, j)) continue;
      int mi = bsize(c, i), mj = bsize(c, j);
      double *a = c->work;
      load_block(c, i, j, mi, mj, a);
      for (int k = 0; k < j; k++) {
        if (!nzb(c, i, k) || !nzb(c, j, k)) continue;
        int mk = bsize(c, k);
        simple_obj_t ni, nj;
        const double *lik, *ljk;
        int rc = await(c, i, k, &ni);
        if (!rc) rc = await(c, j, k, &nj);
        if (rc) return rc;
        if ((rc = simple_shobj_read(c->s, c->sp, ni, (const void **)&lik, NULL))) return rc;
        if ((rc = simple_shobj_read(c->s, c->sp, nj, (const void **)&ljk, NULL))) {
          simple_shobj_done(c->s, c->sp, ni);
          return rc;
        }
        if (i == j)
          dsyrk_("L", "N", &mi, &mk, &minus, lik, &mi, &one, a, &mi);
        else
          dgemm_("N", "T", &mi, &mj, &mk, &minus, lik, &mi, ljk, &mj, &one, a, &mi);
        simple_shobj_done(c->s, c->sp, ni);
        simple_shobj_done(c->s, c->sp, nj);
      }
      if (i == j) {
        int info = 0;
        dpotrf_("L", &mi, a, &mi, &info);
        if (info) {
          announce_failure(c, (int64_t)c->off[j] + info - 1);
          return SIMPLE_ERR_ARG;
        }
        for (int y = 0; y < mi; y++) /* the upper part is not L's */
          for (int x = 0; x < y; x++) a[(size_t)y * mi + x] = 0;
      } else {
        simple_obj_t nd;
        const double *ljj;
        int rc = await(c, j, j, &nd);
        if (!rc) rc = simple_shobj_read(c->s, c->sp, nd, (const void **)&ljj, NULL);
        if (rc) return rc;
        dtrsm_("R", "L", "T", "N", &mi, &mj, &one, ljj, &mj, a, &mi);
        simple_shobj_done(c->s, c->sp, nd);
      }
      simple_obj_t name;
      int rc = simple_shobj_value(c->s, c->sp, a, sizeof(double) * (size_t)mi * mj, &name);
      if (rc) return rc;
      /* The node's threads first (the board), then the other nodes (the
       * directory entry, written only when there are other nodes). */
      board_post(c->board, (size_t)i * c->N + j, name);
      rc = push(c, (size_t)i * c->N + j, name, a);
      if (c->multi && !rc)
        rc = simple_shobj_write(c->s, c->sp, c->dir[(size_t)i * c->N + j], &name, sizeof name);
      if (rc) return rc;
      c->known[(size_t)i * c->N + j] = name;
    }
  /* The pushes not taken yet (their blocks were on the board first): every
   * sent message is received before the job goes on, and every one this
   * thread sent has left its buffer. */
  for (unsigned looks = 1; c->received < c->expected || c->nout; looks++) {
    int rc = take_pushes(c, 0);
    if (rc) return rc;
    if (c->received >= c->expected && !c->nout) break;
    if (looks % 16 == 0 && (rc = failed(c))) return rc;
    sched_yield();
  }
  return 0;
}

/* ---------------------------------------------------------------------
 * A sparse matrix from a Matrix Market file. */

static void sparse_free(sparse_t *m) {
  if (!m) return;
  free(m->row), free(m->col), free(m->val), free(m->start), free(m->nz), free(m->perm);
  free(m->off), free(m->bparent), free(m->work);
  free(m);
}

#define FAIL(...)                    \
  do {                               \
    snprintf(err, 256, __VA_ARGS__); \
    rc = SIMPLE_ERR_ARG;             \
    goto out;                        \
  } while (0)

/* ---------------------------------------------------------------------
 * The supernodal block partition of a sparse matrix.
 *
 * Fixed-width blocks straddle the nested-dissection separators: a block
 * column then holds pieces of unrelated subtrees, and every subtree's
 * blocks depend on blocks of the others. Here the block columns follow
 * the elimination tree instead: the order is METIS's, postordered (the
 * same fill, every subtree's columns contiguous), the columns are grouped
 * into supernodes (columns with the same structure below the diagonal,
 * each the only child of the next), small supernodes are merged with
 * their parent while the merge adds few zeros (relaxed supernodes, the
 * thresholds of CHOLMOD), small sibling subtrees are merged together, and
 * wide supernodes are cut to at most nb columns. Rows are cut at the same
 * boundaries. A block column then belongs to one subtree of the
 * elimination tree, and the subtrees can be mapped to nodes.
 * Cost: O(nnz(L)) for the tree and the counts, O(N^3) for the block
 * structure's closure (N blocks). */

/* Row lists of the lower triangle in the numbering nw: row i's columns
 * k < i are rc[rp[i] .. rp[i+1]-1]. */
static void rows_of(int n, long nnz, const int *ri, const int *ci, const int *nw, long *rp,
                    int *rc) {
  memset(rp, 0, sizeof(long) * ((size_t)n + 2));
  for (long e = 0; e < nnz; e++) {
    int a = nw[ri[e]], b = nw[ci[e]];
    if (a != b) rp[(a > b ? a : b) + 2]++;
  }
  for (int i = 0; i < n; i++) rp[i + 2] += rp[i + 1];
  for (long e = 0; e < nnz; e++) {
    int a = nw[ri[e]], b = nw[ci[e]];
    if (a == b) continue;
    if (a < b) {
      int t = a;
      a = b, b = t;
    }
    rc[rp[a + 1]++] = b;
  }
}

/* Liu's elimination tree, with path compression in anc. */
static void etree(int n, const long *rp, const int *rc, int *parent, int *anc) {
  for (int i = 0; i < n; i++) {
    parent[i] = anc[i] = -1;
    for (long e = rp[i]; e < rp[i + 1]; e++) {
      int r = rc[e];
      while (anc[r] != -1 && anc[r] != i) {
        int t = anc[r];
        anc[r] = i, r = t;
      }
      if (anc[r] == -1) anc[r] = i, parent[r] = i;
    }
  }
}

/* The partition, from the lower triangle (ri >= ci, original numbering)
 * and METIS's order iperm (original -> new): nw (original -> final
 * number), m->off, m->N, m->nz, m->bparent, m->work; m->nb the widest
 * block. */
static int partition(sparse_t *m, long nnz, const int *ri, const int *ci, const idx_t *iperm,
                     int nbmax, int *nw) {
  int n = m->n, rc = SIMPLE_ERR_NOMEM;
  long *rp = malloc(sizeof(long) * ((size_t)n + 2));
  int *rcol = malloc(sizeof(int) * (size_t)(nnz + 1)), *parent = malloc(sizeof(int) * n),
      *anc = malloc(sizeof(int) * n), *post = malloc(sizeof(int) * n),
      *head = malloc(sizeof(int) * n), *next = malloc(sizeof(int) * n),
      *cc = malloc(sizeof(int) * n), *gf = malloc(sizeof(int) * ((size_t)n + 1)),
      *blk = malloc(sizeof(int) * n);
  if (!rp || !rcol || !parent || !anc || !post || !head || !next || !cc || !gf || !blk) goto out;
  /* METIS's order, its tree, and the tree's postorder (children in
   * increasing order, so the order moves little). */
  for (int v = 0; v < n; v++) nw[v] = (int)iperm[v];
  rows_of(n, nnz, ri, ci, nw, rp, rcol);
  etree(n, rp, rcol, parent, anc);
  for (int j = 0; j < n; j++) head[j] = -1;
  for (int j = n - 1; j >= 0; j--)
    if (parent[j] >= 0) next[j] = head[parent[j]], head[parent[j]] = j;
  int k = 0, *stack = anc; /* anc is free now */
  for (int r = 0; r < n; r++) {
    if (parent[r] >= 0) continue;
    int top = 0;
    stack[top++] = r;
    while (top) {
      int v = stack[top - 1];
      if (head[v] >= 0) {
        int ch = head[v];
        head[v] = next[ch];
        stack[top++] = ch;
      } else {
        post[k++] = v, top--;
      }
    }
  }
  for (int q = 0; q < n; q++) head[post[q]] = q; /* head: METIS number -> postorder */
  for (int v = 0; v < n; v++) nw[v] = head[nw[v]];
  rows_of(n, nnz, ri, ci, nw, rp, rcol);
  etree(n, rp, rcol, parent, anc);
  /* Column counts (diagonal included) by row subtrees: row i of L is the
   * tree's paths from each k of row i of A up to i. */
  int *mark = post, *nchild = next;
  for (int j = 0; j < n; j++) cc[j] = 1, mark[j] = -1, nchild[j] = 0;
  for (int j = 0; j < n; j++)
    if (parent[j] >= 0) nchild[parent[j]]++;
  for (int i = 0; i < n; i++) {
    mark[i] = i;
    for (long e = rp[i]; e < rp[i + 1]; e++)
      for (int j = rcol[e]; mark[j] != i; j = parent[j]) mark[j] = i, cc[j]++;
  }
  /* Fundamental supernodes, merged with their parent while the merge adds
   * few explicit zeros (CHOLMOD's relaxed amalgamation: any width up to 4,
   * up to 16 with 80% zeros, up to 48 with 10%, else 5%). A group [f, l]
   * can take the next supernode when that one's first column is l's
   * parent (l is its last child in the postorder). */
  int ng = 0;
  for (int j = 0; j < n; j++)
    if (!(j > 0 && parent[j - 1] == j && cc[j - 1] == cc[j] + 1 && nchild[j] == 1)) gf[ng++] = j;
  gf[ng] = n;
  int nr = 0;
  long real = 0;
  for (int g = 0; g < ng; g++) {
    long sum = 0;
    for (int j = gf[g]; j < gf[g + 1]; j++) sum += cc[j];
    if (nr > 0) {
      int f = gf[nr - 1], l = gf[g] - 1, l2 = gf[g + 1] - 1;
      if (parent[l] == l + 1) {
        double w = l2 - f + 1, c0 = (l - f + 1) + cc[l + 1], stored = w * c0 - w * (w - 1) / 2;
        double z = (stored - (double)(real + sum)) / stored;
        if (w <= 4 || (w <= 16 && z < 0.8) || (w <= 48 && z < 0.1) || z < 0.05) {
          real += sum;
          continue; /* group nr - 1 now ends at l2 */
        }
      }
    }
    gf[nr++] = gf[g], real = sum;
  }
  gf[nr] = n;
  /* Small neighbours merged up to 16 columns: siblings (the same parent)
   * or a child subtree with the group that holds its parent. Blocks this
   * narrow cost more in messages and calls than their zeros. */
  ng = 0;
  for (int g = 0; g < nr; g++) {
    if (ng > 0) {
      int f = gf[ng - 1], l1 = gf[g] - 1, l2 = gf[g + 1] - 1;
      if (l2 - f + 1 <= 16 && (parent[l1] == parent[l2] || (parent[l1] > l1 && parent[l1] <= l2)))
        continue;
    }
    gf[ng++] = gf[g];
  }
  gf[ng] = n;
  /* Wide groups cut into pieces of at most nbmax columns, of even widths. */
  int N = 0, widest = 1;
  for (int g = 0; g < ng; g++) {
    int w = gf[g + 1] - gf[g], pieces = (w + nbmax - 1) / nbmax;
    N += pieces;
  }
  m->off = malloc(sizeof(int) * ((size_t)N + 1));
  if (!m->off) goto out;
  N = 0;
  for (int g = 0; g < ng; g++) {
    int w = gf[g + 1] - gf[g], pieces = (w + nbmax - 1) / nbmax;
    for (int q = 0; q < pieces; q++) {
      m->off[N++] = gf[g] + (int)((long)w * q / pieces);
      int wq = (int)((long)w * (q + 1) / pieces) - (int)((long)w * q / pieces);
      if (wq > widest) widest = wq;
    }
  }
  m->off[N] = n;
  m->N = N, m->nb = widest;
  for (int I = 0; I < N; I++)
    for (int j = m->off[I]; j < m->off[I + 1]; j++) blk[j] = I;
  /* The block structure: (I, J) is non-zero when L has an entry there
   * (row subtrees again), closed under the block fill rule ((I, K) and
   * (J, K) non-zero, K < J: (I, J) non-zero) so that the blocks a block
   * column updates are its ancestors in the block tree. The closure as a
   * symbolic factorization does it: column K's rows below its first one,
   * P, go into column P (taken in increasing K, P's rows then hold K's
   * and pass them on), O(N^2) instead of O(N^3). */
  m->nz = calloc((size_t)N * N, 1);
  m->bparent = malloc(sizeof(int) * (size_t)N);
  m->work = calloc((size_t)N, sizeof(double));
  if (!m->nz || !m->bparent || !m->work) goto out;
  for (int j = 0; j < n; j++) mark[j] = -1;
  for (int i = 0; i < n; i++) {
    mark[i] = i;
    m->nz[(size_t)blk[i] * N + blk[i]] = 1;
    for (long e = rp[i]; e < rp[i + 1]; e++)
      for (int j = rcol[e]; mark[j] != i; j = parent[j])
        mark[j] = i, m->nz[(size_t)blk[i] * N + blk[j]] = 1;
  }
  for (int J = 0; J < N; J++) {
    int P = -1;
    for (int I = J + 1; I < N; I++) {
      if (!m->nz[(size_t)I * N + J]) continue;
      if (P < 0)
        P = I;
      else
        m->nz[(size_t)I * N + P] = 1;
    }
    m->bparent[J] = P;
    for (int j = m->off[J]; j < m->off[J + 1]; j++) m->work[J] += (double)cc[j] * cc[j];
  }
  rc = 0;
out:
  free(rp), free(rcol), free(parent), free(anc), free(post), free(head), free(next), free(cc);
  free(gf), free(blk);
  return rc;
}

static int sparse_read(const char *path, int nb, sparse_t **out, char *err) {
  int rc = 0;
  sparse_t *m = calloc(1, sizeof *m);
  idx_t *xadj = NULL, *adj = NULL, *perm = NULL, *iperm = NULL;
  long *deg = NULL;
  int *ri = NULL, *ci = NULL;
  double *vv = NULL;
  FILE *f = fopen(path, "r");
  if (!m) return SIMPLE_ERR_NOMEM;
  if (!f) FAIL("%s: cannot open: %s", path, strerror(errno));
  char line[1024];
  long ln = 1;
  if (!fgets(line, sizeof line, f)) FAIL("%s: empty file", path);
  char obj[64], fmt[64], field[64], sym[64];
  if (sscanf(line, "%%%%MatrixMarket %63s %63s %63s %63s", obj, fmt, field, sym) != 4 ||
      strcasecmp(obj, "matrix") || strcasecmp(fmt, "coordinate"))
    FAIL("%s: line 1: not a Matrix Market coordinate matrix header", path);
  if (strcasecmp(field, "real") && strcasecmp(field, "integer") && strcasecmp(field, "double"))
    FAIL("%s: line 1: field '%s': only real matrices", path, field);
  if (strcasecmp(sym, "symmetric"))
    FAIL("%s: line 1: '%s' matrix: Cholesky needs a symmetric one", path, sym);
  long rows = -1, cols = -1, nnz = -1;
  while (fgets(line, sizeof line, f)) {
    ln++;
    if (line[0] == '%') continue;
    char extra;
    if (sscanf(line, "%ld %ld %ld %c", &rows, &cols, &nnz, &extra) != 3)
      FAIL("%s: line %ld: expected 'rows columns entries'", path, ln);
    break;
  }
  if (rows < 1 || rows != cols || rows > SIMPLE_CHOLESKY_MAX_N || nnz < rows || nnz > 100000000L)
    FAIL(
        "%s: line %ld: %ld x %ld with %ld entries: need a square matrix of order 1..%d with "
        "its diagonal",
        path, ln, rows, cols, nnz, SIMPLE_CHOLESKY_MAX_N);
  int n = (int)rows;
  ri = malloc(sizeof(int) * nnz), ci = malloc(sizeof(int) * nnz), vv = malloc(8 * nnz);
  deg = calloc((size_t)n + 1, sizeof(long));
  if (!ri || !ci || !vv || !deg) {
    rc = SIMPLE_ERR_NOMEM;
    goto out;
  }
  for (long e = 0; e < nnz; e++) {
    if (!fgets(line, sizeof line, f)) FAIL("%s: %ld entries announced, %ld found", path, nnz, e);
    ln++;
    long i, j;
    double v;
    char extra;
    if (sscanf(line, "%ld %ld %lf %c", &i, &j, &v, &extra) != 3)
      FAIL("%s: line %ld: expected 'row column value'", path, ln);
    if (i < 1 || i > n || j < 1 || j > n)
      FAIL("%s: line %ld: entry (%ld, %ld) outside the %d x %d matrix", path, ln, i, j, n, n);
    if (!isfinite(v)) FAIL("%s: line %ld: value is not a finite number", path, ln);
    if (i < j) { /* upper triangle given: the same entry of the lower */
      long t = i;
      i = j, j = t;
    }
    ri[e] = (int)i - 1, ci[e] = (int)j - 1, vv[e] = v;
    if (i != j) deg[i - 1]++, deg[j - 1]++;
  }
  /* METIS's graph: both directions, no diagonal. */
  xadj = malloc(sizeof(idx_t) * ((size_t)n + 1));
  long tot = 0;
  for (int v = 0; v < n; v++) tot += deg[v];
  adj = malloc(sizeof(idx_t) * (size_t)(tot + 1));
  perm = malloc(sizeof(idx_t) * n), iperm = malloc(sizeof(idx_t) * n);
  if (!xadj || !adj || !perm || !iperm) {
    rc = SIMPLE_ERR_NOMEM;
    goto out;
  }
  xadj[0] = 0;
  for (int v = 0; v < n; v++) xadj[v + 1] = xadj[v] + (idx_t)deg[v], deg[v] = xadj[v];
  for (long e = 0; e < nnz; e++)
    if (ri[e] != ci[e]) adj[deg[ri[e]]++] = ci[e], adj[deg[ci[e]]++] = ri[e];
  idx_t nv = n, opt[METIS_NOPTIONS];
  METIS_SetDefaultOptions(opt);
  opt[METIS_OPTION_SEED] = 1; /* the same order on every node */
  if (tot == 0) {
    for (int v = 0; v < n; v++) perm[v] = iperm[v] = v;
  } else if (METIS_NodeND(&nv, xadj, adj, NULL, opt, perm, iperm) != METIS_OK) {
    FAIL("%s: METIS_NodeND failed", path);
  }
  /* The supernodal partition and the final order; the permuted lower
   * triangle, by block. */
  m->n = n, m->nnz = nnz;
  m->perm = malloc(sizeof(int) * n);
  int *nw = malloc(sizeof(int) * n);
  if (!m->perm || !nw) {
    free(nw);
    rc = SIMPLE_ERR_NOMEM;
    goto out;
  }
  rc = partition(m, nnz, ri, ci, iperm, nb, nw);
  if (rc) {
    free(nw);
    goto out;
  }
  int N = m->N;
  m->row = malloc(sizeof(int) * nnz), m->col = malloc(sizeof(int) * nnz), m->val = malloc(8 * nnz);
  m->start = calloc((size_t)N * N + 1, sizeof(long));
  int *blk = malloc(sizeof(int) * n);
  if (!m->row || !m->col || !m->val || !m->start || !blk) {
    free(nw), free(blk);
    rc = SIMPLE_ERR_NOMEM;
    goto out;
  }
  for (int I = 0; I < N; I++)
    for (int j = m->off[I]; j < m->off[I + 1]; j++) blk[j] = I;
  for (int v = 0; v < n; v++) m->perm[nw[v]] = v;
  for (long e = 0; e < nnz; e++) {
    int a = nw[ri[e]], b = nw[ci[e]];
    if (a < b) {
      int t = a;
      a = b, b = t;
    }
    ri[e] = a, ci[e] = b;
    m->start[(size_t)blk[a] * N + blk[b] + 1]++;
  }
  free(nw);
  for (size_t k = 0; k < (size_t)N * N; k++) m->start[k + 1] += m->start[k];
  long *fill = malloc(sizeof(long) * (size_t)N * N);
  if (!fill) {
    free(blk);
    rc = SIMPLE_ERR_NOMEM;
    goto out;
  }
  memcpy(fill, m->start, sizeof(long) * (size_t)N * N);
  for (long e = 0; e < nnz; e++) {
    size_t b = (size_t)blk[ri[e]] * N + blk[ci[e]];
    long at = fill[b]++;
    m->row[at] = ri[e], m->col[at] = ci[e], m->val[at] = vv[e];
  }
  free(fill), free(blk);
out:
  if (f) fclose(f);
  free(xadj), free(adj), free(perm), free(iperm), free(deg), free(ri), free(ci), free(vv);
  if (rc) {
    sparse_free(m);
    m = NULL;
  }
  *out = m;
  return rc;
}

/* Thread 0 of node 0, sparse: the triangular solves by blocks through the
 * shared objects, and the residual with the stored entries. */
static int check_sparse(ctx_t *c, double *residual) {
  const sparse_t *m = c->sp_a;
  int n = c->n, N = c->N, rc = 0;
  double *b = calloc((size_t)n, sizeof(double)), *x = malloc(sizeof(double) * n),
         *rs = calloc((size_t)n, sizeof(double));
  if (!b || !x || !rs) rc = SIMPLE_ERR_NOMEM;
  /* b = A (1..1); ||A||_inf. */
  for (long e = 0; e < m->nnz && !rc; e++) {
    int i = m->row[e], j = m->col[e];
    b[i] += m->val[e], rs[i] += fabs(m->val[e]);
    if (i != j) b[j] += m->val[e], rs[j] += fabs(m->val[e]);
  }
  if (!rc) memcpy(x, b, sizeof(double) * n);
  /* L y = b, by block columns. */
  for (int J = 0; J < N && !rc; J++) {
    int mj = bsize(c, J);
    for (int I = J; I < N && !rc; I++) {
      if (!nzb(c, I, J)) continue;
      simple_obj_t nm;
      const double *L;
      rc = await(c, I, J, &nm);
      if (!rc) rc = simple_shobj_read(c->s, c->sp, nm, (const void **)&L, NULL);
      if (rc) break;
      int mi = bsize(c, I);
      double *xj = x + c->off[J], *xi = x + c->off[I];
      if (I == J) {
        for (int y = 0; y < mj; y++) {
          xj[y] /= L[(size_t)y * mj + y];
          for (int q = y + 1; q < mj; q++) xj[q] -= L[(size_t)y * mj + q] * xj[y];
        }
      } else {
        for (int y = 0; y < mj; y++)
          for (int q = 0; q < mi; q++) xi[q] -= L[(size_t)y * mi + q] * xj[y];
      }
      simple_shobj_done(c->s, c->sp, nm);
    }
  }
  /* L^T x = y, by block rows from the bottom. */
  for (int J = N - 1; J >= 0 && !rc; J--) {
    int mj = bsize(c, J);
    double *xj = x + c->off[J];
    for (int I = N - 1; I >= J && !rc; I--) {
      if (!nzb(c, I, J)) continue;
      simple_obj_t nm;
      const double *L;
      rc = await(c, I, J, &nm);
      if (!rc) rc = simple_shobj_read(c->s, c->sp, nm, (const void **)&L, NULL);
      if (rc) break;
      int mi = bsize(c, I);
      const double *xi = x + c->off[I];
      if (I == J) {
        for (int y = mj - 1; y >= 0; y--) {
          double t = xj[y];
          for (int q = y + 1; q < mj; q++) t -= L[(size_t)y * mj + q] * xj[q];
          xj[y] = t / L[(size_t)y * mj + y];
        }
      } else {
        for (int y = 0; y < mj; y++)
          for (int q = 0; q < mi; q++) xj[y] -= L[(size_t)y * mi + q] * xi[q];
      }
      simple_shobj_done(c->s, c->sp, nm);
    }
  }
  if (!rc) {
    double *r = rs; /* reuse: ||A|| first */
    double anorm = 0, xmax = 0, rmax = 0;
    for (int i = 0; i < n; i++)
      anorm = fmax(anorm, r[i]), r[i] = -b[i], xmax = fmax(xmax, fabs(x[i]));
    for (long e = 0; e < m->nnz; e++) {
      int i = m->row[e], j = m->col[e];
      r[i] += m->val[e] * x[j];
      if (i != j) r[j] += m->val[e] * x[i];
    }
    for (int i = 0; i < n; i++) rmax = fmax(rmax, fabs(r[i]));
    *residual = rmax / (anorm * xmax);
  }
  free(b), free(x), free(rs);
  return rc;
}

/* Thread 0 of node 0: the factor back from the shared objects, a solve of
 * A x = b for b = A (1..1), and the residual against the generated A. */
static int check(ctx_t *c, double *residual) {
  int n = c->n, nb = c->nb;
  double *L = calloc((size_t)n * n, sizeof(double)), *b = malloc(sizeof(double) * n),
         *x = malloc(sizeof(double) * n);
  int rc = (!L || !b || !x) ? SIMPLE_ERR_NOMEM : 0;
  for (int j = 0; j < c->N && !rc; j++)
    for (int i = j; i < c->N && !rc; i++) {
      simple_obj_t nm;
      const double *blk;
      rc = await(c, i, j, &nm);
      if (!rc) rc = simple_shobj_read(c->s, c->sp, nm, (const void **)&blk, NULL);
      if (rc) break;
      int mi = bsize(c, i), mj = bsize(c, j);
      for (int y = 0; y < mj; y++)
        for (int q = 0; q < mi; q++)
          L[(size_t)(j * nb + y) * n + i * nb + q] = blk[(size_t)y * mi + q];
      simple_shobj_done(c->s, c->sp, nm);
    }
  if (!rc) {
    double anorm = 0;
    for (int i = 0; i < n; i++) {
      double rs = 0, ra = 0;
      for (int j = 0; j < n; j++) {
        double a = simple_cholesky_entry(n, c->shift, i, j);
        rs += a, ra += fabs(a);
      }
      b[i] = rs;
      anorm = fmax(anorm, ra);
    }
    /* L y = b, then L^T x = y (L column-major: L[col * n + row]). */
    memcpy(x, b, sizeof(double) * n);
    for (int j = 0; j < n; j++) {
      x[j] /= L[(size_t)j * n + j];
      for (int i = j + 1; i < n; i++) x[i] -= L[(size_t)j * n + i] * x[j];
    }
    for (int j = n - 1; j >= 0; j--) {
      double t = x[j];
      for (int i = j + 1; i < n; i++) t -= L[(size_t)j * n + i] * x[i];
      x[j] = t / L[(size_t)j * n + j];
    }
    double rmax = 0, xmax = 0;
    for (int i = 0; i < n; i++) {
      double r = -b[i];
      for (int j = 0; j < n; j++) r += simple_cholesky_entry(n, c->shift, i, j) * x[j];
      rmax = fmax(rmax, fabs(r));
      xmax = fmax(xmax, fabs(x[i]));
    }
    *residual = rmax / (anorm * xmax);
  }
  free(L), free(b), free(x);
  return rc;
}

/* ---------------------------------------------------------------------
 * Subtree-to-node mapping (proportional mapping, Pothen and Sun) of a
 * sparse matrix's block columns: the block elimination tree from its
 * roots down, each block column given a range of the job's threads; the
 * children of a column split its range in two by their subtrees' flops
 * (the heavier group first), on node boundaries while the range spans
 * several nodes and on thread boundaries within one node, until a range
 * is one thread. So the top separators of the nested dissection are
 * shared by all threads, each half of the tree below them stays on its
 * nodes, and a block is read on another node only where a subtree of one
 * node updates a separator shared with another. A column's blocks go to
 * a pr x pc grid of its range, as the dense factor's to the whole job. */

static _Thread_local const double *map_w; /* qsort's key */
static int by_work(const void *a, const void *b) {
  double x = map_w[*(const int *)a], y = map_w[*(const int *)b];
  return x < y ? 1 : x > y ? -1 : *(const int *)a - *(const int *)b;
}

/* Gives the columns cols[0..cnt) (siblings) threads lo .. hi-1. */
static int map_split(ctx_t *c, const double *sw, const int *node_of, int *cols, int cnt, int lo,
                     int hi) {
  if (cnt == 0) return 0;
  if (cnt == 1 || hi - lo == 1) {
    for (int k = 0; k < cnt; k++) c->clo[cols[k]] = lo, c->cpr[cols[k]] = hi - lo;
    return 0;
  }
  /* The range's units: its nodes, or its threads when it is one node. */
  int multi = node_of[lo] != node_of[hi - 1], best = -1;
  map_w = sw;
  qsort(cols, (size_t)cnt, sizeof *cols, by_work);
  int *tmp = malloc(sizeof(int) * (size_t)cnt), n1 = 0, n2 = 0;
  if (!tmp) return SIMPLE_ERR_NOMEM;
  double w1 = 0, w2 = 0;
  for (int k = 0; k < cnt; k++) { /* largest first into the lighter group */
    if (w1 <= w2)
      w1 += sw[cols[k]], cols[n1++] = cols[k];
    else
      w2 += sw[cols[k]], tmp[n2++] = cols[k];
  }
  memcpy(cols + n1, tmp, sizeof(int) * (size_t)n2);
  free(tmp);
  /* The unit boundary closest to the first group's share of the flops. */
  double want = lo + (hi - lo) * (w1 + w2 > 0 ? w1 / (w1 + w2) : 0.5), gap = 0;
  for (int t = lo + 1; t < hi; t++) {
    if (multi && node_of[t] == node_of[t - 1]) continue;
    if (best < 0 || fabs(t - want) < gap) best = t, gap = fabs(t - want);
  }
  /* A split that leaves some thread more than 1.25 times an even share
   * (one subtree much heavier than the rest) is not made: both groups get
   * the whole range, and the heavy subtree is split further down. */
  double even = (w1 + w2) / (hi - lo);
  if (w1 > 1.25 * even * (best - lo) || w2 > 1.25 * even * (hi - best)) best = lo;
  if (best == lo) {
    int rc = map_split(c, sw, node_of, cols, n1, lo, hi);
    return rc ? rc : map_split(c, sw, node_of, cols + n1, n2, lo, hi);
  }
  int rc = map_split(c, sw, node_of, cols, n1, lo, best);
  return rc ? rc : map_split(c, sw, node_of, cols + n1, n2, best, hi);
}

static int map_subtrees(ctx_t *c, const sparse_t *m, const int *node_of) {
  int N = c->N, rc = 0;
  c->clo = malloc(sizeof(int) * (size_t)N), c->cpr = malloc(sizeof(int) * (size_t)N);
  c->cpc = malloc(sizeof(int) * (size_t)N);
  double *sw = malloc(sizeof(double) * (size_t)N);
  int *kids = malloc(sizeof(int) * (size_t)N), *first = malloc(sizeof(int) * ((size_t)N + 3));
  if (!c->clo || !c->cpr || !c->cpc || !sw || !kids || !first) {
    rc = SIMPLE_ERR_NOMEM;
    goto out;
  }
  /* Subtree flops (children before parents: bparent[J] > J), and each
   * column's children, kids[first[P+1] ..] (P = -1: the roots). */
  memcpy(sw, m->work, sizeof(double) * (size_t)N);
  memset(first, 0, sizeof(int) * ((size_t)N + 3));
  for (int J = 0; J < N; J++) {
    if (m->bparent[J] >= 0) sw[m->bparent[J]] += sw[J];
    first[m->bparent[J] + 3]++;
  }
  for (int P = 0; P <= N + 1; P++) first[P + 1] += first[P];
  for (int J = 0; J < N; J++) kids[first[m->bparent[J] + 2]++] = J;
  /* now kids[first[P] .. first[P+1]) are column P-1's children */
  rc = map_split(c, sw, node_of, kids + first[0], first[1] - first[0], 0, c->p);
  for (int J = N - 1; J >= 0 && !rc; J--) /* parents before children */
    rc = map_split(c, sw, node_of, kids + first[J + 1], first[J + 2] - first[J + 1], c->clo[J],
                   c->clo[J] + c->cpr[J]);
  for (int J = 0; J < N && !rc; J++) { /* the most square grid of the range */
    int q = c->cpr[J], pr = 1;
    for (int d = 1; d * d <= q; d++)
      if (q % d == 0) pr = d;
    c->cpr[J] = pr, c->cpc[J] = q / pr;
  }
out:
  free(sw), free(kids), free(first);
  return rc;
}

int simple_cholesky(simple_t *s, const simple_cholesky_opts_t *opts,
                    simple_cholesky_result_t *res) {
  simple_cholesky_opts_t o = {1000, 64, 0, NULL};
  if (opts) {
    o = *opts;
    if (!o.n) o.n = 1000;
    if (!o.nb) o.nb = o.matrix ? 128 : 64;
  }
  int rc = !res ? SIMPLE_ERR_NULL
           : (o.n < 1 || o.n > SIMPLE_CHOLESKY_MAX_N || o.nb < 1 || !isfinite(o.shift))
               ? SIMPLE_ERR_ARG
               : 0;
  if (res) {
    res->pivot = -1, res->residual = NAN, res->nnz = 0, res->factor_blocks = 0;
    res->remote_blocks = 0, res->pushed_blocks = 0;
    res->error[0] = 0;
    memset(&res->cache, 0, sizeof res->cache);
  }
  ctx_t c;
  memset(&c, 0, sizeof c);
  /* A matrix file: thread 0 of each node reads and orders it; the node's
   * threads share the result, every thread gets the verdict. */
  sparse_t *m = NULL;
  if (o.matrix) {
    struct {
      int rc;
      char err[256];
    } v = {rc, ""};
    if (!rc && simple_thread(s) == 0) v.rc = sparse_read(o.matrix, o.nb, &m, v.err);
    int r2 = simple_node_bcast(s, &v, sizeof v, SIMPLE_BYTE, 0);
    void *pm = m;
    if (!r2) r2 = simple_node_share(s, &pm, 0);
    m = pm;
    rc = r2 ? r2 : v.rc;
    if (res) memcpy(res->error, v.err, sizeof v.err);
    if (!rc) o.n = m->n;
  }
  if (!rc) {
    if (o.nb > o.n) o.nb = o.n;
    c.s = s, c.n = o.n, c.nb = o.nb, c.N = (o.n + o.nb - 1) / o.nb, c.shift = o.shift;
    if (m) c.nb = m->nb, c.N = m->N;
    c.sp_a = m;
    c.p = simple_nprocs(s), c.me = simple_pid(s);
    c.pr = 1;
    for (int d = 1; d * d <= c.p; d++)
      if (c.p % d == 0) c.pr = d;
    c.pc = c.p / c.pr;
    size_t nn = (size_t)c.N * c.N;
    c.dir = calloc(nn, sizeof *c.dir);
    c.known = calloc(nn, sizeof *c.known);
    c.work = malloc(sizeof(double) * (size_t)c.nb * c.nb);
    c.off = malloc(sizeof(int) * ((size_t)c.N + 1));
    int *nodes = malloc(sizeof(int) * (size_t)c.p);
    if (!c.dir || !c.known || !c.work || !c.off || !nodes) rc = SIMPLE_ERR_NOMEM;
    for (int i = 0; i <= c.N && !rc; i++) c.off[i] = m ? m->off[i] : i < c.N ? i * c.nb : c.n;
    for (int t = 0; t < c.p && !rc; t++) nodes[t] = simple_node_of(s, t);
    if (!rc && m) rc = map_subtrees(&c, m, nodes);
    free(nodes);
    res->n = c.n;
    res->nnz = m ? m->nnz : 0;
    for (int j = 0; j < c.N; j++)
      for (int i = j; i < c.N; i++) res->factor_blocks += nzb(&c, i, j);
  }
  int bad = rc, r2 = simple_allreduce(s, &rc, &bad, 1, SIMPLE_INT32, SIMPLE_MAX);
  if (r2 || bad) {
    free(c.dir), free(c.known), free(c.work);
    free(c.off), free(c.clo), free(c.cpr), free(c.cpc);
    simple_node_barrier(s);
    if (simple_thread(s) == 0) sparse_free(m);
    return r2 ? r2 : rc ? rc : SIMPLE_ERR_PEER;
  }
  openblas_set_num_threads(1);
  /* The node's board (node memory: flags, names, the lock and condition)
   * and every thread's node. */
  size_t nn = (size_t)c.N * c.N;
  void *bp = NULL;
  rc = simple_node_malloc(s, sizeof(board_t) + nn * (sizeof(simple_obj_t) + 1), &bp);
  int *node_of = malloc(sizeof(int) * (size_t)c.p);
  if (!rc && !node_of) rc = SIMPLE_ERR_NOMEM;
  if (!rc) {
    for (int t = 0; t < c.p; t++) node_of[t] = simple_node_of(s, t);
    c.node_of = node_of, c.mynode = simple_node(s), c.multi = simple_nodes(s) > 1;
    c.board = bp;
    if (simple_thread(s) == 0) {
      board_t *bd = bp;
      memset(bd, 0, sizeof *bd);
      pthread_mutex_init(&bd->mu, NULL);
      pthread_cond_init(&bd->cv, NULL);
      bd->names = (simple_obj_t *)(bd + 1);
      bd->ready = (atomic_uchar *)(bd->names + nn);
      memset(bd->names, 0, nn * sizeof(simple_obj_t));
      for (size_t b = 0; b < nn; b++) atomic_init(&bd->ready[b], 0);
    }
    rc = simple_node_barrier(s);
  }
  bad = rc;
  r2 = simple_allreduce(s, &rc, &bad, 1, SIMPLE_INT32, SIMPLE_MAX);
  if (r2 || bad) {
    if (bp) simple_node_free(s, bp);
    free(node_of), free(c.dir), free(c.known), free(c.work);
    free(c.off), free(c.clo), free(c.cpr), free(c.cpc);
    simple_node_barrier(s);
    if (simple_thread(s) == 0) sparse_free(m);
    return r2 ? r2 : rc ? rc : SIMPLE_ERR_PEER;
  }
  /* Room for the node's blocks (the whole factor at most) and their
   * directory entries. */
  size_t lower = (size_t)c.N * c.nb * c.nb;
  for (int j = 0; j < c.N; j++)
    for (int i = j; i < c.N; i++)
      if (nzb(&c, i, j)) lower += (size_t)bsize(&c, i) * bsize(&c, j);
  simple_shobj_opts_t so = {.heap_bytes = 8 * lower * 2 / (size_t)simple_nodes(s) + 8 * lower / 4 +
                                          (size_t)c.N * c.N * 64 + (1 << 20),
                            .cache_bytes = 8 * lower + (1 << 20)};
  rc = simple_shobj_open(s, &so, &c.sp);
  if (rc) {
    simple_node_free(s, bp);
    free(node_of), free(c.dir), free(c.known), free(c.work);
    free(c.off), free(c.clo), free(c.cpr), free(c.cpc);
    simple_node_barrier(s);
    if (simple_thread(s) == 0) sparse_free(m);
    return rc;
  }
  /* Each thread makes the directory entries of its blocks; everyone gets
   * every entry (the names OR-ed together: each slot has one maker). */
  for (int j = 0; j < c.N && !rc; j++)
    for (int i = j; i < c.N && !rc; i++)
      if (owner(&c, i, j) == c.me && nzb(&c, i, j))
        rc = simple_shobj_acc(s, c.sp, NULL, sizeof(simple_obj_t), &c.dir[(size_t)i * c.N + j]);
  bad = rc;
  r2 = simple_allreduce(s, &rc, &bad, 1, SIMPLE_INT32, SIMPLE_MAX);
  if (!r2 && !bad)
    r2 = simple_allreduce(s, SIMPLE_IN_PLACE, c.dir, 2 * (size_t)c.N * c.N, SIMPLE_UINT64,
                          SIMPLE_BOR);
  if (r2 || bad) rc = r2 ? r2 : rc ? rc : SIMPLE_ERR_PEER;
  static _Thread_local uint64_t calls; /* collective: every thread counts alike */
  c.epoch = ++calls;
  if (!rc) rc = plan_pushes(&c);
  res->remote_blocks = c.remote;
  res->pushed_blocks = c.pushed;
  bad = rc;
  r2 = simple_allreduce(s, &rc, &bad, 1, SIMPLE_INT32, SIMPLE_MAX);
  if (r2 || bad) rc = r2 ? r2 : rc ? rc : SIMPLE_ERR_PEER;
  double t0 = simple_time();
  if (!rc) {
    rc = factor(&c);
    res->time_s = simple_time() - t0;
    /* Everyone stops (done, or saw the failure) before the verdict: the
     * worst code, and the first failing pivot (several independent
     * subtrees may fail), as INT64_MAX - pivot so MAX finds it. */
    int64_t mine[2] = {rc, c.pivot ? INT64_MAX - (c.pivot - 1) : 0}, job[2];
    int r3 = simple_allreduce(s, mine, job, 2, SIMPLE_INT64, SIMPLE_MAX);
    int worst = r3 ? r3 : (int)job[0];
    if (!r3 && worst && c.multi) drain_pushes(&c); /* the call fails either way */
    if (!r3 && job[1]) {
      int64_t f = INT64_MAX - job[1];
      res->pivot = m ? m->perm[f] : (long)f;
      rc = SIMPLE_ERR_ARG;
    } else {
      rc = worst ? worst : r3;
    }
    if (!rc) rc = simple_allreduce(s, SIMPLE_IN_PLACE, &res->time_s, 1, SIMPLE_DOUBLE, SIMPLE_MAX);
    if (!rc && c.me == 0) rc = m ? check_sparse(&c, &res->residual) : check(&c, &res->residual);
    r3 = simple_bcast(s, &res->residual, 1, SIMPLE_DOUBLE, 0);
    if (!rc) rc = r3;
    bad = rc;
    r3 = simple_allreduce(s, &rc, &bad, 1, SIMPLE_INT32, SIMPLE_MAX);
    if (!rc && (r3 || bad)) rc = r3 ? r3 : SIMPLE_ERR_PEER;
    simple_barrier(s);
    simple_shobj_stats(s, c.sp, &res->cache);
  }
  int r4 = simple_shobj_close(s, c.sp);
  /* close's barrier: nobody waits on the board now */
  if (simple_thread(s) == 0) {
    pthread_mutex_destroy(&c.board->mu);
    pthread_cond_destroy(&c.board->cv);
  }
  int r5 = simple_node_free(s, bp);
  if (!r4) r4 = r5;
  free(node_of), free(c.need), free(c.dir), free(c.known), free(c.work);
  free(c.off), free(c.clo), free(c.cpr), free(c.cpc);
  free(c.inbox), free(c.out), free(c.reqs), free(c.sent_to);
  if (c.alarm && c.alarm->refs == 1) free(c.alarm); /* else still in flight: the job failed */
  if (simple_thread(s) == 0) sparse_free(m);        /* close's barrier: nobody reads it now */
  return rc ? rc : r4;
}
