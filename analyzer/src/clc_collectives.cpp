// Collective operations as sets of logical messages for the clock correction (clc.hpp):
// barrier and N x N all to all, 1-to-N root to the others, N-to-1 the others to the root,
// prefix lower to higher positions.
#include <algorithm>
#include <vector>

#include "clc_impl.hpp"

namespace gs::clc_detail {

// Logical messages of one collective instance, members in communicator order.
// Bound: the least corrected end of each member (kNoBound: none), with its round.
void collective_bounds(CollClass cls, const std::vector<const CollTime*>& m, NearestMax& nm, const Topology& topo,
                       std::vector<Val>& out) {
  out.assign(m.size(), Val{});
  size_t root = m.size();
  for (size_t i = 0; i < m.size(); ++i)
    if (m[i]->rank == m[i]->root) root = i;
  auto begin = [&](size_t i) { return Val{m[i]->begin, m[i]->gen + 1}; };  // a message: one round on
  nm.clear();
  switch (cls) {
    case CollClass::Barrier:
    case CollClass::NxN:  // everybody to everybody
      for (size_t i = 0; i < m.size(); ++i) nm.insert(m[i]->rank, begin(i));
      for (size_t i = 0; i < m.size(); ++i) out[i] = nm.query(m[i]->rank);
      break;
    case CollClass::Prefix:  // lower positions to higher ones
      for (size_t i = 0; i < m.size(); ++i) {
        out[i] = nm.query(m[i]->rank);
        nm.insert(m[i]->rank, begin(i));
      }
      break;
    case CollClass::OneToN:  // root to the others
      if (root == m.size()) break;
      for (size_t i = 0; i < m.size(); ++i)
        if (i != root) out[i] = plus(begin(root), topo.latency(m[root]->rank, m[i]->rank));
      break;
    case CollClass::NToOne:  // the others to the root
      if (root == m.size()) break;
      for (size_t i = 0; i < m.size(); ++i)
        if (i != root) out[root] = best(out[root], plus(begin(i), topo.latency(m[i]->rank, m[root]->rank)));
      break;
    default: break;
  }
}

// The logical transfers of one collective instance on original times: each bounded
// member's end minus the latest begin it waits for (Barrier, N-to-N: the other members';
// prefix: the lower positions'; 1-to-N: the root's; N-to-1, at the root: the others').
// Adds the positive ones to `least` and the largest violation (latest begin - end >= 0) to
// `violation`.
void collective_transfers(CollClass cls, const std::vector<int64_t>& b, const std::vector<int64_t>& e, size_t root,
                          MinTransfer& least, int64_t& violation) {
  const size_t n = b.size();
  auto see = [&](int64_t transfer) {
    least.add(transfer);
    if (transfer <= 0) violation = std::max(violation, -transfer);
  };
  switch (cls) {
    case CollClass::Barrier:
    case CollClass::NxN: {
      size_t top = 0;
      for (size_t i = 1; i < n; ++i)
        if (b[i] > b[top]) top = i;
      int64_t second = INT64_MIN;
      for (size_t i = 0; i < n; ++i)
        if (i != top) second = std::max(second, b[i]);
      for (size_t i = 0; i < n; ++i) {
        const int64_t waits_for = i == top ? second : b[top];
        if (waits_for != INT64_MIN) see(e[i] - waits_for);
      }
      break;
    }
    case CollClass::Prefix: {
      int64_t latest = INT64_MIN;
      for (size_t i = 0; i < n; ++i) {
        if (latest != INT64_MIN) see(e[i] - latest);
        latest = std::max(latest, b[i]);
      }
      break;
    }
    case CollClass::OneToN:
      if (root < n)
        for (size_t i = 0; i < n; ++i)
          if (i != root) see(e[i] - b[root]);
      break;
    case CollClass::NToOne:
      if (root < n) {
        int64_t latest = INT64_MIN;
        for (size_t i = 0; i < n; ++i)
          if (i != root) latest = std::max(latest, b[i]);
        if (latest != INT64_MIN) see(e[root] - latest);
      }
      break;
    default: break;
  }
}

// Slack: how far each source member's begin may move forward without breaking a bound
// (kNoBound: the member feeds nobody). min over its targets q of end_q - latency - begin.
void collective_slacks(CollClass cls, const std::vector<const CollTime*>& m, NearestMax& nm, const Topology& topo,
                       std::vector<int64_t>& out) {
  out.assign(m.size(), kNoBound);
  size_t root = m.size();
  for (size_t i = 0; i < m.size(); ++i)
    if (m[i]->rank == m[i]->root) root = i;
  auto slack = [](Val neg_min, int64_t begin) { return neg_min.v == kNoBound ? kNoBound : -neg_min.v - begin; };
  nm.clear();  // holds -end: max(-end_q + latency) = -min(end_q - latency)
  switch (cls) {
    case CollClass::Barrier:
    case CollClass::NxN:
      for (auto* x : m) nm.insert(x->rank, Val{-x->end, 0});
      for (size_t i = 0; i < m.size(); ++i) out[i] = slack(nm.query(m[i]->rank), m[i]->begin);
      break;
    case CollClass::Prefix:
      for (size_t i = m.size(); i-- > 0;) {
        out[i] = slack(nm.query(m[i]->rank), m[i]->begin);
        nm.insert(m[i]->rank, Val{-m[i]->end, 0});
      }
      break;
    case CollClass::OneToN: {
      if (root == m.size()) break;
      Val neg;
      for (size_t i = 0; i < m.size(); ++i)
        if (i != root) neg = best(neg, Val{-m[i]->end + topo.latency(m[root]->rank, m[i]->rank), 0});
      out[root] = slack(neg, m[root]->begin);
      break;
    }
    case CollClass::NToOne:
      if (root == m.size()) break;
      for (size_t i = 0; i < m.size(); ++i)
        if (i != root) out[i] = m[root]->end - topo.latency(m[i]->rank, m[root]->rank) - m[i]->begin;
      break;
    default: break;
  }
}

}  // namespace gs::clc_detail
