/* libsimple-traffic: counts what an MPI program sends between nodes, from
 * MPI's side, for `simple-bench traffic` and tests/traffic. A measuring
 * tool, not part of the library: it is loaded into a job's processes
 * (LD_PRELOAD, or linked before libmpi) and interposes on MPI through the
 * profiling interface (PMPI), on the hybrid side and on flat MPI alike.
 *
 * Two views, both counted only between MPI_Pcontrol(1) and MPI_Pcontrol(0)
 * and only for peers on another node:
 *   api: the point-to-point sends and the one-sided puts, gets and
 *        accumulates the program itself calls (PMPI sees these calls);
 *   pml: every message Open MPI's point-to-point layer (PML) sends,
 *        including those inside MPI's own collectives, which never pass
 *        through PMPI; read from the MPI tool interface's performance
 *        variables of Open MPI's monitoring component
 *        (pml_monitoring_messages_count/_size), plus the one-sided
 *        component's messages (osc_monitoring_messages_sent_count/_size).
 *        Only with SIMPLE_TRAFFIC_PML=1, which turns the component on
 *        (OMPI_MCA_pml_monitoring_enable=1) before MPI starts. Where these
 *        variables do not exist the pml view is reported as absent (-1):
 *        MPICH, and Open MPI 4.1.4 as Debian builds it, whose monitoring
 *        PML counts (its textual output at MPI_Finalize shows the
 *        messages) but unregisters its variables when it takes the
 *        selected PML's place.
 * A peer's node: rank / SIMPLE_TRAFFIC_PPN when that is set (processes
 * placed node-major, as simplerun does: then a single host can stand for
 * several nodes), else the host name of the peer's process.
 *
 * Control, through the standard hook for profiling libraries:
 *   MPI_Pcontrol(1)            zero the counters and start counting;
 *   MPI_Pcontrol(0)            stop counting;
 *   MPI_Pcontrol(2, &counts)   copy the counters (simple_traffic_counts_t,
 *                              simple_traffic.h) and set its `loaded` to 1.
 * Without this library MPI_Pcontrol does nothing and `loaded` stays 0.
 *
 * Cost: an atomic add per counted call, a rank translation per call on a
 * communicator other than MPI_COMM_WORLD (cached per communicator and per
 * window), and two reads of O(ranks) variables per Pcontrol. */
#define _GNU_SOURCE
#include <mpi.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "simple_traffic.h"

static int world_size = 0, world_rank = 0;
static int *node_of = NULL; /* node of each world rank */
static volatile int counting = 0;
static uint64_t api_msgs, api_bytes, coll_calls;

/* Communicator or window -> world ranks, cached (freed handles dropped). */
#define CACHE 64
typedef struct {
  void *key;
  int n;
  int *world;
} map_t;
static map_t cache[CACHE];
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;

static const int *map_of(void *key, MPI_Group g) {
  pthread_mutex_lock(&cache_lock);
  for (int i = 0; i < CACHE; i++)
    if (cache[i].key == key) {
      pthread_mutex_unlock(&cache_lock);
      PMPI_Group_free(&g);
      return cache[i].world;
    }
  int n;
  PMPI_Group_size(g, &n);
  int *in = malloc((size_t)n * sizeof *in), *out = malloc((size_t)n * sizeof *out);
  MPI_Group wg;
  PMPI_Comm_group(MPI_COMM_WORLD, &wg);
  for (int i = 0; i < n; i++) in[i] = i;
  PMPI_Group_translate_ranks(g, n, in, wg, out);
  PMPI_Group_free(&wg);
  PMPI_Group_free(&g);
  free(in);
  int slot = -1;
  for (int i = 0; i < CACHE && slot < 0; i++)
    if (!cache[i].key) slot = i;
  if (slot < 0) slot = (int)(((uintptr_t)key >> 4) % CACHE), free(cache[slot].world);
  cache[slot] = (map_t){key, n, out};
  pthread_mutex_unlock(&cache_lock);
  return out;
}

static void map_drop(void *key) {
  pthread_mutex_lock(&cache_lock);
  for (int i = 0; i < CACHE; i++)
    if (cache[i].key == key) {
      free(cache[i].world);
      cache[i] = (map_t){0};
    }
  pthread_mutex_unlock(&cache_lock);
}

static int remote_world(int w) {
  return node_of && w >= 0 && w < world_size && node_of[w] != node_of[world_rank];
}

static int remote_in_comm(MPI_Comm c, int peer) {
  if (peer < 0) return 0; /* MPI_PROC_NULL, MPI_ANY_SOURCE */
  if (c == MPI_COMM_WORLD) return remote_world(peer);
  int inter = 0;
  PMPI_Comm_test_inter(c, &inter);
  MPI_Group g;
  if (inter)
    PMPI_Comm_remote_group(c, &g);
  else
    PMPI_Comm_group(c, &g);
  const int *w = map_of((void *)c, g);
  return remote_world(w[peer]);
}

