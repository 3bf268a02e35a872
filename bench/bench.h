/* simple-bench internals: the driver (simple_bench.c) launches worker jobs
 * through simplerun and compares what they report; the workers time one
 * side each (hybrid, or flat MPI with one rank per thread). */
#ifndef SIMPLE_BENCH_H
#define SIMPLE_BENCH_H

#include <limits.h>
#include <stddef.h>
#include <stdio.h>

/* Options every worker understands, passed on its command line. */
typedef struct {
  int quick;        /* fewer sizes and samples: a smoke run */
  size_t max_bytes; /* largest message size */
  const char *only; /* coll: comma-separated collectives to run; NULL = default set */
  int han;          /* coll-mpi: Open MPI's hierarchical collectives (coll/han) */
} bench_opts_t;

/* The directory of the running simple-bench (where simplerun lies too). */
void bench_self_dir(char *dir, size_t len);
/* Cores this process may run on (its affinity mask). */
int bench_usable_cores(void);
/* Runs a worker job and hands each line of its output to fn; lines fn does
 * not take (returns 0) go to stderr. Returns 0, or -1 (with a message) if
 * the job could not start or exited non-zero. */
typedef int bench_line_fn(const char *line, void *ctx);
int bench_run_worker(const char *cmd, bench_line_fn *fn, void *ctx);

/* The alternating rounds every suite runs: round r runs the sides in the
 * order 0..nsides-1 when r is even and backwards when it is odd, so that
 * no side always goes first (a machine warming up, or a neighbour's burst,
 * favours none), with a progress line per round on stderr. run(side, r,
 * ctx) returns 0 to go on (a side it skips included), non-zero to stop.
 * Returns 0, or 1 when a run stopped it. */
typedef int bench_side_fn(int side, long round, void *ctx);
/* A worker's command line (bench_worker_cmd). */
typedef char bench_cmd_t[2 * PATH_MAX + 1024];
int bench_alternate(long rounds, int nsides, bench_side_fn *run, void *ctx);
/* Where a suite's jobs run, for its header line: "virtual cluster",
 * "Slurm" (several hosts of an allocation) or "one host". */
const char *bench_where(int vcluster, int multi);

/* A suite's command-line options, as a table: a flag (-> int, set to 1), a
 * whole number in [lo, hi] (-> long), a word (-> const char *, not
 * starting with '-'), or a size in bytes in [lo, hi] (-> size_t; 64K,
 * 4MiB: bench_parse_bytes). A bad value is told "NAME needs a whole
 * number from LO to HI, not 'VALUE'" (a size, a value), or when `what`
 * is set "NAME needs " and `what` as a format of VALUE, and a missing one
 * "NAME needs a value". An entry without dst refuses its option: "NAME
 * what", or without `what` as an unknown one. A table ends with {0}. */
typedef enum { BENCH_FLAG, BENCH_NUM, BENCH_WORD, BENCH_BYTES } bench_opt_kind_t;
typedef struct {
  const char *name;
  bench_opt_kind_t kind;
  void *dst;
  long lo, hi;
  const char *what;
} bench_opt_t;
/* A size in bytes with an optional binary suffix (4K, 4KiB, 4M, 4MiB, 1G):
 * 0, or -1 when s is not one. */
int bench_parse_bytes(const char *s, size_t *out);
/* Parses argv[2..] (argv[1] is the suite) against opts. -h/--help prints
 * usage to stdout: returns 1 (exit 0). An unknown option, a missing or bad
 * value: a message naming it (and usage on stderr after an unknown one),
 * returns 2 (the exit status). Otherwise 0. */
int bench_parse(int argc, char **argv, const bench_opt_t *opts, void (*usage)(FILE *));

/* Where a suite runs its sides: the binaries' directory, the cores here,
 * whether the job spans several hosts (the virtual cluster, or a Slurm
 * allocation, where each host confines its own processes), and whether to
 * pin each side one processor per core (one host, and they fit). */
typedef struct {
  char dir[4096];
  int cores, multi, pin;
} bench_place_t;
void bench_place(bench_place_t *pl, int vcluster, long procs);

/* A worker job's command line: ENV (may be "") then simplerun and
 * `simple-bench --worker WORKER ARGS`. BENCH_HYBRID: NODES processes of
 * THREADS threads (SIMPLE_PIN=1 when pl->pin). BENCH_FLAT: NODES*THREADS
 * single-thread ranks, the flat-MPI anchor: --procs-per-node THREADS on
 * several hosts, else one local process each, bound one per core when
 * pl->pin. Returns 0, or -1 when buf is too small. */
