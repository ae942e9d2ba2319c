/* Point-to-point events and request tracking in Score-P's sequences (GUIDE §3), on the
 * calling thread's location (each function reads the thread-local pointer once). */
#include "collector.h"

static uint64_t msg_bytes(int count, MPI_Datatype type)
{
    int size = 0;
    PMPI_Type_size(type, &size);
    return (uint64_t)count * (uint64_t)size;
}

void gs_ev_send(uint64_t t, int dest, MPI_Comm comm, int tag, int count, MPI_Datatype type)
{
    gs_loc_t *L = gs_cur();
    if (dest == MPI_PROC_NULL) return;
    GS_EMIT(L, OTF2_EvtWriter_MpiSend(L->evt, NULL, t, (uint32_t)dest, gs_comm_ref(comm),
                                      (uint32_t)tag, msg_bytes(count, type)));
}

static uint64_t status_bytes(const MPI_Status *st)
{
    int n = 0;
    PMPI_Get_count(st, MPI_BYTE, &n);
    return n == MPI_UNDEFINED ? 0 : (uint64_t)n;
}

/* A receive posted with MPI_ANY_SOURCE carries the attribute GS_ATTR_ANY_SOURCE (value 1):
 * OTF2's MpiRecv/MpiIrecv hold only the source matched, and `gridscope predict` replays a
 * wildcard receive as one (docs/predict.md). NULL for a receive from a named source. */
static OTF2_AttributeList *wildcard_attr(int posted_source)
{
    static __thread OTF2_AttributeList *list;
    if (posted_source != MPI_ANY_SOURCE) return NULL;
    if (!list) list = OTF2_AttributeList_New();
    else OTF2_AttributeList_RemoveAllAttributes(list);
    OTF2_AttributeList_AddUint8(list, GS_ATTR_ANY_SOURCE, 1);
    return list;
}

void gs_ev_recv(uint64_t t, const MPI_Status *st, MPI_Comm comm, int posted_source)
{
    gs_loc_t *L = gs_cur();
    if (st->MPI_SOURCE == MPI_PROC_NULL) return;
    GS_EMIT(L, OTF2_EvtWriter_MpiRecv(L->evt, wildcard_attr(posted_source), t,
                                      (uint32_t)st->MPI_SOURCE, gs_comm_ref(comm),
                                      (uint32_t)st->MPI_TAG, status_bytes(st)));
}

void gs_ev_isend(uint64_t t, int dest, MPI_Comm comm, int tag, int count, MPI_Datatype type,
                 MPI_Request req)
{
    gs_loc_t *L = gs_cur();
    if (dest == MPI_PROC_NULL) return;
    gs_req_t r = {.handle = GS_REQ_KEY(req), .id = ++L->next_request_id,
                  .comm = gs_comm_ref(comm), .kind = GS_REQ_ISEND};
    gs_reqtab_put(&L->requests, &r);
    GS_EMIT(L, OTF2_EvtWriter_MpiIsend(L->evt, NULL, t, (uint32_t)dest, r.comm, (uint32_t)tag,
                                       msg_bytes(count, type), r.id));
}

void gs_ev_irecv_request(uint64_t t, int source, MPI_Comm comm, MPI_Request req)
{
    gs_loc_t *L = gs_cur();
    if (source == MPI_PROC_NULL) return;
    gs_req_t r = {.handle = GS_REQ_KEY(req), .id = ++L->next_request_id,
                  .comm = gs_comm_ref(comm), .kind = GS_REQ_IRECV,
                  .peer = source};
    gs_reqtab_put(&L->requests, &r);
    GS_EMIT(L, OTF2_EvtWriter_MpiIrecvRequest(L->evt, NULL, t, r.id));
}

void gs_ev_cancel(MPI_Request req)
{
    gs_loc_t *L = gs_cur();
    gs_req_t *r = gs_reqtab_get(&L->requests, GS_REQ_KEY(req));
    if (r) r->cancelled = 1;
}