static int remote_in_win(MPI_Win win, int peer) {
  MPI_Group g;
  PMPI_Win_get_group(win, &g);
  const int *w = map_of((void *)win, g);
  return remote_world(w[peer]);
}

static void add(int count, MPI_Datatype t) {
  int sz = 0;
  PMPI_Type_size(t, &sz);
  __atomic_fetch_add(&api_msgs, 1, __ATOMIC_RELAXED);
  __atomic_fetch_add(&api_bytes, (uint64_t)count * (uint64_t)sz, __ATOMIC_RELAXED);
}

#define SEND_HOOK(count, type, dest, comm) \
  if (counting && remote_in_comm(comm, dest)) add(count, type)
#define RMA_HOOK(count, type, rank, win) \
  if (counting && remote_in_win(win, rank)) add(count, type)
#define COLL_HOOK() \
  if (counting) __atomic_fetch_add(&coll_calls, 1, __ATOMIC_RELAXED)

/* ---- The MPI tool interface: Open MPI's monitoring variables. ---- */
enum { PV_PML_COUNT, PV_PML_SIZE, PV_OSC_COUNT, PV_OSC_SIZE, NPV };
static const char *const pv_names[NPV] = {
    "pml_monitoring_messages_count", "pml_monitoring_messages_size",
    "osc_monitoring_messages_sent_count", "osc_monitoring_messages_sent_size"};
static MPI_T_pvar_session session;
static MPI_T_pvar_handle pv[NPV];
static int pv_ok[NPV], pv_count[NPV], tool_ok;
static uint64_t pv_base[NPV]; /* remote totals at Pcontrol(1) */
static uint64_t pv_delta[NPV];
static unsigned long *pv_buf;

static void tool_start(void) {
  int prov;
  if (MPI_T_init_thread(MPI_THREAD_MULTIPLE, &prov) != MPI_SUCCESS) return;
  if (MPI_T_pvar_session_create(&session) != MPI_SUCCESS) return;
  tool_ok = 1;
  int n = 0;
  MPI_T_pvar_get_num(&n);
  for (int i = 0; i < n; i++) {
    char name[256], desc[256];
    int nl = sizeof name, dl = sizeof desc, verb, cls, bind, ro, ct, at;
    MPI_Datatype dt;
    MPI_T_enum en;
    if (MPI_T_pvar_get_info(i, name, &nl, &verb, &cls, &dt, &en, desc, &dl, &bind, &ro, &ct, &at) !=
        MPI_SUCCESS)
      continue;
    for (int k = 0; k < NPV; k++) {
      if (strcmp(name, pv_names[k]) != 0 || bind != MPI_T_BIND_MPI_COMM) continue;
      MPI_Comm w = MPI_COMM_WORLD;
      if (MPI_T_pvar_handle_alloc(session, i, &w, &pv[k], &pv_count[k]) != MPI_SUCCESS) continue;
      if (!ct && MPI_T_pvar_start(session, pv[k]) != MPI_SUCCESS) continue;
      pv_ok[k] = 1;
    }
  }
  pv_buf = calloc((size_t)world_size + 1, sizeof *pv_buf);
}

/* Sum of a monitoring variable over the peers on other nodes. */
static uint64_t pv_remote(int k) {
  if (!pv_ok[k] || pv_count[k] > world_size) return 0;
  if (MPI_T_pvar_read(session, pv[k], pv_buf) != MPI_SUCCESS) return 0;
  uint64_t s = 0;
  for (int r = 0; r < pv_count[k]; r++)
    if (remote_world(r)) s += pv_buf[r];
  return s;
}

static void nodes_init(void) {
  PMPI_Comm_size(MPI_COMM_WORLD, &world_size);
  PMPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  node_of = calloc((size_t)world_size, sizeof *node_of);
  const char *ppn = getenv("SIMPLE_TRAFFIC_PPN");
  if (ppn && atoi(ppn) > 0) {
    for (int r = 0; r < world_size; r++) node_of[r] = r / atoi(ppn);
  } else {
    char host[MPI_MAX_PROCESSOR_NAME] = {0};
    gethostname(host, sizeof host - 1);
    char *all = calloc((size_t)world_size, MPI_MAX_PROCESSOR_NAME);
    PMPI_Allgather(host, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all, MPI_MAX_PROCESSOR_NAME, MPI_CHAR,
                   MPI_COMM_WORLD);
    for (int r = 0; r < world_size; r++) {
      node_of[r] = r;
      for (int q = 0; q < r; q++)
        if (strcmp(all + (size_t)q * MPI_MAX_PROCESSOR_NAME,
                   all + (size_t)r * MPI_MAX_PROCESSOR_NAME) == 0) {
          node_of[r] = node_of[q];
          break;
        }
    }
    free(all);
  }
  tool_start();
}