typedef enum { BENCH_HYBRID, BENCH_FLAT } bench_side_t;
int bench_worker_cmd(char *buf, size_t len, const bench_place_t *pl, int vcluster,
                     bench_side_t side, long nodes, long threads, const char *env,
                     const char *worker, const char *args);

/* The options every suite driver takes, and where its sides run. */
typedef struct {
  long N, T, rounds; /* -N, -t, --rounds */
  int quick, vcluster;
  const char *csv;
  FILE *out;        /* the --csv file, NULL without one (bench_suite_start) */
  bench_place_t pl; /* where the sides run (bench_suite_start) */
} bench_suite_t;
#define BENCH_SUITE_MAX_EXTRA 8 /* a suite's own options */
/* Parses -N, -t, --vcluster, --quick, --rounds (1 to max_rounds), --csv
 * and the suite's own options (extra, at most BENCH_SUITE_MAX_EXTRA) into
 * s. An entry of extra named like a common option replaces it (another
 * range or message, or no dst: a suite without it). On entry s holds the
 * suite's defaults: N (0: 2 on the virtual cluster, else 1), T (-1: the
 * suite chooses once N is known) and rounds (without --quick, which makes
 * it 1). Returns 0 to go on, -1 after --help (exit 0), or 2 after a
 * message (bench_parse). */
int bench_suite_parse(bench_suite_t *s, int argc, char **argv, long max_rounds,
                      const bench_opt_t *extra, void (*usage)(FILE *));
/* Opens --csv and places procs processors (bench_place); 1 on error,
 * said on stderr. */
int bench_suite_start(bench_suite_t *s, long procs);
/* The largest size, n halved from max_n but not below floor, whose
 * bytes_per * n^power bytes (power 1 or 2) fit in half of the memory
 * available here (all of a virtual cluster's nodes share it); max_n when
 * the kernel does not say. */
long bench_fit_memory(long max_n, long floor, unsigned long long bytes_per, int power);
/* Closes the CSV after an error. */
void bench_suite_close(bench_suite_t *s);
/* Closes the CSV at the end: 0, or 1 when writing it failed (said). */
int bench_suite_finish(bench_suite_t *s);

/* --plot FILE.png, checked before a run spends minutes: gnuplot must be
 * installed, the file writable, and its name free of control characters (a
 * newline would end gnuplot's command). Returns 0, or 1 with a message. */
int bench_plot_check(const char *png);
/* Starts gnuplot drawing a width x height PNG into png (pngcairo where the
 * build has it), '?' marking missing values. The name reaches gnuplot as a
 * single-quoted string with each quote doubled, so no file name can run
 * gnuplot commands. NULL, with a message, when gnuplot cannot start. */
FILE *bench_plot_open(const char *png, int width, int height);
/* Ends a multiplot begun on g, waits for gnuplot and removes its data file
 * (unless NULL). Returns 0, or 1 with a message when gnuplot failed. */
int bench_plot_close(FILE *g, const char *data);

/* Opens a --csv file for writing (NULL path: no file). Returns 0, or 1
 * with a message when it cannot be opened. */
int bench_open_csv(const char *path, FILE **out);

/* The index of name in names[0..n), -1 if absent (a worker's side tag). */
int bench_side_of(const char *name, const char *const *names, int n);
/* A worker's "I KEY VALUE" line: copies VALUE (without the newline) into
 * dst and returns 1 when line carries KEY, else 0. */
int bench_info(const char *line, const char *key, char *dst, size_t len);
/* The MPI library's name and version on one line, as a worker's "I library"
 * line gives it: the first line of MPI_Get_library_version up to its first
 * comma, whitespace runs made single spaces ("MPICH Version:\t4.0.2" ->
 * "MPICH Version: 4.0.2"). Needs MPI initialized. */
void bench_mpi_library(char *dst, size_t len);

/* Results by row (an operation and a size) and side (simple, an anchor,
 * ...), one value per round; the suite owns the storage. */
