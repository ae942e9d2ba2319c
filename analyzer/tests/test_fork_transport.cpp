// The local multi-process transport (fork_transport.cpp): exchanges of empty, small and
// multi-MiB buffers among 2-4 forked processes, sum/min, one failure report, and failing
// processes ending the run with their code, without a hang and with no process left behind.
//
// Each case runs in a supervisor process of its own (its own process group): the supervisor
// forks the transport's processes, so the test process's signal state is never touched, and
// a hang shows as a timeout here instead of a stuck test.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <thread>

#include "transport.hpp"

namespace {

using Body = std::function<int(gs::Transport&)>;  // 0: this process's checks passed

struct Outcome {
  int code = -1;            // the run's exit code (-1: timed out)
  double seconds = 0;       // until the run ended
  bool left_behind = true;  // a process of the run still existed afterwards
};

// Runs `body` in each of `n` processes; rank 0 exits with the transport's end code.
// "Promptly": within what a loaded machine (load 10+ on 2 cores) needs many times over,
// far below the hour a busy process sleeps in these cases.
constexpr double kPrompt = 300;

Outcome run_processes(int n, const Body& body, double timeout_s = 2 * kPrompt) {  // a hang, not load
  // Processes orphaned by a dying supervisor come to us, not to init, so that we can reap
  // them and tell a live one from one that has merely not been reaped.
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  auto t0 = std::chrono::steady_clock::now();
  pid_t sup = fork();
  if (sup == 0) {
    setpgid(0, 0);
    std::unique_ptr<gs::Transport> t = gs::make_fork_transport(n);
    int rc = body(*t);
    if (rc != 0) t->abort(rc);
    int ended = t->finish();
    _exit(ended);
  }
  setpgid(sup, sup);  // also here, so the group exists before we look at it
  Outcome o;
  int st = 0;
  for (;;) {
    if (waitpid(sup, &st, WNOHANG) == sup) {
      o.code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
      break;
    }
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() > timeout_s) {
      kill(-sup, SIGKILL);
      waitpid(sup, &st, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  // Children die with the supervisor (PDEATHSIG) or were reaped by it: give the kernel a
  // moment (reaping any orphan that ended), then the group must be empty.
  for (int i = 0; i < 200 && kill(-sup, 0) == 0; ++i) {
    while (waitpid(-sup, &st, WNOHANG) > 0) {}
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  o.left_behind = kill(-sup, 0) == 0;
  if (o.left_behind) kill(-sup, SIGKILL);
  return o;
}

char pattern(int from, int to, size_t i) { return char((from * 31 + to * 7 + i * 13 + i / 4099) & 0xff); }

// The size process `from` sends to `to` in round `round`: empty, small or several MiB.
size_t size_for(int round, int from, int to) {
  switch ((round + from + 2 * to) % 4) {
    case 0: return 0;
    case 1: return 13 + from;
    case 2: return (3u << 20) + 1000 * from + to;  // more than any socket buffer holds
    default: return round == 0 ? 0 : 4096 * (to + 1);
  }
}

int exchange_rounds(gs::Transport& t) {
  const int P = t.size(), me = t.rank();
  for (int round = 0; round < 6; ++round) {
    std::vector<gs::Bytes> out(P);
    for (int to = 0; to < P; ++to) {
      size_t n = round == 5 ? 0 : size_for(round, me, to);  // round 5: nobody sends anything
      out[to].resize(n);
      for (size_t i = 0; i < n; ++i) out[to][i] = pattern(me, to, i);
    }
    gs::Bytes in = t.exchange(out);
    for (const gs::Bytes& b : out)
      if (!b.empty()) return 10;  // the buffers are handed over
    size_t at = 0;
    for (int from = 0; from < P; ++from) {
      size_t n = round == 5 ? 0 : size_for(round, from, me);
      if (at + n > in.size()) return 11;
      for (size_t i = 0; i < n; ++i)
        if (in[at + i] != pattern(from, me, i)) return 12;
      at += n;
    }
    if (at != in.size()) return 13;
  }
  return 0;
}

TEST(ForkTransport, ExchangesEmptySmallAndLargeBuffersInProcessOrder) {
  for (int n : {2, 3, 4}) {
    Outcome o = run_processes(n, exchange_rounds);
    EXPECT_EQ(o.code, 0) << n << " processes";
    EXPECT_FALSE(o.left_behind) << n << " processes";
  }
}

TEST(ForkTransport, OneProcessIsTheLocalTransport) {
  Outcome o = run_processes(1, [](gs::Transport& t) { return t.size() == 1 && t.rank() == 0 ? exchange_rounds(t) : 20; });
  EXPECT_EQ(o.code, 0);
}

TEST(ForkTransport, SumAndMinOverAllProcesses) {
  Outcome o = run_processes(3, [](gs::Transport& t) {
    const int64_t r = t.rank();
    uint64_t s[3] = {uint64_t(r), uint64_t(10 * r + 1), uint64_t(1) << 40};
    t.sum(s, 3);  // ranks 0, 1, 2
    if (s[0] != 3 || s[1] != 33 || s[2] != 3 * (uint64_t(1) << 40)) return 30;
    int64_t m[3] = {5 - r, r, r == 1 ? INT64_MIN : 7};
    t.min(m, 3);
    if (m[0] != 3 || m[1] != 0 || m[2] != INT64_MIN) return 31;
    return 0;
  });
  EXPECT_EQ(o.code, 0);
}

TEST(ForkTransport, OnlyTheFirstFailureIsReported) {
  Outcome o = run_processes(4, [](gs::Transport& t) {
    uint64_t claimed = t.claim_report(2) ? 1 : 0;
    t.sum(&claimed, 1);
    return claimed == 1 ? 0 : 40;
  });
  EXPECT_EQ(o.code, 2);  // the claim is the run's code even though every process went on
  EXPECT_FALSE(o.left_behind);
}

// A process that fails while the others wait in an exchange ends the run with its code.
Outcome failing(int n, int who) {
  return run_processes(n, [who](gs::Transport& t) {
    if (t.rank() == who) {
      t.claim_report(5);
      t.abort(5);
    }
    std::vector<gs::Bytes> out(t.size());
    t.exchange(out);  // never completes: `who` is gone
    return 50;
  });
}

TEST(ForkTransport, AFailingChildEndsTheRunWithItsCode) {
  for (int n : {2, 3, 4}) {
    Outcome o = failing(n, n - 1);
    EXPECT_EQ(o.code, 5) << n << " processes";
    EXPECT_LT(o.seconds, kPrompt) << n << " processes";
    EXPECT_FALSE(o.left_behind) << n << " processes";
  }
}

TEST(ForkTransport, AFailingProcessZeroEndsTheChildren) {
  Outcome o = failing(3, 0);
  EXPECT_EQ(o.code, 5);
  EXPECT_FALSE(o.left_behind);
}

// Every process fails (each reads a damaged file, say): a child claims the report first and
// process 0 ends the run before the child has written its line. The child must not be
// killed before it has: the run would fail and say nothing.
TEST(ForkTransport, AChildThatClaimedTheReportWritesItBeforeTheRunEnds) {
  int line[2];
  ASSERT_EQ(pipe(line), 0);
  Outcome o = run_processes(2, [&line](gs::Transport& t) {
    if (t.rank() == 1) t.claim_report(4);
    std::vector<gs::Bytes> out(t.size());
    t.exchange(out);  // process 0 fails once the claim is made
    if (t.rank() == 0) return 6;  // run_processes aborts the run with this code
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // writing its line
    return write(line[1], "x", 1) == 1 ? 4 : 91;
  });
  close(line[1]);
  char got = 0;
  EXPECT_EQ(read(line[0], &got, 1), 1) << "the claimant was ended before it reported";
  close(line[0]);
  EXPECT_EQ(o.code, 4);  // the claimant's code
  EXPECT_FALSE(o.left_behind);
}

TEST(ForkTransport, AChildFailingWhileProcessZeroIsBusyEndsTheRunPromptly) {
  Outcome o = run_processes(3, [](gs::Transport& t) {
    if (t.rank() == 2) _exit(9);  // no report claimed, as a crash would
    if (t.rank() == 0) std::this_thread::sleep_for(std::chrono::seconds(3600));  // reading, say
    std::vector<gs::Bytes> out(t.size());
    t.exchange(out);
    return 60;
  }, 2 * kPrompt);
  EXPECT_EQ(o.code, 9);
  EXPECT_LT(o.seconds, kPrompt);
  EXPECT_FALSE(o.left_behind);
}

TEST(ForkTransport, ACrashedChildEndsTheRunWithItsSignal) {
  Outcome o = run_processes(2, [](gs::Transport& t) {
    if (t.rank() == 1) raise(SIGKILL);
    std::vector<gs::Bytes> out(t.size());
    t.exchange(out);
    return 70;
  });
  EXPECT_EQ(o.code, 128 + SIGKILL);
  EXPECT_FALSE(o.left_behind);
}

TEST(ForkTransport, ChildrenDieWithProcessZero) {
  Outcome o = run_processes(3, [](gs::Transport& t) {
    if (t.rank() == 0) raise(SIGKILL);
    std::this_thread::sleep_for(std::chrono::seconds(60));  // busy, not in an exchange
    return 80;
  });
  EXPECT_EQ(o.code, 128 + SIGKILL);
  EXPECT_FALSE(o.left_behind);
}

}  // namespace
