// gridscope-replay: parallel wait-state analysis of a Score-P-layout OTF2 trace.
//
//   gridscope-replay [--metahost-file F] -o DIR TRACE          (one process, no MPI)
//   gridscope-replay --processes N [...] -o DIR TRACE          (N local processes, forked)
//   mpirun -np N gridscope-replay [...] -o DIR TRACE           (N processes, MPI transport)
//   gridscope-replay --list-ranks TRACE                        (rank, node, metahost per line)
//
// Each process owns a block of ranks, reads only their local definition and event files,
// and receives partner timestamps from the other owners (replay.cpp).
#include <otf2/otf2.h>
#include <malloc.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

#include "clc.hpp"
#include "gridscope/trace/archive.hpp"
#include "gridscope/trace/defs.hpp"
#include "gridscope/trace/error.hpp"
#include "gridscope/trace/reader.hpp"
#include "replay.hpp"
#include "rootcause.hpp"
#include "transport.hpp"

namespace {

struct Options {
  std::string trace, out, metahost_file;
  bool list_ranks = false, force_mpi = false, time_correct = false;
  // Root causes (delay costs, wait classes, the critical path): on unless turned off, at any
  // size, as in Scalasca's scout.
  enum class RootCauses { On, Off } root_causes = RootCauses::On;
  int processes = 1;
  gs::Rules rules = gs::Rules::Scalasca;
  gs::ClcOptions clc;
};

[[noreturn]] void usage(int code) {
  std::fprintf(code ? stderr : stdout,
               "usage: gridscope-replay [--metahost-file FILE] [--time-correct [--latency-node S] [--latency-host S]\n"
               "                        [--latency-grid S]] [--root-causes on|off] [--no-root-causes]\n"
               "                        [--rules scalasca|gridscope]\n"
               "                        [--processes N | --mpi] -o DIR TRACE\n"
               "       gridscope-replay --list-ranks TRACE\n"
               "TRACE is traces.otf2 or the folder holding it. With --processes N, N local\n"
               "processes (forked, no MPI) and under mpirun every process analyse their share of\n"
               "the ranks; otherwise one process does all. --rules: whose rules where gridscope and\n"
               "Scalasca's scout differ on purpose (docs/root-causes.md; default scalasca).\n");
  std::exit(code);
}

// An explicit minimum latency (s): a finite number >= 0.
double latency_option(const std::string& name, const std::string& text) {
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !std::isfinite(v) || v < 0) {
    std::fprintf(stderr, "gridscope-replay: %s: not a latency in seconds (a number >= 0): %s\n", name.c_str(),
                 text.c_str());
    std::exit(2);
  }
  return v;
}

Options::RootCauses root_causes_option(const std::string& text) {
  if (text == "on" || text == "auto") return Options::RootCauses::On;  // auto: the default, on
  if (text == "off") return Options::RootCauses::Off;
  std::fprintf(stderr, "gridscope-replay: --root-causes: on or off, not %s\n", text.c_str());
  std::exit(2);
}

