// MPI region names -> OTF2 region roles and collective classes (Score-P's conventions,
// GUIDE §3; Scalasca's classify_mpi, GUIDE §1). Shared by the engine and the trace writer.
#pragma once
#include <otf2/otf2.h>
#include <cctype>
#include <cstring>
#include <string>

namespace gs {

enum class CollClass : uint8_t { None, Barrier, OneToN, NToOne, NxN, Prefix, Skipped };

inline CollClass collective_class(const std::string& name) {
  static const struct { const char* n; CollClass c; } table[] = {
      {"MPI_Barrier", CollClass::Barrier},        {"MPI_Bcast", CollClass::OneToN},
      {"MPI_Scatter", CollClass::OneToN},         {"MPI_Scatterv", CollClass::OneToN},
      {"MPI_Reduce", CollClass::NToOne},          {"MPI_Gather", CollClass::NToOne},
      {"MPI_Gatherv", CollClass::NToOne},         {"MPI_Allgather", CollClass::NxN},
      {"MPI_Allgatherv", CollClass::NxN},         {"MPI_Allreduce", CollClass::NxN},
      {"MPI_Alltoall", CollClass::NxN},           {"MPI_Reduce_scatter", CollClass::NxN},
      {"MPI_Reduce_scatter_block", CollClass::NxN}, {"MPI_Scan", CollClass::Prefix},
      {"MPI_Exscan", CollClass::Prefix},          {"MPI_Alltoallv", CollClass::Skipped},
      {"MPI_Alltoallw", CollClass::Skipped},
  };
  for (const auto& e : table)
    if (name == e.n) return e.c;
  return CollClass::None;
}

// Class of a non-blocking collective from the region that initiated it: MPI_Ixxx is
// classed as MPI_xxx (MPI_Ibarrier as MPI_Barrier, ...); the neighbourhood collectives
// (MPI_Ineighbor_*) are Skipped (no wait-state definition for them); None for any other
// name (e.g. MPI_Start of a persistent collective: then the completion's operation decides).
inline CollClass nonblocking_collective_class(const std::string& name) {
  if (name.rfind("MPI_I", 0) != 0 || name.size() < 6) return CollClass::None;
  if (name.rfind("MPI_Ineighbor_", 0) == 0) return CollClass::Skipped;
  std::string blocking = "MPI_" + name.substr(5);
  blocking[4] = char(std::toupper(static_cast<unsigned char>(blocking[4])));
  return collective_class(blocking);
}

// Collective class from the OTF2 operation (used when the region name is unknown).
inline CollClass collective_class(OTF2_CollectiveOp op) {
  switch (op) {
    case OTF2_COLLECTIVE_OP_BARRIER: return CollClass::Barrier;
    case OTF2_COLLECTIVE_OP_BCAST: case OTF2_COLLECTIVE_OP_SCATTER:
    case OTF2_COLLECTIVE_OP_SCATTERV: return CollClass::OneToN;
    case OTF2_COLLECTIVE_OP_REDUCE: case OTF2_COLLECTIVE_OP_GATHER:
    case OTF2_COLLECTIVE_OP_GATHERV: return CollClass::NToOne;
    case OTF2_COLLECTIVE_OP_ALLGATHER: case OTF2_COLLECTIVE_OP_ALLGATHERV:
    case OTF2_COLLECTIVE_OP_ALLREDUCE: case OTF2_COLLECTIVE_OP_ALLTOALL:
    case OTF2_COLLECTIVE_OP_REDUCE_SCATTER: case OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK:
      return CollClass::NxN;
    case OTF2_COLLECTIVE_OP_SCAN: case OTF2_COLLECTIVE_OP_EXSCAN: return CollClass::Prefix;
    case OTF2_COLLECTIVE_OP_ALLTOALLV: case OTF2_COLLECTIVE_OP_ALLTOALLW: return CollClass::Skipped;
    default: return CollClass::None;
  }
}

inline OTF2_CollectiveOp collective_op(const std::string& name) {
  static const struct { const char* n; OTF2_CollectiveOp op; } table[] = {
      {"MPI_Barrier", OTF2_COLLECTIVE_OP_BARRIER},     {"MPI_Bcast", OTF2_COLLECTIVE_OP_BCAST},
      {"MPI_Scatter", OTF2_COLLECTIVE_OP_SCATTER},     {"MPI_Scatterv", OTF2_COLLECTIVE_OP_SCATTERV},
      {"MPI_Reduce", OTF2_COLLECTIVE_OP_REDUCE},       {"MPI_Gather", OTF2_COLLECTIVE_OP_GATHER},
      {"MPI_Gatherv", OTF2_COLLECTIVE_OP_GATHERV},     {"MPI_Allgather", OTF2_COLLECTIVE_OP_ALLGATHER},
      {"MPI_Allgatherv", OTF2_COLLECTIVE_OP_ALLGATHERV}, {"MPI_Allreduce", OTF2_COLLECTIVE_OP_ALLREDUCE},
      {"MPI_Alltoall", OTF2_COLLECTIVE_OP_ALLTOALL},   {"MPI_Alltoallv", OTF2_COLLECTIVE_OP_ALLTOALLV},
      {"MPI_Alltoallw", OTF2_COLLECTIVE_OP_ALLTOALLW}, {"MPI_Reduce_scatter", OTF2_COLLECTIVE_OP_REDUCE_SCATTER},
      {"MPI_Reduce_scatter_block", OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK},
      {"MPI_Scan", OTF2_COLLECTIVE_OP_SCAN},           {"MPI_Exscan", OTF2_COLLECTIVE_OP_EXSCAN},
  };
  for (const auto& e : table)
    if (name == e.n) return e.op;
  return OTF2_COLLECTIVE_OP_BARRIER;
}

inline OTF2_RegionRole region_role(const std::string& name) {
  if (name.rfind("MPI_", 0) != 0) return OTF2_REGION_ROLE_FUNCTION;
  CollClass cls = collective_class(name);
  if (cls == CollClass::None && name.rfind("MPI_Ineighbor_", 0) != 0)
    cls = nonblocking_collective_class(name);  // Score-P: the role of the blocking form
  switch (cls) {
    case CollClass::Barrier: return OTF2_REGION_ROLE_BARRIER;
    case CollClass::OneToN: return OTF2_REGION_ROLE_COLL_ONE2ALL;
    case CollClass::NToOne: return OTF2_REGION_ROLE_COLL_ALL2ONE;
    case CollClass::NxN: case CollClass::Skipped: return OTF2_REGION_ROLE_COLL_ALL2ALL;
    case CollClass::Prefix: return OTF2_REGION_ROLE_COLL_OTHER;
    case CollClass::None: break;
  }
  static const char* p2p[] = {"MPI_Send", "MPI_Ssend", "MPI_Bsend", "MPI_Rsend", "MPI_Recv",
                              "MPI_Isend", "MPI_Issend", "MPI_Ibsend", "MPI_Irsend", "MPI_Irecv",
                              "MPI_Sendrecv"};
  for (const char* n : p2p)
    if (name == n) return OTF2_REGION_ROLE_POINT2POINT;
  return OTF2_REGION_ROLE_UNKNOWN;
}

// Sends for which Late Receiver applies: blocking standard/synchronous sends and their
// non-blocking forms completed by a wait (Scalasca 2.x).
inline bool late_receiver_send(const std::string& name) {
  return name == "MPI_Send" || name == "MPI_Ssend" || name == "MPI_Isend" ||
         name == "MPI_Issend" || name == "MPI_Sendrecv";
}

}  // namespace gs
