"""The MPI functions the collector wraps: one line each.

Signatures (parameter names and C types) come from mpi_std.py, which import_standard.py
generates from the MPI Forum's machine-readable standard (pympistandard) filtered by the
MPI library's mpi.h; a function the library does not provide cannot be listed here.
Each entry names the function, its family (which event sequence the wrapper records, see
generate.py), its OTF2 region role (Score-P's), and for collectives the OTF2 collective
operation, the byte-count rule (a gs_cb_* adapter in src/mpi_bytes.c applied to the named
parameters) and whether the call goes to a topology-aware `GSColl_<Op>` when one is linked.
MPI-IO data accesses and RMA operations declare their byte rule the same way (count x
type size, accumulates as (put, get): src/xferbytes.h), with the OTF2 I/O mode and flag
or atomic type of their events.

A family's template reaches parameters by role; ROLE_NAMES lists, per role, the standard's
parameter names that play it (the first one present wins); `roles=` overrides per entry.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mpi_std import (FORTRAN, NO_OMPI_FORTRAN, NOT_IN_MPICH, NOT_IN_SMPI, OMPI_F08_DIRECT,
                     SIGNATURES)

ROLE_NAMES: dict[str, tuple[str, ...]] = {
    "peer": ("dest", "source"),
    "tag": ("tag", "sendtag"),
    "count": ("count", "sendcount"),
    "type": ("datatype", "sendtype"),
    "comm": ("comm",),
    "req": ("request",),
    "status": ("status",),
    "newcomm": ("newcomm", "comm_cart", "comm_graph", "comm_dist_graph", "newintercomm",
                "newintracomm"),
    "root": ("root",),
    "flag": ("flag",),
    "n": ("count", "incount"),
    "reqs": ("array_of_requests",),
    "statuses": ("array_of_statuses",),
    "index": ("index",),
    "outcount": ("outcount",),
    "indices": ("array_of_indices",),
    "file": ("fh",),
    "filename": ("filename",),
    "amode": ("amode",),
    "win": ("win",),
    "target": ("target_rank", "rank"),
}


@dataclass(frozen=True)
class Arg:
    ctype: str
    name: str


@dataclass(frozen=True)
class Fn:
    name: str
    args: tuple[Arg, ...]
    family: str
    role: str = "UNKNOWN"
    coll_op: str = ""
    bytes_rule: str = ""
    io_mode: str = ""  # MPI-IO data access: OTF2 I/O operation mode (READ, WRITE)
    io_flag: str = ""  # its OTF2 I/O operation flag (NONE = blocking, non-collective)
    win_op: str = ""  # window creation: OTF2 collective operation of its RmaCollectiveEnd
    atomic: str = ""  # RMA atomics: OTF2 atomic type
    hook: bool = False
    roles: tuple[tuple[str, str], ...] = ()
    smpi: bool = True  # SimGrid SMPI declares it
    mpich: bool = True  # MPICH declares it with the same types
    # the mpif.h binding's parameters (name, Fortran type); None: no Open MPI binding
    fortran: tuple[tuple[str, str], ...] | None = None
    f08_direct: bool = False  # Open MPI's mpi_f08 binding bypasses ompi_<name>_f
    # how gridscope predict replays it (a predictor Kind); "": derived from the family
    # (replay_kind below)
    replay: str = ""
    late_receiver: bool = False  # a send for which Late Receiver applies (Scalasca 2.x)
    notes: str = field(default="", compare=False)

    @property
    def coll_class(self) -> str:
        """Wait-state class of a collective (Scalasca's classification, GUIDE §1): "" for
        anything else. A non-blocking collective has its blocking form's class."""
        if self.family not in ("coll", "icoll"):
            return ""
        if self.name.startswith(("MPI_Neighbor_", "MPI_Ineighbor_")):
            return "Skipped"  # no wait-state definition for neighbourhood collectives
        return COLL_CLASS_OF_OP[self.coll_op]

    @property
    def replay_kind(self) -> str:
        if self.replay:
            return self.replay
        if self.family == "plain":  # queries and handles; other roles (I/O, RMA) are not replayed
            return "Local" if self.role == "UNKNOWN" else "Unsupported"
        return REPLAY_OF_FAMILY.get(self.family, "Unsupported")

    def has(self, role: str) -> bool:
        try:
            self.arg(role)
            return True
        except KeyError:
            return False

    def arg(self, role: str) -> str:
        """The parameter (name without brackets) that plays `role`."""
        names = [a.name.removesuffix("[]") for a in self.args]
        wanted = dict(self.roles).get(role)
        for cand in (wanted,) if wanted else ROLE_NAMES.get(role, ()):
            if cand in names:
                return cand
        raise KeyError(f"{self.name}: no parameter with role {role!r}")


# OTF2 collective operation -> wait-state class of the collective
COLL_CLASS_OF_OP = {
    "BARRIER": "Barrier", "BCAST": "OneToN", "SCATTER": "OneToN", "SCATTERV": "OneToN",
    "REDUCE": "NToOne", "GATHER": "NToOne", "GATHERV": "NToOne",
    "ALLGATHER": "NxN", "ALLGATHERV": "NxN", "ALLREDUCE": "NxN", "ALLTOALL": "NxN",
    "REDUCE_SCATTER": "NxN", "REDUCE_SCATTER_BLOCK": "NxN", "SCAN": "Prefix", "EXSCAN": "Prefix",
    "ALLTOALLV": "Skipped", "ALLTOALLW": "Skipped",  # Scalasca defines no wait state for them
}

# wrapper family -> predictor Kind (predictor/src/mpi_kinds.hpp); families not listed (I/O,
# RMA, persistent requests) are not replayed
REPLAY_OF_FAMILY = {
    "init": "Init", "finalize": "Finalize", "abort": "Local",
    "send": "Send", "isend": "Isend", "recv": "Recv", "irecv": "Irecv", "sendrecv": "Sendrecv",
    "wait": "Complete", "test": "Complete", "waitall": "Complete", "testall": "Complete",
    "waitany": "Complete", "testany": "Complete", "waitsome": "Complete",
    "cancel": "Local", "request_free": "Local",
    "coll": "Collective", "icoll": "Icollective",
    "comm_new": "CommCreate", "comm_free": "Local", "comm_name": "Local",
}

# Functions the collector does not wrap (they neither communicate nor change what the
# trace records) but other tools' traces name, e.g. Score-P's: the predictor replays them
# as local computation, by name or by prefix.
LOCAL_UNWRAPPED = (
    "MPI_Comm_get_name", "MPI_Cart_coords", "MPI_Cart_rank", "MPI_Cart_shift", "MPI_Cart_get",
    "MPI_Cartdim_get", "MPI_Dims_create", "MPI_Wtime", "MPI_Wtick", "MPI_Get_count",
    "MPI_Get_processor_name", "MPI_Initialized", "MPI_Finalized", "MPI_Get_version",
    "MPI_Error_string", "MPI_Error_class", "MPI_Query_thread", "MPI_Is_thread_main",
)
LOCAL_PREFIXES = (
    "MPI_Group_", "MPI_Type_", "MPI_Op_", "MPI_Errhandler_", "MPI_Comm_set_", "MPI_Comm_get_",
    "MPI_Attr_", "MPI_Info_", "MPI_Pack", "MPI_Unpack", "MPI_Address", "MPI_Get_address",
)


def _args(text: str) -> tuple[Arg, ...]:
    """'const void* buf, int count' -> Args. Array brackets stay in the name."""
    out = []
    for decl in filter(None, (p.strip() for p in text.split(","))):
        split = max(decl.rfind(" "), decl.rfind("*"))
        out.append(Arg(decl[: split + 1].strip(), decl[split + 1:].strip()))
    return tuple(out)


def fn(name: str, family: str, role: str = "UNKNOWN", roles: dict[str, str] | None = None,
       **kw) -> Fn:
    if name not in SIGNATURES:
        raise KeyError(f"{name}: not a C procedure of the standard that the MPI library "
                       "provides (mpi_std.py; rerun import_standard.py after an MPI upgrade)")
    return Fn(name, _args(SIGNATURES[name]), family, role,
              roles=tuple(sorted((roles or {}).items())), smpi=name not in NOT_IN_SMPI,
              mpich=name not in NOT_IN_MPICH,
              fortran=None if name in NO_OMPI_FORTRAN else FORTRAN.get(name),
              f08_direct=name in OMPI_F08_DIRECT, **kw)


def io(name: str, mode: str, collective: bool = False) -> Fn:
    """A blocking MPI-IO data access: count x type size requested, the status's count
    transferred (src/xferbytes.h)."""
    return fn(name, "io", IO, io_mode=mode, io_flag="COLLECTIVE" if collective else "NONE",
              bytes_rule="count(count, datatype)")


def coll(name: str, role: str, op: str, rule: str, family: str = "coll", **kw) -> Fn:
    return fn(name, family, role, coll_op=op, bytes_rule=rule, **kw)


P2P = "POINT2POINT"
A2A, A2O, O2A = "COLL_ALL2ALL", "COLL_ALL2ONE", "COLL_ONE2ALL"
IO, IO_META = "FILE_IO", "FILE_IO_METADATA"
APPROX = "Approximated"  # replayed as its recorded time
NO_REPLAY = "Unsupported"  # the predictor refuses a trace holding it, naming it
FUNC = "FUNCTION"  # Score-P's SCOREP_REGION_NONE for MPI functions that do not communicate

# Byte rules shared by a collective and its non-blocking form (parameter names of the standard).
R_BARRIER = "barrier(comm)"
R_BCAST = "bcast(count, datatype, root, comm)"
R_REDUCE = "reduce(sendbuf, count, datatype, root, comm)"
R_ALLREDUCE = "allreduce(sendbuf, count, datatype, comm)"
R_GATHER = "gather(sendbuf, sendcount, sendtype, recvcount, recvtype, root, comm)"
R_GATHERV = "gatherv(sendbuf, sendcount, sendtype, recvcounts, recvtype, root, comm)"
R_SCATTER = "scatter(sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm)"
R_SCATTERV = "scatterv(sendcounts, sendtype, recvbuf, recvcount, recvtype, root, comm)"
R_ALLGATHER = "allgather(sendbuf, sendcount, sendtype, recvcount, recvtype, comm)"
R_ALLGATHERV = "allgatherv(sendbuf, sendcount, sendtype, recvcounts, recvtype, comm)"
R_ALLTOALL = "alltoall(sendbuf, sendcount, sendtype, recvcount, recvtype, comm)"
R_ALLTOALLV = "alltoallv(sendbuf, sendcounts, sendtype, recvcounts, recvtype, comm)"
R_ALLTOALLW = "alltoallw(sendbuf, sendcounts, sendtypes, recvcounts, recvtypes, comm)"
R_RS = "reduce_scatter(sendbuf, recvcounts, datatype, comm)"
R_RSB = "reduce_scatter_block(sendbuf, recvcount, datatype, comm)"
R_SCAN = "scan(sendbuf, count, datatype, comm)"
R_EXSCAN = "exscan(count, datatype, comm)"
R_NB_A2A = "neighbor_alltoall(sendcount, sendtype, recvcount, recvtype, comm)"
R_NB_A2AV = "neighbor_alltoallv(sendcounts, sendtype, recvcounts, recvtype, comm)"
R_NB_A2AW = "neighbor_alltoallw(sendcounts, sendtypes, recvcounts, recvtypes, comm)"
R_NB_AGV = "neighbor_allgatherv(sendcount, sendtype, recvcounts, recvtype, comm)"

API: tuple[Fn, ...] = (
    # --- environment: hand-shaped families, the measurement starts and ends here
    fn("MPI_Init", "init"),
    fn("MPI_Init_thread", "init"),
    fn("MPI_Finalize", "finalize"),
    fn("MPI_Abort", "abort"),
    # --- blocking point-to-point
    fn("MPI_Send", "send", P2P, late_receiver=True),
    fn("MPI_Bsend", "send", P2P),
    fn("MPI_Ssend", "send", P2P, late_receiver=True),
    fn("MPI_Rsend", "send", P2P),
    fn("MPI_Recv", "recv", P2P),
    fn("MPI_Sendrecv", "sendrecv", P2P, late_receiver=True),
    fn("MPI_Sendrecv_replace", "sendrecv", P2P),
    fn("MPI_Probe", "plain", P2P, replay=APPROX),
    fn("MPI_Iprobe", "plain", P2P, replay=APPROX),
    # --- non-blocking point-to-point
    fn("MPI_Isend", "isend", P2P, late_receiver=True),
    fn("MPI_Ibsend", "isend", P2P),
    fn("MPI_Issend", "isend", P2P, late_receiver=True),
    fn("MPI_Irsend", "isend", P2P),
    fn("MPI_Irecv", "irecv", P2P),
    # --- persistent point-to-point: each MPI_Start(all) records a new Isend / Irecv
    fn("MPI_Send_init", "psend_init", P2P),
    fn("MPI_Bsend_init", "psend_init", P2P),
    fn("MPI_Ssend_init", "psend_init", P2P),
    fn("MPI_Rsend_init", "psend_init", P2P),
    fn("MPI_Recv_init", "precv_init", P2P),
    fn("MPI_Start", "start", P2P),
    fn("MPI_Startall", "startall", P2P),
    # --- completion
    fn("MPI_Wait", "wait"),
    fn("MPI_Test", "test"),
    fn("MPI_Waitall", "waitall"),
    fn("MPI_Testall", "testall"),
    fn("MPI_Waitany", "waitany"),
    fn("MPI_Testany", "testany"),
    fn("MPI_Waitsome", "waitsome"),
    fn("MPI_Testsome", "waitsome"),
    fn("MPI_Cancel", "cancel"),
    fn("MPI_Request_free", "request_free"),
    fn("MPI_Test_cancelled", "plain"),
    # --- blocking collectives
    coll("MPI_Barrier", "BARRIER", "BARRIER", R_BARRIER, hook=True),
    coll("MPI_Bcast", O2A, "BCAST", R_BCAST, hook=True),
    coll("MPI_Reduce", A2O, "REDUCE", R_REDUCE, hook=True),
    coll("MPI_Allreduce", A2A, "ALLREDUCE", R_ALLREDUCE, hook=True),
    coll("MPI_Gather", A2O, "GATHER", R_GATHER, hook=True),
    coll("MPI_Gatherv", A2O, "GATHERV", R_GATHERV),
    coll("MPI_Scatter", O2A, "SCATTER", R_SCATTER),
    coll("MPI_Scatterv", O2A, "SCATTERV", R_SCATTERV),
    coll("MPI_Allgather", A2A, "ALLGATHER", R_ALLGATHER, hook=True),
    coll("MPI_Allgatherv", A2A, "ALLGATHERV", R_ALLGATHERV),
    coll("MPI_Alltoall", A2A, "ALLTOALL", R_ALLTOALL, hook=True),
    coll("MPI_Alltoallv", A2A, "ALLTOALLV", R_ALLTOALLV),
    coll("MPI_Alltoallw", A2A, "ALLTOALLW", R_ALLTOALLW, replay=NO_REPLAY),
    coll("MPI_Reduce_scatter", A2A, "REDUCE_SCATTER", R_RS),
    coll("MPI_Reduce_scatter_block", A2A, "REDUCE_SCATTER_BLOCK", R_RSB),
    coll("MPI_Scan", "COLL_OTHER", "SCAN", R_SCAN),
    coll("MPI_Exscan", "COLL_OTHER", "EXSCAN", R_EXSCAN),
    # --- neighbourhood collectives: Score-P records them as the all-to-all operation they
    # generalise (OTF2 has no neighbourhood operations), bytes over the actual neighbours
    coll("MPI_Neighbor_allgather", A2A, "ALLGATHER", R_NB_A2A, replay=NO_REPLAY),
    coll("MPI_Neighbor_allgatherv", A2A, "ALLGATHERV", R_NB_AGV, replay=NO_REPLAY),
    coll("MPI_Neighbor_alltoall", A2A, "ALLTOALL", R_NB_A2A, replay=NO_REPLAY),
    coll("MPI_Neighbor_alltoallv", A2A, "ALLTOALLV", R_NB_A2AV, replay=NO_REPLAY),
    coll("MPI_Neighbor_alltoallw", A2A, "ALLTOALLW", R_NB_A2AW, replay=NO_REPLAY),
    # --- non-blocking collectives: NonBlockingCollectiveRequest at the call,
    # NonBlockingCollectiveComplete in the Wait/Test that completes the request
    coll("MPI_Ibarrier", "BARRIER", "BARRIER", R_BARRIER, "icoll"),
    coll("MPI_Ibcast", O2A, "BCAST", R_BCAST, "icoll"),
    coll("MPI_Ireduce", A2O, "REDUCE", R_REDUCE, "icoll"),
    coll("MPI_Iallreduce", A2A, "ALLREDUCE", R_ALLREDUCE, "icoll"),
    coll("MPI_Igather", A2O, "GATHER", R_GATHER, "icoll"),
    coll("MPI_Igatherv", A2O, "GATHERV", R_GATHERV, "icoll"),
    coll("MPI_Iscatter", O2A, "SCATTER", R_SCATTER, "icoll"),
    coll("MPI_Iscatterv", O2A, "SCATTERV", R_SCATTERV, "icoll"),
    coll("MPI_Iallgather", A2A, "ALLGATHER", R_ALLGATHER, "icoll"),
    coll("MPI_Iallgatherv", A2A, "ALLGATHERV", R_ALLGATHERV, "icoll"),
    coll("MPI_Ialltoall", A2A, "ALLTOALL", R_ALLTOALL, "icoll"),
    coll("MPI_Ialltoallv", A2A, "ALLTOALLV", R_ALLTOALLV, "icoll"),
    coll("MPI_Ialltoallw", A2A, "ALLTOALLW", R_ALLTOALLW, "icoll", replay=NO_REPLAY),
    coll("MPI_Ireduce_scatter", A2A, "REDUCE_SCATTER", R_RS, "icoll"),
    coll("MPI_Ireduce_scatter_block", A2A, "REDUCE_SCATTER_BLOCK", R_RSB, "icoll"),
    coll("MPI_Iscan", "COLL_OTHER", "SCAN", R_SCAN, "icoll"),
    coll("MPI_Iexscan", "COLL_OTHER", "EXSCAN", R_EXSCAN, "icoll"),
    coll("MPI_Ineighbor_allgather", A2A, "ALLGATHER", R_NB_A2A, "icoll", replay=NO_REPLAY),
    coll("MPI_Ineighbor_allgatherv", A2A, "ALLGATHERV", R_NB_AGV, "icoll", replay=NO_REPLAY),
    coll("MPI_Ineighbor_alltoall", A2A, "ALLTOALL", R_NB_A2A, "icoll", replay=NO_REPLAY),
    coll("MPI_Ineighbor_alltoallv", A2A, "ALLTOALLV", R_NB_A2AV, "icoll", replay=NO_REPLAY),
    coll("MPI_Ineighbor_alltoallw", A2A, "ALLTOALLW", R_NB_A2AW, "icoll", replay=NO_REPLAY),
    # --- communicators
    fn("MPI_Comm_dup", "comm_new"),
    fn("MPI_Comm_dup_with_info", "comm_new"),
    fn("MPI_Comm_split", "comm_new"),
    fn("MPI_Comm_split_type", "comm_new"),
    fn("MPI_Comm_create", "comm_new"),
    fn("MPI_Comm_create_group", "comm_new"),
    fn("MPI_Cart_create", "comm_new"),
    fn("MPI_Cart_sub", "comm_new"),
    fn("MPI_Graph_create", "comm_new"),
    fn("MPI_Dist_graph_create", "comm_new"),
    fn("MPI_Dist_graph_create_adjacent", "comm_new"),
    fn("MPI_Intercomm_create", "comm_new", replay=NO_REPLAY),  # the replayer builds intracommunicators only
    fn("MPI_Intercomm_merge", "comm_new", replay=NO_REPLAY),
    fn("MPI_Comm_free", "comm_free"),
    # --- queries and handles: Enter/Leave only
    fn("MPI_Comm_rank", "plain"),
    fn("MPI_Comm_size", "plain"),
    fn("MPI_Comm_group", "plain"),
    fn("MPI_Comm_compare", "plain"),
    fn("MPI_Comm_set_name", "comm_name"),
    fn("MPI_Group_incl", "plain"),
    fn("MPI_Group_excl", "plain"),
    fn("MPI_Group_free", "plain"),
    fn("MPI_Group_translate_ranks", "plain"),
    fn("MPI_Type_contiguous", "plain"),
    fn("MPI_Type_vector", "plain"),
    fn("MPI_Type_commit", "plain"),
    fn("MPI_Type_free", "plain"),
    fn("MPI_Buffer_attach", "plain"),
    fn("MPI_Buffer_detach", "plain"),
    # --- MPI-IO (Score-P's roles, SCOREP_Mpi_Reg.c; its events, SCOREP_Mpi_Io.c): handles
    # created at open, destroyed at close; blocking reads and writes as I/O operations
    # with bytes. The requests of the MPI_File_i* calls are not tracked: time and visits.
    fn("MPI_File_open", "file_open", IO_META),
    fn("MPI_File_close", "file_close", IO_META),
    fn("MPI_File_delete", "plain", IO_META),
    fn("MPI_File_seek", "plain", IO_META),
    fn("MPI_File_seek_shared", "plain", IO_META),
    fn("MPI_File_set_view", "plain", FUNC),
    fn("MPI_File_set_size", "plain", FUNC),
    fn("MPI_File_get_size", "plain", FUNC),
    fn("MPI_File_preallocate", "plain", FUNC),
    io("MPI_File_read", "READ"),
    io("MPI_File_read_all", "READ", collective=True),
    io("MPI_File_read_at", "READ"),
    io("MPI_File_read_at_all", "READ", collective=True),
    io("MPI_File_read_shared", "READ"),
    io("MPI_File_read_ordered", "READ", collective=True),
    io("MPI_File_write", "WRITE"),
    io("MPI_File_write_all", "WRITE", collective=True),
    io("MPI_File_write_at", "WRITE"),
    io("MPI_File_write_at_all", "WRITE", collective=True),
    io("MPI_File_write_shared", "WRITE"),
    io("MPI_File_write_ordered", "WRITE", collective=True),
    fn("MPI_File_iread", "plain", IO),
    fn("MPI_File_iread_at", "plain", IO),
    fn("MPI_File_iwrite", "plain", IO),
    fn("MPI_File_iwrite_at", "plain", IO),
    # --- one-sided communication (Score-P's roles and events, its wrapgen RMA tasks):
    # windows defined at creation; operations with bytes, completed by the synchronisation
    # that covers them; the other synchronisation calls: time and visits
    fn("MPI_Win_create", "win_create", FUNC, win_op="CREATE_HANDLE"),
    fn("MPI_Win_create_dynamic", "win_create", FUNC, win_op="CREATE_HANDLE"),
    fn("MPI_Win_allocate", "win_create", "ALLOCATE", win_op="CREATE_HANDLE_AND_ALLOCATE"),
    fn("MPI_Win_allocate_shared", "win_create", "ALLOCATE",
       win_op="CREATE_HANDLE_AND_ALLOCATE"),
    fn("MPI_Win_free", "win_free", FUNC),
    fn("MPI_Win_fence", "win_fence", FUNC),
    fn("MPI_Win_start", "plain", FUNC),
    fn("MPI_Win_complete", "win_sync", FUNC),
    fn("MPI_Win_post", "plain", FUNC),
    fn("MPI_Win_wait", "plain", FUNC),
    fn("MPI_Win_test", "plain", FUNC),
    fn("MPI_Win_lock", "plain", FUNC),
    fn("MPI_Win_unlock", "win_sync", FUNC),
    fn("MPI_Win_lock_all", "plain", FUNC),
    fn("MPI_Win_unlock_all", "win_sync", FUNC),
    fn("MPI_Win_flush", "win_sync", FUNC),
    fn("MPI_Win_flush_all", "win_sync", FUNC),
    fn("MPI_Win_flush_local", "plain", FUNC),
    fn("MPI_Win_flush_local_all", "plain", FUNC),
    fn("MPI_Win_sync", "plain", FUNC),
    fn("MPI_Put", "rma_put", "RMA", bytes_rule="count(origin_count, origin_datatype)"),
    fn("MPI_Get", "rma_get", "RMA", bytes_rule="count(origin_count, origin_datatype)"),
    fn("MPI_Rput", "rma_put", "RMA", bytes_rule="count(origin_count, origin_datatype)"),
    fn("MPI_Rget", "rma_get", "RMA", bytes_rule="count(origin_count, origin_datatype)"),
    fn("MPI_Accumulate", "rma_atomic", "ATOMIC", atomic="ACCUMULATE",
       bytes_rule="accumulate(origin_count, origin_datatype)"),
    fn("MPI_Raccumulate", "rma_atomic", "ATOMIC", atomic="ACCUMULATE",
       bytes_rule="accumulate(origin_count, origin_datatype)"),
    fn("MPI_Get_accumulate", "rma_atomic", "ATOMIC", atomic="FETCH_AND_ACCUMULATE",
       bytes_rule="get_accumulate(origin_count, origin_datatype, result_count, result_datatype)"),
    fn("MPI_Rget_accumulate", "rma_atomic", "ATOMIC", atomic="FETCH_AND_ACCUMULATE",
       bytes_rule="get_accumulate(origin_count, origin_datatype, result_count, result_datatype)"),
)
