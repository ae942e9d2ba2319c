// Private to the trace reader (reader.cpp: a location's events into records;
// reader_threads.cpp: a rank's threads merged into its records): request tables, page
// prefaulting, program regions, and where a rank's locations begin.
#pragma once
#include <sys/mman.h>

#include <algorithm>
#include <string>
#include <unordered_map>
#include <vector>

#include "gridscope/trace/reader.hpp"

namespace gs::reader_detail {

// Outstanding requests of one location: usually a handful, so a flat list searched from
// the newest end beats a hash map; a map takes over when many are pending.
template <class V>
class RequestTable {
 public:
  void put(uint64_t req, V v) {
    if (!map_.empty() || flat_.size() >= kFlat) { map_[req] = v; return; }
    flat_.emplace_back(req, v);
  }
  bool take(uint64_t req, V* v) {
    for (size_t i = flat_.size(); i-- > 0;)
      if (flat_[i].first == req) {
        *v = flat_[i].second;
        flat_[i] = flat_.back();
        flat_.pop_back();
        return true;
      }
    auto it = map_.find(req);
    if (it == map_.end()) return false;
    *v = it->second;
    map_.erase(it);
    return true;
  }

 private:
  static constexpr size_t kFlat = 32;
  std::vector<std::pair<uint64_t, V>> flat_;
  std::unordered_map<uint64_t, V> map_;
};

struct Prefaults { Prefault sends, recvs, colls, calls, seg; };

// The program's root region (events.hpp): the region Score-P defines for the program, found
// as Scalasca's PEARL finds it (role ARTIFICIAL, paradigm MEASUREMENT_SYSTEM, display name
// the executable's basename, canonical name the path and arguments joined by spaces); a
// trace that lacks it gets one of that kind appended to its definitions. Without a
// ProgramBegin the program is unnamed: "PROGRAM", Score-P's own name for an executable it
// cannot determine.
class ProgramRegions {
 public:
  explicit ProgramRegions(Defs& d) : d_(d) {}
  uint32_t of(OTF2_StringRef name, uint32_t nargs, const OTF2_StringRef* args) {
    std::string full = string(name), canonical = full;
    for (uint32_t i = 0; i < nargs; ++i) canonical += " " + string(args[i]);
    size_t slash = full.find_last_of('/');
    return find_or_add(slash == std::string::npos ? full : full.substr(slash + 1), canonical);
  }
  uint32_t fallback() { return find_or_add(kUnnamed, kUnnamed); }

 private:
  static constexpr const char* kUnnamed = "PROGRAM";
  std::string string(OTF2_StringRef ref) const {
    auto it = d_.strings.find(ref);
    return it == d_.strings.end() ? std::string() : it->second;
  }
  uint32_t find_or_add(const std::string& display, const std::string& canonical) {
    auto key = display + '\n' + canonical;
    auto hit = cache_.find(key);
    if (hit != cache_.end()) return hit->second;
    uint32_t id = 0;
    while (id < d_.regions.size() &&
           !(d_.regions[id].defined && d_.regions[id].role == OTF2_REGION_ROLE_ARTIFICIAL &&
             d_.regions[id].paradigm == OTF2_PARADIGM_MEASUREMENT_SYSTEM && d_.regions[id].name == display &&
             d_.regions[id].canonical == canonical))
      ++id;
    if (id == d_.regions.size()) {  // not defined: ours, after the trace's own regions
      RegionDef r;
      r.name = display;
      r.canonical = canonical;
      r.role = OTF2_REGION_ROLE_ARTIFICIAL;
      r.paradigm = OTF2_PARADIGM_MEASUREMENT_SYSTEM;
      r.defined = true;
      d_.regions.push_back(r);
    }
    return cache_[key] = id;
  }
  Defs& d_;
  std::unordered_map<std::string, uint32_t> cache_;
};

enum : uint8_t { PEND_SEND = 0, PEND_RECV = 1, PEND_NBC = 2 };
constexpr uint32_t kInstanceMask = 0xffffff;  // region instances as records keep them (they wrap)

// Where each of one rank's locations begins in the record vectors (the rank's master
// location first, its threads after it), and each receive's place in the posting order of
// its own location.
struct RankParts {
  std::vector<size_t> sends, recvs, colls, nbcs;
  std::vector<uint32_t> recv_post;
  void start(const LocalData& out) {
    sends.assign(1, out.sends.size()); recvs.assign(1, out.recvs.size());
    colls.assign(1, out.colls.size()); nbcs.assign(1, out.nbcs.size());
    recv_post.clear();
  }
  bool threads() const { return sends.size() > 1; }
  void next(const LocalData& out) {
    sends.push_back(out.sends.size()); recvs.push_back(out.recvs.size());
    colls.push_back(out.colls.size()); nbcs.push_back(out.nbcs.size());
  }
  // the posting index of receives [first, first + n) of a location whose posting order is
  // `order` (positions from `first`; empty: the stored order)
  void add_posting(const Order& order, size_t first, size_t n) {
    size_t base = recv_post.size();
    recv_post.resize(base + n);
    for (size_t p = 0; p < n; ++p) recv_post[base + (order.size() > first ? order[first + p] - first : p)] = uint32_t(p);
  }
};

// Sorts a rank's records, read location by location, into one order per rank as MPI
// matches them (reader_threads.cpp).
void merge_rank(LocalData& out, RankParts& parts);
// Appends a thread's records (read into `part`, with its own call tree) to `out`.
void graft(LocalData& part, LocalData& out, RankParts& parts);

}  // namespace gs::reader_detail
