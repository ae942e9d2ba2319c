// Message matching shared by the replay and the clock correction.
#pragma once
#include <cstdint>
#include <vector>

#include "gridscope/trace/messages.hpp"

namespace gs {

template <class R>
ChanKey chan(const R& r) { return {r.src, r.dst, r.comm, r.tag}; }

// Matches messages the way MPI does: the k-th send posted on a channel (src, dst, comm,
// tag) goes with the k-th receive posted on it (non-overtaking). A channel has one sender
// and one receiver, so per-channel queues in posting order give the pairs in O(n).
// Index of the partner record (remote) for each local record, kNone when unmatched; the
// records given by their channel ids below `channels` (kNone: a channel the other side
// lacks). `local_order` / `remote_order` give the posting order of the records when it is
// not the stored one (receives are stored in completion order, see LocalData::recv_order).
template <class LocalChannel, class RemoteChannel>
std::vector<uint32_t> match_channels(uint32_t channels, size_t locals, LocalChannel local_channel, size_t remotes,
                                     RemoteChannel remote_channel, uint64_t* unmatched_remote,
                                     const Order& local_order = {}, const Order& remote_order = {}) {
  std::vector<uint32_t> chan_of(remotes);
  std::vector<uint32_t> start(channels, 0);
  for (size_t i = 0; i < remotes; ++i) {
    const uint32_t c = chan_of[i] = remote_channel(i);
    if (c != kNone) start[c]++;
  }
  // counts -> offsets (CSR); queue[c] lists the channel's remote records in posting order
  uint32_t sum = 0;
  for (auto& x : start) { uint32_t n = x; x = sum; sum += n; }
  std::vector<uint32_t> queue(sum), fill(start), next(start);
  for (size_t n = 0; n < remotes; ++n) {
    const uint32_t i = remote_order.empty() ? uint32_t(n) : remote_order[n];
    if (chan_of[i] != kNone) queue[fill[chan_of[i]]++] = i;
  }
  std::vector<uint32_t> partner(locals, kNone);
  size_t matched = 0;
  for (size_t n = 0; n < locals; ++n) {
    const uint32_t i = local_order.empty() ? uint32_t(n) : local_order[n];
    const uint32_t c = local_channel(i);
    if (c == kNone || next[c] == fill[c]) continue;
    partner[i] = queue[next[c]++];
    ++matched;
  }
  if (unmatched_remote) *unmatched_remote += remotes - matched;
  return partner;
}

// The same for receives and the sends of the same process (one channel table: the ids compare).
inline std::vector<uint32_t> match(const RecvRecords& recvs, const SendRecords& sends, uint64_t* unmatched_sends,
                                   const Order& recv_order = {}) {
  const Channels& table = recvs.channels();
  const bool shared = &table == &sends.channels();
  return match_channels(
      table.size(), recvs.size(), [&](size_t i) { return recvs.channel(i); }, sends.size(),
      [&](size_t i) { return shared ? sends.channel(i) : table.find(sends.channels().key(sends.channel(i))); },
      unmatched_sends, recv_order);
}

// The same for any records with the channel's fields (src, dst, comm, tag).
template <class LocalList, class RemoteList>
std::vector<uint32_t> match(const LocalList& local, const RemoteList& remote, uint64_t* unmatched_remote,
                            const Order& local_order = {}, const Order& remote_order = {}) {
  Channels ch;
  std::vector<uint32_t> ids(remote.size());
  for (size_t i = 0; i < remote.size(); ++i) ids[i] = ch.id(chan(remote[i]));
  return match_channels(
      ch.size(), local.size(), [&](size_t i) { return ch.find(chan(local[i])); }, remote.size(),
      [&](size_t i) { return ids[i]; }, unmatched_remote, local_order, remote_order);
}

}  // namespace gs
