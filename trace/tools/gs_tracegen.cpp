// gs-tracegen: the one generator of synthetic Score-P-layout OTF2 traces (gs::TraceWriter).
//   gs-tracegen SPEC OUTDIR                          small trace from a text spec (golden tests)
//   gs-tracegen --bench RANKS ITERATIONS OUTDIR [shape options]   benchmark trace (tracegen_bench.cpp)
//   gs-tracegen synth OUTDIR [options]               ring + Allreduce on a metacomputer (viewer; tracegen_synth.cpp)
//
// Spec (one statement per line, '#' comments; times are integer ticks):
//   resolution TICKS_PER_SECOND           (default 1000000, i.e. 1 tick = 1 us)
//   layout scorep|gridscope               (system tree; default gridscope: metacomputer root)
//   rank R METAHOST NODE                  (ranks 0..n-1, in order)
//   comm NAME R0 R1 ...                   (extra communicator over world ranks; MPI_COMM_WORLD implicit)
//   offset R TIME OFFSET                  (ClockOffset definition for rank R)
//   thread R K                            (thread K >= 1 of rank R: a location in R's group;
//                                          its events are written as rank "R.K")
//   R T enter REGION | R T leave [REGION]   (a named Leave may break the nesting: repair tests)
//   R T0 T1 region NAME                   (Enter/Leave)
//   R T0 T1 send NAME DST TAG BYTES [COMM]          (MpiSend at T0)
//   R T0 T1 isend NAME DST TAG BYTES REQ [COMM]     (MpiIsend at T0)
//   R T0 T1 recv NAME SRC TAG BYTES [COMM]          (MpiRecv at T1)
//   R T0 T1 irecv NAME REQ                           (MpiIrecvRequest at T0)
//   R T0 T1 wait NAME ITEM...   ITEM = s:REQ (MpiIsendComplete) | r:REQ:SRC:TAG:BYTES[:COMM] (MpiIrecv), at T1
//   R T0 T1 coll NAME COMM ROOT SENT RECV            (CollectiveBegin T0 / End T1; ROOT -1 = none)
//   R T0 T1 icoll NAME REQ                           (NonBlockingCollectiveRequest at T0, e.g. MPI_Iallreduce)
//   R T0 T1 wait NAME ... c:REQ:OP:COMM:ROOT:SENT:RECV  (NonBlockingCollectiveComplete at T1; OP a
//                                                    blocking name, e.g. MPI_Allreduce; ROOT -1 = none)
//   file NAME PATH POSIX|MPI-IO [COMM]              (an I/O handle as Score-P defines it; MPI-IO: opened on COMM)
//   win NAME [COMM]                                  (an RMA window, default on MPI_COMM_WORLD)
//   R T0 T1 io NAME FILE read|write REQ DONE ID       (blocking: IoOperationBegin at T0, Complete at T1)
//   R T0 T1 iio NAME FILE read|write REQ ID           (non-blocking: Begin and Issued at T0)
//   R T0 T1 wait NAME ... io:FILE:DONE:ID             (IoOperationComplete at T1)
//   R T0 T1 rma NAME put|get WIN TARGET BYTES ID      (RmaPut / RmaGet at T0)
//   R T0 T1 rma NAME atomic WIN TARGET SENT RECV ID   (RmaAtomic ACCUMULATE at T0)
//   R T0 T1 rmadone NAME WIN ID                       (RmaOpCompleteRemote at T1)
// DST/SRC/ROOT are ranks in the communicator (world = world ranks).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "gridscope/trace/error.hpp"
#include "gridscope/trace/mpi_names.hpp"
#include "gridscope/trace/writer.hpp"
#include "tracegen.hpp"

