/* The BSPlib API over simple's one-sided layer; see include/simple/bsplib.h.
 * Uses the public headers only: the calling thread's handle comes from
 * simple_self(). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <simple.h>
#include <simple/bsplib.h>

/* The program's main, for the bsp_begin-in-main style: the threads other
 * than each node's thread 0 run it again. Weak, so that programs of the
 * native API (and hosts that load the library without a main of their
 * own) link and load as before. */
extern int main(int argc, char **argv) __attribute__((weak));

static void (*spmd_part)(void);
static int job_argc;
static char **job_argv;
static _Thread_local double start_time; /* this thread's bsp_begin */

/* Thread 0 of every node is the process's main thread, the one that called
 * bsp_begin first: the job returns it into that call (a longjmp out of
 * simple_run, whose state is not on its stack), so it goes on with the
 * program as written, and processor 0 with the rest of main after the
 * SPMD part. The process then ends through exit() or a return from main,
 * which end the job (src/run) with the program's status. */
static jmp_buf resume;

/* Where a thread other than a node's thread 0 leaves the SPMD part at
 * bsp_end: back in its job function, which returns. */
static _Thread_local jmp_buf *leave;
static _Thread_local int begun, ended;

static simple_t *self_or_abort(const char *call) {
  simple_t *s = simple_self();
  if (!s) {
    fprintf(stderr,
            "simple: %s called outside the SPMD part (before bsp_begin or in a thread"
            " the job did not start)\n",
            call);
    exit(1);
  }
  if (ended) simple_abort(s, "%s called after bsp_end", call);
  return s;
}

void bsp_vabort(const char *format, va_list args) {
  char msg[1024];
  if (format)
    vsnprintf(msg, sizeof msg, format, args);
  else
    snprintf(msg, sizeof msg, "(called with a NULL format)");
  size_t n = strlen(msg);
  if (n && msg[n - 1] == '\n') msg[n - 1] = '\0';
  simple_abort(simple_self(), "bsp_abort: %s", msg);
}

void bsp_abort(const char *format, ...) {
  va_list ap;
  va_start(ap, format);
  bsp_vabort(format, ap);
}

/* Ends the job with the one-sided layer's message when a call failed. */
static void check(simple_t *s, int rc, const char *call) {
  if (rc == 0) return;
  const char *why = simple_rma_error(s);
  size_t n = strlen(call);
  /* The layer's message starts with the call's name: "put: processor..." */
  if (strncmp(why, call, n) == 0 && why[n] == ':') simple_abort(s, "bsp_%s", why);
  simple_abort(s, "bsp_%s: %s", call, why[0] ? why : simple_strerror(rc));
}

/* BSPlib's pointer arguments that must not be NULL: a named end instead of
 * a crash. */
static void check_ptr(simple_t *s, const char *call, const char *what, const void *p) {
  if (!p) simple_abort(s, "bsp_%s: processor %d passed NULL as %s", call, simple_pid(s), what);
}

static void check_int(simple_t *s, const char *call, const char *what, int v) {
  if (v < 0)
    simple_abort(s, "bsp_%s: processor %d passed a negative %s (%d)", call, simple_pid(s), what, v);
}

/* ------------------------------------------------------------------------
 * Start and end. */

static void job(simple_t *s, void *arg) {
  (void)arg;
  if (simple_thread(s) == 0) longjmp(resume, 1);
  jmp_buf jb;
  leave = &jb;
  begun = ended = 0;
  if (setjmp(jb) == 0) {
    if (spmd_part)
      spmd_part();
    else
      main(job_argc, job_argv);
  }
  leave = NULL;
}

/* argc/argv from /proc/self/cmdline, for a rerun of main without
 * bsp_init. */
static void args_from_proc(void) {
  static char buf[1 << 16];
  static char *argv[1024];
  int argc = 0;
  FILE *f = fopen("/proc/self/cmdline", "rb");
  size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
  if (f) fclose(f);
  buf[n] = '\0';
  for (size_t i = 0; i < n && argc < 1023; i += strlen(buf + i) + 1) argv[argc++] = buf + i;
  argv[argc] = NULL;
  job_argc = argc;
  job_argv = argv;
}

void bsp_init(void (*spmd)(void), int argc, char *argv[]) {
  if (!spmd) {
    fprintf(stderr, "simple: bsp_init: NULL passed as the SPMD function\n");
    exit(1);
  }
  spmd_part = spmd;
  job_argc = argc;
  job_argv = argv;
}

