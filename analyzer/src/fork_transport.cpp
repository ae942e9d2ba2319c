// The local multi-process transport (-j N on one host, no MPI): process 0 forks N-1 children
// that share a socketpair with every other process. An exchange first swaps the byte counts,
// then writes to and reads from all peers at once in one poll() loop, each buffer received
// straight into its place in the result, so large buffers never deadlock on full sockets.
//
// Failure: the first process to fail claims the report (a word in shared memory) and alone
// prints its line; its sockets close, so peers blocked in an exchange see EOF/EPIPE. A child
// that loses a peer exits quietly (kPeerLost); process 0 learns of any failing child from
// SIGCHLD (even while it reads) or from EOF, waits for a child that claimed the report to
// exit (it may not have printed its line yet), kills and reaps the other children and exits
// with the claimed code. Children die with process 0 (PR_SET_PDEATHSIG), so nothing outlives it.
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "transport.hpp"

namespace gs {
namespace {

// Exit code of a child that stopped because another process failed first (never reported:
// process 0 exits with the code of the process that failed first).
constexpr int kPeerLost = 3;
constexpr int kMaxProcesses = 1024;
constexpr int kSocketBuffer = 4 << 20;

// The claim: who reports and with which exit code, in one word so that both are set at once.
struct SharedState {
  std::atomic<int> claim;  // 0: nobody failed yet; else (claimant's rank << 8) | exit code
};
int claimed_code(int claim) { return claim & 0xff; }
int claimant(int claim) { return claim >> 8; }
static_assert(std::atomic<int>::is_always_lock_free, "the claim must work across processes");

// Process 0's children, for the SIGCHLD handler (async-signal-safe access only).
pid_t g_children[kMaxProcesses];
volatile sig_atomic_t g_reaped[kMaxProcesses];
int g_child_count = 0;
SharedState* g_shared = nullptr;

int status_code(int st) { return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0); }

// Records a reaped child; keeps in `failure` the first code that says why the run failed
// (a child that only saw another fail, kPeerLost, is a cause only if nothing better shows).
void mark_reaped(pid_t pid, int st, int* failure, bool killed_by_us = false) {
  for (int i = 0; i < g_child_count; ++i)
    if (g_children[i] == pid) g_reaped[i] = 1;
  int code = status_code(st);
  if (code == 0 || (killed_by_us && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL)) return;
  if (*failure == 0 || (*failure == kPeerLost && code != kPeerLost)) *failure = code;
}

// Process 0 only, async-signal-safe: kill and reap every child, exit with the failure's code.
// `gone` (a child index, or -1) is a child whose socket closed: it is exiting, so its own
// status is waited for first (a crash, even by SIGKILL, must not look like our kill).
[[noreturn]] void end_all(int failure, int gone = -1) {
  sigset_t block;
  sigemptyset(&block);
  sigaddset(&block, SIGCHLD);
  sigprocmask(SIG_BLOCK, &block, nullptr);
  int st;
  // Nobody may claim the report from here on (process 0 claims it, silently, if nobody has);
  // a child that claimed it prints its line and exits at once: killed, it may not have.
  int claim = 0;
  if (g_shared) g_shared->claim.compare_exchange_strong(claim, failure & 0xff ? failure & 0xff : kPeerLost);
  int reporter = claim && claimant(claim) > 0 ? claimant(claim) - 1 : -1;
  for (int child : {gone, reporter})
    if (child >= 0 && !g_reaped[child]) {
      while (waitpid(g_children[child], &st, 0) < 0 && errno == EINTR) {}
      mark_reaped(g_children[child], st, &failure);
    }
  for (int i = 0; i < g_child_count; ++i)  // those that ended on their own, before our kill
    if (!g_reaped[i] && waitpid(g_children[i], &st, WNOHANG) == g_children[i]) mark_reaped(g_children[i], st, &failure);
  for (int i = 0; i < g_child_count; ++i)
    if (!g_reaped[i]) kill(g_children[i], SIGKILL);
  for (int i = 0; i < g_child_count; ++i) {
    while (!g_reaped[i] && waitpid(g_children[i], &st, 0) < 0 && errno == EINTR) {}
    if (!g_reaped[i]) mark_reaped(g_children[i], st, &failure, true);
  }
  _exit(claim ? claimed_code(claim) : failure ? failure : kPeerLost);
}

// Ctrl-C (SIGINT to the process group) or SIGTERM to process 0: the children are ended
// and reaped before process 0 dies of the same signal, so none is left even as a zombie.
void on_stop_signal(int sig) {
  for (int i = 0; i < g_child_count; ++i)
    if (!g_reaped[i]) kill(g_children[i], SIGKILL);
  for (int i = 0; i < g_child_count; ++i)
    while (!g_reaped[i] && waitpid(g_children[i], nullptr, 0) < 0 && errno == EINTR) {}
  signal(sig, SIG_DFL);
  raise(sig);
}

// Only our own children (never waitpid(-1): a host program's other children are not ours).
void on_child_exit(int) {
  int saved = errno, failure = 0, st;
  for (int i = 0; i < g_child_count; ++i)
    if (!g_reaped[i] && waitpid(g_children[i], &st, WNOHANG) == g_children[i]) mark_reaped(g_children[i], st, &failure);
  if (failure) end_all(failure);
  errno = saved;
}

[[noreturn]] void fail(const std::string& what) { throw std::runtime_error("local transport: " + what); }

struct Span {
  char* data;
  uint64_t left;
};

class ForkTransport : public Transport {
 public:
  ForkTransport(int rank, std::vector<int> fds) : rank_(rank), fd_(std::move(fds)) {}
  int rank() const override { return rank_; }
  int size() const override { return int(fd_.size()); }