void gs_ev_complete(uint64_t t, uint64_t handle, const MPI_Status *st)
{
    gs_loc_t *L = gs_cur();
    gs_req_t r;
    if (!gs_reqtab_take(&L->requests, handle, &r)) return;
    int cancelled = 0;
    if (r.cancelled) PMPI_Test_cancelled(st, &cancelled);
    if (cancelled) {
        GS_EMIT(L, OTF2_EvtWriter_MpiRequestCancelled(L->evt, NULL, t, r.id));
    } else if (r.kind == GS_REQ_ICOLL) {
        GS_EMIT(L, OTF2_EvtWriter_NonBlockingCollectiveComplete(L->evt, NULL, t,
                (OTF2_CollectiveOp)r.op, r.comm,
                r.root < 0 ? OTF2_UNDEFINED_UINT32 : (uint32_t)r.root, r.bytes, r.recvd, r.id));
    } else if (r.kind == GS_REQ_ISEND) {
        GS_EMIT(L, OTF2_EvtWriter_MpiIsendComplete(L->evt, NULL, t, r.id));
    } else {
        GS_EMIT(L, OTF2_EvtWriter_MpiIrecv(L->evt, wildcard_attr(r.peer), t,
                                           (uint32_t)st->MPI_SOURCE, r.comm,
                                           (uint32_t)st->MPI_TAG, status_bytes(st), r.id));
    }
}

void gs_ev_request_tested(uint64_t t, uint64_t handle)
{
    gs_loc_t *L = gs_cur();
    gs_req_t *r = gs_reqtab_get(&L->requests, handle);
    if (r) GS_EMIT(L, OTF2_EvtWriter_MpiRequestTest(L->evt, NULL, t, r->id));
}

void gs_coll_end(uint64_t t, OTF2_CollectiveOp op, MPI_Comm comm, int root, uint64_t sent, uint64_t recvd)
{
    gs_loc_t *L = gs_cur();
    GS_EMIT(L, OTF2_EvtWriter_MpiCollectiveEnd(L->evt, NULL, t, op, gs_comm_ref(comm),
                                               root < 0 ? OTF2_UNDEFINED_UINT32 : (uint32_t)root,
                                               sent, recvd));
}

void gs_ev_persistent(MPI_Request req, int kind, int peer, int tag, MPI_Comm comm, int count,
                      MPI_Datatype type)
{
    gs_loc_t *L = gs_cur();
    if (peer == MPI_PROC_NULL) return;
    gs_req_t r = {.handle = GS_REQ_KEY(req), .comm = gs_comm_ref(comm), .kind = kind,
                  .peer = peer, .tag = tag,
                  .bytes = kind == GS_REQ_ISEND ? msg_bytes(count, type) : 0};
    gs_reqtab_put(&L->persistent, &r);
}

void gs_ev_start(uint64_t t, MPI_Request req)
{
    gs_loc_t *L = gs_cur();
    gs_req_t *p = gs_reqtab_get(&L->persistent, GS_REQ_KEY(req));
    if (!p) return;
    gs_req_t r = *p;
    r.id = ++L->next_request_id;
    r.cancelled = 0;
    gs_reqtab_put(&L->requests, &r);
    if (r.kind == GS_REQ_ISEND)
        GS_EMIT(L, OTF2_EvtWriter_MpiIsend(L->evt, NULL, t, (uint32_t)r.peer, r.comm,
                                           (uint32_t)r.tag, r.bytes, r.id));
    else
        GS_EMIT(L, OTF2_EvtWriter_MpiIrecvRequest(L->evt, NULL, t, r.id));
}

void gs_ev_request_free(MPI_Request req)
{
    gs_loc_t *L = gs_cur();
    uint64_t key = GS_REQ_KEY(req);
    gs_reqtab_take(&L->requests, key, NULL);
    gs_reqtab_take(&L->persistent, key, NULL);
}

uint64_t gs_icoll_request(uint64_t t)
{
    gs_loc_t *L = gs_cur();
    uint64_t id = ++L->next_request_id;
    GS_EMIT(L, OTF2_EvtWriter_NonBlockingCollectiveRequest(L->evt, NULL, t, id));
    return id;
}

void gs_icoll_started(MPI_Request req, uint64_t id, OTF2_CollectiveOp op, MPI_Comm comm,
                      int root, uint64_t sent, uint64_t recvd)
{
    gs_loc_t *L = gs_cur();
    gs_req_t r = gs_req_icoll(GS_REQ_KEY(req), id, gs_comm_ref(comm), op, root, sent, recvd);
    gs_reqtab_put(&L->requests, &r);
}
