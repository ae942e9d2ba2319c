#include "clc.hpp"

#include <algorithm>
#include <map>

#include "matching.hpp"

namespace gs {
namespace {

struct SendTime { uint32_t src, dst, comm, tag; int64_t evt; };

}  // namespace

int64_t Shift::at(int64_t t) const {
  auto it = std::upper_bound(jumps.begin(), jumps.end(), t,
                             [](int64_t v, const std::pair<int64_t, int64_t>& j) { return v < j.first; });
  return it == jumps.begin() ? 0 : std::prev(it)->second;
}

ClcStats correct_clocks(const Defs& d, LocalData& data, Transport& t, const ClcOptions& o) {
  ClcStats stats;
  const int P = t.size();
  const uint32_t N = d.ranks();
  std::map<std::string, uint32_t> node_ids;
  std::vector<uint32_t> node(N);
  for (uint32_t r = 0; r < N; ++r) node[r] = node_ids.emplace(d.rank_node[r], node_ids.size()).first->second;
  auto latency = [&](uint32_t a, uint32_t b) {
    double s = d.rank_metahost[a] != d.rank_metahost[b] ? o.latency_grid_s
               : node[a] != node[b]                     ? o.latency_host_s
                                                        : o.latency_node_s;
    return int64_t(s * d.resolution + 0.5);
  };
  auto owner = [&](uint32_t r) { return uint32_t(uint64_t(r) * P / N); };

  std::vector<Shift> shift(N);
  std::vector<uint32_t> partner;
  bool first = true;
  for (int round = 0; round < o.max_rounds; ++round) {
    std::vector<Bytes> out(P);
    for (auto& s : data.sends)
      append(out[owner(s.dst)], SendTime{s.src, s.dst, s.comm, s.tag, s.evt + shift[s.src].at(s.evt)});
    Records<SendTime> sends = unpack<SendTime>(t.exchange(out));
    if (first) { partner = match(data.recvs, sends, nullptr); first = false; }
    uint64_t changed = 0, corrected = 0;
    int64_t max_shift = 0;
    std::vector<Shift> next(N);
    for (size_t i = 0; i < data.recvs.size(); ++i) {
      const RecvRec& r = data.recvs[i];
      if (partner[i] == kNone) continue;
      Shift& sh = next[r.dst];
      int64_t cur = sh.jumps.empty() ? 0 : sh.jumps.back().second;
      int64_t need = sends[partner[i]].evt + latency(r.src, r.dst);
      if (r.evt + cur < need) {
        sh.jumps.push_back({r.evt, need - r.evt});
        ++corrected;
        max_shift = std::max(max_shift, need - r.evt);
      }
    }
    for (uint32_t r = 0; r < N; ++r)
      if (owner(r) == uint32_t(t.rank()) && next[r].jumps != shift[r].jumps) ++changed;
    shift.swap(next);
    uint64_t totals[2] = {changed, corrected};
    t.sum(totals, 2);
    stats.rounds = round + 1;
    stats.corrected_receives = totals[1];
    stats.max_shift_ticks = std::max(stats.max_shift_ticks, max_shift);
    if (totals[0] == 0) break;
    if (round + 1 == o.max_rounds) stats.converged = false;
  }
  // Shifts of other owners' ranks are not needed: every record belongs to an owned rank.
  for (auto& s : data.sends) {
    const Shift& f = shift[s.src];
    s.enter += f.at(s.enter); s.evt += f.at(s.evt); s.c_enter += f.at(s.c_enter); s.c_leave += f.at(s.c_leave);
  }
  for (auto& r : data.recvs) {
    const Shift& f = shift[r.dst];
    r.enter += f.at(r.enter); r.leave += f.at(r.leave); r.req_enter += f.at(r.req_enter); r.evt += f.at(r.evt);
  }
  for (auto& c : data.colls) {
    const Shift& f = shift[c.rank];
    c.begin += f.at(c.begin); c.end += f.at(c.end);
  }
  return stats;
}

}  // namespace gs
