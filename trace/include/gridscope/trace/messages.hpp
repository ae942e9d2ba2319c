// Point-to-point message records, 32 bytes each. They are most of the reader's memory (two
// records a message), and every page of it is faulted in while reading: a record keeps its
// channel (sender, receiver, communicator, tag) as an id into a table shared by the
// process's sends and receives, and its four times as a 48-bit base and three 32-bit steps.
// A record whose times or byte count do not fit is kept whole in a side table (exact, only
// slower), so any trace reads back as it was written.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "gridscope/trace/pages.hpp"
#include "gridscope/trace/records.hpp"

namespace gs {

struct ChanKey {
  uint32_t src, dst, comm, tag;
  bool operator==(const ChanKey& o) const { return src == o.src && dst == o.dst && comm == o.comm && tag == o.tag; }
};

// Channel key -> dense id, and back. Open addressing with linear probing: a lookup is one
// or two cache lines, where a node-based hash map chases a pointer per probe.
class Channels {
 public:
  Channels() : slots_(64) {}  // a power of two; grows at half full
  uint32_t id(const ChanKey& k) {
    if (last_ != kNone && k == last_key_) return last_;
    size_t i = slot_of(k);
    if (slots_[i].id == kNone) {
      if (2 * (keys_.size() + 1) > slots_.size()) { grow(); i = slot_of(k); }
      slots_[i] = {k, uint32_t(keys_.size())};
      keys_.push_back(k);
    }
    last_key_ = k;
    return last_ = slots_[i].id;
  }
  uint32_t find(const ChanKey& k) const { return slots_[slot_of(k)].id; }  // kNone: not known
  const ChanKey& key(uint32_t id) const { return keys_[id]; }
  uint32_t size() const { return uint32_t(keys_.size()); }

