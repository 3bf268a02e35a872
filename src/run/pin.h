/* Internal: binding threads to cores with hwloc (SIMPLE_PIN=1). */
#ifndef SIMPLE_RUN_PIN_H
#define SIMPLE_RUN_PIN_H

#include "run/job.h"

/* Loads the topology once per job. Returns 0 or SIMPLE_ERR_CONFIG with a
 * message in err. Counts the cores this process may use in *cores. */
int simple__pin_open(int *cores, char *err, size_t errlen);
/* Binds the calling thread to core (first + thread) modulo the cores the
 * process may use, so the threads of the processes sharing a host spread
 * over distinct cores. Returns 0 or SIMPLE_ERR_CONFIG. */
int simple__pin_thread(int first, int thread);
void simple__pin_close(void);

#endif
