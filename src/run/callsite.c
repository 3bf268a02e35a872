/* Describing a thread's last collective call, for the hang report and
 * checked mode's mismatch messages. */
#include <dlfcn.h>
#include <stdio.h>

#include "run/job.h"

simple__call_t simple__call_read(const simple__call_t *c) {
  return (simple__call_t){.name = __atomic_load_n(&c->name, __ATOMIC_RELAXED),
                          .site = __atomic_load_n(&c->site, __ATOMIC_RELAXED),
                          .count = __atomic_load_n(&c->count, __ATOMIC_RELAXED),
                          .type = __atomic_load_n(&c->type, __ATOMIC_RELAXED),
                          .op = __atomic_load_n(&c->op, __ATOMIC_RELAXED),
                          .root = __atomic_load_n(&c->root, __ATOMIC_RELAXED)};
}

void simple__call_describe(const simple__call_t *c, char *out, size_t len) {
  if (!len) return;
  out[0] = '\0';
  if (!c->name) return;
  size_t at = 0;
#define PUT(...)                                          \
  do {                                                    \
    if (at < len) {                                       \
      int k_ = snprintf(out + at, len - at, __VA_ARGS__); \
      at = k_ < 0 ? len : at + (size_t)k_;                \
    }                                                     \
  } while (0)
  /* One argument, after a comma unless it is the first. */
  const char *sep = "";
#define ARG(fmt, ...)                \
  do {                               \
    PUT("%s" fmt, sep, __VA_ARGS__); \
    sep = ", ";                      \
  } while (0)
  PUT("simple_%s(", c->name);
  if (c->count >= 0) ARG("count %lld", c->count);
  if (c->type >= 0) ARG("type %s", simple_type_name((simple_type_t)c->type));
  if (c->op >= 0) ARG("op %s", simple_op_name((simple_op_t)c->op));
  if (c->root >= 0) ARG("root %d", c->root);
  PUT(")");
#undef ARG
#undef PUT
}

void simple__call_site(const void *site, char *out, size_t len) {
  Dl_info info;
  if (site && dladdr(site, &info) && info.dli_sname)
    snprintf(out, len, "%s+0x%lx (%s)", info.dli_sname,
             (unsigned long)((const char *)site - (const char *)info.dli_saddr),
             info.dli_fname ? info.dli_fname : "?");
  else if (site && dladdr(site, &info) && info.dli_fname)
    snprintf(out, len, "%p (%s+0x%lx)", site, info.dli_fname,
             (unsigned long)((const char *)site - (const char *)info.dli_fbase));
  else
    snprintf(out, len, "%p", site);
}
