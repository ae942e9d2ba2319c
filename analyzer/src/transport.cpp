#include "transport.hpp"

#include <mpi.h>

#include <cstdlib>

namespace gs {
namespace {

class LocalTransport : public Transport {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  Bytes exchange(std::vector<Bytes>& out) override {
    Bytes in;
    in.swap(out[0]);
    return in;
  }
  void sum(uint64_t*, int) override {}
  void abort(int code) override { std::exit(code); }
};

class MpiTransport : public Transport {
 public:
  MpiTransport() {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  Bytes exchange(std::vector<Bytes>& out) override {
    std::vector<int> scount(size_), rcount(size_), sdisp(size_), rdisp(size_);
    for (int p = 0; p < size_; ++p) scount[p] = int(out[p].size());
    MPI_Alltoall(scount.data(), 1, MPI_INT, rcount.data(), 1, MPI_INT, MPI_COMM_WORLD);
    Bytes sbuf, rbuf;
    int stotal = 0, rtotal = 0;
    for (int p = 0; p < size_; ++p) { sdisp[p] = stotal; stotal += scount[p]; rdisp[p] = rtotal; rtotal += rcount[p]; }
    sbuf.resize(stotal);
    for (int p = 0; p < size_; ++p) {
      if (scount[p]) std::memcpy(sbuf.data() + sdisp[p], out[p].data(), scount[p]);
      Bytes().swap(out[p]);
    }
    rbuf.resize(rtotal);
    MPI_Alltoallv(sbuf.data(), scount.data(), sdisp.data(), MPI_BYTE, rbuf.data(), rcount.data(), rdisp.data(),
                  MPI_BYTE, MPI_COMM_WORLD);
    return rbuf;
  }
  void sum(uint64_t* v, int n) override {
    MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  }
  void abort(int code) override {
    MPI_Abort(MPI_COMM_WORLD, code);
    std::exit(code);
  }

 private:
  int rank_ = 0, size_ = 1;
};

}  // namespace

bool launched_by_mpi() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "SLURM_PROCID"})
    if (std::getenv(v)) return true;
  return false;
}

std::unique_ptr<Transport> make_local_transport() { return std::make_unique<LocalTransport>(); }

std::unique_ptr<Transport> make_mpi_transport(int* argc, char*** argv) {
  MPI_Init(argc, argv);
  return std::make_unique<MpiTransport>();
}

void finalize_transport(Transport& t) {
  if (dynamic_cast<MpiTransport*>(&t)) MPI_Finalize();
}

}  // namespace gs
