/* Job start and end: MPI initialization, the thread team, the context
 * queries, time and abort. With src/net, the only code that calls MPI. */
#include "run/job.h"

#include <fcntl.h>
#include <limits.h>
#include <mpi.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "run/hosts.h"
#include "run/options.h"
#include "run/pin.h"
#include "run/watchdog.h"

/* The calling thread's context while it runs its SPMD function, NULL in
 * every other thread and after the function returned. */
_Thread_local simple_t *simple__self __attribute__((tls_model("initial-exec")));
/* The job running in this process, for simple_abort(NULL, ...) and for
 * signal-time reporting; one job at a time per process. */
static simple__node_t *running;

simple_t *simple_self(void) { return simple__self; }

/* The queries answer -1 for a context that is not the calling thread's live
 * one (NULL, another thread's, or one kept after simple_run returned): a
 * number that no valid answer is, found without touching the context. */
#define QUERY(s, expr) (SIMPLE__IN_JOB(s) ? (expr) : -1)
int simple_nodes(const simple_t *s) { return QUERY(s, s->node->nodes); }
int simple_node(const simple_t *s) { return QUERY(s, s->node->node); }
int simple_threads(const simple_t *s) { return QUERY(s, s->node->threads); }
int simple_thread(const simple_t *s) { return QUERY(s, s->thread); }
int simple_nprocs(const simple_t *s) { return QUERY(s, s->node->nprocs); }
int simple_pid(const simple_t *s) { return QUERY(s, s->pid); }
int simple_cores_shared(const simple_t *s) { return QUERY(s, s->node->shared_anywhere); }

int simple_threads_on(const simple_t *s, int node) {
  if (!SIMPLE__IN_JOB(s) || node < 0 || node >= s->node->nodes) return -1;
  return s->node->threads_of[node];
}

int simple_node_of(const simple_t *s, int pid) {
  if (!SIMPLE__IN_JOB(s) || pid < 0 || pid >= s->node->nprocs) return -1;
  return simple__node_of(s->node, pid);
}

