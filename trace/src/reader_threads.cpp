// A rank's threads that call MPI: their records merged into the rank's, in the order MPI
// matches them (docs/analyzer.md).
#include <algorithm>
#include <map>
#include <tuple>
#include <vector>

#include "reader_impl.hpp"

namespace gs::reader_detail {
namespace {

// Positions of v's records in [begin.front(), begin.back()), location by location in
// `begin`, merged by `key`: each location keeps its own order; on equal keys the lower
// location comes first. (A rank has a handful of locations: a linear pick per record.)
template <class V, class Key>
std::vector<uint32_t> merged_order(const V& v, const std::vector<size_t>& begin, Key key) {
  std::vector<size_t> head(begin.begin(), begin.end() - 1);
  std::vector<uint32_t> order;
  order.reserve(begin.back() - begin.front());
  for (;;) {
    int best = -1;
    for (size_t k = 0; k < head.size(); ++k)
      if (head[k] < begin[k + 1] && (best < 0 || key(v[head[k]]) < key(v[head[best]]))) best = int(k);
    if (best < 0) return order;
    order.push_back(uint32_t(head[best]++));
  }
}

template <class V>
void permute(V& v, size_t from, const std::vector<uint32_t>& order, size_t base) {
  std::vector<typename V::value_type> moved;
  moved.reserve(order.size());
  for (uint32_t i : order) moved.push_back(v[i - base]);
  std::copy(moved.begin(), moved.end(), v.begin() + (from - base));
}

// Collective instance numbers where several of the rank's locations call collectives on one
// communicator: each location numbered its own calls (counting the ones it did not keep);
// in the order the calls were made (`key`) they become the rank's, each location's numbers
// it did not keep staying in front of its next call.
template <class V, class Key>
void renumber_shared(V& v, size_t from, Key key) {
  std::unordered_map<uint32_t, std::vector<uint32_t>> by_comm;
  for (size_t i = from; i < v.size(); ++i) by_comm[v[i].comm].push_back(uint32_t(i));
  for (auto& [comm, idx] : by_comm) {
    if (std::all_of(idx.begin(), idx.end(), [&](uint32_t i) { return v[i].thread == v[idx[0]].thread; })) continue;
    std::sort(idx.begin(), idx.end(), [&](uint32_t a, uint32_t b) {
      return std::make_tuple(key(v[a]), v[a].thread, v[a].seq) < std::make_tuple(key(v[b]), v[b].thread, v[b].seq);
    });
    std::unordered_map<Thread, int64_t> last;
    uint32_t next = 0;
    for (uint32_t i : idx) {
      auto it = last.try_emplace(v[i].thread, -1).first;
      const int64_t own = v[i].seq;
      next += uint32_t(own - it->second - 1);
      it->second = own;
      v[i].seq = next++;
    }
  }
}

}  // namespace

// Merges the records of the rank whose locations `parts` lists (all read into `out`).
void merge_rank(LocalData& out, RankParts& parts) {
  parts.next(out);
  auto by = [](auto field) { return [field](const auto& r) { return r.*field; }; };
  permute(out.sends.packed(), parts.sends.front(), merged_order(out.sends, parts.sends, by(&SendRec::evt)), 0);
  // receives: in completion order (a Waitall's stay together: one location, one time) ...
  const size_t first_recv = parts.recvs.front();
  std::vector<uint32_t> done = merged_order(out.recvs, parts.recvs, by(&RecvRec::leave));
  permute(out.recvs.packed(), first_recv, done, 0);
  permute(parts.recv_post, first_recv, done, first_recv);
  // ... and in posting order, by the posting call's time
  Order& order = out.recv_order;
  order.resize(std::min(order.size(), first_recv));
  for (size_t i = order.size(); i < first_recv; ++i) order.push_back(uint32_t(i));
  for (size_t i = first_recv; i < out.recvs.size(); ++i) order.push_back(uint32_t(i));
  std::sort(order.begin() + first_recv, order.end(), [&](uint32_t a, uint32_t b) {
    const RecvRec x = out.recvs[a], y = out.recvs[b];
    return std::make_tuple(x.req_enter, uint32_t(x.thread), parts.recv_post[a - first_recv]) <
           std::make_tuple(y.req_enter, uint32_t(y.thread), parts.recv_post[b - first_recv]);
  });
  const size_t first_coll = parts.colls.front();
  permute(out.colls, first_coll, merged_order(out.colls, parts.colls, by(&CollRec::begin)), 0);
  renumber_shared(out.colls, first_coll, by(&CollRec::begin));
  const size_t first_nbc = parts.nbcs.front();
  renumber_shared(out.nbcs, first_nbc, by(&NbcRec::join));
  permute(out.nbcs, first_nbc, merged_order(out.nbcs, parts.nbcs, by(&NbcRec::enter)), 0);
  // the blocking collectives before each non-blocking one's completion: those that ended
  // before its completing call
  size_t before = first_coll;
  for (size_t k = first_nbc; k < out.nbcs.size(); ++k) {
    while (before < out.colls.size() && out.colls[before].end <= out.nbcs[k].enter) ++before;
    out.nbcs[k].after_colls = uint32_t(before);
  }
}

// Appends a thread's records (read into `part`, with its own call tree) to `out`, its call
// paths mapped into out's tree.
void graft(LocalData& part, LocalData& out, RankParts& parts) {
  parts.next(out);
  std::vector<uint32_t> cp(part.tree.nodes.size());
  for (size_t i = 0; i < cp.size(); ++i) {  // (a node's parent comes before it)
    const CallTree::Node& n = part.tree.nodes[i];
    cp[i] = out.tree.child(n.parent == kNone ? kNone : cp[n.parent], n.region);
  }
  for (size_t i = 0; i < part.sends.size(); ++i) {
    SendRec r = part.sends[i];
    r.cp_complete = cp[r.cp_complete];
    out.sends.push_back(r);
  }
  for (size_t i = 0; i < part.recvs.size(); ++i) {
    RecvRec r = part.recvs[i];
    r.cp = cp[r.cp];
    out.recvs.push_back(r);
  }
  for (CollRec r : part.colls) { r.cp = cp[r.cp]; out.colls.push_back(r); }
  for (NbcRec r : part.nbcs) { r.cp = cp[r.cp]; out.nbcs.push_back(r); }
  for (CallPathStats c : part.cp_stats) { c.cp = cp[c.cp]; out.cp_stats.push_back(c); }
  parts.add_posting(part.recv_order, 0, part.recvs.size());
  out.mpi_events += part.mpi_events;
}

}  // namespace gs::reader_detail