static void monitoring_on(void) {
  /* Open MPI reads its parameters from the environment when MPI starts. */
  const char *want = getenv("SIMPLE_TRAFFIC_PML");
  if (want && !strcmp(want, "1") && !getenv("OMPI_MCA_pml_monitoring_enable"))
    setenv("OMPI_MCA_pml_monitoring_enable", "1", 1);
}

int MPI_Init(int *argc, char ***argv) {
  monitoring_on();
  int rc = PMPI_Init(argc, argv);
  if (rc == MPI_SUCCESS) nodes_init();
  return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
  monitoring_on();
  int rc = PMPI_Init_thread(argc, argv, required, provided);
  if (rc == MPI_SUCCESS) nodes_init();
  return rc;
}

int MPI_Finalize(void) {
  if (tool_ok) {
    for (int k = 0; k < NPV; k++)
      if (pv_ok[k]) MPI_T_pvar_handle_free(session, &pv[k]);
    MPI_T_pvar_session_free(&session);
    MPI_T_finalize();
  }
  return PMPI_Finalize();
}

int MPI_Pcontrol(const int level, ...) {
  if (level == 1) {
    api_msgs = api_bytes = coll_calls = 0;
    for (int k = 0; k < NPV; k++) pv_base[k] = pv_remote(k), pv_delta[k] = 0;
    __atomic_store_n(&counting, 1, __ATOMIC_SEQ_CST);
  } else if (level == 0) {
    __atomic_store_n(&counting, 0, __ATOMIC_SEQ_CST);
    for (int k = 0; k < NPV; k++) pv_delta[k] = pv_remote(k) - pv_base[k];
  } else if (level == 2) {
    va_list ap;
    va_start(ap, level);
    simple_traffic_counts_t *c = va_arg(ap, simple_traffic_counts_t *);
    va_end(ap);
    if (c) {
      c->loaded = 1;
      c->api_msgs = (int64_t)api_msgs;
      c->api_bytes = (int64_t)api_bytes;
      c->coll_calls = (int64_t)coll_calls;
      c->pml_msgs = pv_ok[PV_PML_COUNT] ? (int64_t)pv_delta[PV_PML_COUNT] : -1;
      c->pml_bytes = pv_ok[PV_PML_SIZE] ? (int64_t)pv_delta[PV_PML_SIZE] : -1;
      c->osc_msgs = pv_ok[PV_OSC_COUNT] ? (int64_t)pv_delta[PV_OSC_COUNT] : -1;
      c->osc_bytes = pv_ok[PV_OSC_SIZE] ? (int64_t)pv_delta[PV_OSC_SIZE] : -1;
      c->node = node_of ? node_of[world_rank] : 0;
    }
  }
  return MPI_SUCCESS;
}

int MPI_Comm_free(MPI_Comm *c) {
  map_drop((void *)*c);
  return PMPI_Comm_free(c);
}
int MPI_Win_free(MPI_Win *w) {
  map_drop((void *)*w);
  return PMPI_Win_free(w);
}

/* ---- Point-to-point sends. ---- */
int MPI_Send(const void *b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c) {
  SEND_HOOK(n, t, d, c);
  return PMPI_Send(b, n, t, d, tag, c);
}
int MPI_Ssend(const void *b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c) {
  SEND_HOOK(n, t, d, c);
  return PMPI_Ssend(b, n, t, d, tag, c);
}
int MPI_Rsend(const void *b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c) {
  SEND_HOOK(n, t, d, c);
  return PMPI_Rsend(b, n, t, d, tag, c);
}
int MPI_Bsend(const void *b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c) {
  SEND_HOOK(n, t, d, c);
  return PMPI_Bsend(b, n, t, d, tag, c);
}
int MPI_Isend(const void *b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c, MPI_Request *r) {
  SEND_HOOK(n, t, d, c);
  return PMPI_Isend(b, n, t, d, tag, c, r);
}
int MPI_Issend(const void *b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c, MPI_Request *r) {
  SEND_HOOK(n, t, d, c);
  return PMPI_Issend(b, n, t, d, tag, c, r);
}
int MPI_Irsend(const void *b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c, MPI_Request *r) {
  SEND_HOOK(n, t, d, c);
  return PMPI_Irsend(b, n, t, d, tag, c, r);
}
int MPI_Sendrecv(const void *sb, int sn, MPI_Datatype st, int d, int stag, void *rb, int rn,
                 MPI_Datatype rt, int src, int rtag, MPI_Comm c, MPI_Status *s) {
  SEND_HOOK(sn, st, d, c);
  return PMPI_Sendrecv(sb, sn, st, d, stag, rb, rn, rt, src, rtag, c, s);
}
int MPI_Sendrecv_replace(void *b, int n, MPI_Datatype t, int d, int stag, int src, int rtag,
                         MPI_Comm c, MPI_Status *s) {
  SEND_HOOK(n, t, d, c);
  return PMPI_Sendrecv_replace(b, n, t, d, stag, src, rtag, c, s);
}

