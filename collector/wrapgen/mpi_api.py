"""The MPI functions the collector wraps, described once as typed data.

Each entry: C name, arguments (C type and name; `@role` marks the arguments a family's
template needs), family (which event sequence the wrapper records, see generate.py),
OTF2 region role, and for collectives the OTF2 collective operation, the byte-count rule
(a gs_cb_* adapter in src/mpi_bytes.c applied to the named arguments) and whether the
call goes to a topology-aware implementation `GSColl_<Op>` when one is linked.

Roles: peer (destination/source rank), tag, count, type, comm, req (MPI_Request*),
status (MPI_Status*), newcomm (MPI_Comm* created), root, flag (int* completion flag),
reqs/statuses/index/outcount/indices/n for the Wait/Test families.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Arg:
    ctype: str
    name: str
    role: str = ""


@dataclass(frozen=True)
class Fn:
    name: str
    args: tuple[Arg, ...]
    family: str
    role: str = "UNKNOWN"
    coll_op: str = ""
    bytes_rule: str = ""
    hook: bool = False
    root: str = ""
    notes: str = field(default="", compare=False)

    def arg(self, role: str) -> str:
        for a in self.args:
            if a.role == role:
                return a.name.removesuffix("[]")
        raise KeyError(f"{self.name}: no argument with role {role!r}")


def _args(text: str) -> tuple[Arg, ...]:
    """'const void* buf, int dest@peer' -> Args. Array brackets stay in the name."""
    out = []
    for part in filter(None, (p.strip() for p in text.split(","))):
        decl, _, role = part.partition("@")
        decl = decl.strip()
        split = max(decl.rfind(" "), decl.rfind("*"))
        ctype, name = decl[: split + 1].strip(), decl[split + 1:].strip()
        out.append(Arg(ctype, name, role.strip()))
    return tuple(out)


def fn(name: str, args: str, family: str, role: str = "UNKNOWN", **kw) -> Fn:
    return Fn(name, _args(args), family, role, **kw)


P2P = "POINT2POINT"
SEND = "const void* buf, int count@count, MPI_Datatype datatype@type, int dest@peer, int tag@tag, MPI_Comm comm@comm"
ISEND = SEND + ", MPI_Request* request@req"
RECV = "void* buf, int count, MPI_Datatype datatype, int source@peer, int tag, MPI_Comm comm@comm"
PRECV = ("void* buf, int count@count, MPI_Datatype datatype@type, int source@peer, int tag@tag, "
         "MPI_Comm comm@comm, MPI_Request* request@req")

API: tuple[Fn, ...] = (
    # --- environment: hand-shaped families, the measurement starts and ends here
    fn("MPI_Init", "int* argc, char*** argv", "init"),
    fn("MPI_Init_thread", "int* argc, char*** argv, int required, int* provided", "init"),
    fn("MPI_Finalize", "", "finalize"),
    fn("MPI_Abort", "MPI_Comm comm, int errorcode", "abort"),
    # --- blocking point-to-point
    fn("MPI_Send", SEND, "send", P2P),
    fn("MPI_Bsend", SEND, "send", P2P),
    fn("MPI_Ssend", SEND, "send", P2P),
    fn("MPI_Rsend", SEND, "send", P2P),
    fn("MPI_Recv", RECV + ", MPI_Status* status@status", "recv", P2P),
    fn("MPI_Sendrecv",
       "const void* sendbuf, int sendcount@count, MPI_Datatype sendtype@type, int dest@peer, "
       "int sendtag@tag, void* recvbuf, int recvcount, MPI_Datatype recvtype, int source, "
       "int recvtag, MPI_Comm comm@comm, MPI_Status* status@status", "sendrecv", P2P),
    fn("MPI_Sendrecv_replace",
       "void* buf, int count@count, MPI_Datatype datatype@type, int dest@peer, int sendtag@tag, "
       "int source, int recvtag, MPI_Comm comm@comm, MPI_Status* status@status",
       "sendrecv", P2P),
    fn("MPI_Probe", "int source, int tag, MPI_Comm comm, MPI_Status* status", "plain", P2P),
    fn("MPI_Iprobe", "int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status",
       "plain", P2P),
    # --- non-blocking point-to-point
    fn("MPI_Isend", ISEND, "isend", P2P),
    fn("MPI_Ibsend", ISEND, "isend", P2P),
    fn("MPI_Issend", ISEND, "isend", P2P),
    fn("MPI_Irsend", ISEND, "isend", P2P),
    fn("MPI_Irecv", RECV + ", MPI_Request* request@req", "irecv", P2P),
    # --- persistent point-to-point: each MPI_Start(all) records a new Isend / Irecv
    fn("MPI_Send_init", ISEND, "psend_init", P2P),
    fn("MPI_Bsend_init", ISEND, "psend_init", P2P),
    fn("MPI_Ssend_init", ISEND, "psend_init", P2P),
    fn("MPI_Rsend_init", ISEND, "psend_init", P2P),
    fn("MPI_Recv_init", PRECV, "precv_init", P2P),
    fn("MPI_Start", "MPI_Request* request@req", "start", P2P),
    fn("MPI_Startall", "int count@n, MPI_Request requests[]@reqs", "startall", P2P),
    # --- completion
    fn("MPI_Wait", "MPI_Request* request@req, MPI_Status* status@status", "wait"),
    fn("MPI_Test", "MPI_Request* request@req, int* flag@flag, MPI_Status* status@status",
       "test"),
    fn("MPI_Waitall", "int count@n, MPI_Request requests[]@reqs, MPI_Status statuses[]@statuses",
       "waitall"),
    fn("MPI_Testall",
       "int count@n, MPI_Request requests[]@reqs, int* flag@flag, MPI_Status statuses[]@statuses",
       "testall"),
    fn("MPI_Waitany",
       "int count@n, MPI_Request requests[]@reqs, int* index@index, MPI_Status* status@status",
       "waitany"),
    fn("MPI_Testany",
       "int count@n, MPI_Request requests[]@reqs, int* index@index, int* flag@flag, "
       "MPI_Status* status@status", "testany"),
    fn("MPI_Waitsome",
       "int incount@n, MPI_Request requests[]@reqs, int* outcount@outcount, int indices[]@indices, "
       "MPI_Status statuses[]@statuses", "waitsome"),
    fn("MPI_Testsome",
       "int incount@n, MPI_Request requests[]@reqs, int* outcount@outcount, int indices[]@indices, "
       "MPI_Status statuses[]@statuses", "waitsome"),
    fn("MPI_Cancel", "MPI_Request* request@req", "cancel"),
    fn("MPI_Request_free", "MPI_Request* request@req", "request_free"),
    fn("MPI_Test_cancelled", "const MPI_Status* status, int* flag", "plain"),
    # --- collectives
    fn("MPI_Barrier", "MPI_Comm comm@comm", "coll", "BARRIER", coll_op="BARRIER",
       bytes_rule="barrier(comm)", hook=True),
    fn("MPI_Bcast", "void* buffer, int count, MPI_Datatype datatype, int root@root, MPI_Comm comm@comm",
       "coll", "COLL_ONE2ALL", coll_op="BCAST", bytes_rule="bcast(count, datatype, root, comm)",
       hook=True),
    fn("MPI_Reduce",
       "const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, "
       "int root@root, MPI_Comm comm@comm", "coll", "COLL_ALL2ONE", coll_op="REDUCE",
       bytes_rule="reduce(sendbuf, count, datatype, root, comm)", hook=True),
    fn("MPI_Allreduce",
       "const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, "
       "MPI_Comm comm@comm", "coll", "COLL_ALL2ALL", coll_op="ALLREDUCE",
       bytes_rule="allreduce(sendbuf, count, datatype, comm)", hook=True),
    fn("MPI_Gather",
       "const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, "
       "MPI_Datatype recvtype, int root@root, MPI_Comm comm@comm", "coll", "COLL_ALL2ONE",
       coll_op="GATHER",
       bytes_rule="gather(sendbuf, sendcount, sendtype, recvcount, recvtype, root, comm)",
       hook=True),
    fn("MPI_Gatherv",
       "const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, "
       "const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root@root, "
       "MPI_Comm comm@comm", "coll", "COLL_ALL2ONE", coll_op="GATHERV",
       bytes_rule="gatherv(sendbuf, sendcount, sendtype, recvcounts, recvtype, root, comm)"),
    fn("MPI_Scatter",
       "const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, "
       "MPI_Datatype recvtype, int root@root, MPI_Comm comm@comm", "coll", "COLL_ONE2ALL",
       coll_op="SCATTER",
       bytes_rule="scatter(sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm)"),
    fn("MPI_Scatterv",
       "const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, "
       "void* recvbuf, int recvcount, MPI_Datatype recvtype, int root@root, MPI_Comm comm@comm",
       "coll", "COLL_ONE2ALL", coll_op="SCATTERV",
       bytes_rule="scatterv(sendcounts, sendtype, recvbuf, recvcount, recvtype, root, comm)"),
    fn("MPI_Allgather",
       "const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, "
       "MPI_Datatype recvtype, MPI_Comm comm@comm", "coll", "COLL_ALL2ALL", coll_op="ALLGATHER",
       bytes_rule="allgather(sendbuf, sendcount, sendtype, recvcount, recvtype, comm)",
       hook=True),
    fn("MPI_Allgatherv",
       "const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, "
       "const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm@comm",
       "coll", "COLL_ALL2ALL", coll_op="ALLGATHERV",
       bytes_rule="allgatherv(sendbuf, sendcount, sendtype, recvcounts, recvtype, comm)"),
    fn("MPI_Alltoall",
       "const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, "
       "MPI_Datatype recvtype, MPI_Comm comm@comm", "coll", "COLL_ALL2ALL", coll_op="ALLTOALL",
       bytes_rule="alltoall(sendbuf, sendcount, sendtype, recvcount, recvtype, comm)",
       hook=True),
    fn("MPI_Alltoallv",
       "const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, "
       "void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, "
       "MPI_Comm comm@comm", "coll", "COLL_ALL2ALL", coll_op="ALLTOALLV",
       bytes_rule="alltoallv(sendbuf, sendcounts, sendtype, recvcounts, recvtype, comm)",
       hook=True),
    fn("MPI_Alltoallw",
       "const void* sendbuf, const int sendcounts[], const int sdispls[], "
       "const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[], "
       "const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm@comm",
       "coll", "COLL_ALL2ALL", coll_op="ALLTOALLW",
       bytes_rule="alltoallw(sendbuf, sendcounts, sendtypes, recvcounts, recvtypes, comm)"),
    fn("MPI_Reduce_scatter",
       "const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype datatype, "
       "MPI_Op op, MPI_Comm comm@comm", "coll", "COLL_ALL2ALL", coll_op="REDUCE_SCATTER",
       bytes_rule="reduce_scatter(sendbuf, recvcounts, datatype, comm)"),
    fn("MPI_Reduce_scatter_block",
       "const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op, "
       "MPI_Comm comm@comm", "coll", "COLL_ALL2ALL", coll_op="REDUCE_SCATTER_BLOCK",
       bytes_rule="reduce_scatter_block(sendbuf, recvcount, datatype, comm)"),
    fn("MPI_Scan",
       "const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, "
       "MPI_Comm comm@comm", "coll", "COLL_OTHER", coll_op="SCAN",
       bytes_rule="scan(sendbuf, count, datatype, comm)"),
    fn("MPI_Exscan",
       "const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, "
       "MPI_Comm comm@comm", "coll", "COLL_OTHER", coll_op="EXSCAN",
       bytes_rule="exscan(count, datatype, comm)"),
    # --- communicators
    fn("MPI_Comm_dup", "MPI_Comm comm, MPI_Comm* newcomm@newcomm", "comm_new"),
    fn("MPI_Comm_dup_with_info", "MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm@newcomm",
       "comm_new"),
    fn("MPI_Comm_split", "MPI_Comm comm, int color, int key, MPI_Comm* newcomm@newcomm",
       "comm_new"),
    fn("MPI_Comm_split_type",
       "MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm* newcomm@newcomm",
       "comm_new"),
    fn("MPI_Comm_create", "MPI_Comm comm, MPI_Group group, MPI_Comm* newcomm@newcomm",
       "comm_new"),
    fn("MPI_Comm_create_group",
       "MPI_Comm comm, MPI_Group group, int tag, MPI_Comm* newcomm@newcomm", "comm_new"),
    fn("MPI_Cart_create",
       "MPI_Comm comm_old, int ndims, const int dims[], const int periods[], int reorder, "
       "MPI_Comm* comm_cart@newcomm", "comm_new"),
    fn("MPI_Graph_create",
       "MPI_Comm comm_old, int nnodes, const int indx[], const int edges[], int reorder, "
       "MPI_Comm* comm_graph@newcomm", "comm_new"),
    fn("MPI_Intercomm_create",
       "MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader, int tag, "
       "MPI_Comm* newintercomm@newcomm", "comm_new"),
    fn("MPI_Intercomm_merge", "MPI_Comm intercomm, int high, MPI_Comm* newintracomm@newcomm",
       "comm_new"),
    fn("MPI_Comm_free", "MPI_Comm* comm@comm", "comm_free"),
    # --- queries and handles: Enter/Leave only
    fn("MPI_Comm_rank", "MPI_Comm comm, int* rank", "plain"),
    fn("MPI_Comm_size", "MPI_Comm comm, int* size", "plain"),
    fn("MPI_Comm_group", "MPI_Comm comm, MPI_Group* group", "plain"),
    fn("MPI_Comm_compare", "MPI_Comm comm1, MPI_Comm comm2, int* result", "plain"),
    fn("MPI_Comm_set_name", "MPI_Comm comm, const char* comm_name", "plain"),
    fn("MPI_Group_incl", "MPI_Group group, int n, const int ranks[], MPI_Group* newgroup",
       "plain"),
    fn("MPI_Group_excl", "MPI_Group group, int n, const int ranks[], MPI_Group* newgroup",
       "plain"),
    fn("MPI_Group_free", "MPI_Group* group", "plain"),
    fn("MPI_Group_translate_ranks",
       "MPI_Group group1, int n, const int ranks1[], MPI_Group group2, int ranks2[]", "plain"),
    fn("MPI_Type_contiguous", "int count, MPI_Datatype oldtype, MPI_Datatype* newtype", "plain"),
    fn("MPI_Type_vector",
       "int count, int blocklength, int stride, MPI_Datatype oldtype, MPI_Datatype* newtype",
       "plain"),
    fn("MPI_Type_commit", "MPI_Datatype* datatype", "plain"),
    fn("MPI_Type_free", "MPI_Datatype* datatype", "plain"),
    fn("MPI_Buffer_attach", "void* buffer, int size", "plain"),
    fn("MPI_Buffer_detach", "void* buffer_addr, int* size", "plain"),
)
