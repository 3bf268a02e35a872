/* simple: hybrid SPMD programming for clusters of multicore nodes.
 *
 * core.h: the job (start, context, time, abort), the error convention and the
 * typed data shared by every layer (datatypes, reduction operations).
 */
#ifndef SIMPLE_CORE_H
#define SIMPLE_CORE_H

#include <stddef.h>
#include <stdint.h>

#include "simple/version.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define SIMPLE_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define SIMPLE_NORETURN     __attribute__((noreturn))
#define SIMPLE_API          __attribute__((visibility("default")))
#else
#define SIMPLE_PRINTF(f, a)
#define SIMPLE_NORETURN
#define SIMPLE_API
#endif

/* ------------------------------------------------------------------------
 * Errors. Every call returns an int: 0 on success, one of these otherwise.
 * The list is an X-macro so that the codes and their messages cannot drift
 * apart (simple_strerror is generated from it).
 */
#define SIMPLE_ERRNO_MAP(X)                                                          \
  X(SUCCESS, 0, "success")                                                           \
  X(ERR_ARG, 1, "invalid argument")                                                  \
  X(ERR_NULL, 2, "NULL buffer with a non-zero count")                                \
  X(ERR_TYPE, 3, "unknown datatype")                                                 \
  X(ERR_OP, 4, "unknown operation, or one not defined for the datatype")             \
  X(ERR_RANK, 5, "rank, thread or root out of range")                                \
  X(ERR_COUNT, 6, "count too large: its size in bytes overflows")                    \
  X(ERR_NOMEM, 7, "out of memory")                                                   \
  X(ERR_PEER, 8, "another thread taking part in the call reported an error")         \
  X(ERR_MPI, 9, "the MPI library reported an error")                                 \
  X(ERR_THREAD_LEVEL, 10, "MPI runs below MPI_THREAD_MULTIPLE, which the job needs") \
  X(ERR_CONFIG, 11, "invalid configuration (environment or options)")                \
  X(ERR_FATAL, 12, "the job is in a fatal state after an earlier failure")           \
  X(ERR_UNSUPPORTED, 13, "operation not supported by this build")                    \
  X(ERR_NOT_IN_JOB, 14, "the calling thread is not part of a running job")           \
  X(ERR_TRUNCATE, 15, "message larger than the receive buffer (truncated)")          \
  X(ERR_UNKNOWN_OBJECT, 16, "no shared object has this name in this space")          \
  X(ERR_IMMUTABLE, 17, "a shared value cannot be written (only accumulators can)")   \
  X(ERR_ACC_MISUSE, 18, "shared object used out of protocol (acquire/release...)")   \
  X(ERR_CACHE_FULL, 19, "no room in the node's shared-object cache (held or small)")

enum {
#define SIMPLE__ERRNO_ENUM(name, value, text) SIMPLE_##name = value,
  SIMPLE_ERRNO_MAP(SIMPLE__ERRNO_ENUM)
#undef SIMPLE__ERRNO_ENUM
};

/* The message for an error code; never NULL ("unknown error" for others). */
SIMPLE_API const char *simple_strerror(int code);
/* The code's name, e.g. "SIMPLE_ERR_ARG"; never NULL. */
SIMPLE_API const char *simple_errname(int code);

/* ------------------------------------------------------------------------
 * Typed data. One datatype enum and one op enum for every layer.
 */
typedef enum {
  SIMPLE_INT8,
  SIMPLE_INT16,
  SIMPLE_INT32,
  SIMPLE_INT64,
  SIMPLE_UINT8,
  SIMPLE_UINT16,
  SIMPLE_UINT32,
  SIMPLE_UINT64,
  SIMPLE_FLOAT,
  SIMPLE_DOUBLE,
  SIMPLE_FLOAT_COMPLEX,  /* float _Complex */
  SIMPLE_DOUBLE_COMPLEX, /* double _Complex */
  SIMPLE_BYTE,           /* raw bytes: copies and bitwise operations only */
  SIMPLE_TYPE_COUNT__    /* number of datatypes; not a datatype */
} simple_type_t;

/* Size in bytes of one element, or 0 for an unknown type. */
SIMPLE_API size_t simple_type_size(simple_type_t type);
/* "int32", "double_complex", ...; "unknown" for an unknown type. */
SIMPLE_API const char *simple_type_name(simple_type_t type);

/* Built-in reduction operations, with MPI's meaning:
 *   SUM, PROD            every type but BYTE
 *   MIN, MAX             integers and real floating types
 *   BAND, BOR, BXOR      integers and BYTE
 *   LAND, LOR            integers (the result is 0 or 1)
 * Values from SIMPLE_OP_USER_FIRST on are user-defined (simple_op_create). */
typedef enum {
  SIMPLE_SUM,
  SIMPLE_PROD,
  SIMPLE_MIN,
  SIMPLE_MAX,
  SIMPLE_BAND,
  SIMPLE_BOR,
  SIMPLE_BXOR,
  SIMPLE_LAND,
  SIMPLE_LOR,
  SIMPLE_OP_BUILTIN_COUNT__, /* number of built-in ops; not an op */
  SIMPLE_OP_USER_FIRST = 64
} simple_op_t;

