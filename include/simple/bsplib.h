/* simple: the BSPlib API (Hill, McColl, Stefanescu, Goudreau, Lang, Rao,
 * Suel, Tsantilas, Bisseling: "BSPlib: the BSP programming library",
 * Parallel Computing 24, 1998), over simple's one-sided layer
 * (include/simple/rma.h). Every thread of a simple job is one BSP process:
 * bsp_pid() is simple_pid, bsp_nprocs() simple_nprocs (or bsp_begin's P).
 *
 * Programs include <bsp.h> (include/bsp/bsp.h, found through simple-cc) or
 * this header, and run with simplerun, e.g. simplerun -N 2 -t 4 ./prog.
 *
 * Start-up, both styles of the standard. The first bsp_begin, on the
 * process's main thread outside a job, starts the job (simplerun sets its
 * size). The main thread of every process becomes thread 0 of its node and
 * returns from that bsp_begin into the program as written; the node's other
 * threads enter the program again:
 *   - bsp_begin first in main: they run main from the start (argc/argv from
 *     bsp_init if it was called, else from /proc/self/cmdline), and their
 *     bsp_begin returns at once;
 *   - bsp_init(spmd, argc, argv) first in main, bsp_begin inside spmd: they
 *     run spmd.
 * bsp_end syncs; then processor 0 goes on with the program (in the bsp_init
 * style, with the rest of main after its call of spmd), and every other
 * processor leaves: a node's other threads return to the job, thread 0 of
 * another node ends its process with status 0. After bsp_end the program is
 * sequential C: exit(n) or a return of n from main ends the job with status
 * n (the job is finalized on the way out, so MPI does not complain of a
 * process that never finalized; Open MPI's mpirun still notes a non-zero
 * status).
 *
 * bsp_begin(P): processor 0's P counts. The first P processors (in pid
 * order) run the SPMD part with bsp_nprocs() == P; the others take no part
 * in its supersteps and wait, inside bsp_begin, until it ends. P larger than
 * the job's processor count (or below 1) ends the job with a message naming
 * both numbers. Before bsp_begin, bsp_nprocs() is the job's processor count,
 * from SIMPLE_THREADS and the launcher's process count.
 *
 * Shared globals: the threads of a node share the program's global and
 * static variables, unlike BSPlib processes; an SPMD part that writes them
 * must make them _Thread_local (or keep its data on the stack/heap), or run
 * with one thread per node. simple-cc names them when it links a program.
 *
 * Conflicts inside one superstep (the same rule on both backends of
 * include/simple/rma.h): gets read the values the superstep's computation
 * left, before any put of the superstep lands; puts to one place land in
 * pid order of their sources (program order for one source); then the
 * gets' results land, so a get's result wins over a put to the same local
 * place. Registration calls take effect at the sync in call order: a push
 * and a pop of the same address in one superstep cancel out.
 *
 * Costs, as for include/simple/rma.h: P nodes, r threads per node, b a node
 * barrier (~0.1-0.3 us), B memory bandwidth, alpha + beta m an inter-node
 * message of m bytes. Every call but bsp_begin, bsp_end and bsp_sync is
 * local; the data it asks for moves at the next bsp_sync.
 *
 * Errors follow BSPlib: a call with bad arguments (an unregistered area, a
 * transfer outside the registered size, a bad processor id, mismatched
 * collective calls, a NULL pointer where data or a result must go) ends the
 * job through bsp_abort with a message naming the call, the processors and
 * the area. */
#ifndef SIMPLE_BSPLIB_H
#define SIMPLE_BSPLIB_H

#include <stdarg.h>

#include "simple/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The standard's integer types (int in BSPlib 1.4). */
typedef int bsp_pid_t;
typedef int bsp_nprocs_t;
typedef int bsp_size_t;

/* Starts the SPMD part (see above). Cost: the first call starts the job
 * (MPI_Init and the threads: milliseconds); then a broadcast of P among
 * the threads and nodes (2b + ~log2 P alpha); with P smaller than the job,
 * one sync more. */