  Bytes exchange(std::vector<Bytes>& out) override {
    const int P = size();
    std::vector<uint64_t> scount(P), rcount(P, 0);
    for (int p = 0; p < P; ++p) scount[p] = out[p].size();
    std::vector<Span> send(P), recv(P);
    for (int p = 0; p < P; ++p)
      if (p != rank_) {
        send[p] = {reinterpret_cast<char*>(&scount[p]), sizeof(uint64_t)};
        recv[p] = {reinterpret_cast<char*>(&rcount[p]), sizeof(uint64_t)};
      }
    transfer(send, recv);  // also where a process waits for the others (asleep in poll)
    uint64_t peers = 0;
    for (int p = 0; p < P; ++p)
      if (p != rank_) peers += rcount[p];
    Bytes in;
    uint64_t at = 0;
    if (peers == 0) in.swap(out[rank_]);  // only our own part: handed over, not copied
    else in.resize(peers + out[rank_].size());
    for (int p = 0; p < P; ++p) {
      if (p == rank_) {
        if (peers && !out[p].empty()) std::memcpy(in.data() + at, out[p].data(), out[p].size());
        at += out[p].size();
        continue;
      }
      send[p] = {out[p].data(), scount[p]};
      recv[p] = {in.data() + at, rcount[p]};
      at += rcount[p];
    }
    transfer(send, recv);
    for (auto& b : out) Bytes().swap(b);
    return in;
  }

  void sum(uint64_t* v, int n) override {
    for (const uint64_t* x : gather(v, n))
      for (int i = 0; i < n; ++i) v[i] += x[i];
  }
  void min(int64_t* v, int n) override {
    Records<int64_t> all = unpack<int64_t>(gather_bytes(v, n * sizeof(int64_t)));
    for (size_t k = 0; k < all.size(); ++k) v[k % n] = std::min(v[k % n], all[k]);
  }

  bool claim_report(int code) override { return claim(code); }

  [[noreturn]] void abort(int code) override {
    claim(code);
    std::fflush(stdout);
    std::fflush(stderr);
    if (rank_ == 0) end_all(code);
    _exit(code);
  }

  int finish() override {
    if (rank_ != 0) return 0;
    for (int fd : fd_)
      if (fd >= 0) close(fd);
    sigset_t block;
    sigemptyset(&block);
    sigaddset(&block, SIGCHLD);
    sigprocmask(SIG_BLOCK, &block, nullptr);
    int failure = 0;
    for (int i = 0; i < g_child_count; ++i) {
      int st;
      while (!g_reaped[i] && waitpid(g_children[i], &st, 0) < 0 && errno == EINTR) {}
      if (!g_reaped[i]) mark_reaped(g_children[i], st, &failure);
    }
    for (int sig : {SIGCHLD, SIGINT, SIGTERM}) signal(sig, SIG_DFL);
    sigprocmask(SIG_UNBLOCK, &block, nullptr);
    int claim = g_shared->claim.load();
    return claim ? claimed_code(claim) : failure;
  }

 private:
  bool claim(int code) {
    int none = 0;
    return g_shared->claim.compare_exchange_strong(none, rank_ << 8 | (code & 0xff ? code & 0xff : 1));
  }

  // Process `p` ended before the exchange was complete (children are forked in rank order).
  [[noreturn]] void peer_lost(int p) {
    if (rank_ == 0) end_all(kPeerLost, p - 1);
    _exit(kPeerLost);
  }

  Bytes gather_bytes(const void* v, size_t bytes) {
    std::vector<Bytes> out(size());
    for (int p = 0; p < size(); ++p)
      if (p != rank_) out[p].assign(static_cast<const char*>(v), static_cast<const char*>(v) + bytes);
    return exchange(out);
  }
  std::vector<const uint64_t*> gather(const uint64_t* v, int n) {
    gathered_ = gather_bytes(v, n * sizeof(uint64_t));
    std::vector<const uint64_t*> parts;
    for (size_t off = 0; off < gathered_.size(); off += n * sizeof(uint64_t))
      parts.push_back(reinterpret_cast<const uint64_t*>(gathered_.data() + off));
    return parts;
  }