 private:
  struct Slot { ChanKey key{}; uint32_t id = kNone; };
  static size_t hash(const ChanKey& k) {
    uint64_t h = (uint64_t(k.src) << 32 | k.dst) * 0x9E3779B97F4A7C15ull;
    h ^= (uint64_t(k.comm) << 32 | k.tag) * 0xC2B2AE3D27D4EB4Full;
    return size_t(h ^ (h >> 29));
  }
  // the slot holding k, or the empty one where it would go
  size_t slot_of(const ChanKey& k) const {
    size_t mask = slots_.size() - 1;
    size_t i = hash(k) & mask;
    while (slots_[i].id != kNone && !(slots_[i].key == k)) i = (i + 1) & mask;
    return i;
  }
  void grow() {
    std::vector<Slot> old(slots_.size() * 2);
    old.swap(slots_);
    for (const Slot& s : old)
      if (s.id != kNone) slots_[slot_of(s.key)] = s;
  }
  std::vector<Slot> slots_;
  std::vector<ChanKey> keys_;
  ChanKey last_key_{};
  uint32_t last_ = kNone;
};

// A send as the analysis reads it (SendRecords decodes it).
struct SendRec {
  uint32_t src, dst, comm, tag;
  uint32_t cp_complete;          // call path of the region completing the send
  uint8_t lr_ok, complete;
  Thread thread;
  int64_t enter, evt;            // send region enter, MpiSend/MpiIsend time
  int64_t c_enter, c_leave;      // completion region (MPI_Send itself or the wait)
  uint64_t bytes;                // as the send event says (checked against the receive's)
};

// A receive as the analysis reads it (RecvRecords decodes it).
struct RecvRec {
  uint32_t src, dst, comm, tag;
  uint32_t cp;                   // call path of the receive-completing region
  Thread thread;
  uint8_t is_test;
  // completed by the same region instance as the record before it (a Waitall completes
  // several receives; they stay neighbours in every order the records are kept in)
  uint8_t same_call;
  int64_t req_enter, enter, evt, leave;
  uint64_t bytes;
};

namespace message_detail {

// The stored form of both kinds. Times t0..t3: t0 = base, t1 = t[from[0]] + step[0], ...
struct Packed {
  uint32_t chan, cp;
  uint32_t base_lo;              // wide: the index of the record's Wide entry
  uint16_t base_hi, flags;       // flags: thread (7 bits), kWide, kFlagA, kFlagB
  uint32_t step[3];
  uint32_t bytes;
};
static_assert(sizeof(Packed) == 32, "message records are 32 bytes");
struct Wide { int64_t t[4]; uint64_t bytes; };

constexpr uint16_t kThreadBits = 0x7f, kWide = 0x80, kFlagA = 0x100, kFlagB = 0x200;
static_assert(kMaxThreads - 1 <= kThreadBits, "a thread fits its flag bits");
constexpr int64_t kBaseLimit = int64_t(1) << 48;

inline bool fits_step(int64_t step) { return step >= 0 && step <= int64_t(UINT32_MAX); }

// Stores p's times and bytes (p.flags aside); a record that was wide stays in its Wide
// entry. Returns whether p is wide.
template <int F0, int F1, int F2>
inline bool put_values(Packed& p, bool was_wide, const int64_t (&t)[4], uint64_t bytes, std::vector<Wide>& wide) {
  const int64_t step[3] = {t[1] - t[F0], t[2] - t[F1], t[3] - t[F2]};
  const bool fits = t[0] >= 0 && t[0] < kBaseLimit && bytes <= UINT32_MAX && fits_step(step[0]) &&
                    fits_step(step[1]) && fits_step(step[2]);
  if (__builtin_expect(fits && !was_wide, 1)) {
    p.base_lo = uint32_t(t[0]);
    p.base_hi = uint16_t(t[0] >> 32);
    for (int i = 0; i < 3; ++i) p.step[i] = uint32_t(step[i]);
    p.bytes = uint32_t(bytes);
    return false;
  }
  if (!was_wide) {
    p.base_lo = uint32_t(wide.size());
    wide.emplace_back();
  }
  Wide& w = wide[p.base_lo];
  for (int i = 0; i < 4; ++i) w.t[i] = t[i];
  w.bytes = bytes;
  return true;
}

template <int F0, int F1, int F2>
inline void get_values(const Packed& p, const std::vector<Wide>& wide, int64_t (&t)[4], uint64_t& bytes) {
  if (__builtin_expect(p.flags & kWide, 0)) {
    const Wide& w = wide[p.base_lo];
    for (int i = 0; i < 4; ++i) t[i] = w.t[i];
    bytes = w.bytes;
    return;
  }
  t[0] = int64_t(uint64_t(p.base_hi) << 32 | p.base_lo);
  t[1] = t[F0] + p.step[0];
  t[2] = t[F1] + p.step[1];
  t[3] = t[F2] + p.step[2];
  bytes = p.bytes;
}

// Records of one kind; Codec maps the analysis's record to channel key, times and flags.
template <class Rec, class Codec>
class MessageList {
 public:
  explicit MessageList(std::shared_ptr<Channels> channels) : channels_(std::move(channels)) {}
  size_t size() const { return packed_.size(); }
  bool empty() const { return packed_.empty(); }
  Rec operator[](size_t i) const {
    const Packed& p = packed_[i];
    Rec r;
    int64_t t[4];
    uint64_t bytes;
    get(p, t, bytes);
    Codec::unpack(p, channels_->key(p.chan), t, bytes, r);
    return r;
  }
  void push_back(const Rec& r) { push_back(r, channels_->id(Codec::key(r))); }
  // `chan`: channels().id() of r's key, known to the caller.
  void push_back(const Rec& r, uint32_t chan) {
    Packed& p = packed_.emplace_back();  // (written field by field: nothing read back)
    p.chan = chan;
    put(p, false, r);
  }
  // Everything but the channel, which stays.
  void set(size_t i, const Rec& r) { put(packed_[i], packed_[i].flags & kWide, r); }
  // The last time alone (c_leave, leave), as the reader sets it at the call's end.
  void set_last(size_t i, int64_t t3) {
    Packed& p = packed_[i];
    if (!(p.flags & kWide)) {
      int64_t t[4];
      uint64_t bytes;
      get(p, t, bytes);
      if (fits_step(t3 - t[2])) {  // (t3 follows t2 in both kinds)
        p.step[2] = uint32_t(t3 - t[2]);
        return;
      }
    }
    Rec r = (*this)[i];
    Codec::set_last(r, t3);
    set(i, r);
  }
  uint32_t channel(size_t i) const { return packed_[i].chan; }
  const Channels& channels() const { return *channels_; }
  void prefetch(size_t i) const { __builtin_prefetch(&packed_[i]); }
  void reserve(size_t n) { packed_.reserve(n); }
  // The memory the records take (wide entries included).
  size_t bytes() const { return packed_.size() * sizeof(Packed) + wide_.size() * sizeof(Wide); }
  void release() {
    PageVector<Packed>().swap(packed_);
    std::vector<Wide>().swap(wide_);
  }
  // The stored records, for prefaulting and for moving records among their positions.
  PageVector<Packed>& packed() { return packed_; }
  const PageVector<Packed>& packed() const { return packed_; }

