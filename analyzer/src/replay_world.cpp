// MPI_Init(_thread) and MPI_Finalize as instances of every rank (Scalasca treats them so:
// MPI Init Completion, MPI Wait at Finalize): the patterns patterns/patterns.toml declares
// for the Init and Finalize classes, measured on each owned rank's call. An instance needs
// exactly one such call on every rank; otherwise (a partial trace) it is left out.
#include <vector>

#include "gs_pattern_dispatch.hpp"
#include "replay_impl.hpp"

namespace gs::replay_detail {

void world_synchronisations(const Defs& d, const LocalData& data, Transport& t, Accumulator& acc) {
  bool declared = false;
  for (const CollPattern& p : kCollPatterns) declared |= p.cls == CollClass::Init || p.cls == CollClass::Finalize;
  if (!declared) return;
  std::vector<Bytes> out(t.size());  // every process needs every rank's calls (two per rank)
  for (Bytes& b : out)
    for (const WorldCall& w : data.world_calls) append(b, w);
  const Records<WorldCall> all = unpack<WorldCall>(t.exchange(out));
  const uint32_t N = d.ranks();
  bool grid = false;  // the world spans more than one metahost
  for (uint32_t r = 1; r < N && r < d.rank_metahost.size(); ++r) grid |= d.rank_metahost[r] != d.rank_metahost[0];
  // per kind, the waits of each pattern declared for its class, by rank
  struct Measured { const CollPattern* p; std::vector<int64_t> v; };
  std::vector<Measured> measured[2];
  for (const uint8_t kind : {kWorldInit, kWorldFinalize}) {
    const CollClass cls = kind == kWorldInit ? CollClass::Init : CollClass::Finalize;
    std::vector<const WorldCall*> of_rank(N, nullptr);
    bool complete = true;
    for (const WorldCall& w : all) {
      if (w.kind != kind) continue;
      if (w.rank >= N || of_rank[w.rank]) complete = false;  // called twice: no one instance
      else of_rank[w.rank] = &w;
    }
    for (const WorldCall* w : of_rank) complete &= w != nullptr;
    if (!complete || N < 2) continue;
    std::vector<CollMember> members;
    for (const WorldCall* w : of_rank) members.push_back({w->enter, w->leave, 0, 0, false});
    for (const CollPattern& p : kCollPatterns)
      if (p.cls == cls && p.formula != CollFormula::None) measured[kind].push_back({&p, blocking_formula(p.formula, members)});
  }
  // charged rank by rank (the owned ranks' calls in reading order), so any -j writes one order
  for (const WorldCall& w : data.world_calls)
    for (const Measured& m : measured[w.kind])
      if (w.rank < m.v.size() && m.v[w.rank] > 0)
        acc.add(m.p->metric, grid, w.cp, w.rank, 0, m.p->completion ? w.leave - m.v[w.rank] : w.enter, m.v[w.rank]);
}

}  // namespace gs::replay_detail
