#include <unistd.h>
#include "actions.hpp"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <optional>
#include <unordered_map>
#include <utility>

#include "coll_block.hpp"
#include "gridscope/trace/events.hpp"
#include "mpi_kinds.hpp"
#include "wildcard.hpp"

namespace gs::predict {
namespace {

// One rank's actions, held until the rank is read (patches need them), then written.
struct RankActions {
  std::vector<std::string> lines;
  uint64_t max_bytes = 0;   // the largest buffer an action needs
  size_t slots = 0;         // request slots used at once (at most)
  // `ki` after MPI_Init and `kc` at the rank's first communicator constructor (its time
  // as the computation when the communicators are built after MPI_Init)
  size_t init_k = SIZE_MAX, create_k = SIZE_MAX;
  std::vector<size_t> vcoll_lines;  // lines of v-collectives, numbered per communicator at the end
};

FILE* open_out(const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "w");
  if (!f) throw Error(path, "cannot be written");
  return f;
}

void close_out(FILE* f, const std::string& path) {
  if (std::fclose(f) != 0) throw Error(path, "write failed");
}

std::vector<std::string> fields(const std::string& line) {
  std::vector<std::string> out;
  for (size_t at = 0, next; at <= line.size(); at = next + 1) {
    next = line.find(' ', at);
    if (next == std::string::npos) next = line.size();
    out.push_back(line.substr(at, next - at));
  }
  return out;
}

// One open region of the rank's stack.
struct Frame {
  uint32_t region;
  Kind kind;          // of an MPI region
  bool mpi, user;
  uint64_t enter;
  std::vector<std::string> parts;  // communication events inside a replayed MPI call
  std::vector<size_t> slots;       // requests it completed
  std::string coll;                // a collective's action
  bool vcoll = false;              // ... of a v-collective (blocks evened over the instance later)
};

class ActionBuilder {
 public:
  ActionBuilder(const Defs& d, ActionSet& set, std::unordered_map<uint32_t, uint32_t>& user_ids, uint32_t rank,
                const std::string& dir, std::optional<uint32_t> any_source)
      : d_(d), set_(set), user_ids_(user_ids), rank_(rank), dir_(dir), any_source_(any_source) {}
  const std::string& error() const { return error_; }

  OTF2_CallbackCode enter(uint64_t t, uint32_t region) {
    if (!started_) { started_ = true; last_ = t; }
    const RegionDef& r = d_.regions[region];
    Frame f{region, Kind::Local, r.is_mpi, !r.is_mpi, t, {}, {}, {}, false};
    if (r.is_mpi) {
      f.kind = in_call() ? Kind::Local : kind_of(r.name);  // MPI inside MPI: part of the outer call
      if (f.kind == Kind::Unsupported) set_.unsupported[r.name]++;
      if (f.kind == Kind::Approximated) set_.approximated[r.name + " replayed as its recorded time"]++;
      if (replayed(f.kind)) flush(t);
    } else {
      flush(t);
      out_.lines.push_back("b " + std::to_string(user_id(region)));
    }
    stack_.push_back(std::move(f));
    return OTF2_CALLBACK_SUCCESS;
  }

