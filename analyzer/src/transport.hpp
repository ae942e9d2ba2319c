// How analysis processes exchange data: a single in-process transport (-j 1, no MPI
// initialisation at all), forked local processes over socket pairs (-j N on one host,
// fork_transport.cpp) or MPI (a launcher such as mpirun or srun, across nodes).
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

namespace gs {

// Default-initialising allocator: a receive buffer is written whole by the transfer, so
// value-initialising it first (a memset of every fresh page) is wasted work.
template <class T>
struct NoInitAllocator : std::allocator<T> {
  template <class U>
  struct rebind { using other = NoInitAllocator<U>; };
  NoInitAllocator() = default;
  template <class U>
  NoInitAllocator(const NoInitAllocator<U>&) {}
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    if constexpr (sizeof...(Args) == 0) ::new (static_cast<void*>(p)) U;
    else ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};
using Bytes = std::vector<char, NoInitAllocator<char>>;

class Transport {
 public:
  virtual ~Transport() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // All-to-all exchange: out[p] goes to process p (and is emptied); returns what every
  // process sent here, concatenated in process order.
  virtual Bytes exchange(std::vector<Bytes>& out) = 0;
  virtual void sum(uint64_t* values, int n) = 0;
  virtual void min(int64_t* values, int n) = 0;  // element-wise minimum over all processes, in place
  // Whether this process reports its failure (prints its line): with the local processes
  // only the first to fail does, so a bad input is one line whatever N.
  virtual bool claim_report(int code) { return true; }
  // Ends the whole run with `code` (never leaves other processes waiting).
  [[noreturn]] virtual void abort(int code) = 0;
  // After a successful run: process 0 of the local processes reaps the others (their exit
  // code if one failed); 0 elsewhere.
  virtual int finish() { return 0; }
};

std::unique_ptr<Transport> make_local_transport();
// `processes` local processes: the caller forks here, before reading anything, and each
// process continues with its own transport (rank 0 is the original process).
std::unique_ptr<Transport> make_fork_transport(int processes);
// MPI transport; returns null when the binary was not launched by an MPI launcher.
std::unique_ptr<Transport> make_mpi_transport(int* argc, char*** argv);
bool launched_by_mpi();
int finalize_transport(Transport& t);  // exit code

// Typed helpers: records are plain structs copied byte-wise. (Grown and copied in place:
// vector::insert of a byte range, called per record, was 2 % of a collective-heavy root-cause
// analysis at -j 2.)
template <class T>
inline void append(Bytes& b, const T& rec) {
  static_assert(std::is_trivially_copyable_v<T>, "records are copied byte-wise");
  const size_t n = b.size();
  if (b.capacity() - n < sizeof(T)) b.reserve(std::max(2 * b.capacity(), n + sizeof(T)));
  b.resize(n + sizeof(T));  // (NoInitAllocator: nothing written before the copy)
  std::memcpy(b.data() + n, &rec, sizeof(T));
}
// Received records viewed in place (no copy): the buffer comes from operator new, which
// aligns for any of our plain record types.
template <class T>
class Records {
 public:
  explicit Records(Bytes b) : buf_(std::move(b)) {}
  size_t size() const { return buf_.size() / sizeof(T); }
  T* begin() { return reinterpret_cast<T*>(buf_.data()); }
  T* end() { return begin() + size(); }
  const T* begin() const { return reinterpret_cast<const T*>(buf_.data()); }
  const T* end() const { return begin() + size(); }
  T& operator[](size_t i) { return begin()[i]; }
  const T& operator[](size_t i) const { return begin()[i]; }

 private:
  Bytes buf_;
};
template <class T>
Records<T> unpack(Bytes b) { return Records<T>(std::move(b)); }

}  // namespace gs