#define BENCH_SIDES  8
#define BENCH_ROUNDS 32
typedef struct {
  char op[32];
  size_t bytes;
  double side[BENCH_SIDES][BENCH_ROUNDS];
  int n[BENCH_SIDES];
} bench_row_t;
typedef struct {
  bench_row_t *rows;
  int nrows, cap;
} bench_table_t;
/* The row of (op, bytes), made if new; NULL when the table is full. */
bench_row_t *bench_row(bench_table_t *t, const char *op, size_t bytes);
/* Files one round's value (r may be NULL; extra rounds are dropped). */
void bench_row_add(bench_row_t *r, int side, double v);
/* Median over the rounds of one side (sorts them); NAN if none. */
double bench_row_median(bench_row_t *r, int side);

/* Median of n values (sorts v in place). */
double bench_median(double *v, size_t n);

/* Iterations per timed sample, so one sample lasts about `target` seconds
 * given `per_op` seconds per operation; at least 1, at most 10000. */
int bench_batch(double per_op, double target);

/* Workers: run inside a job, print "R <op> <bytes> <median_us>" lines on
 * the first processor. Return the process exit status. */
int bench_node_hybrid(int argc, char **argv, const bench_opts_t *o);
int bench_node_mpi(int argc, char **argv, const bench_opts_t *o);
int bench_coll_hybrid(int argc, char **argv, const bench_opts_t *o);
int bench_coll_mpi(int argc, char **argv, const bench_opts_t *o);
/* simple-bench pingpong (bench_pingpong.c): the driver and its two workers
 * (simple_send/recv between 2 threads; MPI_Send/Recv between 2 ranks). */
int bench_pingpong_suite(int argc, char **argv);
int bench_pingpong_hybrid(int argc, char **argv, const bench_opts_t *o);
int bench_pingpong_mpi(int argc, char **argv, const bench_opts_t *o);
/* simple-bench rma (bench_rma.c): the driver, and its worker (one job per
 * backend, chosen by SIMPLE_RMA in the worker's environment). */
int bench_rma_suite(int argc, char **argv);
int bench_rma_worker(int argc, char **argv, const bench_opts_t *o);
/* simple-bench transpose (bench_transpose.c): the driver and its two
 * workers (simple_transpose; flat MPI with MPI_Alltoall). */
int bench_transpose_suite(int argc, char **argv);
int bench_transpose_hybrid(int argc, char **argv, const bench_opts_t *o);
int bench_transpose_mpi(int argc, char **argv, const bench_opts_t *o);
/* simple-bench matmul (bench_matmul.c): the driver and its three workers
 * (simple_matmul_cannon put and get; ScaLAPACK pdgemm; serial dgemm). */
int bench_matmul_suite(int argc, char **argv);
int bench_matmul_hybrid(int argc, char **argv, const bench_opts_t *o);
int bench_matmul_pdgemm(int argc, char **argv, const bench_opts_t *o);
int bench_matmul_serial(int argc, char **argv, const bench_opts_t *o);
/* simple-bench as, alias bsp (bench_as.c): paper 004's As suite (tests
 * 1-5, total exchange) and the BSP probe per level, g and L by least
 * squares, hybrid (put/get on both backends, sends) and flat MPI (MPI_Put,
 * MPI_Isend); the driver and its worker (hybrid, or flat with --mpi). */
int bench_as_suite(int argc, char **argv);
int bench_as_worker(int argc, char **argv, const bench_opts_t *o);
/* simple-bench water and barnes (bench_water.c, bench_barnes.c): paper
 * 003's Water and Barnes-Hut against the processor count; barnes also
 * its node-shared cache against one cache per process. */
int bench_water_suite(int argc, char **argv);
int bench_water_worker(int argc, char **argv, const bench_opts_t *o);
int bench_barnes_suite(int argc, char **argv);
int bench_barnes_worker(int argc, char **argv, const bench_opts_t *o);
/* simple-bench groebner (bench_groebner.c): simple_groebner's speedup. */
int bench_groebner_suite(int argc, char **argv);
int bench_groebner_worker(int argc, char **argv, const bench_opts_t *o);
/* simple-bench cholesky (bench_cholesky.c): simple_cholesky beside
 * ScaLAPACK pdpotrf (dense) and MUMPS (sparse). */
int bench_cholesky_suite(int argc, char **argv);
int bench_cholesky_simple(int argc, char **argv, const bench_opts_t *o);
int bench_cholesky_pdpotrf(int argc, char **argv, const bench_opts_t *o);
int bench_cholesky_mumps(int argc, char **argv, const bench_opts_t *o);

/* simple-bench queens (bench_queens.c): the driver and its worker
 * (simple_nqueens on a job; with --classic also the classic solver). */