  OTF2_CallbackCode leave(uint64_t t, uint32_t) {
    Frame f = std::move(stack_.back());
    stack_.pop_back();
    if (f.user) {
      flush(t);
      out_.lines.push_back("e " + std::to_string(user_id(f.region)));
      return OTF2_CALLBACK_SUCCESS;
    }
    switch (f.kind) {
      case Kind::Init:
        last_ = t;  // the replayer's own MPI_Init takes this time
        out_.init_k = out_.lines.size();
        out_.lines.push_back("ki");
        break;
      case Kind::Finalize:
        out_.lines.push_back("f");
        last_ = t;
        break;
      case Kind::CommCreate:
        if (out_.create_k == SIZE_MAX) {
          out_.create_k = out_.lines.size();
          out_.lines.push_back("k" + compute_line(t - f.enter));  // "kc SECONDS"
          last_ = t;
        }
        break;
      case Kind::Send: case Kind::Isend: case Kind::Recv: case Kind::Irecv: case Kind::Sendrecv:
        if (f.parts.empty()) break;  // MPI_PROC_NULL: nothing happened, its time is computation
        if (f.kind == Kind::Sendrecv && f.parts.size() == 2) {
          // "s PEER TAG COMM BYTES" + "r PEER TAG COMM BYTES" -> "sr PEER TAG COMM BYTES PEER TAG BYTES"
          if (f.parts[0][0] == 'r') std::swap(f.parts[0], f.parts[1]);
          std::string recv = f.parts[1].substr(f.parts[1].find(' ') + 1);
          size_t tag_end = recv.find(' ', recv.find(' ') + 1);
          size_t comm_end = recv.find(' ', tag_end + 1);
          out_.lines.push_back("sr " + f.parts[0].substr(f.parts[0].find(' ') + 1) + " " +
                               recv.substr(0, tag_end) + recv.substr(comm_end));
        } else {
          for (auto& p : f.parts) out_.lines.push_back(std::move(p));
        }
        last_ = t;
        break;
      case Kind::Complete:
        if (f.slots.empty()) break;  // completed nothing (a failed test): computation
        if (d_.regions[f.region].name.rfind("MPI_Test", 0) == 0)
          set_.approximated["MPI_Test* calls that completed requests replayed as MPI_Waitall"]++;
        {
          std::string line = "w " + std::to_string(f.slots.size());
          for (size_t s : f.slots) line += " " + std::to_string(s);
          out_.lines.push_back(line);
        }
        last_ = t;
        break;
      case Kind::Icollective:
        if (f.parts.empty()) break;  // its request was not in the trace: nothing to post
        for (auto& p : f.parts) out_.lines.push_back(std::move(p));
        last_ = t;
        break;
      case Kind::Collective:
        if (f.coll.empty()) break;
        if (f.vcoll) out_.vcoll_lines.push_back(out_.lines.size());
        out_.lines.push_back(f.coll);
        last_ = t;
        break;
      default: break;  // local calls, probes: their time is computation
    }
    return OTF2_CALLBACK_SUCCESS;
  }