int simple__node_of(const simple__node_t *n, int pid) {
  /* Binary search over the prefix sums: nodes may differ in size. */
  int lo = 0, hi = n->nodes - 1;
  while (lo < hi) {
    int mid = (lo + hi + 1) / 2;
    if (n->first_pid[mid] <= pid)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

int simple_pid_of(const simple_t *s, int node, int thread) {
  if (!SIMPLE__IN_JOB(s)) return -1;
  const simple__node_t *n = s->node;
  if (node < 0 || node >= n->nodes || thread < 0 || thread >= n->threads_of[node]) return -1;
  return n->first_pid[node] + thread;
}

double simple_time(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

unsigned simple_version(void) { return SIMPLE_VERSION; }
const char *simple_version_string(void) { return SIMPLE_VERSION_STRING; }

void simple_abort(simple_t *s, const char *fmt, ...) {
  simple__node_t *n = s ? s->node : running;
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  /* The message first, then the flag: threads that see the flag leave
   * their waits and may abort too, and the first abort's message must
   * already be out when one of them takes the process down. */
  if (s)
    fprintf(stderr, "simple: abort on node %d thread %d (pid %d): %s\n", n->node, s->thread, s->pid,
            msg);
  else
    fprintf(stderr, "simple: abort on node %d: %s\n", n ? n->node : -1, msg);
  fflush(stderr);
  if (n) atomic_store(&n->fatal, 1);
  /* One abort per process: MPI_Abort entered by two threads at once crashes
   * some MPI libraries (Open MPI 4 segfaults), so later callers wait here
   * for the first to take the process down. */
  static atomic_flag aborting = ATOMIC_FLAG_INIT;
  if (atomic_flag_test_and_set(&aborting)) {
    for (;;) pause();
  }
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  /* MPI_Abort on the world takes down every process of the job, so no node
   * is left waiting for one that is gone. It can itself hang when several
   * processes abort at once or one is in MPI_Finalize (Open MPI's PMIx
   * abort path): SIGALRM, at its default action, ends this process 5 s on,
   * and the launcher takes a process that died as a failed job. */
  signal(SIGALRM, SIG_DFL);
  alarm(5);
  /* 50 ms for the launcher to forward what this process wrote to stderr:
   * MPICH's Hydra may drop a killed job's last output otherwise. */
  struct timespec grace = {0, 50000000L};
  nanosleep(&grace, NULL);
  if (initialized && !finalized) MPI_Abort(MPI_COMM_WORLD, 1);
  _exit(1);
}

int simple__node_at_close(simple__node_t *n, void (*fn)(simple__node_t *n)) {
  /* Layers set themselves up lazily from whichever thread comes first (the
   * message layer is not collective), so registrations may race. */
  static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
  pthread_mutex_lock(&lock);
  int rc = n->nclose >= SIMPLE__MAX_AT_CLOSE ? SIMPLE_ERR_NOMEM : 0;
  if (!rc) n->at_close[n->nclose++] = fn;
  pthread_mutex_unlock(&lock);
  return rc;
}

/* The layers' job hooks, sorted by name as they register. */
static struct {
  pthread_mutex_t lock;
  int n;
  const simple__layer_hooks_t *h[SIMPLE__MAX_HOOKS];
} hooks = {PTHREAD_MUTEX_INITIALIZER, 0, {0}};

int simple__layer_hooks(const simple__layer_hooks_t *h) {
  pthread_mutex_lock(&hooks.lock);
  int rc = hooks.n == SIMPLE__MAX_HOOKS ? SIMPLE_ERR_NOMEM : 0;
  if (!rc) {
    int i = hooks.n++;
    for (; i > 0 && strcmp(hooks.h[i - 1]->name, h->name) > 0; i--) hooks.h[i] = hooks.h[i - 1];
    hooks.h[i] = h;
  }
  pthread_mutex_unlock(&hooks.lock);
  return rc;
}

/* Every open hook, each on every node (a failed one does not stop the
 * others: they may be collective), then the job-wide verdict: the first
 * failing node's code, or 0. Collective over comm. */
static int open_layers(simple__node_t *n, MPI_Comm comm) {
  int rc = 0;
  for (int i = 0; i < hooks.n; i++) {
    int r = hooks.h[i]->open ? hooks.h[i]->open(n) : 0;
    if (!rc) rc = r;
  }
  int me = rc ? n->node : n->nodes, first = n->nodes;
  MPI_Allreduce(&me, &first, 1, MPI_INT, MPI_MIN, comm);
  /* Where no node failed every rc is 0; else all take the first failing node's. */
  if (first < n->nodes) MPI_Bcast(&rc, 1, MPI_INT, first, comm);
  return rc;
}

static void close_layers(simple__node_t *n) {
  for (int i = hooks.n; i-- > 0;)
    if (hooks.h[i]->close) hooks.h[i]->close(n);
}

/* ------------------------------------------------------------------------ */

static void *thread_main(void *p) {
  simple_t *s = p;
  simple__self = s;
  simple__watch_thread(s);
  if (s->node->pin && simple__pin_thread(s->node->local_first_core, s->thread) != 0)
    fprintf(stderr, "simple: node %d thread %d: SIMPLE_PIN could not bind to a core\n",
            s->node->node, s->thread);
  s->fn(s, s->arg);
  atomic_fetch_add_explicit(&s->node->departed, 1, memory_order_seq_cst);
  simple__self = NULL;
  return NULL;
}

/* Prints a start-up error once per job (from node 0), so a wrong
 * SIMPLE_THREADS does not produce one line per process. */
static int startup_error(int rank, int code, const char *msg) {
  if (rank == 0) fprintf(stderr, "simple: %s (%s)\n", msg, simple_strerror(code));
  return code;
}

/* Cores this process may run on: its affinity mask, which honours a
 * launcher's binding and a virtual node's cpuset. */
static int allowed_cores(void) {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int)n : 1;
}

static void free_node(simple__node_t *n) {
  free(n->threads_of);
  free(n->first_pid);
  free(n->host_of);
  for (int k = 0; k < 2; k++) {
    free(n->slots[k]);
    free(n->scratch[k].p);
  }
}

/* A thread that crashes on a signal: say which node and thread and why,
 * then die of the same signal, so that the MPI launcher sees the process
 * end abnormally and takes down the other nodes (Open MPI's mpirun and
 * MPICH's hydra both do). Only async-signal-safe calls: write and raise;
 * the thread-local handle was set when the thread started. Installed after
 * MPI_Init, replacing the MPI library's handler (which names no thread). */
static int crash_node = -1;

static size_t put_str(char *buf, size_t at, const char *str) {
  while (*str && at < 255) buf[at++] = *str++;
  return at;
}

static size_t put_int(char *buf, size_t at, long v) {
  char digits[24];
  int k = 0;
  if (v < 0) {
    at = put_str(buf, at, "-");
    v = -v;
  }
  do digits[k++] = (char)('0' + v % 10);
  while ((v /= 10) > 0 && k < 23);
  while (k > 0 && at < 255) buf[at++] = digits[--k];
  return at;
}

/* The signals caught, and how the message names them. */
static const struct {
  int sig;
  const char *name;
} crashes[] = {{SIGSEGV, "SIGSEGV (invalid memory access)"},
               {SIGBUS, "SIGBUS (bus error)"},
               {SIGFPE, "SIGFPE (arithmetic error)"},
               {SIGILL, "SIGILL (illegal instruction)"},
               {SIGABRT, "SIGABRT (abort, e.g. a failed assert)"}};

static void on_crash(int sig) {
  const char *what = "a signal";
  for (size_t i = 0; i < sizeof crashes / sizeof crashes[0]; i++)
    if (crashes[i].sig == sig) what = crashes[i].name;
  char buf[256];
  size_t at = put_str(buf, 0, "simple: crash on node ");
  at = put_int(buf, at, crash_node);
  if (simple__self) {
    at = put_str(buf, at, " thread ");
    at = put_int(buf, at, simple__self->thread);
    at = put_str(buf, at, " (pid ");
    at = put_int(buf, at, simple__self->pid);
    at = put_str(buf, at, ")");
  }
  at = put_str(buf, at, ": ");
  at = put_str(buf, at, what);
  at = put_str(buf, at, "\n");
  ssize_t w = write(STDERR_FILENO, buf, at);
  (void)w;
  raise(sig); /* the handler was reset to the default: the process dies */
}

static void catch_crashes(int node) {
  crash_node = node;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_crash;
  sa.sa_flags = (int)(SA_RESETHAND | SA_NODEFER);
  sigemptyset(&sa.sa_mask);
  for (size_t i = 0; i < sizeof crashes / sizeof crashes[0]; i++)
    sigaction(crashes[i].sig, &sa, NULL);
}

/* The job's settings from the environment, in the order their errors are
 * told: unset, each takes its default (-2: chosen once the placement is
 * known); set, a value that is not a number from 0 to max is refused. */
enum {
  OPT_PIN,
  OPT_CHECK,
  OPT_WATCHDOG,
  OPT_HANG_REPORT,
  OPT_SPIN,
  OPT_YIELDS,
  OPT_SEGMENT_WHOLE,
  OPT_SEGMENT_PIECES,
  OPTS
};
static const struct {
  const char *name, *rule;
  long dflt, max;
} opt_table[OPTS] = {
    {"SIMPLE_PIN", "0 or 1", 0, 1},
    {"SIMPLE_CHECK", "0 or 1", 0, 1},
    {"SIMPLE_WATCHDOG", "a non-negative number of seconds", 0, LONG_MAX},
    {"SIMPLE_HANG_REPORT", "a non-negative number of seconds", 60, LONG_MAX},
    {"SIMPLE_SPIN", "a non-negative number of polls", -2, LONG_MAX},
    {"SIMPLE_YIELDS", "a number of polls from 0 to 1000000", -2, 1000000},
    {"SIMPLE_SEGMENT_WHOLE", "a non-negative number of bytes", SIMPLE__SEGMENT_WHOLE, LONG_MAX},
    {"SIMPLE_SEGMENT_PIECES", "a non-negative number of bytes", SIMPLE__SEGMENT_PIECES, LONG_MAX},
};

/* Reads every setting into opt; the first bad one's message goes to err
 * unless err already holds one (*bad). */
static void read_options(long *opt, int *bad, char *err, size_t len) {
  for (int i = 0; i < OPTS; i++) {
    opt[i] = simple__env_long(opt_table[i].name, opt_table[i].dflt);
    if (!*bad && (opt[i] == -1 || opt[i] > opt_table[i].max)) {
      *bad = 1;
      snprintf(err, len, "%s must be %s", opt_table[i].name, opt_table[i].rule);
    }
  }
}

/* The node's thread count from SIMPLE_THREADS, or by default the cores
 * this process may use on its host (collective over the host's processes,
 * so computed whether or not it is needed), checked against the placement
 * of nodes on hosts. Returns the count; *bad with a message in err. */
static int thread_count(MPI_Comm comm, MPI_Comm local, int rank, int size, int cores, int *bad,
                        char *err, size_t len) {
  /* The host's default, replaced by SIMPLE_THREADS's count where it gives one. */
  int threads = simple__hosts_default_threads(local);
  const char *spec = getenv("SIMPLE_THREADS");
  int given = spec && *spec;
  if (given) *bad = simple__parse_threads(spec, rank, size, &threads, err, len) != 0;
  /* Nodes sharing a host where hosts were named: a placement error. */
  char host_err[256] = "";
  if (simple__hosts_check(comm, local, threads, cores, given && !*bad, host_err, sizeof host_err) &&
      !*bad) {
    *bad = 1;
    snprintf(err, len, "%s", host_err);
  }
  return threads;
}

/* Every node's thread count, first processor and host; this process's
 * place among its host's threads, and whether a host runs more threads
 * than it has cores. Collective over comm and local. */
static int place(simple__node_t *n, MPI_Comm comm, MPI_Comm local, int threads, int cores) {
  int size = n->nodes, rank = n->node;
  n->threads = threads;
  n->threads_of = malloc(sizeof(int) * (size_t)size);
  n->first_pid = malloc(sizeof(int) * (size_t)(size + 1));
  n->host_of = malloc(sizeof(int) * (size_t)size);
  if (!n->threads_of || !n->first_pid || !n->host_of) return SIMPLE_ERR_NOMEM;
  MPI_Allgather(&threads, 1, MPI_INT, n->threads_of, 1, MPI_INT, comm);
  int host = rank;
  MPI_Allreduce(&rank, &host, 1, MPI_INT, MPI_MIN, local);
  MPI_Allgather(&host, 1, MPI_INT, n->host_of, 1, MPI_INT, comm);
  n->first_pid[0] = 0;
  for (int i = 0; i < size; i++) n->first_pid[i + 1] = n->first_pid[i] + n->threads_of[i];
  n->nprocs = n->first_pid[size];
  /* Host-local placement: where this process's threads start among the
   * host's cores, and whether the host runs more threads than it has cores. */
  int total = 0;
  MPI_Comm_rank(local, &n->local_rank);
  MPI_Exscan(&threads, &n->local_first_core, 1, MPI_INT, MPI_SUM, local);
  if (n->local_rank == 0) n->local_first_core = 0; /* MPI_Exscan leaves it undefined there */
  MPI_Allreduce(&threads, &total, 1, MPI_INT, MPI_SUM, local);
  long online = sysconf(_SC_NPROCESSORS_ONLN);
  n->oversubscribed = threads > cores || total > (online > 0 ? online : 1);
  /* Hosts may differ (another cpuset, another thread count): what decides
   * how nodes talk to each other must be one verdict for the whole job. */
  MPI_Allreduce(&n->oversubscribed, &n->shared_anywhere, 1, MPI_INT, MPI_MAX, comm);
  return 0;
}

/* The node's barrier and its two sets of slots. */
static int make_slots(simple__node_t *n) {
  int threads = n->threads;
  simple__barrier_init(&n->barrier, (unsigned)threads);
  for (int k = 0; k < 2; k++) {
    if (posix_memalign((void **)&n->slots[k], SIMPLE__CACHE_LINE,
                       sizeof(simple__slot_t) * (size_t)threads) != 0)
      return SIMPLE_ERR_NOMEM;
    memset(n->slots[k], 0, sizeof(simple__slot_t) * (size_t)threads);
    /* Call c posts c + 1 in a slot of parity c & 1, so slots of parity k
     * only ever hold numbers of parity k + 1 (2^32 is even: wrapping keeps
     * it): starting them at k, no first post can seem to have happened. */
    for (int u = 0; u < threads; u++) atomic_init(&n->slots[k][u].seq, (unsigned)k);
  }
  return 0;
}

/* Sets the team's shape: thread counts of every node, host-local placement,
 * the waiting policy. Collective over the world; every process reaches the
 * same verdict, so a bad configuration fails everywhere, never half-way. */
static int configure(simple__node_t *n, MPI_Comm comm) {
  MPI_Comm_rank(comm, &n->node);
  MPI_Comm_size(comm, &n->nodes);
  int rank = n->node, size = n->nodes;
  char err[256] = "";
  int bad = 0;
  long opt[OPTS];
  MPI_Comm local;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &local);
  int cores = allowed_cores();
  int threads = thread_count(comm, local, rank, size, cores, &bad, err, sizeof err);
  read_options(opt, &bad, err, sizeof err);
  /* The segments of a message between two nodes follow from its size,
   * SIMPLE_SEGMENT_WHOLE and SIMPLE_SEGMENT_PIECES at each end: the ends
   * must agree (a disagreement would pair one end's segments with the
   * other's whole message). */
  long seg[4] = {opt[OPT_SEGMENT_WHOLE], -opt[OPT_SEGMENT_WHOLE], opt[OPT_SEGMENT_PIECES],
                 -opt[OPT_SEGMENT_PIECES]};
  MPI_Allreduce(MPI_IN_PLACE, seg, 4, MPI_LONG, MPI_MAX, comm);
  for (int i = 0; i < 2 && !bad; i++)
    if (seg[2 * i] != -seg[2 * i + 1]) {
      bad = 1;
      snprintf(err, sizeof err, "%s must be the same on every node (%ld here)",
               i ? "SIMPLE_SEGMENT_PIECES" : "SIMPLE_SEGMENT_WHOLE",
               opt[i ? OPT_SEGMENT_PIECES : OPT_SEGMENT_WHOLE]);
    }
  /* Every node reads the same environment as a rule, so the first node
   * that found a problem speaks for all. */
  int me = bad ? rank : size, first_bad = size;
  MPI_Allreduce(&me, &first_bad, 1, MPI_INT, MPI_MIN, comm);
  int rc = first_bad < size ? SIMPLE_ERR_CONFIG : place(n, comm, local, threads, cores);
  MPI_Comm_free(&local);
  if (rank == first_bad) fprintf(stderr, "simple: node %d: %s\n", rank, err);
  if (rc) return rc;
  n->pin = (int)opt[OPT_PIN];
  n->watchdog_s = opt[OPT_WATCHDOG];
  n->hang_report_s = opt[OPT_HANG_REPORT];
  n->checked = (int)opt[OPT_CHECK];
  n->segment_whole = (size_t)opt[OPT_SEGMENT_WHOLE];
  n->segment_pieces = (size_t)opt[OPT_SEGMENT_PIECES];

  /* Spinning pays only while every thread has a core: then a wake-up is a
   * cache-line transfer away and sleeping would cost microseconds. When
   * threads share cores, a spinning waiter only delays the thread it waits
   * for, so it does not spin at all. */
  long spin = opt[OPT_SPIN], yields = opt[OPT_YIELDS];
  simple__wait_policy.spin = spin >= 0 ? (unsigned)spin : n->oversubscribed ? 0u : 20000u;
  /* Sharing a core, a waiter that polls between sched_yields hands the core
   * over in ~1 us and sees the change on its next turn; a futex sleep and
   * wake-up cost several microseconds more on a virtual machine. But a
   * thread that keeps yielding also keeps taking the core back from one
   * that waits in MPI's progress loop for the network, so after 20 turns
   * it sleeps. Measured on the virtual cluster (2 nodes x 2 threads, one
   * core each, four alternating runs), against 50 polls and 200 yields:
   * simple_barrier 14.1-16.2 -> 13.1-14.8 us, 8-byte allreduce 16.2-18.1
   * -> 14.2-16.0 us; on two local nodes x 2 threads (2 cores) the barrier
   * 4.2-7.4 -> 3.1-4.8 us, an 8-byte bcast 9.8-14.5 -> 5.0-7.2 us. */
  simple__wait_policy.yields = yields >= 0 ? (unsigned)yields : n->oversubscribed ? 20u : 0u;
  simple__wait_policy.fatal = &n->fatal;
  simple__wait_policy.departed = &n->departed;
  catch_crashes(rank);
  int pin_cores;
  if (n->pin && simple__pin_open(&pin_cores, err, sizeof err) != 0) {
    fprintf(stderr, "simple: node %d: %s\n", rank, err);
    n->pin = 0;
  }
  return make_slots(n);
}

/* The thread level to ask MPI for. A process that will run one thread and
 * no watchdog asks for MPI_THREAD_SINGLE: only its main thread calls MPI,
 * and Open MPI 4 takes locks on every call at any level above SINGLE
 * (measured: an 8-byte ping-pong between two processes costs 0.16 us at
 * SINGLE and 0.21 us at FUNNELED, SERIALIZED or MULTIPLE). Anything else,
 * or a thread count that cannot be known before MPI starts (no launcher
 * variables, or the default of one thread per core), asks for MULTIPLE. */
static int wanted_thread_level(void) {
  const char *spec = getenv("SIMPLE_THREADS");
  int node, nodes, threads = 0;
  char err[256];
  if (!spec || !*spec || simple__env_long("SIMPLE_WATCHDOG", 0) != 0 ||
      !simple__launch_known(&node, &nodes) ||
      simple__parse_threads(spec, node, nodes, &threads, err, sizeof err) != 0 || threads != 1)
    return MPI_THREAD_MULTIPLE;
  return MPI_THREAD_SINGLE;
}

/* The running job's process-wide state. Static, not on simple_run's stack:
 * the process may end while thread 0 is still inside its SPMD function (an
 * exit() there, or a BSPlib program whose processor 0 goes on with main
 * after bsp_end), and then end_at_exit finishes the job from this state. */
static struct {
  simple__node_t node;
  MPI_Comm comm;
  simple_t *team;
  pthread_t *tids;
  pthread_t main; /* the thread that called simple_run: thread 0, MPI's */
  int started, we_init;
} job;

/* This process's node once the library has finalized MPI for it, else -1:
 * from then on its exit status is the program's own (see report_status). */
static int finalized_node = -1;

/* The program's non-zero exit status, told to simplerun instead of the MPI
 * launcher. Open MPI's mpirun answers a process that exits non-zero, even
 * after MPI_Finalize, with a banner ("Primary job terminated normally, but
 * 1 process returned a non-zero exit code"), yet after a BSPlib program's
 * bsp_end or simple_run's return an exit(n) is the program's own, quiet
 * status. So where simplerun asked for it (SIMPLERUN_EXIT_FILE, a file it
 * made on its host), a process that finalized MPI through the library and
 * exits with n != 0 appends "NODE n" to that file and exits 0; simplerun
 * exits with the status of the lowest node that wrote one. A process that
 * cannot open the file (another host) keeps its status, and the launcher
 * reports it as usual. Registered by a constructor, before main and MPI
 * register theirs, so it runs after every other exit handler, which it
 * would otherwise skip: only LeakSanitizer's, in a sanitized build. Cost:
 * one open and one write at exit. */
static void report_status(int status, void *arg) {
  (void)arg;
  if (status == 0 || finalized_node < 0) return;
  const char *path = getenv("SIMPLERUN_EXIT_FILE");
  if (!path || !*path) return;
  int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd < 0) return;
  char line[48];
  int len = snprintf(line, sizeof line, "%d %d\n", finalized_node, status & 0xff);
  ssize_t wrote = write(fd, line, (size_t)len);
  close(fd);
  if (wrote != len) return;
  fflush(NULL);
  _exit(0);
}

