// Wait-state formulas (Scalasca 2.x semantics, GUIDE §1) as pure functions on tick counts,
// so each can be unit-tested without a trace. Every result is >= 0 and capped by the time
// actually spent in the operation.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

namespace gs {

inline int64_t capped(int64_t wait, int64_t enter, int64_t leave) {
  if (wait <= 0) return 0;
  return std::min(wait, std::max<int64_t>(0, leave - enter));
}

// Late Sender: the receive-completing region is entered before the send region.
inline int64_t late_sender(int64_t send_enter, int64_t recv_enter, int64_t recv_leave) {
  return capped(send_enter - recv_enter, recv_enter, recv_leave);
}

// Late Receiver: the send completion cannot finish before the receive is posted; only when
// the send completion actually lasted beyond the receive request.
inline int64_t late_receiver(int64_t recv_request_enter, int64_t send_enter, int64_t send_leave) {
  if (send_leave <= recv_request_enter) return 0;
  return capped(recv_request_enter - send_enter, send_enter, send_leave);
}

struct CollMember {
  int64_t begin, end;
  uint64_t sent, received;
  bool is_root;
};

// Per-member waiting times of one collective instance, by class. Index = comm rank.
inline std::vector<int64_t> wait_at_barrier(const std::vector<CollMember>& m) {
  int64_t latest = INT64_MIN;
  for (auto& x : m) latest = std::max(latest, x.begin);
  std::vector<int64_t> w;
  for (auto& x : m) w.push_back(capped(latest - x.begin, x.begin, x.end));
  return w;
}

// Barrier Completion and NxN Completion: own exit minus earliest exit.
inline std::vector<int64_t> completion(const std::vector<CollMember>& m) {
  int64_t earliest = INT64_MAX;
  for (auto& x : m) earliest = std::min(earliest, x.end);
  std::vector<int64_t> w;
  for (auto& x : m) w.push_back(capped(x.end - earliest, x.begin, x.end));
  return w;
}

// Wait at NxN: if all members overlap, everyone waits for the latest begin; otherwise only
// members that receive data wait for the latest member that sends data.
inline std::vector<int64_t> wait_at_nxn(const std::vector<CollMember>& m) {
  int64_t latest = INT64_MIN, earliest_end = INT64_MAX, latest_sender = INT64_MIN;
  for (auto& x : m) {
    latest = std::max(latest, x.begin);
    earliest_end = std::min(earliest_end, x.end);
    if (x.sent > 0) latest_sender = std::max(latest_sender, x.begin);
  }
  bool overlap = earliest_end > latest;
  std::vector<int64_t> w;
  for (auto& x : m) {
    if (overlap) w.push_back(capped(latest - x.begin, x.begin, x.end));
    else if (x.received > 0 && latest_sender != INT64_MIN) w.push_back(capped(latest_sender - x.begin, x.begin, x.end));
    else w.push_back(0);
  }
  return w;
}

// Late Broadcast: non-root members that receive data wait for the root.
inline std::vector<int64_t> late_broadcast(const std::vector<CollMember>& m) {
  int64_t root_begin = INT64_MIN;
  for (auto& x : m)
    if (x.is_root) root_begin = x.begin;
  std::vector<int64_t> w;
  for (auto& x : m)
    w.push_back(!x.is_root && x.received > 0 && root_begin != INT64_MIN ? capped(root_begin - x.begin, x.begin, x.end) : 0);
  return w;
}

// Early Reduce: at the root only, latest sender begin minus root begin.
inline std::vector<int64_t> early_reduce(const std::vector<CollMember>& m) {
  int64_t latest_sender = INT64_MIN;
  for (auto& x : m)
    if (!x.is_root && x.sent > 0) latest_sender = std::max(latest_sender, x.begin);
  std::vector<int64_t> w;
  for (auto& x : m)
    w.push_back(x.is_root && latest_sender != INT64_MIN ? capped(latest_sender - x.begin, x.begin, x.end) : 0);
  return w;
}

// Early Scan: latest begin over comm ranks 0..i minus own begin.
inline std::vector<int64_t> early_scan(const std::vector<CollMember>& m) {
  int64_t prefix = INT64_MIN;
  std::vector<int64_t> w;
  for (auto& x : m) {
    prefix = std::max(prefix, x.begin);
    w.push_back(capped(prefix - x.begin, x.begin, x.end));
  }
  return w;
}

// Non-blocking collectives (docs/patterns.md): a member joins the instance when it enters
// the initiating MPI_I* call and can only wait inside the Wait*/Test* that completes it,
// so each waiting time is (the join it waits for) - (enter of the completing call), capped
// by the time spent in that call.
struct NbcMember {
  int64_t join, enter, leave;  // initiating call's enter; completing call's enter and leave
  uint64_t sent, received;
  bool is_root;
};

// Wait at Barrier (MPI_Ibarrier) and Wait at NxN (N-to-N): every member waits for the
// latest join.
inline std::vector<int64_t> nbc_wait_for_all(const std::vector<NbcMember>& m) {
  int64_t latest = INT64_MIN;
  for (auto& x : m) latest = std::max(latest, x.join);
  std::vector<int64_t> w;
  for (auto& x : m) w.push_back(capped(latest - x.enter, x.enter, x.leave));
  return w;
}

// Late Broadcast (MPI_Ibcast, MPI_Iscatter(v)): non-root members that receive data wait for
// the root's join.
inline std::vector<int64_t> nbc_late_broadcast(const std::vector<NbcMember>& m) {
  int64_t root_join = INT64_MIN;
  for (auto& x : m)
    if (x.is_root) root_join = x.join;
  std::vector<int64_t> w;
  for (auto& x : m)
    w.push_back(!x.is_root && x.received > 0 && root_join != INT64_MIN ? capped(root_join - x.enter, x.enter, x.leave) : 0);
  return w;
}

// Early Reduce (MPI_Ireduce, MPI_Igather(v)): the root waits for the latest join of a
// non-root member that sends data.
inline std::vector<int64_t> nbc_early_reduce(const std::vector<NbcMember>& m) {
  int64_t latest_sender = INT64_MIN;
  for (auto& x : m)
    if (!x.is_root && x.sent > 0) latest_sender = std::max(latest_sender, x.join);
  std::vector<int64_t> w;
  for (auto& x : m)
    w.push_back(x.is_root && latest_sender != INT64_MIN ? capped(latest_sender - x.enter, x.enter, x.leave) : 0);
  return w;
}

// Early Scan (MPI_Iscan, MPI_Iexscan): member i waits for the latest join over members 0..i.
inline std::vector<int64_t> nbc_early_scan(const std::vector<NbcMember>& m) {
  int64_t prefix = INT64_MIN;
  std::vector<int64_t> w;
  for (auto& x : m) {
    prefix = std::max(prefix, x.join);
    w.push_back(capped(prefix - x.enter, x.enter, x.leave));
  }
  return w;
}

// Completion delay (N×N Completion of N-to-N ops, Barrier Completion of MPI_Ibarrier): a
// member's completing call returns after the first member's did: own leave - earliest
// leave over all members (a completing MPI_Test* counts as a leave), capped by the time
// spent in the call. The caller also takes out the late-join wait charged in that call.
inline std::vector<int64_t> nbc_completion(const std::vector<NbcMember>& m) {
  int64_t earliest = INT64_MAX;
  for (auto& x : m) earliest = std::min(earliest, x.leave);
  std::vector<int64_t> w;
  for (auto& x : m) w.push_back(capped(x.leave - earliest, x.enter, x.leave));
  return w;
}

}  // namespace gs
