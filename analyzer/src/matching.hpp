// Message matching shared by the replay and the clock correction.
#pragma once
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "records.hpp"
#include "transport.hpp"

namespace gs {

// Matches messages the way MPI does: the k-th send on a channel (src, dst, comm, tag)
// goes with the k-th receive on it (non-overtaking). Records of one location are stored
// in event order, and a channel has one sender and one receiver, so per-channel queues
// in arrival order give the pairs in O(n): one hash lookup per record, no sorting.
struct ChanKey {
  uint32_t src, dst, comm, tag;
  bool operator==(const ChanKey& o) const { return src == o.src && dst == o.dst && comm == o.comm && tag == o.tag; }
};
struct ChanHash {
  size_t operator()(const ChanKey& k) const {
    uint64_t h = (uint64_t(k.src) << 32 | k.dst) * 0x9E3779B97F4A7C15ull;
    return h ^ ((uint64_t(k.comm) << 32 | k.tag) * 0xC2B2AE3D27D4EB4Full);
  }
};

class Channels {
 public:
  uint32_t id(const ChanKey& k) {
    if (last_ != kNone && k == last_key_) return last_;
    auto it = ids_.find(k);
    if (it == ids_.end()) it = ids_.emplace(k, uint32_t(ids_.size())).first;
    last_key_ = k;
    return last_ = it->second;
  }
  uint32_t find(const ChanKey& k) const {
    auto it = ids_.find(k);
    return it == ids_.end() ? kNone : it->second;
  }

 private:
  std::unordered_map<ChanKey, uint32_t, ChanHash> ids_;
  ChanKey last_key_{};
  uint32_t last_ = kNone;
};

template <class R>
ChanKey chan(const R& r) { return {r.src, r.dst, r.comm, r.tag}; }

// Index of the partner record (in `remote`) for each local record, kNone when unmatched.
template <class Local, class RemoteList>
std::vector<uint32_t> match(const std::vector<Local>& local, const RemoteList& remote,
                            uint64_t* unmatched_remote) {
  Channels ch;
  std::vector<uint32_t> chan_of(remote.size());
  std::vector<uint32_t> start;
  for (size_t i = 0; i < remote.size(); ++i) {
    uint32_t c = chan_of[i] = ch.id(chan(remote[i]));
    if (c >= start.size()) start.resize(c + 1, 0);
    start[c]++;
  }
  // counts -> offsets (CSR); queue[c] lists the channel's remote records in arrival order
  uint32_t sum = 0;
  for (auto& x : start) { uint32_t n = x; x = sum; sum += n; }
  std::vector<uint32_t> queue(remote.size()), fill(start), next(start);
  for (size_t i = 0; i < remote.size(); ++i) queue[fill[chan_of[i]]++] = i;
  std::vector<uint32_t> partner(local.size(), kNone);
  size_t matched = 0;
  uint32_t last = kNone;
  ChanKey last_key{};
  for (size_t i = 0; i < local.size(); ++i) {
    ChanKey k = chan(local[i]);
    uint32_t c = (last != kNone && k == last_key) ? last : ch.find(k);
    last = c; last_key = k;
    if (c == kNone || next[c] == fill[c]) continue;
    partner[i] = queue[next[c]++];
    ++matched;
  }
  if (unmatched_remote) *unmatched_remote += remote.size() - matched;
  return partner;
}

}  // namespace gs