__attribute__((constructor)) static void report_status_at_exit(void) {
  on_exit(report_status, NULL);
}

/* Undoes a start, one that failed or the job's at its end (after the
 * layers opened, or tried to: layers; closed here when set): the team,
 * the node's state, the library's communicator, and MPI where the library
 * initialized it. Returns rc. */
static int unwind(int layers, int rc) {
  if (layers) close_layers(&job.node);
  free(job.team);
  free(job.tids);
  job.team = NULL;
  job.tids = NULL;
  free_node(&job.node);
  MPI_Comm_free(&job.comm);
  if (job.we_init && MPI_Finalize() == MPI_SUCCESS) finalized_node = job.node.node;
  return rc;
}

/* Ends the job on this node once thread 0 has left its SPMD function:
 * waits for the other threads, closes the layers, finalizes MPI. */
static void finish(void) {
  simple__node_t *n = &job.node;
  for (int t = 1; t < job.started; t++) pthread_join(job.tids[t], NULL);
  simple__watchdog_stop(n);
  running = NULL;

  while (n->nclose > 0) n->at_close[--n->nclose](n);
  close_layers(n);
  simple__pin_close();
  simple__wait_policy.fatal = NULL;
  simple__wait_policy.departed = NULL;
  unwind(0, 0);
}

