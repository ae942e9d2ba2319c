/* Point-to-point events and request tracking in Score-P's sequences (GUIDE §3). */
#include "collector.h"

static uint64_t msg_bytes(int count, MPI_Datatype type)
{
    int size = 0;
    PMPI_Type_size(type, &size);
    return (uint64_t)count * (uint64_t)size;
}

void gs_ev_send(uint64_t t, int dest, MPI_Comm comm, int tag, int count, MPI_Datatype type)
{
    if (dest == MPI_PROC_NULL) return;
    OTF2_EvtWriter_MpiSend(gs_cur()->evt, NULL, t, (uint32_t)dest, gs_comm_ref(comm),
                           (uint32_t)tag, msg_bytes(count, type));
}

static uint64_t status_bytes(const MPI_Status *st)
{
    int n = 0;
    PMPI_Get_count(st, MPI_BYTE, &n);
    return n == MPI_UNDEFINED ? 0 : (uint64_t)n;
}

void gs_ev_recv(uint64_t t, const MPI_Status *st, MPI_Comm comm)
{
    if (st->MPI_SOURCE == MPI_PROC_NULL) return;
    OTF2_EvtWriter_MpiRecv(gs_cur()->evt, NULL, t, (uint32_t)st->MPI_SOURCE,
                           gs_comm_ref(comm), (uint32_t)st->MPI_TAG, status_bytes(st));
}

void gs_ev_isend(uint64_t t, int dest, MPI_Comm comm, int tag, int count, MPI_Datatype type,
                 MPI_Request req)
{
    if (dest == MPI_PROC_NULL) return;
    gs_req_t r = {.handle = GS_REQ_KEY(req), .id = ++gs_cur()->next_request_id,
                  .comm = gs_comm_ref(comm), .kind = GS_REQ_ISEND};
    gs_reqtab_put(&gs_cur()->requests, &r);
    OTF2_EvtWriter_MpiIsend(gs_cur()->evt, NULL, t, (uint32_t)dest, r.comm, (uint32_t)tag,
                            msg_bytes(count, type), r.id);
}

void gs_ev_irecv_request(uint64_t t, int source, MPI_Comm comm, MPI_Request req)
{
    if (source == MPI_PROC_NULL) return;
    gs_req_t r = {.handle = GS_REQ_KEY(req), .id = ++gs_cur()->next_request_id,
                  .comm = gs_comm_ref(comm), .kind = GS_REQ_IRECV};
    gs_reqtab_put(&gs_cur()->requests, &r);
    OTF2_EvtWriter_MpiIrecvRequest(gs_cur()->evt, NULL, t, r.id);
}

void gs_ev_cancel(MPI_Request req)
{
    gs_req_t *r = gs_reqtab_get(&gs_cur()->requests, GS_REQ_KEY(req));
    if (r) r->cancelled = 1;
}

void gs_ev_complete(uint64_t t, uint64_t handle, const MPI_Status *st)
{
    gs_req_t r;
    if (!gs_reqtab_take(&gs_cur()->requests, handle, &r)) return;
    int cancelled = 0;
    if (r.cancelled) PMPI_Test_cancelled(st, &cancelled);
    if (cancelled) {
        OTF2_EvtWriter_MpiRequestCancelled(gs_cur()->evt, NULL, t, r.id);
    } else if (r.kind == GS_REQ_ICOLL) {
        OTF2_EvtWriter_NonBlockingCollectiveComplete(
            gs_cur()->evt, NULL, t, (OTF2_CollectiveOp)r.op, r.comm,
            r.root < 0 ? OTF2_UNDEFINED_UINT32 : (uint32_t)r.root, r.bytes, r.recvd, r.id);
    } else if (r.kind == GS_REQ_ISEND) {
        OTF2_EvtWriter_MpiIsendComplete(gs_cur()->evt, NULL, t, r.id);
    } else {
        OTF2_EvtWriter_MpiIrecv(gs_cur()->evt, NULL, t, (uint32_t)st->MPI_SOURCE, r.comm,
                                (uint32_t)st->MPI_TAG, status_bytes(st), r.id);
    }
}

void gs_ev_request_tested(uint64_t t, uint64_t handle)
{
    gs_req_t *r = gs_reqtab_get(&gs_cur()->requests, handle);
    if (r) OTF2_EvtWriter_MpiRequestTest(gs_cur()->evt, NULL, t, r->id);
}

void gs_coll_end(uint64_t t, OTF2_CollectiveOp op, MPI_Comm comm, int root, uint64_t sent, uint64_t recvd)
{
    OTF2_EvtWriter_MpiCollectiveEnd(gs_cur()->evt, NULL, t, op, gs_comm_ref(comm),
                                    root < 0 ? OTF2_UNDEFINED_UINT32 : (uint32_t)root, sent,
                                    recvd);
}

void gs_ev_persistent(MPI_Request req, int kind, int peer, int tag, MPI_Comm comm, int count,
                      MPI_Datatype type)
{
    if (peer == MPI_PROC_NULL) return;
    gs_req_t r = {.handle = GS_REQ_KEY(req), .comm = gs_comm_ref(comm), .kind = kind,
                  .peer = peer, .tag = tag,
                  .bytes = kind == GS_REQ_ISEND ? msg_bytes(count, type) : 0};
    gs_reqtab_put(&gs_cur()->persistent, &r);
}

void gs_ev_start(uint64_t t, MPI_Request req)
{
    gs_req_t *p = gs_reqtab_get(&gs_cur()->persistent, GS_REQ_KEY(req));
    if (!p) return;
    gs_req_t r = *p;
    r.id = ++gs_cur()->next_request_id;
    r.cancelled = 0;
    gs_reqtab_put(&gs_cur()->requests, &r);
    if (r.kind == GS_REQ_ISEND)
        OTF2_EvtWriter_MpiIsend(gs_cur()->evt, NULL, t, (uint32_t)r.peer, r.comm, (uint32_t)r.tag,
                                r.bytes, r.id);
    else
        OTF2_EvtWriter_MpiIrecvRequest(gs_cur()->evt, NULL, t, r.id);
}

void gs_ev_request_free(MPI_Request req)
{
    uint64_t key = GS_REQ_KEY(req);
    gs_reqtab_take(&gs_cur()->requests, key, NULL);
    gs_reqtab_take(&gs_cur()->persistent, key, NULL);
}

uint64_t gs_icoll_request(uint64_t t)
{
    uint64_t id = ++gs_cur()->next_request_id;
    OTF2_EvtWriter_NonBlockingCollectiveRequest(gs_cur()->evt, NULL, t, id);
    return id;
}

void gs_icoll_started(MPI_Request req, uint64_t id, OTF2_CollectiveOp op, MPI_Comm comm,
                      int root, uint64_t sent, uint64_t recvd)
{
    gs_req_t r = gs_req_icoll(GS_REQ_KEY(req), id, gs_comm_ref(comm), op, root, sent, recvd);
    gs_reqtab_put(&gs_cur()->requests, &r);
}