// A process count: a whole number from 1 to 1024.
int processes_option(const std::string& text) {
  char* end = nullptr;
  long v = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || v < 1 || v > 1024) {
    std::fprintf(stderr, "gridscope-replay: --processes: not a process count (1 to 1024): %s\n", text.c_str());
    std::exit(2);
  }
  return int(v);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage(2);
      return argv[++i];
    };
    if (a == "-h" || a == "--help") usage(0);
    else if (a == "-o") o.out = value();
    else if (a == "--metahost-file") o.metahost_file = value();
    else if (a == "--list-ranks") o.list_ranks = true;
    else if (a == "--mpi") o.force_mpi = true;
    else if (a == "--processes") o.processes = processes_option(value());
    else if (a == "--time-correct") o.time_correct = true;
    else if (a == "--no-root-causes") o.root_causes = Options::RootCauses::Off;
    else if (a == "--root-causes") o.root_causes = root_causes_option(value());
    else if (a == "--rules") {
      if (!gs::parse_rules(value(), o.rules)) {
        std::fprintf(stderr, "gridscope-replay: --rules: scalasca or gridscope, not %s\n", argv[i]);
        std::exit(2);
      }
    } else if (a == "--latency-node") o.clc.latency_node_s = latency_option(a, value());
    else if (a == "--latency-host") o.clc.latency_host_s = latency_option(a, value());
    else if (a == "--latency-grid") o.clc.latency_grid_s = latency_option(a, value());
    else if (!a.empty() && a[0] == '-') usage(2);
    else o.trace = a;
  }
  if (o.trace.empty() || (!o.list_ranks && o.out.empty()) || (o.force_mpi && o.processes > 1)) usage(2);
  // Tuning and test knob (not an option: users have no reason to set it).
  if (const char* r = std::getenv("GRIDSCOPE_CLC_SPECULATIVE_ROUNDS")) o.clc.speculative_rounds = std::atoi(r);
  return o;
}

std::vector<std::string> read_metahost_file(const std::string& path, uint32_t ranks) {
  std::ifstream in(path);
  if (!in) throw gs::Error(path, "cannot read metahost file");
  std::vector<std::string> m(ranks);
  uint32_t r;
  std::string name;
  while (in >> r >> name) {
    if (r >= ranks) throw gs::Error(path, "rank " + std::to_string(r) + " is not in the trace");
    m[r] = name;
  }
  for (uint32_t i = 0; i < ranks; ++i)
    if (m[i].empty()) throw gs::Error(path, "no metahost for rank " + std::to_string(i));
  return m;
}

std::string json_str(const std::string& s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') { o += '\\'; o += c; }
    else if (static_cast<unsigned char>(c) < 0x20) { char b[8]; std::snprintf(b, sizeof b, "\\u%04x", c); o += b; }
    else o += c;
  }
  return o + "\"";
}

std::string seconds_or_null(double s) {
  if (s < 0) return "null";
  std::ostringstream o;
  o << s;
  return o.str();
}

// The minimum latency each link key of the placement used (docs/analyzer.md "Clocks").
std::string latencies_json(const std::vector<gs::LinkLatency>& v, const gs::Defs& d) {
  static const char* const kClass[] = {"node", "host", "grid"};
  static const char* const kSource[] = {"trace", "floor", "option"};
  const double res = double(d.resolution);
  std::ostringstream j;
  j << "[";
  for (size_t i = 0; i < v.size(); ++i) {
    const gs::LinkLatency& x = v[i];
    j << (i ? ", " : "") << "{\"metahosts\": [" << json_str(d.metahosts[x.host_a]) << ", "
      << json_str(d.metahosts[x.host_b]) << "], \"class\": \"" << kClass[int(x.cls)]
      << "\", \"latency_s\": " << double(x.ticks) / res << ", \"source\": \"" << kSource[int(x.source)]
      << "\", \"observed_min_s\": "
      << (x.observed_ticks == gs::kNoObservation ? std::string("null") : seconds_or_null(double(x.observed_ticks) / res))
      << "}";
  }
  j << "]";
  return j.str();
}