/* exit() (or a return from main) while the job runs: after a BSPlib
 * program's bsp_end the rest of main is sequential C, and its exit status
 * must be the job's, without MPI's complaint about a process that never
 * finalized. On the main thread, thread 0 leaves its SPMD function here:
 * the other threads are waited for (one that waits for thread 0 in a
 * collective sees it depart and ends the job with a message instead of
 * hanging), then the job ends as a return from simple_run would, and the
 * process exits with exit's status. On any other thread the job cannot be
 * finalized (MPI wants its initializing thread): the job is aborted with a
 * message. Registered after MPI_Init, so it runs before MPI's own exit
 * handlers. */
static void end_at_exit(void) {
  if (!running) return;
  /* The program finalized MPI itself before exiting (an exit handler of its
   * own, registered after this one, runs first): nothing of the job can be
   * closed any more, and the process is ending anyway. */
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return;
  if (!pthread_equal(pthread_self(), job.main))
    simple_abort(simple__self,
                 "exit() called on a thread other than the process's main thread while the job"
                 " runs: return from the SPMD function instead");
  fflush(NULL);
  if (simple__self) {
    atomic_fetch_add_explicit(&job.node.departed, 1, memory_order_seq_cst);
    simple__self = NULL;
  }
  finish();
}

/* Whether MPI's thread level serves every node, one verdict for the job
 * (nodes differ in thread count), told in one line by the first node
 * concerned. Collective over the library's communicator. */