 private:
  void put(Packed& p, bool was_wide, const Rec& r) {
    int64_t t[4];
    uint64_t bytes;
    uint16_t flags = Codec::pack(r, p, t, bytes);
    if (put(p, was_wide, t, bytes)) flags |= kWide;
    p.flags = flags;
  }
  // a record's times and bytes from / into its packed form, by the codec's step origins
  void get(const Packed& p, int64_t (&t)[4], uint64_t& bytes) const {
    get_values<Codec::kFrom[0], Codec::kFrom[1], Codec::kFrom[2]>(p, wide_, t, bytes);
  }
  bool put(Packed& p, bool was_wide, const int64_t (&t)[4], uint64_t bytes) {
    return put_values<Codec::kFrom[0], Codec::kFrom[1], Codec::kFrom[2]>(p, was_wide, t, bytes, wide_);
  }
  std::shared_ptr<Channels> channels_;
  PageVector<Packed> packed_;
  std::vector<Wide> wide_;
};

// Sends: t = enter, evt, c_enter, c_leave (evt and c_enter after enter, c_leave after c_enter).
struct SendCodec {
  static ChanKey key(const SendRec& r) { return {r.src, r.dst, r.comm, r.tag}; }
  static constexpr int kFrom[3] = {0, 0, 2};  // each step's origin among t[0..2]
  // p's cp; the flags but kWide (returned), times and bytes
  static uint16_t pack(const SendRec& r, Packed& p, int64_t (&t)[4], uint64_t& bytes) {
    p.cp = r.cp_complete;
    t[0] = r.enter; t[1] = r.evt; t[2] = r.c_enter; t[3] = r.c_leave;
    bytes = r.bytes;
    return uint16_t((r.thread & kThreadBits) | (r.lr_ok ? kFlagA : 0) | (r.complete ? kFlagB : 0));
  }
  static void set_last(SendRec& r, int64_t t3) { r.c_leave = t3; }
  static void unpack(const Packed& p, const ChanKey& k, const int64_t (&t)[4], uint64_t bytes, SendRec& r) {
    r.src = k.src; r.dst = k.dst; r.comm = k.comm; r.tag = k.tag;
    r.cp_complete = p.cp;
    r.thread = Thread(p.flags & kThreadBits);
    r.lr_ok = (p.flags & kFlagA) != 0;
    r.complete = (p.flags & kFlagB) != 0;
    r.enter = t[0]; r.evt = t[1]; r.c_enter = t[2]; r.c_leave = t[3];
    r.bytes = bytes;
  }
};

// Receives: t = req_enter, enter, evt, leave (each after the one before).
struct RecvCodec {
  static ChanKey key(const RecvRec& r) { return {r.src, r.dst, r.comm, r.tag}; }
  static constexpr int kFrom[3] = {0, 1, 2};  // each step's origin among t[0..2]
  static uint16_t pack(const RecvRec& r, Packed& p, int64_t (&t)[4], uint64_t& bytes) {
    p.cp = r.cp;
    t[0] = r.req_enter; t[1] = r.enter; t[2] = r.evt; t[3] = r.leave;
    bytes = r.bytes;
    return uint16_t((r.thread & kThreadBits) | (r.is_test ? kFlagA : 0) | (r.same_call ? kFlagB : 0));
  }
  static void set_last(RecvRec& r, int64_t t3) { r.leave = t3; }
  static void unpack(const Packed& p, const ChanKey& k, const int64_t (&t)[4], uint64_t bytes, RecvRec& r) {
    r.src = k.src; r.dst = k.dst; r.comm = k.comm; r.tag = k.tag;
    r.cp = p.cp;
    r.thread = Thread(p.flags & kThreadBits);
    r.is_test = (p.flags & kFlagA) != 0;
    r.same_call = (p.flags & kFlagB) != 0;
    r.req_enter = t[0]; r.enter = t[1]; r.evt = t[2]; r.leave = t[3];
    r.bytes = bytes;
  }
};

}  // namespace message_detail

using SendRecords = message_detail::MessageList<SendRec, message_detail::SendCodec>;
using RecvRecords = message_detail::MessageList<RecvRec, message_detail::RecvCodec>;

}  // namespace gs