namespace gs::tracegen {

void die(const std::string& where, const std::string& problem) {
  std::fprintf(stderr, "gs-tracegen: %s: %s\n", where.c_str(), problem.c_str());
  std::exit(2);
}

uint64_t number(const std::string& s, const std::string& where) {
  char* end = nullptr;
  unsigned long long v = std::strtoull(s.c_str(), &end, 10);
  if (s.empty() || *end || s[0] == '-') die(where, "bad number '" + s + "'");
  return v;
}

namespace {

int64_t signed_number(const std::string& s, const std::string& where) {
  char* end = nullptr;
  long long v = std::strtoll(s.c_str(), &end, 10);
  if (s.empty() || *end) die(where, "bad number '" + s + "'");
  return v;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream in(s);
  while (std::getline(in, cur, sep)) out.push_back(cur);
  return out;
}

}  // namespace

int run_spec(const std::string& spec_path, const std::string& out) {
  std::ifstream in(spec_path);
  if (!in) die(spec_path, "cannot read spec");
  std::vector<std::vector<std::string>> lines;
  std::vector<int> lineno;
  std::string line, layout = "gridscope";
  WriterOptions opt;
  opt.creator = "gs-tracegen";
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    auto hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    std::istringstream ls(line);
    std::vector<std::string> tok;
    for (std::string t; ls >> t;) tok.push_back(t);
    if (tok.empty()) continue;
    std::string where = spec_path + ":" + std::to_string(n);
    if (tok[0] == "resolution" || tok[0] == "layout") {
      if (tok.size() != 2) die(where, tok[0] + " wants one value");
      if (tok[0] == "resolution") opt.resolution = number(tok[1], where);
      else layout = tok[1];
    } else {
      lines.push_back(tok);
      lineno.push_back(n);
    }
  }
  opt.scorep_layout = layout == "scorep";
  TraceWriter w(out, opt);
  std::map<uint32_t, std::vector<uint32_t>> stack;
  std::map<std::string, uint32_t> files, wins;
  std::map<std::string, uint32_t> threads;  // "R.K" -> the writer's id
  for (size_t i = 0; i < lines.size(); ++i) {
    auto& t = lines[i];
    std::string where = spec_path + ":" + std::to_string(lineno[i]);
    auto arg = [&](size_t k) -> const std::string& {
      if (k >= t.size()) die(where, "missing argument");
      return t[k];
    };
    auto num = [&](size_t k) { return number(arg(k), where); };
    if (t[0] == "rank") {
      w.add_rank(arg(2), arg(3));
      continue;
    }
    if (t[0] == "comm") {
      std::vector<uint64_t> members;
      for (size_t k = 2; k < t.size(); ++k) members.push_back(num(k));
      w.add_comm(arg(1), members);
      continue;
    }
    if (t[0] == "file") {
      files[arg(1)] = w.io_handle(arg(2), arg(3), t.size() > 4 ? w.comm(t[4]) : kNoComm);
      continue;
    }
    if (t[0] == "win") {
      wins[arg(1)] = w.rma_win(arg(1), t.size() > 2 ? w.comm(t[2]) : kWorldComm);
      continue;
    }
    if (t[0] == "thread") {
      threads[arg(1) + "." + arg(2)] = w.add_thread(num(1), num(2));
      continue;
    }
    if (t[0] == "offset") {
      w.clock_offset(num(1), num(2), signed_number(arg(3), where));
      continue;
    }
    auto thread = threads.find(t[0]);
    uint32_t r = thread != threads.end() ? thread->second : num(0);
    uint64_t t0 = num(1);
    if (arg(2) == "enter") {
      stack[r].push_back(w.region(arg(3)));
      w.enter(r, t0, stack[r].back());
      continue;
    }
    if (arg(2) == "leave" && t.size() > 3) {  // a named region: may be mis-nested or not open (repair tests)
      uint32_t reg = w.region(t[3]);
      w.leave(r, t0, reg);
      auto& open = stack[r];
      auto it = std::find(open.rbegin(), open.rend(), reg);
      if (it != open.rend()) open.erase(std::next(it).base());
      continue;
    }
    if (arg(2) == "leave") {
      if (stack[r].empty()) die(where, "leave without enter");
      w.leave(r, t0, stack[r].back());
      stack[r].pop_back();
      continue;
    }
    uint64_t t1 = num(2);
    const std::string& kind = arg(3);
    uint32_t reg = w.region(arg(4));
    auto comm_at = [&](size_t k) { return k < t.size() ? w.comm(t[k]) : kWorldComm; };
    auto named = [&](const std::map<std::string, uint32_t>& m, const std::string& name) {
      auto it = m.find(name);
      if (it == m.end()) die(where, "undeclared file or window '" + name + "'");
      return it->second;
    };
    auto io_mode = [&](size_t k) {
      if (arg(k) != "read" && arg(k) != "write") die(where, "I/O mode read or write, not '" + arg(k) + "'");
      return arg(k) == "read" ? OTF2_IO_OPERATION_MODE_READ : OTF2_IO_OPERATION_MODE_WRITE;
    };
    w.enter(r, t0, reg);
    if (kind == "region") {
    } else if (kind == "send") {
      w.send(r, t0, num(5), comm_at(8), num(6), num(7));
    } else if (kind == "isend") {
      w.isend(r, t0, num(5), comm_at(9), num(6), num(7), num(8));
    } else if (kind == "recv") {
      w.recv(r, t1, num(5), comm_at(8), num(6), num(7));
    } else if (kind == "irecv") {
      w.irecv_request(r, t0, num(5));
    } else if (kind == "wait") {
      for (size_t k = 5; k < t.size(); ++k) {
        auto f = split(t[k], ':');
        if (f.size() == 2 && f[0] == "s") {
          w.isend_complete(r, t1, number(f[1], where));
        } else if ((f.size() == 5 || f.size() == 6) && f[0] == "r") {
          w.irecv(r, t1, number(f[2], where), f.size() == 6 ? w.comm(f[5]) : kWorldComm, number(f[3], where),
                  number(f[4], where), number(f[1], where));
        } else if (f.size() == 4 && f[0] == "io") {
          w.io_complete(r, t1, named(files, f[1]), number(f[2], where), number(f[3], where));
        } else if (f.size() == 7 && f[0] == "c") {
          int64_t root = signed_number(f[4], where);
          w.nbc_complete(r, t1, collective_op(f[2]), w.comm(f[3]), root < 0 ? kNoRoot : uint32_t(root),
                         number(f[5], where), number(f[6], where), number(f[1], where));
        } else {
          die(where, "bad wait item '" + t[k] + "'");
        }
      }
    } else if (kind == "io") {
      uint32_t h = named(files, arg(5));
      w.io_begin(r, t0, h, io_mode(6), OTF2_IO_OPERATION_FLAG_NONE, num(7), num(9));
      w.io_complete(r, t1, h, num(8), num(9));
    } else if (kind == "iio") {
      uint32_t h = named(files, arg(5));
      w.io_begin(r, t0, h, io_mode(6), OTF2_IO_OPERATION_FLAG_NON_BLOCKING, num(7), num(8));
      w.io_issued(r, t0, h, num(8));
    } else if (kind == "rma") {
      uint32_t win = named(wins, arg(6));
      if (arg(5) == "put") w.rma_put(r, t0, win, num(7), num(8), num(9));
      else if (arg(5) == "get") w.rma_get(r, t0, win, num(7), num(8), num(9));
      else if (arg(5) == "atomic") w.rma_atomic(r, t0, win, num(7), OTF2_RMA_ATOMIC_TYPE_ACCUMULATE, num(8), num(9), num(10));
      else die(where, "RMA operation put, get or atomic, not '" + arg(5) + "'");
    } else if (kind == "rmadone") {
      w.rma_complete_remote(r, t1, named(wins, arg(5)), num(6));
    } else if (kind == "icoll") {
      w.nbc_request(r, t0, num(5));
    } else if (kind == "coll") {
      int64_t root = signed_number(arg(6), where);
      w.collective_begin(r, t0);
      w.collective_end(r, t1, collective_op(arg(4)), w.comm(arg(5)), root < 0 ? kNoRoot : uint32_t(root), num(7),
                       num(8));
    } else {
      die(where, "unknown statement '" + kind + "'");
    }
    w.leave(r, t1, reg);
  }
  w.finish();
  return 0;
}

}  // namespace gs::tracegen

int main(int argc, char** argv) {
  using namespace gs::tracegen;
  std::vector<std::string> args(argv + 1, argv + argc);
  try {
    if (!args.empty() && args[0] == "--bench") return run_bench({args.begin() + 1, args.end()});
    if (!args.empty() && args[0] == "synth") return run_synth({args.begin() + 1, args.end()});
    if (args.size() == 2 && args[0][0] != '-') return run_spec(args[0], args[1]);
  } catch (const gs::Error& e) {
    die(e.where, e.what());
  }
  std::fprintf(stderr,
               "usage: gs-tracegen SPEC OUTDIR\n"
               "       gs-tracegen --bench RANKS ITERATIONS OUTDIR [--waits default|few|all] [--depth N]\n"
               "                   [--clock-offsets K] [--collectives-every N]\n"
               "       gs-tracegen synth OUTDIR [--ranks N] [--metahosts K] [--iterations I]\n"
               "                   [--nodes-per-metahost M] [--seed S] [--region-name NAME]\n");
  return 2;
}