  OTF2_CallbackCode send(uint64_t, uint32_t peer, OTF2_CommRef comm, uint32_t tag, uint64_t bytes) {
    Frame* f = call("MpiSend");
    if (!f) return OTF2_CALLBACK_INTERRUPT;
    const std::string& name = d_.regions[f->region].name;
    if (name == "MPI_Bsend" || name == "MPI_Rsend") set_.approximated[name + " replayed as MPI_Send"]++;
    std::string op = name == "MPI_Ssend" ? "ss" : "s", args = p2p(peer, comm, tag, bytes);
    uint64_t nth = sent_[{local_peer(peer, comm), comm}]++;
    // a blocking send to the source the last wildcard receive on COMM matched answers it:
    // replayed to whichever rank that receive matches then (docs/predict.md)
    auto any = last_any_.find(comm);
    if (f->kind == Kind::Send && any != last_any_.end() && any->second == local_peer(peer, comm)) {
      op += "a";
      set_.answers.push_back(std::to_string(rank_) + " " + std::to_string(any_local_.at(comm)) + " " +
                             std::to_string(comm) + " " + std::to_string(any->second) + " " + std::to_string(nth));
      args += " " + std::to_string(set_.answers.size() - 1);
    }
    f->parts.push_back(op + " " + args);
    return ok();
  }
  // Called by the event stream just before recv/irecv with the event's attributes.
  void recv_attributes(OTF2_AttributeList* list) {
    uint8_t v = 0;
    wildcard_ = any_source_ && list && OTF2_AttributeList_GetUint8(list, *any_source_, &v) == OTF2_SUCCESS && v;
  }
  OTF2_CallbackCode isend(uint64_t, uint32_t peer, OTF2_CommRef comm, uint32_t tag, uint64_t bytes, uint64_t req) {
    Frame* f = call("MpiIsend");
    if (!f) return OTF2_CALLBACK_INTERRUPT;
    const std::string& name = d_.regions[f->region].name;
    if (name == "MPI_Ibsend" || name == "MPI_Irsend") set_.approximated[name + " replayed as MPI_Isend"]++;
    const char* op = name == "MPI_Issend" ? "iss " : "is ";
    sent_[{local_peer(peer, comm), comm}]++;
    f->parts.push_back(op + p2p(peer, comm, tag, bytes) + " " + std::to_string(take_slot(req)));
    return ok();
  }
  OTF2_CallbackCode isend_complete(uint64_t, uint64_t req) { return complete(req); }
  OTF2_CallbackCode irecv_request(uint64_t, uint64_t req) {
    Frame* f = call("MpiIrecvRequest");
    if (!f) return OTF2_CALLBACK_INTERRUPT;
    size_t slot = take_slot(req);
    // the source, tag and size are known only when the receive completes: patched then
    pending_irecv_[req] = {out_.lines.size() + f->parts.size(), slot};
    f->parts.push_back("");
    return ok();
  }
  OTF2_CallbackCode recv(uint64_t, uint32_t peer, OTF2_CommRef comm, uint32_t tag, uint64_t bytes) {
    Frame* f = call("MpiRecv");
    if (!f) return OTF2_CALLBACK_INTERRUPT;
    bool wild = std::exchange(wildcard_, false);
    if (wild && f->kind == Kind::Recv) {  // "ra": posted with MPI_ANY_SOURCE
      last_any_[comm] = local_peer(peer, comm);
      any_local_[comm] = local_peer(rank_, comm);
      set_.wild_ranks.insert(rank_);
      f->parts.push_back("ra " + p2p(peer, comm, tag, bytes));
      return ok();
    }
    if (wild) set_.approximated["MPI_Sendrecv from MPI_ANY_SOURCE replayed from the source it matched"]++;
    f->parts.push_back("r " + p2p(peer, comm, tag, bytes));
    return ok();
  }
  OTF2_CallbackCode irecv(uint64_t, uint32_t peer, OTF2_CommRef comm, uint32_t tag, uint64_t bytes, uint64_t req) {
    if (std::exchange(wildcard_, false))
      set_.approximated["MPI_Irecv from MPI_ANY_SOURCE replayed from the source it matched"]++;
    auto it = pending_irecv_.find(req);
    if (it == pending_irecv_.end()) return ok();  // its MPI_Irecv is not in the trace: nothing to post
    auto [line, slot] = it->second;
    pending_irecv_.erase(it);
    std::string text = "ir " + p2p(peer, comm, tag, bytes) + " " + std::to_string(slot);
    if (line < out_.lines.size()) out_.lines[line] = text;
    else patch_open(line, text);
    return complete(req, slot);
  }
  OTF2_CallbackCode coll_begin(uint64_t) { return ok(); }
  // A non-blocking collective: its operation, communicator, root and bytes are known only
  // when it completes (in a Wait/Test), so the MPI_I* call's action is patched then.
  OTF2_CallbackCode nbc_request(uint64_t, uint64_t req) {
    Frame* f = call("NonBlockingCollectiveRequest");
    if (!f) return OTF2_CALLBACK_INTERRUPT;
    pending_nbc_[req] = {out_.lines.size() + f->parts.size(), take_slot(req), f->region};
    f->parts.push_back("");
    return ok();
  }
  OTF2_CallbackCode nbc_complete(uint64_t, OTF2_CollectiveOp op, OTF2_CommRef comm, uint32_t root, uint64_t sent,
                                 uint64_t received, uint64_t req) {
    auto it = pending_nbc_.find(req);
    if (it == pending_nbc_.end()) return ok();  // its MPI_I* call is not in the trace: nothing to post
    PendingNbc p = it->second;
    pending_nbc_.erase(it);
    std::string action;
    if (!coll_action(op, comm, root, sent, received, d_.regions[p.region].name, action)) return ok();
    std::string text = "i" + action + " " + std::to_string(p.slot);
    if (coll_is_v(op)) out_.vcoll_lines.push_back(p.line);
    if (p.line < out_.lines.size()) out_.lines[p.line] = text;
    else patch_open(p.line, text);
    return complete(req, p.slot);
  }
  OTF2_CallbackCode coll_end(uint64_t, OTF2_CollectiveOp op, OTF2_CommRef comm, uint32_t root, uint64_t sent,
                             uint64_t received) {
    Frame* f = call("MpiCollectiveEnd");
    if (!f) return OTF2_CALLBACK_INTERRUPT;
    if (!coll_action(op, comm, root, sent, received, d_.regions[f->region].name, f->coll)) {
      return error_.empty() ? ok() : OTF2_CALLBACK_INTERRUPT;
    }
    f->vcoll = coll_is_v(op);
    return ok();
  }