/* The processors that do not take part in a bsp_begin(P) with P smaller
 * than the job: they sync with the others (the one-sided layer's idle
 * processors make no other call) until processor 0's side has ended the
 * SPMD part, then leave as at bsp_end. */
static void sit_out(simple_t *s) {
  int all = simple_nprocs(s);
  do check(s, simple_rma_sync(s), "sync");
  while (simple_rma_procs(s) < all);
  ended = 1;
  if (leave) longjmp(*leave, 1);
  fflush(NULL);
  exit(0);
}

void bsp_begin(int maxprocs) {
  simple_t *s = simple_self();
  if (!s) {
    if (!spmd_part && !main) {
      fprintf(stderr, "simple: bsp_begin: no main to run (call bsp_init first)\n");
      exit(1);
    }
    if (!job_argv) args_from_proc();
    if (setjmp(resume) == 0) {
      /* Returns only when the job could not start: thread 0 comes back
       * through resume. */
      int rc = simple_run(&job_argc, &job_argv, job, NULL);
      fflush(NULL);
      exit(rc != 0 ? 1 : 0);
    }
    s = simple_self();
    begun = ended = 0;
  }
  /* The SPMD part starts here. */
  if (begun) simple_abort(s, "bsp_begin called twice");
  begun = 1;
  /* Processor 0's maxprocs counts: the others may not know it (a program
   * that reads P from its input reads it on processor 0). */
  int p = maxprocs, all = simple_nprocs(s);
  int rc = simple_bcast(s, &p, sizeof p, SIMPLE_BYTE, 0);
  if (rc != 0) simple_abort(s, "bsp_begin: %s", simple_strerror(rc));
  if (p < 1 || p > all) {
    /* One message for the job: processor 0's. The others wait in a barrier
     * that its abort ends (the abort kills every process within moments);
     * one that comes back ends the job itself. */
    if (simple_pid(s) != 0) {
      simple_barrier(s);
      for (int i = 0; i < 300; i++) nanosleep(&(struct timespec){0, 100000000}, NULL);
    }
    simple_abort(s,
                 "bsp_begin: processor 0 asked for %d processors, the job has %d (simplerun -N/-t)",
                 p, all);
  }
  if (p < all) {
    check(s, simple_rma_set_procs(s, p), "begin");
    check(s, simple_rma_sync(s), "begin");
    if (simple_pid(s) >= p) sit_out(s);
  }
  start_time = simple_time();
}

void bsp_end(void) {
  simple_t *s = self_or_abort("bsp_end");
  check(s, simple_rma_sync(s), "end");
  int all = simple_nprocs(s);
  if (simple_rma_procs(s) < all) {
    /* The processors that sat out leave with this sync. */
    check(s, simple_rma_set_procs(s, all), "end");
    check(s, simple_rma_sync(s), "end");
  }
  ended = 1;
  if (simple_pid(s) == 0) return;
  if (leave) longjmp(*leave, 1);
  /* Thread 0 of another node: the process ends here, as BSPlib's
   * processes other than 0 do. */
  fflush(NULL);
  exit(0);
}

/* Threads of the job from the environment, before it starts: the
 * SIMPLE_THREADS spec (set by simplerun) and the launcher's process count. */
static int env_nprocs(void) {
  const char *spec = getenv("SIMPLE_THREADS");
  long nodes = simple_launch_nodes();
  if (spec && *spec) {
    if (strchr(spec, ',')) {
      long sum = 0;
      for (const char *p = spec; *p;) {
        sum += atol(p);
        p += strcspn(p, ",");
        if (*p) p++;
      }
      return sum > 0 ? (int)sum : 1;
    }
    long r = atol(spec);
    return r > 0 ? (int)(r * nodes) : 1;
  }
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  long per = cores > 0 ? cores / nodes : 1;
  return (int)(nodes * (per > 0 ? per : 1));
}

int bsp_nprocs(void) {
  simple_t *s = simple_self();
  if (!s) return env_nprocs();
  /* Before bsp_begin (main's rerun evaluating bsp_begin's argument) the
   * job's count; in the SPMD part those that take part. */
  return begun ? simple_rma_procs(s) : simple_nprocs(s);
}

int bsp_pid(void) {
  simple_t *s = simple_self();
  return s ? simple_pid(s) : 0;
}

double bsp_time(void) { return simple_time() - start_time; }

void bsp_sync(void) {
  simple_t *s = self_or_abort("bsp_sync");
  check(s, simple_rma_sync(s), "sync");
}

/* ------------------------------------------------------------------------
 * DRMA. */

