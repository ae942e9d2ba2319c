#include "transport.hpp"

#include <mpi.h>

#include <algorithm>
#include <cstdlib>
#include <ctime>

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
  void min(int64_t*, int) override {}
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
  // Each out[p] goes straight from its own buffer into the receiver's (no staging copy
  // into one send buffer); the own part is copied once.
  Bytes exchange(std::vector<Bytes>& out) override {
    wait_for_all();
    std::vector<uint64_t> scount(size_), rcount(size_);
    for (int p = 0; p < size_; ++p) scount[p] = out[p].size();
    MPI_Alltoall(scount.data(), 1, MPI_UINT64_T, rcount.data(), 1, MPI_UINT64_T, MPI_COMM_WORLD);
    std::vector<uint64_t> rdisp(size_ + 1, 0);
    for (int p = 0; p < size_; ++p) rdisp[p + 1] = rdisp[p] + rcount[p];
    Bytes rbuf(rdisp[size_]);
    std::vector<MPI_Request> reqs;
    reqs.reserve(4 * size_);
    for (int p = 0; p < size_; ++p) {
      if (p == rank_) continue;
      post_recv(rbuf.data() + rdisp[p], rcount[p], p, reqs);
      post_send(out[p].data(), scount[p], p, reqs);
    }
    if (!out[rank_].empty()) std::memcpy(rbuf.data() + rdisp[rank_], out[rank_].data(), out[rank_].size());
    MPI_Waitall(int(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE);
    for (auto& b : out) Bytes().swap(b);
    return rbuf;
  }
  void sum(uint64_t* v, int n) override {
    wait_for_all();
    MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  }
  void min(int64_t* v, int n) override {
    wait_for_all();
    MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD);
  }
  void abort(int code) override {
    MPI_Abort(MPI_COMM_WORLD, code);
    std::exit(code);
  }

 private:
  // Processes rarely reach an exchange together (their ranks' events differ). MPI's own
  // waits spin, taking a core from the process still reading; sleep-poll a non-blocking
  // barrier instead (0.1 ms steps, a handful of exchanges per run).
  void wait_for_all() {
    MPI_Request req;
    MPI_Ibarrier(MPI_COMM_WORLD, &req);
    int done = 0;
    MPI_Test(&req, &done, MPI_STATUS_IGNORE);
    while (!done) {
      const timespec pause{0, 100000};
      nanosleep(&pause, nullptr);
      MPI_Test(&req, &done, MPI_STATUS_IGNORE);
    }
  }
  // MPI counts are int: big buffers go in pieces of at most 1 GiB (same order both ends).
  static constexpr uint64_t kPiece = uint64_t(1) << 30;
  void post_recv(char* buf, uint64_t n, int peer, std::vector<MPI_Request>& reqs) {
    for (uint64_t off = 0; off < n; off += kPiece) {
      reqs.emplace_back();
      MPI_Irecv(buf + off, int(std::min(kPiece, n - off)), MPI_BYTE, peer, 0, MPI_COMM_WORLD, &reqs.back());
    }
  }
  void post_send(const char* buf, uint64_t n, int peer, std::vector<MPI_Request>& reqs) {
    for (uint64_t off = 0; off < n; off += kPiece) {
      reqs.emplace_back();
      MPI_Isend(buf + off, int(std::min(kPiece, n - off)), MPI_BYTE, peer, 0, MPI_COMM_WORLD, &reqs.back());
    }
  }
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

int finalize_transport(Transport& t) {
  if (dynamic_cast<MpiTransport*>(&t)) MPI_Finalize();
  return t.finish();
}

}  // namespace gs