  // Closes the stream: requests never completed are left alone (their slots stay used).
  void finish() {
    for (auto& [req, where] : pending_irecv_) {  // never completed: the receive is not posted
      if (where.first < out_.lines.size()) out_.lines[where.first].clear();
      set_.approximated["MPI_Irecv never completed in the trace, not posted"]++;
    }
    for (auto& [req, p] : pending_nbc_) {  // its operation is unknown: not posted
      if (p.line < out_.lines.size()) out_.lines[p.line].clear();
      set_.approximated[d_.regions[p.region].name + " never completed in the trace, not posted"]++;
    }
    number_vcollectives();
    if (out_.init_k == SIZE_MAX) out_.lines.insert(out_.lines.begin(), "ki");  // no MPI_Init in the trace
    set_.every_rank_creates = set_.every_rank_creates && out_.create_k != SIZE_MAX;
    write();
  }

 private:
  // A v-collective's ranks each recorded their own average block; replayed as they are, a
  // rank sending larger blocks than its peer expects truncates (MPI_ERR_TRUNCATE). The k-th
  // v-collective on a communicator (MPI orders collectives per communicator) is one
  // instance on every rank: its lines become xv/ixv with K, and vblocks.txt gets the mean
  // block of the instance's ranks (which keeps its total bytes).
  void number_vcollectives() {
    std::vector<size_t> order = out_.vcoll_lines;  // in call order (a non-blocking one is listed
    std::sort(order.begin(), order.end());         // when it completes, after later calls)
    std::map<uint64_t, uint64_t> seen;
    for (size_t i : order) {
      if (out_.lines[i].empty()) continue;
      std::vector<std::string> f = fields(out_.lines[i]);  // x|ix OP COMM ROOT BYTES [SLOT]
      uint64_t comm = std::stoull(f[2]), k = seen[comm]++;
      auto& [sum, ranks] = set_.vblocks[{comm, k}];
      sum += std::stoull(f[4]);
      ranks++;
      out_.lines[i] = f[0] + "v";
      for (size_t j = 1; j < f.size(); ++j) out_.lines[i] += " " + f[j];
      out_.lines[i] += " " + std::to_string(k);
    }
  }
  void write() {
    std::string path = dir_ + "/rank-" + std::to_string(rank_) + ".act";
    FILE* f = open_out(path);
    std::fprintf(f, "# bytes %" PRIu64 " slots %zu\n", out_.max_bytes, out_.slots);
    for (const std::string& line : out_.lines)
      if (!line.empty()) std::fprintf(f, "%s\n", line.c_str());
    close_out(f, path);
    set_.streams++;
    out_ = RankActions();
  }
  // "x OP COMM ROOT BYTES" of a collective into ACTION (false: nothing to replay, or a
  // failure in error_). NAME is the MPI function (for the stated approximation).
  bool coll_action(OTF2_CollectiveOp op, OTF2_CommRef comm, uint32_t root, uint64_t sent, uint64_t received,
                   const std::string& name, std::string& action) {
    const char* opname = coll_name(op);
    if (!opname) { set_.unsupported["collective operation " + std::to_string(int(op))]++; return false; }
    if (comm >= d_.comms.size() || !d_.comms[comm].defined) {
      fail("collective on undefined communicator " + std::to_string(comm));
      return false;
    }
    const CommDef& c = d_.comms[comm];
    uint64_t n = c.is_self ? 1 : c.members.size();
    auto pos = c.position.find(rank_);
    uint64_t me = c.is_self || pos == c.position.end() ? 0 : pos->second;
    int64_t root_pos = -1;
    if (root != OTF2_UNDEFINED_UINT32) root_pos = c.global_ranks ? local(c, root) : int64_t(root);
    uint64_t block = coll_block(op, n, me, root_pos < 0 ? n : uint64_t(root_pos), sent, received);
    if (coll_is_v(op)) set_.approximated[name + " replayed with equal blocks"]++;
    grow(block * n);
    action = std::string("x ") + opname + " " + std::to_string(comm) + " " + std::to_string(root_pos) + " " +
             std::to_string(block);
    return true;
  }
  static bool replayed(Kind k) {
    return k != Kind::Local && k != Kind::Approximated && k != Kind::Unsupported;
  }
  bool in_call() const {
    for (const Frame& f : stack_)
      if (f.mpi && f.kind != Kind::Local) return true;
    return false;
  }
  // The replayed MPI call an event belongs to (the innermost MPI frame).
  Frame* call(const char* event) {
    for (size_t i = stack_.size(); i-- > 0;)
      if (stack_[i].mpi) {
        if (replayed(stack_[i].kind) || stack_[i].kind == Kind::Unsupported) return &stack_[i];
        set_.unsupported[std::string(event) + " inside " + d_.regions[stack_[i].region].name]++;
        return &stack_[i];
      }
    fail(std::string(event) + " outside any MPI call");
    return nullptr;
  }
  void patch_open(size_t line, const std::string& text) {  // an irecv still in an open frame's parts
    size_t base = out_.lines.size();
    for (Frame& f : stack_)
      if (line >= base && line < base + f.parts.size()) { f.parts[line - base] = text; return; }
  }
  OTF2_CallbackCode complete(uint64_t req, size_t slot = SIZE_MAX) {
    if (slot == SIZE_MAX) {
      auto it = slot_of_.find(req);
      if (it == slot_of_.end()) return ok();  // a request the trace never started
      slot = it->second;
    }
    slot_of_.erase(req);
    free_.push_back(slot);
    Frame* f = call("request completion");
    if (!f) return OTF2_CALLBACK_INTERRUPT;
    f->slots.push_back(slot);
    return ok();
  }
  size_t take_slot(uint64_t req) {
    size_t s;
    if (!free_.empty()) { s = free_.back(); free_.pop_back(); }
    else s = out_.slots++;
    slot_of_[req] = s;
    return s;
  }
  int64_t local_peer(uint32_t peer, OTF2_CommRef comm) const {  // as p2p() writes it
    if (comm < d_.comms.size() && d_.comms[comm].global_ranks) return local(d_.comms[comm], peer);
    return peer;
  }
  int64_t local(const CommDef& c, uint32_t world) const {
    auto it = c.position.find(world);
    return it == c.position.end() ? int64_t(world) : int64_t(it->second);
  }
  std::string p2p(uint32_t peer, OTF2_CommRef comm, uint32_t tag, uint64_t bytes) {
    int64_t p = peer;
    if (comm < d_.comms.size() && d_.comms[comm].global_ranks) p = local(d_.comms[comm], peer);
    grow(bytes);
    return std::to_string(p) + " " + std::to_string(tag) + " " + std::to_string(comm) + " " + std::to_string(bytes);
  }
  // The replayer holds a buffer of the largest message: one larger than this machine's
  // memory cannot be replayed (SMPI would abort); it is a damaged byte count far more often
  // than a real message. Reported when the location has been read (error()).
  void grow(uint64_t bytes) {
    if (bytes <= out_.max_bytes) return;
    static const uint64_t memory = uint64_t(sysconf(_SC_PHYS_PAGES)) * uint64_t(sysconf(_SC_PAGE_SIZE));
    if (bytes > memory && error_.empty())
      fail("a message of " + std::to_string(bytes) + " bytes, more than this machine's memory (" +
           std::to_string(memory) + " bytes), cannot be replayed (a damaged byte count?)");
    out_.max_bytes = bytes;
  }
  std::string compute_line(uint64_t ticks) const {
    char buf[48];
    std::snprintf(buf, sizeof buf, "c %.12g", double(ticks) / double(d_.resolution));
    return buf;
  }
  void flush(uint64_t t) {
    if (t > last_) out_.lines.push_back(compute_line(t - last_));
    if (t > last_) last_ = t;
  }
  uint32_t user_id(uint32_t region) {
    auto it = user_ids_.find(region);
    if (it != user_ids_.end()) return it->second;
    uint32_t id = set_.regions.size();
    set_.regions.push_back(d_.regions[region].name);
    return user_ids_[region] = id;
  }
  OTF2_CallbackCode ok() const { return OTF2_CALLBACK_SUCCESS; }
  OTF2_CallbackCode fail(const std::string& msg) {
    if (error_.empty()) error_ = msg + " on rank " + std::to_string(rank_);
    return OTF2_CALLBACK_INTERRUPT;
  }