  // Moves every span at once: writes to and reads from all peers as their sockets allow.
  void transfer(std::vector<Span>& send, std::vector<Span>& recv) {
    std::vector<pollfd> fds;
    std::vector<int> peer;
    for (;;) {
      fds.clear();
      peer.clear();
      for (int p = 0; p < size(); ++p) {
        short ev = short((send[p].left ? POLLOUT : 0) | (recv[p].left ? POLLIN : 0));
        if (ev) {
          fds.push_back({fd_[p], ev, 0});
          peer.push_back(p);
        }
      }
      if (fds.empty()) return;
      if (poll(fds.data(), fds.size(), -1) < 0) {
        if (errno == EINTR) continue;
        fail(std::string("poll: ") + std::strerror(errno));
      }
      for (size_t i = 0; i < fds.size(); ++i) {
        const int p = peer[i];
        const short got = fds[i].revents;
        if (!got) continue;
        if (recv[p].left && (got & (POLLIN | POLLHUP | POLLERR))) move(p, recv[p], false);
        if (send[p].left && (got & (POLLOUT | POLLHUP | POLLERR))) move(p, send[p], true);
      }
    }
  }

  void move(int p, Span& s, bool write_it) {
    for (;;) {
      ssize_t n = write_it ? ::send(fd_[p], s.data, s.left, MSG_NOSIGNAL) : ::read(fd_[p], s.data, s.left);
      if (n > 0) {
        s.data += n;
        s.left -= uint64_t(n);
        if (!s.left) return;
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
      if (n == 0 || errno == EPIPE || errno == ECONNRESET) peer_lost(p);
      fail(std::string(write_it ? "send: " : "read: ") + std::strerror(errno));
    }
  }

  int rank_;
  std::vector<int> fd_;  // fd_[p]: the socket to process p (-1 for ourselves)
  Bytes gathered_;
};

}  // namespace

std::unique_ptr<Transport> make_fork_transport(int processes) {
  if (processes < 1 || processes > kMaxProcesses) fail("process count out of range");
  if (processes == 1) return make_local_transport();
  void* mem = mmap(nullptr, sizeof(SharedState), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) fail(std::string("mmap: ") + std::strerror(errno));
  g_shared = new (mem) SharedState{};
  g_child_count = 0;
  std::fill(std::begin(g_reaped), std::end(g_reaped), 0);
  // fds[a][b]: a's end of the a-b socket pair
  std::vector<std::vector<int>> fds(processes, std::vector<int>(processes, -1));
  for (int a = 0; a < processes; ++a)
    for (int b = a + 1; b < processes; ++b) {
      int sv[2];
      if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, sv) != 0)
        fail(std::string("socketpair: ") + std::strerror(errno));
      // Big socket buffers: fewer hand-overs between the processes per large exchange (the
      // kernel caps the request at net.core.wmem_max/rmem_max).
      for (int fd : sv)
        for (int opt : {SO_SNDBUF, SO_RCVBUF}) setsockopt(fd, SOL_SOCKET, opt, &kSocketBuffer, sizeof kSocketBuffer);
      fds[a][b] = sv[0];
      fds[b][a] = sv[1];
    }
  // A peer that has gone shows as EPIPE in send(MSG_NOSIGNAL); ignoring SIGPIPE also covers
  // stdout/stderr pipes a driver closed.
  signal(SIGPIPE, SIG_IGN);
  struct sigaction sa {};
  sa.sa_handler = on_child_exit;
  sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
  sigemptyset(&sa.sa_mask);
  // Children are recorded before SIGCHLD can report them.
  sigset_t block, old;
  sigemptyset(&block);
  sigaddset(&block, SIGCHLD);
  sigprocmask(SIG_BLOCK, &block, &old);
  sigaction(SIGCHLD, &sa, nullptr);
  struct sigaction stop {};
  stop.sa_handler = on_stop_signal;
  sigemptyset(&stop.sa_mask);
  sigaddset(&stop.sa_mask, SIGCHLD);
  for (int sig : {SIGINT, SIGTERM}) sigaction(sig, &stop, nullptr);
  const pid_t parent = getpid();
  std::fflush(nullptr);  // nothing buffered may be written twice
  int me = 0;
  for (int p = 1; p < processes; ++p) {
    pid_t pid = fork();
    if (pid < 0) {
      std::fprintf(stderr, "gridscope-replay: fork: %s\n", std::strerror(errno));
      end_all(70);
    }
    if (pid == 0) {
      me = p;
      for (int sig : {SIGCHLD, SIGINT, SIGTERM}) signal(sig, SIG_DFL);
      g_child_count = 0;
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (getppid() != parent) _exit(kPeerLost);  // process 0 died before the line above
      break;
    }
    g_children[g_child_count++] = pid;
  }
  sigprocmask(SIG_SETMASK, &old, nullptr);
  for (int a = 0; a < processes; ++a)
    for (int b = 0; b < processes; ++b)
      if (a != me && fds[a][b] >= 0) close(fds[a][b]);
  return std::make_unique<ForkTransport>(me, fds[me]);
}

}  // namespace gs