static int thread_level(const simple__node_t *n, int provided, int we_init) {
  int low = (n->threads > 1 || n->watchdog_s > 0) && provided < MPI_THREAD_MULTIPLE;
  int me = low ? n->node : n->nodes, first_low = n->nodes;
  MPI_Allreduce(&me, &first_low, 1, MPI_INT, MPI_MIN, job.comm);
  if (n->node == first_low)
    fprintf(stderr, "simple: node %d: %s (%s)\n", n->node,
            we_init ? "this MPI library was not built with MPI_THREAD_MULTIPLE support"
                    : "MPI was initialized below MPI_THREAD_MULTIPLE, which a node running"
                      " more than one thread needs",
            simple_strerror(SIMPLE_ERR_THREAD_LEVEL));
  return first_low < n->nodes ? SIMPLE_ERR_THREAD_LEVEL : 0;
}

int simple_run(int *argc, char ***argv, void (*fn)(simple_t *s, void *arg), void *arg) {
  if (!fn || running) return SIMPLE_ERR_ARG; /* running: one job at a time in a process */
  int initialized = 0, finalized = 0, provided = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (finalized) {
    fprintf(stderr, "simple: MPI was already finalized\n");
    return SIMPLE_ERR_MPI;
  }
  if (initialized) {
    MPI_Query_thread(&provided);
  } else if (MPI_Init_thread(argc, argv, wanted_thread_level(), &provided) != MPI_SUCCESS) {
    fprintf(stderr, "simple: MPI_Init_thread failed\n");
    return SIMPLE_ERR_MPI;
  }
  job.we_init = !initialized;
  /* MPICH (4.0) raises an error that a completion call finds (a truncated
   * receive's MPI_Wait) on MPI_COMM_WORLD, not on the request's
   * communicator, and MPI 4 names MPI_COMM_SELF for errors with no object:
   * under their default handler such an error aborts the job instead of
   * returning SIMPLE_ERR_TRUNCATE. A program that starts MPI itself keeps
   * its own handlers (docs/api.md). */
  if (job.we_init) {
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  }
  static int at_exit_set;
  if (!at_exit_set) at_exit_set = atexit(end_at_exit) == 0;

  /* The library talks on its own communicator, so that a user's own MPI
   * traffic on MPI_COMM_WORLD can never match the library's messages. */
  MPI_Comm_dup(MPI_COMM_WORLD, &job.comm);
  MPI_Comm_set_errhandler(job.comm, MPI_ERRORS_RETURN);

  simple__node_t *node = &job.node;
  *node = (simple__node_t){.comm = &job.comm}; /* the rest zero, its atomics included */
  int rc = configure(node, job.comm);
  /* Several threads call MPI at once on a node with more than one, and the
   * watchdog's thread may abort while the node's thread is inside MPI.
   * The verdict is collective (nodes differ in thread count), so that no
   * node goes on to set up communicators that the others never join. */
  if (rc == 0) rc = thread_level(node, provided, job.we_init);
  if (rc == 0) {
    /* Aligned as its type (lines of its own per thread: job.h). */
    job.team = aligned_alloc(SIMPLE__CACHE_LINE, (size_t)node->threads * sizeof *job.team);
    job.tids = calloc((size_t)node->threads, sizeof *job.tids);
    if (!job.team || !job.tids) rc = SIMPLE_ERR_NOMEM;
  }
  if (rc != 0) return unwind(0, rc);
  if ((rc = open_layers(node, job.comm)) != 0)
    return startup_error(node->node, unwind(1, rc),
                         "could not set up the inter-node communicators");
  simple_t *team = job.team;
  job.main = pthread_self();
  running = node;
  if (simple__watchdog_start(node, node->watchdog_s) != 0)
    fprintf(stderr, "simple: node %d: could not start the watchdog\n", node->node);
  for (int t = 0; t < node->threads; t++)
    team[t] = (simple_t){
        .node = node, .thread = t, .pid = node->first_pid[node->node] + t, .fn = fn, .arg = arg};
  /* Thread 0 is the process's main thread, so MPI sees its initializing
   * thread take part as well. */
  job.started = 1;
  for (int t = 1; t < node->threads; t++) {
    if (pthread_create(&job.tids[t], NULL, thread_main, &team[t]) != 0)
      simple_abort(&team[0], "could not start thread %d of %d", t, node->threads);
    job.started++;
  }
  thread_main(&team[0]);
  finish();
  return 0;
}