int bench_queens_suite(int argc, char **argv);
int bench_queens_worker(int argc, char **argv, const bench_opts_t *o);
/* simple-bench sort (bench_sort.c): the driver and its workers (the hybrid
 * radix sort; the same algorithm in flat MPI; radix sort and qsort on one
 * thread). */
int bench_sort_suite(int argc, char **argv);
int bench_sort_hybrid(int argc, char **argv, const bench_opts_t *o);
int bench_sort_mpi(int argc, char **argv, const bench_opts_t *o);
int bench_sort_serial(int argc, char **argv, const bench_opts_t *o);
/* simple-bench fft (bench_fft.c): the driver and its workers (the hybrid
 * 2D FFT; FFTW-MPI flat or with FFTW threads, by --fftw-threads). */
int bench_fft_suite(int argc, char **argv);
int bench_fft_simple(int argc, char **argv, const bench_opts_t *o);
int bench_fft_fftw(int argc, char **argv, const bench_opts_t *o);

/* simple-bench traffic (bench_traffic.c): messages and bytes between nodes
 * and memory per node, hybrid against flat MPI, under libsimple-traffic. */
int bench_traffic_suite(int argc, char **argv);
int bench_traffic_worker(int argc, char **argv, const bench_opts_t *o);
/* simple-bench model (bench_model.c): the cost model of bench/model. */
int bench_model_suite(int argc, char **argv);

/* The collectives of `simple-bench coll`, by name, in the order they run.
 * Those with in_default = 0 (the v-variants) run only when --only names
 * them (or --only all). Returns the number of entries. */
typedef struct {
  const char *name;
  int in_default;
  int sized; /* 0: barrier, one row of 0 bytes */
} bench_coll_info_t;
int bench_coll_list(const bench_coll_info_t **list);
/* Whether collective `name` is selected by `only` (comma-separated names,
 * "all", or NULL for the default set). */
int bench_coll_selected(const char *only, const char *name);

/* The speedup suites of the applications (bench_speedup.c; water, barnes,
 * groebner, and the options and rounds of cholesky): one worker job per
 * configuration (1 x t threads for t = 1, 2, 4, ... up to THREADS, then
 * NODES x THREADS and its flat MPI placement), rounds that alternate the
 * jobs' order, and the median, speedup and efficiency per configuration.
 * The state is large (a command line per configuration, about 9 KiB):
 * keep it static. Nothing here allocates; every call costs at most one
 * pass over the configurations, besides the workers it runs. */
#define BENCH_SPEEDUP_MAX_CONF   16
#define BENCH_SPEEDUP_MAX_VALUES 3 /* numbers after <seconds> on an R line */
typedef struct {
  char name[32];
  long nodes, threads, hosts, p;
  int flat, ref;   /* ref: the flat configuration on the same processors, -1 none */
  double value[2]; /* a suite's own per-run results (barnes: fetches, bytes) */
  double t[BENCH_ROUNDS];
  int n, bad;
  char cmd[2 * PATH_MAX + 768];
} bench_speedup_conf_t;
typedef struct bench_speedup {
  const char *suite; /* "water": the name on R lines and in messages */
  int nextra;        /* numbers after <seconds> on an R line */
  /* Checks one run's numbers (may keep them in c); nonzero drops its time. */
  int (*check)(bench_speedup_conf_t *c, const double *v);
  bench_suite_t c; /* the common options; T 2 and rounds 3 unless given */
  bench_speedup_conf_t conf[BENCH_SPEEDUP_MAX_CONF];
  int nc;
} bench_speedup_t;
/* bench_suite_parse into b->c, with T 2 and rounds 3 by default. */
int bench_speedup_parse(bench_speedup_t *b, int argc, char **argv, const bench_opt_t *extra,
                        void (*usage)(FILE *));
/* Opens --csv and finds the placement; 1 on error (said on stderr). */
int bench_speedup_start(bench_speedup_t *b);
/* "virtual cluster", "Slurm" or "one host", for the heading. */
const char *bench_speedup_where(const bench_speedup_t *b);
/* A configuration, zeroed, with ref = -1 (NULL when the table is full). */
bench_speedup_conf_t *bench_speedup_add(bench_speedup_t *b, const char *name, long nodes,
                                        long threads, long hosts, long p);
/* 1 x t threads for t = 1, 2, 4, ... up to T (and T), leaving room
 * configurations free; returns the index of 1 x T (-1 if no room). */
