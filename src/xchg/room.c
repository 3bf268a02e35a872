/* The exchange engine's message room (xchg.h): one node-shared block for
 * the messages (and the reductions' accumulators) of every client, grown
 * geometrically, a block it outgrew kept until no thread can still read
 * it. */
#include <stdlib.h>

#include "base/buf.h"
#include "xchg/xchg.h"

/* A block the room outgrew, freed once a requester has passed the publish
 * numbered `at` (the s->call of the one that grew it: every thread of the
 * node counts the same publishes). */
typedef struct retired {
  void *p;
  size_t bytes;
  unsigned at;
  struct retired *next;
} retired_t;

/* One job at a time runs in a process (simple_run), and one thread of its
 * one node per call touches these, after a barrier that every thread of
 * the call before passed after that call's request: no lock. */
static simple__buf_t room;
static retired_t *retired;

/* Frees the blocks retired before a publish that the caller (now at
 * publish `now`) has since passed: every thread of the node arrived
 * there, so none still reads them. */
static void free_retired(unsigned now, int all) {
  retired_t **pp = &retired;
  while (*pp) {
    retired_t *b = *pp;
    if (all || (int)(now - b->at) > 0) {
      *pp = b->next;
      free(b->p);
      free(b);
    } else {
      pp = &b->next;
    }
  }
}

void *simple__xchg_room(simple_t *s, size_t bytes) {
  free_retired(s->call, 0);
  if (room.p && room.cap >= bytes) return room.p;
  retired_t *b = malloc(sizeof *b);
  size_t old_bytes = room.cap;
  void *old;
  int err = !b || simple__buf_grow_keep(&room, bytes, &old);
  if (err || !old) {
    free(b);
    return err ? NULL : room.p;
  }
  *b = (retired_t){old, old_bytes, s->call, retired};
  retired = b;
  /* A node of one thread has no other reader (and may make no publish
   * for a while: the one-thread paths of the reductions have none). */
  if (s->node->threads == 1) free_retired(0, 1);
  return room.p;
}

size_t simple__xchg_room_bytes(size_t *waiting) {
  size_t t = 0;
  for (const retired_t *b = retired; b; b = b->next) t += b->bytes;
  if (waiting) *waiting = t;
  return room.cap;
}

void simple__xchg_room_release(void) {
  free_retired(0, 1);
  simple__buf_free(&room);
}
