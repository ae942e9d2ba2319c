// MPI region names -> OTF2 region roles and collective classes (Score-P's conventions,
// GUIDE §3; Scalasca's classify_mpi, GUIDE §1). Shared by the engine and the trace writer.
#pragma once
#include <otf2/otf2.h>
#include <cstdint>
#include <string>

namespace gs {

// Init and Finalize: MPI_Init(_thread) and MPI_Finalize, which synchronise every rank (as
// in Scalasca: an instance of all ranks, without collective events).
enum class CollClass : uint8_t { None, Barrier, OneToN, NToOne, NxN, Prefix, Skipped, Init, Finalize };

// What an MPI function is, generated from the collector's declaration of every function
// it wraps (collector/wrapgen/mpi_api.py, generate_facts.py).
struct MpiFacts {
  const char* name;
  OTF2_RegionRole role;      // Score-P's region role
  CollClass cls;             // collectives: the wait-state class (GUIDE §1)
  bool nonblocking;          // MPI_I<collective>: the class of its blocking form
  OTF2_CollectiveOp op;      // blocking collectives: their operation
  bool late_receiver_send;   // Late Receiver applies to it (Scalasca 2.x)
};

inline const MpiFacts* mpi_facts(const std::string& name) {
  static const MpiFacts table[] = {
#include "gridscope/trace/mpi_facts.inc"
  };
  for (const auto& f : table)
    if (name == f.name) return &f;
  return nullptr;
}

// Class of a blocking collective from its region name (None for anything else).
inline CollClass collective_class(const std::string& name) {
  const MpiFacts* f = mpi_facts(name);
  return f && !f->nonblocking ? f->cls : CollClass::None;
}

// Class of a non-blocking collective from the region that initiated it: MPI_Ixxx is
// classed as MPI_xxx (MPI_Ibarrier as MPI_Barrier, ...); the neighbourhood collectives
// (MPI_Ineighbor_*) are Skipped (no wait-state definition for them); None for any other
// name (e.g. MPI_Start of a persistent collective: then the completion's operation decides).
inline CollClass nonblocking_collective_class(const std::string& name) {
  const MpiFacts* f = mpi_facts(name);
  return f && f->nonblocking ? f->cls : CollClass::None;
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

// Operation of a blocking collective by name (MPI_Barrier's for any other name).
inline OTF2_CollectiveOp collective_op(const std::string& name) {
  const MpiFacts* f = mpi_facts(name);
  return f ? f->op : OTF2_CollectiveOp(OTF2_COLLECTIVE_OP_BARRIER);
}

inline OTF2_RegionRole region_role(const std::string& name) {
  if (name.rfind("MPI_", 0) != 0) return OTF2_REGION_ROLE_FUNCTION;
  const MpiFacts* f = mpi_facts(name);
  return f ? f->role : OTF2_RegionRole(OTF2_REGION_ROLE_UNKNOWN);
}

// Sends for which Late Receiver applies: blocking standard/synchronous sends and their
// non-blocking forms completed by a wait (Scalasca 2.x).
inline bool late_receiver_send(const std::string& name) {
  const MpiFacts* f = mpi_facts(name);
  return f && f->late_receiver_send;
}

}  // namespace gs