int bench_speedup_ladder(bench_speedup_t *b, int room, const char *worker, const char *args);
/* N x T hybrid, then flat_name: N x T single-thread processes on N hosts
 * (flat_nodes in the table), the hybrid one's ref. */
void bench_speedup_cluster(bench_speedup_t *b, const char *flat_name, long flat_nodes,
                           const char *worker, const char *args);
/* Runs the rounds, each configuration once per round in alternating order;
 * lines go to fn (ctx: the configuration), or when fn is NULL to the R line
 * parser above. 1 (CSV closed) if a worker failed. */
int bench_speedup_rounds(bench_speedup_t *b, bench_line_fn *fn);
/* Whether c lacks rounds or failed its check: then says
 * "simple-bench SUITE: NAME WHAT N of R rounds", closes the CSV, returns 1. */
int bench_speedup_short(bench_speedup_t *b, const bench_speedup_conf_t *c, const char *what);
/* The config / p / time_s / speedup / efficiency table on stdout, and its
 * CSV (columns suite,config,nodes,threads,p,CSV_HEAD,... with CSV_MID as
 * the values of CSV_HEAD); speedup against the first configuration.
 * Returns 1 if a configuration fell short (see bench_speedup_short). */
int bench_speedup_table(bench_speedup_t *b, const char *csv_head, const char *csv_mid);
/* In a worker: the value after key on its command line (argv[3..]; the
 * driver passes each once), dflt if absent. */
const char *bench_speedup_arg(int argc, char **argv, const char *key, const char *dflt);
struct simple; /* simple_t, for the workers' helpers below */

/* Timing one call alike on the hybrid and the flat MPI side: a first call,
 * whose time (the slowest processor's) sizes the samples to about
 * `budget` seconds of calls (3 to `most`, at most BENCH_MAX_TIMED); then
 * the samples, each after a barrier (the hybrid side's job barrier and
 * then a node barrier, so that threads that slept are awake before the
 * clock starts), each the slowest processor's time. `prepare` (if set)
 * runs before every call, untimed (an FFT's input again); `check` (if
 * set) once after the first call, untimed (its result checked). `call`
 * and `check` end the job themselves on failure. Returns the median in
 * seconds, on every processor. */
#define BENCH_MAX_TIMED 16
typedef struct {
  void (*call)(void *ctx);
  void (*prepare)(void *ctx);
  void (*check)(void *ctx);
  void *ctx;
  double budget;
  int most;
} bench_timed_t;
double bench_time_hybrid(struct simple *s, const bench_timed_t *t);
double bench_time_flat(const bench_timed_t *t); /* over MPI_COMM_WORLD */
/* Two calls on the hybrid side, their samples alternating (a, then b, each
 * after the barriers and timed alike), so that both meet the machine in
 * the same state: *med_a and *med_b get their medians, *ratio the median
 * of the samples' ratios b / a (on every processor). As many pairs as a's
 * budget holds for calls of both first calls' summed time. */
void bench_time_hybrid_paired(struct simple *s, const bench_timed_t *a, const bench_timed_t *b,
                              double *med_a, double *med_b, double *ratio);
/* Samples for calls of `first` seconds: budget / first, 3 to most. */
int bench_timed_samples(double first, double budget, int most);
/* A worker's command line and options, for its SPMD function. */
typedef struct {
  int argc;
  char **argv;
  const bench_opts_t *o;
} bench_args_t;
/* The row "R op n us" of a call timed at `seconds`, printed (and flushed)
 * where me is 0: processor 0 of the worker. */
void bench_row_out(int me, const char *op, long n, double seconds);
/* In a worker: the number after `name` on its command line, dflt if absent. */
long bench_arg_long(int argc, char **argv, const char *name, long dflt);
/* How many of the n ascending sizes in list are at most max_n. */
int bench_sizes_upto(const long *list, int n, long max_n);
#define LEN(a) ((int)(sizeof(a) / sizeof *(a)))
/* In a worker, after the app's call returned rc: when rc is an error, the
 * first processor says "simple-bench SUITE: APP failed: <error>", each
 * node's thread 0 sets *failed (the worker's exit status), and it returns
 * 1; else 0. */
int bench_speedup_failed(struct simple *s, const char *suite, const char *app, int rc, int *failed);

/* Timed-sample shape shared by both sides: warm-up iterations, samples. */
#define BENCH_WARMUP         50
#define BENCH_SAMPLES        60
#define BENCH_SAMPLES_QUICK  15
#define BENCH_SAMPLE_SECONDS 50e-6

#endif