void bsp_push_reg(const void *ident, int size) {
  simple_t *s = self_or_abort("bsp_push_reg");
  check_int(s, "push_reg", "size", size);
  check(s, simple_rma_push_reg(s, ident, (size_t)size), "push_reg");
}

void bsp_pop_reg(const void *ident) {
  simple_t *s = self_or_abort("bsp_pop_reg");
  check(s, simple_rma_pop_reg(s, ident), "pop_reg");
}

void bsp_put(int pid, const void *src, void *dst, int offset, int nbytes) {
  simple_t *s = self_or_abort("bsp_put");
  check_int(s, "put", "offset", offset);
  check_int(s, "put", "byte count", nbytes);
  check(s, simple_rma_put(s, pid, src, dst, (size_t)offset, (size_t)nbytes), "put");
}

void bsp_hpput(int pid, const void *src, void *dst, int offset, int nbytes) {
  simple_t *s = self_or_abort("bsp_hpput");
  check_int(s, "hpput", "offset", offset);
  check_int(s, "hpput", "byte count", nbytes);
  check(s, simple_rma_hpput(s, pid, src, dst, (size_t)offset, (size_t)nbytes), "hpput");
}

void bsp_get(int pid, const void *src, int offset, void *dst, int nbytes) {
  simple_t *s = self_or_abort("bsp_get");
  check_int(s, "get", "offset", offset);
  check_int(s, "get", "byte count", nbytes);
  check(s, simple_rma_get(s, pid, src, (size_t)offset, dst, (size_t)nbytes), "get");
}

void bsp_hpget(int pid, const void *src, int offset, void *dst, int nbytes) {
  simple_t *s = self_or_abort("bsp_hpget");
  check_int(s, "hpget", "offset", offset);
  check_int(s, "hpget", "byte count", nbytes);
  check(s, simple_rma_hpget(s, pid, src, (size_t)offset, dst, (size_t)nbytes), "hpget");
}

/* ------------------------------------------------------------------------
 * BSMP. */

void bsp_set_tagsize(int *tag_nbytes) {
  simple_t *s = self_or_abort("bsp_set_tagsize");
  check_ptr(s, "set_tagsize", "the tag size", tag_nbytes);
  check_int(s, "set_tagsize", "tag size", *tag_nbytes);
  size_t v = (size_t)*tag_nbytes;
  check(s, simple_bsmp_set_tagsize(s, &v), "set_tagsize");
  *tag_nbytes = (int)v;
}

void bsp_send(int pid, const void *tag, const void *payload, int payload_nbytes) {
  simple_t *s = self_or_abort("bsp_send");
  check_int(s, "send", "payload size", payload_nbytes);
  check(s, simple_bsmp_send(s, pid, tag, payload, (size_t)payload_nbytes), "send");
}

void bsp_qsize(int *nmessages, int *accum_nbytes) {
  simple_t *s = self_or_abort("bsp_qsize");
  check_ptr(s, "qsize", "the message count", nmessages);
  check_ptr(s, "qsize", "the byte count", accum_nbytes);
  size_t m = 0, b = 0;
  check(s, simple_bsmp_qsize(s, &m, &b), "qsize");
  if (nmessages) *nmessages = (int)m;
  if (accum_nbytes) *accum_nbytes = (int)b;
}

void bsp_get_tag(int *status, void *tag) {
  simple_t *s = self_or_abort("bsp_get_tag");
  check_ptr(s, "get_tag", "the status", status);
  ptrdiff_t st = -1;
  check(s, simple_bsmp_get_tag(s, &st, tag), "get_tag");
  *status = (int)st;
}

void bsp_move(void *payload, int reception_nbytes) {
  simple_t *s = self_or_abort("bsp_move");
  check_int(s, "move", "reception size", reception_nbytes);
  check(s, simple_bsmp_move(s, payload, (size_t)reception_nbytes), "move");
}

int bsp_hpmove(void **tag_ptr_buf, void **payload_ptr_buf) {
  simple_t *s = self_or_abort("bsp_hpmove");
  check_ptr(s, "hpmove", "the tag pointer", tag_ptr_buf);
  check_ptr(s, "hpmove", "the payload pointer", payload_ptr_buf);
  const void *t = NULL, *p = NULL;
  ptrdiff_t st = -1;
  check(s, simple_bsmp_hpmove(s, &t, &p, &st), "hpmove");
  if (st >= 0) {
    *tag_ptr_buf = (void *)t;
    *payload_ptr_buf = (void *)p;
  }
  return (int)st;
}