  const Defs& d_;
  ActionSet& set_;
  std::unordered_map<uint32_t, uint32_t>& user_ids_;
  uint32_t rank_;
  std::string dir_;
  RankActions out_;
  std::vector<Frame> stack_;
  bool started_ = false;
  uint64_t last_ = 0;
  std::unordered_map<uint64_t, size_t> slot_of_;
  std::unordered_map<uint64_t, std::pair<size_t, size_t>> pending_irecv_;  // request -> (line, slot)
  struct PendingNbc { size_t line, slot; uint32_t region; };
  std::unordered_map<uint64_t, PendingNbc> pending_nbc_;  // request -> its MPI_I* call's line
  std::vector<size_t> free_;
  std::string error_;
  std::optional<uint32_t> any_source_;  // the trace's MPI_ANY_SOURCE attribute (wildcard.hpp)
  bool wildcard_ = false;                // the coming receive event carries it
  std::map<OTF2_CommRef, int64_t> last_any_;   // comm -> source its last wildcard receive matched
  std::map<OTF2_CommRef, int64_t> any_local_;  // comm -> this rank's number in it
  std::map<std::pair<int64_t, OTF2_CommRef>, uint64_t> sent_;  // (peer, comm) -> sends so far
};

}  // namespace

ActionSet write_rank_actions(Archive& archive, const std::string& dir) {
  const Defs& defs = archive.defs();
  std::optional<uint32_t> any_source = any_source_attribute(archive.anchor());
  ActionSet set;
  std::unordered_map<uint32_t, uint32_t> user_ids;
  std::vector<uint64_t> locations(defs.rank_location.begin(), defs.rank_location.end());
  std::optional<ActionBuilder> builder;
  RepairLog log;
  read_balanced<ActionBuilder>(
      archive, locations, log,
      [&](size_t i) -> ActionBuilder& { return builder.emplace(defs, set, user_ids, uint32_t(i), dir, any_source); },
      [&](size_t, uint64_t, const Archive::LocationInfo&) { builder->finish(); });
  if (log.total() > 0)
    for (const std::string& w : repair_warnings(log, defs)) set.approximated["user regions repaired: " + w]++;
  return set;
}