/* ---- One-sided. ---- */
int MPI_Put(const void *ob, int on, MPI_Datatype ot, int tr, MPI_Aint td, int tn, MPI_Datatype tt,
            MPI_Win w) {
  RMA_HOOK(on, ot, tr, w);
  return PMPI_Put(ob, on, ot, tr, td, tn, tt, w);
}
int MPI_Rput(const void *ob, int on, MPI_Datatype ot, int tr, MPI_Aint td, int tn, MPI_Datatype tt,
             MPI_Win w, MPI_Request *r) {
  RMA_HOOK(on, ot, tr, w);
  return PMPI_Rput(ob, on, ot, tr, td, tn, tt, w, r);
}
int MPI_Get(void *ob, int on, MPI_Datatype ot, int tr, MPI_Aint td, int tn, MPI_Datatype tt,
            MPI_Win w) {
  RMA_HOOK(on, ot, tr, w);
  return PMPI_Get(ob, on, ot, tr, td, tn, tt, w);
}
int MPI_Rget(void *ob, int on, MPI_Datatype ot, int tr, MPI_Aint td, int tn, MPI_Datatype tt,
             MPI_Win w, MPI_Request *r) {
  RMA_HOOK(on, ot, tr, w);
  return PMPI_Rget(ob, on, ot, tr, td, tn, tt, w, r);
}
int MPI_Accumulate(const void *ob, int on, MPI_Datatype ot, int tr, MPI_Aint td, int tn,
                   MPI_Datatype tt, MPI_Op op, MPI_Win w) {
  RMA_HOOK(on, ot, tr, w);
  return PMPI_Accumulate(ob, on, ot, tr, td, tn, tt, op, w);
}

/* ---- Collectives: PMPI sees the call, not its messages (pml does). ---- */
#define COLL(proto, call) \
  int proto {             \
    COLL_HOOK();          \
    return call;          \
  }
COLL(MPI_Barrier(MPI_Comm c), PMPI_Barrier(c))
COLL(MPI_Bcast(void *b, int n, MPI_Datatype t, int root, MPI_Comm c), PMPI_Bcast(b, n, t, root, c))
COLL(MPI_Reduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, int root, MPI_Comm c),
     PMPI_Reduce(s, r, n, t, op, root, c))
COLL(MPI_Allreduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c),
     PMPI_Allreduce(s, r, n, t, op, c))
COLL(MPI_Scan(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c),
     PMPI_Scan(s, r, n, t, op, c))
COLL(MPI_Exscan(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c),
     PMPI_Exscan(s, r, n, t, op, c))
COLL(MPI_Gather(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, int root,
                MPI_Comm c),
     PMPI_Gather(s, sn, st, r, rn, rt, root, c))
COLL(MPI_Scatter(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, int root,
                 MPI_Comm c),
     PMPI_Scatter(s, sn, st, r, rn, rt, root, c))
COLL(MPI_Allgather(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt,
                   MPI_Comm c),
     PMPI_Allgather(s, sn, st, r, rn, rt, c))
COLL(MPI_Allgatherv(const void *s, int sn, MPI_Datatype st, void *r, const int *rn,
                    const int *displs, MPI_Datatype rt, MPI_Comm c),
     PMPI_Allgatherv(s, sn, st, r, rn, displs, rt, c))
COLL(MPI_Alltoall(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt,
                  MPI_Comm c),
     PMPI_Alltoall(s, sn, st, r, rn, rt, c))
COLL(MPI_Alltoallv(const void *s, const int *sn, const int *sd, MPI_Datatype st, void *r,
                   const int *rn, const int *rd, MPI_Datatype rt, MPI_Comm c),
     PMPI_Alltoallv(s, sn, sd, st, r, rn, rd, rt, c))
COLL(MPI_Gatherv(const void *s, int sn, MPI_Datatype st, void *r, const int *rn, const int *rd,
                 MPI_Datatype rt, int root, MPI_Comm c),
     PMPI_Gatherv(s, sn, st, r, rn, rd, rt, root, c))
COLL(MPI_Scatterv(const void *s, const int *sn, const int *sd, MPI_Datatype st, void *r, int rn,
                  MPI_Datatype rt, int root, MPI_Comm c),
     PMPI_Scatterv(s, sn, sd, st, r, rn, rt, root, c))
