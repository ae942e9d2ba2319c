#include "gridscope/trace/events.hpp"

#include <algorithm>
#include <cstdio>

namespace gs {

const char* const kRepairNames[kRepairKinds] = {"misnested", "unclosed", "stray_leave", "truncated", "lost"};

namespace {

bool before(const RepairLog::Example& a, const RepairLog::Example& b) {
  return a.rank != b.rank ? a.rank < b.rank : a.location < b.location;
}

std::string place(const Defs& defs, uint32_t rank, uint64_t location, uint64_t t) {
  char when[48];
  std::snprintf(when, sizeof when, " at %.6f s", defs.seconds(t));
  return (rank != kNoRank ? "on rank " + std::to_string(rank) : "on location " + std::to_string(location)) + when;
}

}  // namespace

void RepairLog::add(Repair kind, const Example& where) {
  int k = int(kind);
  if (count[k]++ == 0) first[k] = where;
}

void RepairLog::merge(const RepairLog& other) {
  for (int k = 0; k < kRepairKinds; ++k) {
    if (other.count[k] && (count[k] == 0 || before(other.first[k], first[k]))) first[k] = other.first[k];
    count[k] += other.count[k];
  }
}

std::vector<std::string> repair_warnings(const RepairLog& log, const Defs& defs) {
  static const char* const what[kRepairKinds][2] = {
      {"mis-nested user region closed at the Leave of an enclosing region",
       "mis-nested user regions closed at the Leave of an enclosing region"},
      {"user region never left, closed at its location's last event",
       "user regions never left, closed at their location's last event"},
      {"Leave of a user region that was not open, dropped", "Leaves of user regions that were not open, dropped"},
      {"location whose events end inside an MPI call (cut short), its regions closed at its last event",
       "locations whose events end inside an MPI call (cut short), their regions closed at their last event"},
      {"location without event file (no events survived), analysed as empty",
       "locations without event file (no events survived), analysed as empty"},
  };
  std::vector<std::string> lines;
  for (int k = 0; k < kRepairKinds; ++k) {
    if (!log.count[k]) continue;
    const RepairLog::Example& e = log.first[k];
    if (Repair(k) == Repair::Lost) {
      lines.push_back(std::to_string(log.count[k]) + " " + what[k][log.count[k] > 1] + " (first: " +
                      (e.rank != kNoRank ? "rank " + std::to_string(e.rank) : "location " + std::to_string(e.location)) +
                      ")");
      continue;
    }
    lines.push_back(std::to_string(log.count[k]) + " " + what[k][log.count[k] > 1] + " (first: '" +
                    defs.region_name(e.region) + "' " + place(defs, e.rank, e.location, e.time) + ")");
  }
  return lines;
}

TimeSpan::TimeSpan(const Defs& d) : lo(0), hi(UINT64_MAX), defs(d) {
  if (d.trace_length == 0) return;  // unknown: no bounds
  const uint64_t margin = std::max<uint64_t>(d.trace_length, d.resolution);
  lo = d.global_offset > margin ? d.global_offset - margin : 0;
  const uint64_t end = d.global_offset + d.trace_length;  // no overflow: both come from one clock
  hi = end < UINT64_MAX - margin ? end + margin : UINT64_MAX;
}

std::string TimeSpan::problem(uint64_t t, uint64_t last, bool seen, const RegionBalance& balance) const {
  char text[160];
  if (seen && t < last) {
    std::snprintf(text, sizeof text, " (the previous event is at %.6f s)", defs.seconds(last));
    return "time runs backwards " + balance.where(t) + text + ": damaged timestamp or ClockOffset";
  }
  std::snprintf(text, sizeof text, " (the trace spans 0 to %.6f s)", defs.seconds(defs.global_offset + defs.trace_length));
  return "event time out of range " + balance.where(t) + text + ": damaged timestamp or ClockOffset";
}

std::string RegionBalance::where(uint64_t t) const { return place(defs_, rank_, location_, t); }

bool RegionBalance::report_undefined(uint32_t region) {
  error_ = "Enter of undefined region " + std::to_string(region) + " (corrupt event stream)";
  return true;
}

size_t RegionBalance::leave_repairing(uint32_t region, uint64_t t) {
  const bool mpi = region < defs_.regions.size() && defs_.regions[region].is_mpi;
  size_t depth = open_.size();
  while (depth > 0 && open_[depth - 1] != region) --depth;
  if (depth == 0) {  // not open at all
    if (!mpi) {
      log_.add(Repair::StrayLeave, {region, rank_, location_, t});
      return 0;
    }
    error_ = "Leave of MPI region '" + defs_.region_name(region) + "' " + where(t) +
             (open_.empty() ? " without an Enter" : ", which is not open (innermost open region: '" +
                                                        defs_.region_name(open_.back()) + "')") +
             " (corrupt event stream)";
    return 0;
  }
  // Open at `depth - 1`; everything inside it must be a user region to be closed here.
  for (size_t k = depth; k < open_.size(); ++k)
    if (defs_.regions[open_[k]].is_mpi) {
      error_ = "Leave of region '" + defs_.region_name(region) + "' " + where(t) + " while MPI region '" +
               defs_.region_name(open_[k]) + "' inside it is still open (mis-nested MPI region)";
      return 0;
    }
  for (size_t k = open_.size(); k-- > depth;) log_.add(Repair::Misnested, {open_[k], rank_, location_, t});
  return open_.size() - depth + 1;
}

size_t RegionBalance::finish(uint64_t last) {
  // A stream that ends inside an MPI call was cut short (its process was killed outright):
  // counted once, by its innermost MPI region; everything open is closed at its last event.
  for (size_t k = open_.size(); k-- > 0;)
    if (defs_.regions[open_[k]].is_mpi) {
      log_.add(Repair::Truncated, {open_[k], rank_, location_, last});
      break;
    }
  for (size_t k = open_.size(); k-- > 0;)
    if (!defs_.regions[open_[k]].is_mpi) log_.add(Repair::Unclosed, {open_[k], rank_, location_, last});
  return open_.size();
}

}  // namespace gs