SIMPLE_API void bsp_begin(int maxprocs);
/* Ends the SPMD part: one sync (two with P smaller than the job). */
SIMPLE_API void bsp_end(void);
/* Records the SPMD function and the arguments for the other threads;
 * O(1). A NULL function ends the program with a message. */
SIMPLE_API void bsp_init(void (*spmd_part)(void), int argc, char *argv[]);
/* O(1). */
SIMPLE_API int bsp_pid(void);
/* O(1) in the SPMD part; before it, a read of the environment. */
SIMPLE_API int bsp_nprocs(void);
/* Ends the job on every node with the message (MPI_Abort). */
SIMPLE_API SIMPLE_NORETURN void bsp_abort(const char *format, ...) SIMPLE_PRINTF(1, 2);
SIMPLE_API SIMPLE_NORETURN void bsp_vabort(const char *format, va_list args);
/* Seconds since this process's bsp_begin; one clock read (~20 ns). */
SIMPLE_API double bsp_time(void);
/* Ends the superstep: simple_rma_sync, whose cost include/simple/rma.h
 * gives: an empty one 2b on one node, 2b + an alltoall of 96 bytes per
 * node pair among P nodes; with puts 3b + the bytes put to each thread / B
 * inside a node, and between nodes (P-1)/r packets per thread
 * (~(P-1)/r alpha + beta h, h the most bytes a node sends or receives);
 * gets add one node barrier and, between nodes, one round (alpha + beta
 * h_get). */
SIMPLE_API void bsp_sync(void);

/* Registration, collective, effective at the next sync: O(1) now (pop:
 * O(registrations)); a sync that applies registration changes adds an
 * allgather of 16 bytes per processor among nodes and a node barrier. */
SIMPLE_API void bsp_push_reg(const void *ident, int size);
SIMPLE_API void bsp_pop_reg(const void *ident);
/* Buffered put: nbytes/B now (the source is copied); at the sync nbytes/B
 * inside a node, beta nbytes in the node pair's packet between nodes. */
SIMPLE_API void bsp_put(int pid, const void *src, void *dst, int offset, int nbytes);
/* Unbuffered put: inside a node one memcpy now (nbytes/B), nothing at the
 * sync; between nodes as bsp_put. */
SIMPLE_API void bsp_hpput(int pid, const void *src, void *dst, int offset, int nbytes);
/* Buffered get, served at the sync: 2 nbytes/B inside a node; between
 * nodes a 32-byte request in the packet and beta nbytes in the reply. */
SIMPLE_API void bsp_get(int pid, const void *src, int offset, void *dst, int nbytes);
/* Unbuffered get: inside a node one memcpy now; between nodes as bsp_get. */
SIMPLE_API void bsp_hpget(int pid, const void *src, int offset, void *dst, int nbytes);

/* Collective, effective at the next sync; O(1). */
SIMPLE_API void bsp_set_tagsize(int *tag_nbytes);
/* (tagsize + nbytes)/B now; at the sync as a put of that size, plus one
 * copy into the receiver's queue. */
SIMPLE_API void bsp_send(int pid, const void *tag, const void *payload, int payload_nbytes);
/* O(messages in the queue). */
SIMPLE_API void bsp_qsize(int *nmessages, int *accum_nbytes);
/* O(1) + the tag's copy. */
SIMPLE_API void bsp_get_tag(int *status, void *tag);
/* The payload's copy: reception_nbytes/B at most. */
SIMPLE_API void bsp_move(void *payload, int reception_nbytes);
/* O(1): pointers into the library's buffer, valid until the next sync. */
SIMPLE_API int bsp_hpmove(void **tag_ptr_buf, void **payload_ptr_buf);

/* The names of BSPlib's first drafts (Oxford BSP toolset 1.0), used by
 * older programs and by paper 004's figures. */
#define bsp_pushregister bsp_push_reg
#define bsp_popregister  bsp_pop_reg

#ifdef __cplusplus
}
#endif

#endif /* SIMPLE_BSPLIB_H */
