/* simple: the BSPlib API (Hill, McColl, Stefanescu, Goudreau, Lang, Rao,
 * Suel, Tsantilas, Bisseling: "BSPlib: the BSP programming library",
 * Parallel Computing 24, 1998), over simple's one-sided layer
 * (include/simple/rma.h). Every thread of a simple job is one BSP process:
 * bsp_pid() is simple_pid, bsp_nprocs() simple_nprocs.
 *
 * Programs include <bsp.h> (include/bsp/bsp.h, found through simple-cc) or
 * this header, and run with simplerun, e.g. simplerun -N 2 -t 4 ./prog.
 *
 * Start-up, both styles of the standard:
 *   - bsp_begin as the first statement of main: the first call (on the
 *     process's main thread, outside a job) starts the job and runs main
 *     again, from the start, on every thread; there bsp_begin returns at
 *     once. argc/argv for the rerun come from bsp_init if it was called,
 *     else from /proc/self/cmdline. When main returns on processor 0, the
 *     process exits with its value (other processes exit 0);
 *   - bsp_init(spmd, argc, argv) first in main, then bsp_begin inside spmd:
 *     the job runs spmd on every thread; when spmd returns on processor 0
 *     the process exits 0 (the rest of main after the spmd call does not
 *     run; the job is over).
 * After bsp_end only processor 0 goes on, as the standard says; the other
 * threads leave the SPMD part there.
 * bsp_begin(maxprocs): the job's size is set by simplerun (SIMPLE_THREADS
 * and the node count); maxprocs only caps what bsp_nprocs() reports as
 * "available" before the job and is otherwise ignored. Before bsp_begin,
 * bsp_nprocs() is the job's thread count from SIMPLE_THREADS and the
 * launcher's process count.
 *
 * Shared globals: the threads of a node share the program's global and
 * static variables, unlike BSPlib processes; an SPMD part that writes them
 * must make them _Thread_local (or keep its data on the stack/heap).
 *
 * Errors follow BSPlib: a call with bad arguments (an unregistered area, a
 * transfer outside the registered size, a bad processor id, mismatched
 * collective calls) ends the job through bsp_abort with a message naming
 * the call, the processors and the area. */
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

SIMPLE_API void bsp_begin(int maxprocs);
SIMPLE_API void bsp_end(void);
SIMPLE_API void bsp_init(void (*spmd_part)(void), int argc, char *argv[]);
SIMPLE_API int bsp_pid(void);
SIMPLE_API int bsp_nprocs(void);
SIMPLE_API SIMPLE_NORETURN void bsp_abort(const char *format, ...) SIMPLE_PRINTF(1, 2);
SIMPLE_API SIMPLE_NORETURN void bsp_vabort(const char *format, va_list args);
/* Seconds since this process's bsp_begin. */
SIMPLE_API double bsp_time(void);
SIMPLE_API void bsp_sync(void);

SIMPLE_API void bsp_push_reg(const void *ident, int size);
SIMPLE_API void bsp_pop_reg(const void *ident);
SIMPLE_API void bsp_put(int pid, const void *src, void *dst, int offset, int nbytes);
SIMPLE_API void bsp_hpput(int pid, const void *src, void *dst, int offset, int nbytes);
SIMPLE_API void bsp_get(int pid, const void *src, int offset, void *dst, int nbytes);
SIMPLE_API void bsp_hpget(int pid, const void *src, int offset, void *dst, int nbytes);

SIMPLE_API void bsp_set_tagsize(int *tag_nbytes);
SIMPLE_API void bsp_send(int pid, const void *tag, const void *payload, int payload_nbytes);
SIMPLE_API void bsp_qsize(int *nmessages, int *accum_nbytes);
SIMPLE_API void bsp_get_tag(int *status, void *tag);
SIMPLE_API void bsp_move(void *payload, int reception_nbytes);
SIMPLE_API int bsp_hpmove(void **tag_ptr_buf, void **payload_ptr_buf);

/* The names of BSPlib's first drafts (Oxford BSP toolset 1.0), used by
 * older programs and by paper 004's figures. */
#define bsp_pushregister bsp_push_reg
#define bsp_popregister  bsp_pop_reg

#ifdef __cplusplus
}
#endif

#endif /* SIMPLE_BSPLIB_H */
