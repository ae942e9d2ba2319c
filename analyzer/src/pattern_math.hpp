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

// Non-blocking collectives (docs/patterns.md): a member joins the instance when it enters
// the initiating MPI_I* call and can only wait inside the Wait*/Test* that completes it,
// so each waiting time is (the join it waits for) - (enter of the completing call), capped
// by the time spent in that call.
struct NbcMember {
  int64_t join, enter, leave;  // initiating call's enter; completing call's enter and leave
  uint64_t sent, received;
  bool is_root;
};

// The formulas below serve both kinds: a member joins the instance (join) and can only wait
// inside one call (enter .. leave). A blocking member joins when its call begins.
inline int64_t join_of(const CollMember& x) { return x.begin; }
inline int64_t enter_of(const CollMember& x) { return x.begin; }
inline int64_t leave_of(const CollMember& x) { return x.end; }
inline int64_t join_of(const NbcMember& x) { return x.join; }
inline int64_t enter_of(const NbcMember& x) { return x.enter; }
inline int64_t leave_of(const NbcMember& x) { return x.leave; }
template <class M>
int64_t capped_in_call(int64_t wait, const M& x) { return capped(wait, enter_of(x), leave_of(x)); }

// Per-member waiting times of one collective instance, by class. Index = comm rank.
// Wait at Barrier (and Wait at NxN of a non-blocking instance): every member waits for the
// latest join.
template <class M>
std::vector<int64_t> wait_at_barrier(const std::vector<M>& m) {
  int64_t latest = INT64_MIN;
  for (auto& x : m) latest = std::max(latest, join_of(x));
  std::vector<int64_t> w;
  for (auto& x : m) w.push_back(capped_in_call(latest - enter_of(x), x));
  return w;
}

// Barrier Completion and NxN Completion: own exit minus earliest exit. For a non-blocking
// instance the exits are the completing calls' leaves (a completing MPI_Test* counts as one);
// the caller also takes out the late-join wait charged in that call.
template <class M>
std::vector<int64_t> completion(const std::vector<M>& m) {
  int64_t earliest = INT64_MAX;
  for (auto& x : m) earliest = std::min(earliest, leave_of(x));
  std::vector<int64_t> w;
  for (auto& x : m) w.push_back(capped_in_call(leave_of(x) - earliest, x));
  return w;
}