namespace {

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"' || ch == '\\') { out += '\\'; out += ch; }
    else if (static_cast<unsigned char>(ch) < 0x20) { char b[8]; std::snprintf(b, sizeof b, "\\u%04x", ch); out += b; }
    else out += ch;
  }
  return out + "\"";
}

}  // namespace

void write_shared(const Archive& archive, const ActionSet& set, const std::string& dir) {
  const Defs& d = archive.defs();
  // comms.txt: where they are built (at create|init), then ID world|self|group N MEMBER...
  // (world ranks in communicator order)
  std::string path = dir + "/comms.txt";
  FILE* f = open_out(path);
  std::fprintf(f, "at %s\n", set.every_rank_creates && set.streams > 0 ? "create" : "init");
  bool world_seen = false;
  for (size_t i = 0; i < d.comms.size(); ++i) {
    const CommDef& c = d.comms[i];
    if (!c.defined) continue;
    if (c.is_self) { std::fprintf(f, "%zu self 0\n", i); continue; }
    bool identity = c.members.size() == d.ranks();
    for (size_t k = 0; identity && k < c.members.size(); ++k) identity = c.members[k] == k;
    if (identity && !world_seen && (c.name == "MPI_COMM_WORLD" || c.global_ranks)) {
      world_seen = true;
      std::fprintf(f, "%zu world 0\n", i);
      continue;
    }
    std::fprintf(f, "%zu group %zu", i, c.members.size());
    for (uint32_t m : c.members) std::fprintf(f, " %u", m);
    std::fprintf(f, "\n");
  }
  close_out(f, path);
  path = dir + "/vblocks.txt";  // COMM K BLOCK: the mean of the instance's ranks' blocks
  f = open_out(path);
  for (const auto& [key, acc] : set.vblocks)
    std::fprintf(f, "%" PRIu64 " %" PRIu64 " %" PRIu64 "\n", key.first, key.second,
                 (acc.first + acc.second / 2) / acc.second);
  close_out(f, path);
  path = dir + "/answers.txt";  // wildcard receives and their answers, for the replayer
  f = open_out(path);
  for (uint32_t r : set.wild_ranks) std::fprintf(f, "wild %u\n", r);
  for (const std::string& a : set.answers) std::fprintf(f, "a %s\n", a.c_str());
  close_out(f, path);
  path = dir + "/regions.txt";
  f = open_out(path);
  for (const std::string& name : set.regions) std::fprintf(f, "%s\n", name.c_str());
  close_out(f, path);
  path = dir + "/meta.json";
  f = open_out(path);
  std::fprintf(f, "{\n  \"trace\": %s,\n  \"ranks\": %u,\n  \"metahosts\": [", json_string(d.anchor).c_str(), d.ranks());
  for (uint32_t r = 0; r < d.ranks(); ++r)
    std::fprintf(f, "%s%s", r ? ", " : "", json_string(r < d.rank_metahost_name.size() ? d.rank_metahost_name[r] : "").c_str());
  std::fprintf(f, "],\n  \"nodes\": [");
  for (uint32_t r = 0; r < d.ranks(); ++r)
    std::fprintf(f, "%s%s", r ? ", " : "", json_string(r < d.rank_node.size() ? d.rank_node[r] : "").c_str());
  std::fprintf(f, "],\n  \"approximations\": {");
  bool first = true;
  for (const auto& [what, n] : set.approximated) {
    std::fprintf(f, "%s\n    %s: %" PRIu64, first ? "" : ",", json_string(what).c_str(), n);
    first = false;
  }
  std::fprintf(f, "%s},\n  \"other_locations\": %" PRIu64 "\n}\n", first ? "" : "\n  ", d.other_locations);
  close_out(f, path);
}

}  // namespace gs::predict