// The wait states are all written and root causes follow: each process writes its rows per
// phase (waits.P.rows.json: with callpaths.P.tsv what the driver needs to convert them), and
// once all have, process 0 says so on stdout, so the driver converts them during the root-cause
// pass instead of after it. Mirrored in names.py (ENGINE_WAITS_WRITTEN, WAIT_ROWS_FILE).
void announce_wait_states(const std::string& dir, const gs::WaitWriter& waits, gs::Transport& t) {
  std::string text = "{\"wait_rows\": [";
  for (int p = 0; p < gs::kWaitPhases; ++p) text += (p ? ", " : "") + std::to_string(waits.phase_rows()[p]);
  text += "]}\n";
  gs::write_file(dir + "/waits." + std::to_string(t.rank()) + ".rows.json", text.data(), text.size());
  uint64_t all_written = 0;
  t.sum(&all_written, 1);  // (a barrier: every process's files are closed)
  if (t.rank() == 0) {
    std::fputs("gridscope-replay: wait states written\n", stdout);
    std::fflush(stdout);
  }
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

int run(const Options& o, gs::Transport& t) {
  auto t0 = std::chrono::steady_clock::now();
  std::optional<gs::Archive> archive;
  archive.emplace(o.trace);
  const std::string anchor = archive->anchor();
  gs::Defs& defs = archive->defs();
  if (!o.metahost_file.empty()) gs::assign_metahosts(defs, read_metahost_file(o.metahost_file, defs.ranks()));

  if (o.list_ranks) {
    for (uint32_t r = 0; r < defs.ranks(); ++r)
      std::printf("%u\t%s\t%s\n", r, defs.rank_node[r].c_str(), defs.rank_metahost_name[r].c_str());
    return 0;
  }
  const int P = t.size(), me = t.rank();
  std::vector<uint32_t> mine;
  for (uint32_t r = 0; r < defs.ranks(); ++r)
    if (gs::owner_of(r, defs.ranks(), P) == uint32_t(me)) mine.push_back(r);

  const bool root_causes = o.root_causes == Options::RootCauses::On;
  gs::LocalData data;
  data.timeline.enabled = root_causes;
  gs::read_locations(*archive, mine, data);
  // threads that call MPI (read with their ranks) and root causes, which follow the master
  // locations only, exclude each other: then no root causes, and meta.json says why
  uint64_t threads[2] = {data.thread_locations, data.thread_events};
  t.sum(threads, 2);
  // the run's span: earliest Enter and latest Leave over all processes (the latest as a
  // minimum of negated times)
  int64_t span[2] = {data.first_ts, data.last_ts == INT64_MIN ? INT64_MAX : -data.last_ts};
  t.min(span, 2);
  const bool rc_threads = root_causes && threads[0] > 0;
  if (rc_threads) data.timeline = gs::Timeline{};
  double read_s = seconds_since(t0);
  gs::ClcStats clc;
  if (o.time_correct) clc = gs::correct_clocks(defs, data, t, o.clc);

  // (the call paths are complete once read: written first, for the driver converting the
  // wait states of one process as they come; names.py ENGINE_WAIT_ROWS)
  gs::write_callpaths(o.out, defs, data, me);
  gs::WaitWriter waits(o.out + "/waits." + std::to_string(me));
  if (P == 1) waits.report_rows();
  gs::ReplayResult res = gs::replay(defs, data, t, waits, o.rules);
  waits.close();
  double replay_s = seconds_since(t0) - read_s;
  gs::RootCauseResult rc;
  double rc_s = 0;
  if (root_causes && !rc_threads) {
    announce_wait_states(o.out, waits, t);
    rc = gs::root_causes(defs, data, res, t, mine);
    rc_s = seconds_since(t0) - read_s - replay_s;
    for (auto& [k, v] : rc.severities) res.severities[k] += v;
    gs::write_root_cause_files(o.out, rc, me);
  }
  gs::write_engine_files(o.out, defs, data, res, me);

  gs::Counters& c = res.counters;
  uint64_t totals[10] = {c.events, c.mpi_events, c.clock_violations, c.unmatched_sends, c.unmatched_receives,
                         c.incomplete_collectives, c.clock_offset_locations, c.messages, c.collectives,
                         c.byte_mismatches};
  t.sum(totals, 10);
  // Per-process figures go to process 0 for the report.
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  struct Stat {
    double read_s, replay_s, root_causes_s;
    uint64_t rss_kb, events, ranks, wait_rows[gs::kWaitPhases];
    gs::RepairLog repairs;
  } st{read_s, replay_s, rc_s, uint64_t(ru.ru_maxrss), c.events, mine.size(), {}, data.repairs};
  for (int p = 0; p < gs::kWaitPhases; ++p) st.wait_rows[p] = waits.phase_rows()[p];
  std::vector<gs::Bytes> out(P);
  gs::append(out[0], st);
  gs::Records<Stat> stats = gs::unpack<Stat>(t.exchange(out));
  if (me == 0) {
    if (totals[1] == 0) throw gs::Error(anchor, "no MPI events in this trace (nothing to analyse)");
    gs::RepairLog repairs;
    for (const Stat& s : stats) repairs.merge(s.repairs);
    std::ostringstream j;
    j << "{\n  \"trace\": " << json_str(anchor) << ",\n  \"ranks\": " << defs.ranks() << ",\n  \"processes\": " << P
      << ",\n  \"resolution\": " << defs.resolution << ",\n  \"trace_length_s\": "
      << double(defs.trace_length) / defs.resolution << ",\n  \"time_range_ticks\": "
      << (span[0] == INT64_MAX ? std::string("null")
                               : "[" + std::to_string(span[0]) + ", " + std::to_string(-span[1]) + "]")
      << ",\n  \"events\": " << totals[0]
      << ",\n  \"mpi_events\": " << totals[1] << ",\n  \"clock_violations\": " << totals[2]
      << ",\n  \"unmatched_sends\": " << totals[3] << ",\n  \"unmatched_receives\": " << totals[4]
      << ",\n  \"incomplete_collectives\": " << totals[5] << ",\n  \"clock_offset_locations\": " << totals[6]
      << ",\n  \"messages\": " << totals[7] << ",\n  \"collectives\": " << totals[8]
      << ",\n  \"byte_mismatches\": " << totals[9]
      << ",\n  \"thread_locations\": " << threads[0] << ",\n  \"thread_location_events\": " << threads[1]
      << ",\n  \"unanalysed_locations\": " << defs.other_locations - threads[0]
      << ",\n  \"unanalysed_location_events\": " << defs.other_location_events - std::min(threads[1], defs.other_location_events)
      << ",\n  \"rules\": \"" << gs::rules_name(o.rules) << "\""
      << ",\n  \"time_correction\": {\"enabled\": " << (o.time_correct ? "true" : "false")
      << ", \"corrected_receives\": " << clc.corrected_receives
      << ", \"corrected_collectives\": " << clc.corrected_collectives
      << ", \"max_shift_s\": " << double(clc.max_shift_ticks) / defs.resolution << ", \"rounds\": " << clc.rounds
      << ", \"converged\": " << (clc.converged ? "true" : "false")
      << ", \"latency_grid_s\": " << seconds_or_null(o.clc.latency_grid_s)
      << ", \"largest_violation_s\": " << double(clc.max_violation_ticks) / defs.resolution
      << ", \"one_clock\": " << (clc.one_clock ? "true" : "false") << ", \"collective_min_transfer_s\": "
      << (clc.collective_min_ticks == gs::kNoObservation ? std::string("null")
                                                         : std::to_string(double(clc.collective_min_ticks) / defs.resolution));
    if (o.time_correct) j << ", \"latencies\": " << latencies_json(clc.latencies, defs);
    j << "}"
      << ",\n  \"root_causes\": {\"enabled\": " << (root_causes && !rc_threads ? "true" : "false")
      << ", \"skipped_for_threads\": " << (rc_threads ? "true" : "false") << ", \"mode\": \""
      << (o.root_causes == Options::RootCauses::On ? "on" : "off") << "\""
      << ", \"wait_states\": " << rc.wait_states << ", \"with_delayer\": " << rc.with_delayer
      << ", \"propagation_edges\": " << rc.propagation_edges << ", \"unordered\": " << rc.unordered
      << ", \"critical_path_start_rank\": "
      << (rc.path_start_rank == gs::kNone ? std::string("null") : std::to_string(rc.path_start_rank))
      << ", \"critical_path_length_s\": " << rc.path_length_s << "}"
      << ",\n  \"repaired_regions\": {";
    for (int k = 0; k < gs::kRepairKinds; ++k) j << (k ? ", " : "") << json_str(gs::kRepairNames[k]) << ": " << repairs.count[k];
    j << "},\n  \"repair_warnings\": [";
    std::vector<std::string> warnings = gs::repair_warnings(repairs, defs);
    for (size_t i = 0; i < warnings.size(); ++i) j << (i ? ", " : "") << json_str(warnings[i]);
    j << "],\n  \"metahosts\": [";
    for (size_t i = 0; i < defs.metahosts.size(); ++i) j << (i ? ", " : "") << json_str(defs.metahosts[i]);
    j << "],\n  \"rank_metahost\": [";
    for (uint32_t r = 0; r < defs.ranks(); ++r) j << (r ? ", " : "") << defs.rank_metahost[r];
    j << "],\n  \"rank_node\": [";
    for (uint32_t r = 0; r < defs.ranks(); ++r) j << (r ? ", " : "") << json_str(defs.rank_node[r]);
    j << "],\n  \"process_stats\": [";
    for (size_t p = 0; p < stats.size(); ++p) {
      j << (p ? ", " : "") << "{\"read_s\": " << stats[p].read_s << ", \"replay_s\": " << stats[p].replay_s
        << ", \"root_causes_s\": " << stats[p].root_causes_s
        << ", \"peak_rss_kb\": " << stats[p].rss_kb << ", \"events\": " << stats[p].events
        << ", \"ranks\": " << stats[p].ranks << ", \"wait_rows\": [";
      for (int phase = 0; phase < gs::kWaitPhases; ++phase) j << (phase ? ", " : "") << stats[p].wait_rows[phase];
      j << "]}";
    }
    j << "]\n}\n";
    std::string text = j.str();
    std::string path = o.out + "/meta.json";
    FILE* f = std::fopen(path.c_str(), "w");
    bool written = f && std::fwrite(text.data(), 1, text.size(), f) == text.size();
    if (f && std::fclose(f) != 0) written = false;
    if (!written) throw gs::Error(path, "cannot write");
    // Everything is on disk (the other processes wrote theirs before the last exchange):
    // the driver goes on while the processes shut down. Mirrored in names.py (ENGINE_DONE).
    std::fputs("gridscope-replay: output written\n", stdout);
    std::fflush(stdout);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o = parse(argc, argv);
  // Large record buffers are freed and others allocated between phases: keep freed memory
  // in the heap for reuse instead of returning it (re-faulting fresh zeroed pages is costly).
  mallopt(M_MMAP_THRESHOLD, 1 << 30);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  std::unique_ptr<gs::Transport> t;
  try {
    // The local processes start first, so each reads the definitions itself (as under MPI).
    if (o.list_ranks) t = gs::make_local_transport();
    else if (o.processes > 1) t = gs::make_fork_transport(o.processes);
    else if (o.force_mpi || gs::launched_by_mpi()) t = gs::make_mpi_transport(&argc, &argv);
    else t = gs::make_local_transport();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gridscope-replay: internal error: %s\n", e.what());
    return 70;
  }
  // The first process to fail reports; the others are ended without waiting for them.
  auto fail = [&](int code, const std::string& where, const char* problem) {
    if (t->claim_report(code)) {
      std::fprintf(stderr, "gridscope-replay: %s: %s\n", where.c_str(), problem);
      std::fflush(stderr);
    }
    if (t->size() > 1) t->abort(code);  // never leave the other processes waiting
    return code;
  };
  try {
    int rc = run(o, *t);
    int ended = gs::finalize_transport(*t);
    return rc ? rc : ended;
  } catch (const gs::Error& e) {
    int rc = fail(2, e.where, e.what());
    gs::finalize_transport(*t);
    return rc;
  } catch (const std::exception& e) {
    return fail(70, "internal error", e.what());
  }
}