// Completion as Scalasca computes it for MPI_Init (MPI Initialization Completion): own
// end - max(earliest end, min(latest begin, own end)), at least 0; unlike `completion`,
// the time before the last member began is not counted even when a member left earlier.
inline std::vector<int64_t> completion_after_latest_begin(const std::vector<CollMember>& m) {
  int64_t earliest_end = INT64_MAX, latest_begin = INT64_MIN;
  for (auto& x : m) earliest_end = std::min(earliest_end, x.end), latest_begin = std::max(latest_begin, x.begin);
  std::vector<int64_t> w;
  for (auto& x : m) w.push_back(std::max<int64_t>(0, x.end - std::max(earliest_end, std::min(latest_begin, x.end))));
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

// Late Broadcast (Bcast, Scatter(v) and their I-forms): non-root members that receive data
// wait for the root's join.
template <class M>
std::vector<int64_t> late_broadcast(const std::vector<M>& m) {
  int64_t root_join = INT64_MIN;
  for (auto& x : m)
    if (x.is_root) root_join = join_of(x);
  std::vector<int64_t> w;
  for (auto& x : m)
    w.push_back(!x.is_root && x.received > 0 && root_join != INT64_MIN ? capped_in_call(root_join - enter_of(x), x) : 0);
  return w;
}

// Early Reduce (Reduce, Gather(v) and their I-forms): at the root only, the latest join of a
// non-root member that sends data minus the root's enter.
template <class M>
std::vector<int64_t> early_reduce(const std::vector<M>& m) {
  int64_t latest_sender = INT64_MIN;
  for (auto& x : m)
    if (!x.is_root && x.sent > 0) latest_sender = std::max(latest_sender, join_of(x));
  std::vector<int64_t> w;
  for (auto& x : m)
    w.push_back(x.is_root && latest_sender != INT64_MIN ? capped_in_call(latest_sender - enter_of(x), x) : 0);
  return w;
}

// Early Scan (Scan, Exscan and their I-forms): latest join over comm ranks 0..i minus own enter.
template <class M>
std::vector<int64_t> early_scan(const std::vector<M>& m) {
  int64_t prefix = INT64_MIN;
  std::vector<int64_t> w;
  for (auto& x : m) {
    prefix = std::max(prefix, join_of(x));
    w.push_back(capped_in_call(prefix - enter_of(x), x));
  }
  return w;
}

// A blocking instance seen through what its members have in common (docs/analyzer.md): the
// formulas above for one member, given the instance's latest begin, earliest end, latest
// begin of a member that sends data (of a non-root one: `leaf`) and the last root's begin
// (by comm rank), each INT64_MIN / INT64_MAX when there is none. Early Scan needs every
// member before it: not expressible so.
struct CollSummary {
  int64_t latest = INT64_MIN, earliest_end = INT64_MAX, sender = INT64_MIN, leaf = INT64_MIN, root = INT64_MIN;
  bool overlap() const { return earliest_end > latest; }
  int64_t wait_at_barrier(const CollMember& x) const { return capped_in_call(latest - x.begin, x); }
  int64_t completion(const CollMember& x) const { return capped_in_call(x.end - earliest_end, x); }
  int64_t completion_after_latest_begin(const CollMember& x) const {
    return std::max<int64_t>(0, x.end - std::max(earliest_end, std::min(latest, x.end)));
  }
  int64_t wait_at_nxn(const CollMember& x) const {
    if (overlap()) return capped(latest - x.begin, x.begin, x.end);
    return x.received > 0 && sender != INT64_MIN ? capped(sender - x.begin, x.begin, x.end) : 0;
  }
  int64_t late_broadcast(const CollMember& x) const {
    return !x.is_root && x.received > 0 && root != INT64_MIN ? capped_in_call(root - x.begin, x) : 0;
  }
  int64_t early_reduce(const CollMember& x) const {
    return x.is_root && leaf != INT64_MIN ? capped_in_call(leaf - x.begin, x) : 0;
  }
};

// The member whose lateness caused an instance's waits (docs/root-causes.md, "Delayer"):
// its index, the first of equal ones, or -1 when the pattern names none.
template <class M>
int latest_joiner(const std::vector<M>& m) {
  int best = -1;
  for (size_t k = 0; k < m.size(); ++k)
    if (best < 0 || join_of(m[k]) > join_of(m[best])) best = int(k);
  return best;
}

// Wait at NxN: the latest member if all overlap, else the latest member that sends data.
inline int nxn_delayer(const std::vector<CollMember>& m) {
  int64_t latest = INT64_MIN, earliest_end = INT64_MAX;
  for (auto& x : m) {
    latest = std::max(latest, x.begin);
    earliest_end = std::min(earliest_end, x.end);
  }
  if (earliest_end > latest) return latest_joiner(m);
  int best = -1;
  for (size_t k = 0; k < m.size(); ++k)
    if (m[k].sent > 0 && (best < 0 || m[k].begin > m[best].begin)) best = int(k);
  return best;
}

template <class M>
int root_member(const std::vector<M>& m) {
  for (size_t k = 0; k < m.size(); ++k)
    if (m[k].is_root) return int(k);
  return -1;
}

// Early Reduce: the latest non-root member that sends data.
template <class M>
int latest_sending_leaf(const std::vector<M>& m) {
  int best = -1;
  for (size_t k = 0; k < m.size(); ++k)
    if (!m[k].is_root && m[k].sent > 0 && (best < 0 || join_of(m[k]) > join_of(m[best]))) best = int(k);
  return best;
}

}  // namespace gs