/* A user-defined operation combines `in` into `acc`, element by element:
 *   acc[i] = acc[i] (op) in[i]
 * where acc always holds the contribution of lower ranks, so the operation
 * need not commute; it must be associative. */
typedef void simple_user_fn(void *acc, const void *in, size_t count, simple_type_t type, void *ctx);

/* Registers a user-defined op; usable from any thread of any job in this
 * process until simple_op_free. Ops used across nodes must be created in the
 * same order on every node, so that they get the same value everywhere. */
SIMPLE_API int simple_op_create(simple_user_fn *fn, void *ctx, simple_op_t *op);
SIMPLE_API int simple_op_free(simple_op_t op);
/* "sum", "band", "user", ...; "unknown" otherwise. */
SIMPLE_API const char *simple_op_name(simple_op_t op);

/* Passed as the send buffer of a reduction or scan: the receive buffer holds
 * the input and is overwritten by the result, as MPI_IN_PLACE. */
#define SIMPLE_IN_PLACE ((void *)1)

/* ------------------------------------------------------------------------
 * The job. One process per node, several threads per process; every thread
 * runs the same SPMD function with its own handle.
 */
typedef struct simple simple_t;

/* Initializes MPI unless the caller already did (MPI_THREAD_MULTIPLE; a
 * process that will run one thread and no watchdog asks for
 * MPI_THREAD_SINGLE, which makes each of Open MPI's calls ~50 ns cheaper;
 * a node of several threads in a program that initialized MPI itself needs
 * MPI_THREAD_MULTIPLE, else SIMPLE_ERR_THREAD_LEVEL), starts this node's threads, runs fn on every
 * thread with that thread's handle, joins them and finalizes MPI if it initialized it. Thread
 * counts come from the environment (SIMPLE_THREADS, set by simplerun): one count for every node, or
 * a comma-separated count per node. Returns 0, or an error code (also printed) when the job could
 * not start; a job that failed while running never returns (simple_abort). */
SIMPLE_API int simple_run(int *argc, char ***argv, void (*fn)(simple_t *s, void *arg), void *arg);

/* The context of paper 000, Table 1. Global ranks are node-major: the
 * threads of node 0 first, then those of node 1, ... Each query returns -1
 * when s is not the calling thread's live context (NULL, another thread's,
 * or one kept after simple_run returned). One load and compare (~1 ns). */
SIMPLE_API int simple_nodes(const simple_t *s);   /* NODES: nodes (MPI processes) in the job */
SIMPLE_API int simple_node(const simple_t *s);    /* MYNODE: this node, 0..NODES-1 */
SIMPLE_API int simple_threads(const simple_t *s); /* THREADS: threads on this node */
SIMPLE_API int simple_thread(const simple_t *s);  /* MYTHREAD: this thread on its node */
SIMPLE_API int simple_nprocs(const simple_t *s);  /* TID: threads in the whole job */
SIMPLE_API int simple_pid(const simple_t *s);     /* ID: this thread in the whole job */
/* Threads on node `node`, or -1 if node is out of range. */
SIMPLE_API int simple_threads_on(const simple_t *s, int node);
/* The node of global thread `pid`, or -1 if pid is out of range. */
SIMPLE_API int simple_node_of(const simple_t *s, int pid);
/* The global rank of thread `thread` of node `node`, or -1 if out of range. */
SIMPLE_API int simple_pid_of(const simple_t *s, int node, int thread);
/* 1 when some node of the job runs more threads than its host gives it
 * cores (its threads then take turns on cores: the library's waits yield
 * and one thread per node drives the transfers between nodes), else 0.
 * The same on every thread of the job, so an application may choose an
 * algorithm by it without agreeing first. */
SIMPLE_API int simple_cores_shared(const simple_t *s);

/* The calling thread's handle, NULL outside a job. For compatibility layers
 * (BSPlib) whose API has no handle argument; everything else passes it. */
SIMPLE_API simple_t *simple_self(void);

/* Before simple_run: this process's node number and the number of nodes,
 * as the launcher announced them (Open MPI, MPICH's Hydra, PMIx, Slurm);
 * 0 and 1 without a launcher. For a command that checks its arguments
 * before the job starts and prints an error once (on node 0). */
SIMPLE_API int simple_launch_node(void);
SIMPLE_API int simple_launch_nodes(void);

/* Bytes of memory available on this host now (Linux MemAvailable), 0 if
 * unknown: to refuse a problem that cannot fit before allocating it. */
SIMPLE_API size_t simple_mem_available(void);

/* Wall-clock seconds from an arbitrary fixed point (CLOCK_MONOTONIC). */
SIMPLE_API double simple_time(void);

/* Ends the whole job, on every node, printing node, thread and the message;
 * the exit status is non-zero. Never returns. s may be NULL. */
SIMPLE_API SIMPLE_NORETURN void simple_abort(simple_t *s, const char *fmt, ...) SIMPLE_PRINTF(2, 3);

#ifdef __cplusplus
}
#endif

#endif /* SIMPLE_CORE_H */
