/* Open-addressing hash table for request tracking (linear probing, tombstones). */
#include "reqtab.h"

#include <stdlib.h>
#include <string.h>

#define TOMB UINT64_MAX

static size_t hash64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return (size_t)x;
}

int gs_reqtab_init(gs_reqtab_t *t, size_t cap)
{
    size_t c = 16;
    while (c < cap) c <<= 1;
    t->slots = calloc(c, sizeof *t->slots);
    t->cap = t->slots ? c : 0;
    t->count = t->tombs = 0;
    return t->slots ? 0 : -1;
}

void gs_reqtab_destroy(gs_reqtab_t *t)
{
    free(t->slots);
    memset(t, 0, sizeof *t);
}

static int rehash(gs_reqtab_t *t, size_t cap)
{
    gs_reqtab_t n;
    if (gs_reqtab_init(&n, cap) != 0) return -1;
    for (size_t i = 0; i < t->cap; i++) {
        gs_req_t *s = &t->slots[i];
        if (s->handle && s->handle != TOMB) gs_reqtab_put(&n, s);
    }
    free(t->slots);
    *t = n;
    return 0;
}

static gs_req_t *find(gs_reqtab_t *t, uint64_t h)
{
    if (!t->cap) return NULL;
    for (size_t i = hash64(h) & (t->cap - 1);; i = (i + 1) & (t->cap - 1)) {
        gs_req_t *s = &t->slots[i];
        if (s->handle == h) return s;
        if (s->handle == 0) return NULL;
    }
}

int gs_reqtab_put(gs_reqtab_t *t, const gs_req_t *r)
{
    if (r->handle == 0 || r->handle == TOMB) return -1;
    gs_req_t *s = find(t, r->handle);
    if (s) {
        *s = *r;
        return 0;
    }
    if ((t->count + t->tombs + 1) * 2 > t->cap) {
        size_t cap = t->cap ? t->cap : 16;
        while ((t->count + 1) * 2 > cap) cap <<= 1;
        if ((t->count + 1) * 4 > cap) cap <<= 1;
        if (rehash(t, cap) != 0) return -1;
    }
    for (size_t i = hash64(r->handle) & (t->cap - 1);; i = (i + 1) & (t->cap - 1)) {
        gs_req_t *e = &t->slots[i];
        if (e->handle == 0 || e->handle == TOMB) {
            if (e->handle == TOMB) t->tombs--;
            *e = *r;
            t->count++;
            return 0;
        }
    }
}

gs_req_t *gs_reqtab_get(gs_reqtab_t *t, uint64_t handle)
{
    if (handle == 0 || handle == TOMB) return NULL;
    return find(t, handle);
}

int gs_reqtab_take(gs_reqtab_t *t, uint64_t handle, gs_req_t *out)
{
    gs_req_t *s = gs_reqtab_get(t, handle);
    if (!s) return 0;
    if (out) *out = *s;
    s->handle = TOMB;
    t->count--;
    t->tombs++;
    return 1;
}

gs_req_t gs_req_icoll(uint64_t handle, uint64_t id, uint32_t comm, int op, int root,
                      uint64_t sent, uint64_t recvd)
{
    gs_req_t r = {.handle = handle, .id = id, .comm = comm, .kind = GS_REQ_ICOLL,
                  .bytes = sent, .recvd = recvd, .op = op, .root = root};
    return r;
}
