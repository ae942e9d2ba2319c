/* gs-rawread: the benchmark's baseline, a trivial libotf2 reader that visits every event
 * of every location (one callback per event type, each bumping a counter) and prints
 * "<events> <seconds>". Same per-location reading scheme as the engine. */
#include <otf2/otf2.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef struct { uint64_t* ids; size_t n, cap; } Locs;
static uint64_t visited;

static OTF2_CallbackCode on_loc(void* u, OTF2_LocationRef self, OTF2_StringRef name, OTF2_LocationType t,
                                uint64_t n, OTF2_LocationGroupRef g) {
  Locs* l = u;
  if (l->n == l->cap) { l->cap = l->cap ? 2 * l->cap : 64; l->ids = realloc(l->ids, l->cap * sizeof *l->ids); }
  l->ids[l->n++] = self;
  return OTF2_CALLBACK_SUCCESS;
}
#define COUNT(name, ...) static OTF2_CallbackCode name(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void* u, \
                                                      OTF2_AttributeList* a, __VA_ARGS__) { visited++; return OTF2_CALLBACK_SUCCESS; }
COUNT(c_enter, OTF2_RegionRef r)
COUNT(c_leave, OTF2_RegionRef r)
COUNT(c_send, uint32_t d, OTF2_CommRef c, uint32_t tag, uint64_t len)
COUNT(c_isend, uint32_t d, OTF2_CommRef c, uint32_t tag, uint64_t len, uint64_t req)
COUNT(c_isendc, uint64_t req)
COUNT(c_irecvreq, uint64_t req)
COUNT(c_recv, uint32_t s, OTF2_CommRef c, uint32_t tag, uint64_t len)
COUNT(c_irecv, uint32_t s, OTF2_CommRef c, uint32_t tag, uint64_t len, uint64_t req)
COUNT(c_cend, OTF2_CollectiveOp op, OTF2_CommRef c, uint32_t root, uint64_t s, uint64_t r)
static OTF2_CallbackCode c_cbegin(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void* u, OTF2_AttributeList* a) {
  visited++;
  return OTF2_CALLBACK_SUCCESS;
}

int main(int argc, char** argv) {
  if (argc != 2) { fprintf(stderr, "usage: gs-rawread traces.otf2\n"); return 2; }
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  OTF2_Reader* r = OTF2_Reader_Open(argv[1]);
  if (!r) { fprintf(stderr, "gs-rawread: %s: cannot open\n", argv[1]); return 2; }
  OTF2_Reader_SetSerialCollectiveCallbacks(r);
  Locs locs = {0};
  OTF2_GlobalDefReader* g = OTF2_Reader_GetGlobalDefReader(r);
  OTF2_GlobalDefReaderCallbacks* gcb = OTF2_GlobalDefReaderCallbacks_New();
  OTF2_GlobalDefReaderCallbacks_SetLocationCallback(gcb, on_loc);
  OTF2_Reader_RegisterGlobalDefCallbacks(r, g, gcb, &locs);
  uint64_t n;
  OTF2_Reader_ReadAllGlobalDefinitions(r, g, &n);
  for (size_t i = 0; i < locs.n; i++) OTF2_Reader_SelectLocation(r, locs.ids[i]);
  int defs = OTF2_Reader_OpenDefFiles(r) == OTF2_SUCCESS;
  OTF2_Reader_OpenEvtFiles(r);
  OTF2_EvtReaderCallbacks* cb = OTF2_EvtReaderCallbacks_New();
  OTF2_EvtReaderCallbacks_SetEnterCallback(cb, c_enter);
  OTF2_EvtReaderCallbacks_SetLeaveCallback(cb, c_leave);
  OTF2_EvtReaderCallbacks_SetMpiSendCallback(cb, c_send);
  OTF2_EvtReaderCallbacks_SetMpiIsendCallback(cb, c_isend);
  OTF2_EvtReaderCallbacks_SetMpiIsendCompleteCallback(cb, c_isendc);
  OTF2_EvtReaderCallbacks_SetMpiIrecvRequestCallback(cb, c_irecvreq);
  OTF2_EvtReaderCallbacks_SetMpiRecvCallback(cb, c_recv);
  OTF2_EvtReaderCallbacks_SetMpiIrecvCallback(cb, c_irecv);
  OTF2_EvtReaderCallbacks_SetMpiCollectiveBeginCallback(cb, c_cbegin);
  OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback(cb, c_cend);
  uint64_t total = 0;
  for (size_t i = 0; i < locs.n; i++) {
    OTF2_EvtReader* e = OTF2_Reader_GetEvtReader(r, locs.ids[i]);
    if (defs) {
      OTF2_DefReader* d = OTF2_Reader_GetDefReader(r, locs.ids[i]);
      if (d) { OTF2_Reader_ReadAllLocalDefinitions(r, d, &n); OTF2_Reader_CloseDefReader(r, d); }
    }
    OTF2_Reader_RegisterEvtCallbacks(r, e, cb, NULL);
    OTF2_Reader_ReadAllLocalEvents(r, e, &n);
    total += n;
    OTF2_Reader_CloseEvtReader(r, e);
  }
  OTF2_Reader_CloseEvtFiles(r);
  if (defs) OTF2_Reader_CloseDefFiles(r);
  OTF2_Reader_Close(r);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  printf("%llu %llu %.6f\n", (unsigned long long)total, (unsigned long long)visited,
         (t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec));
  return 0;
}
