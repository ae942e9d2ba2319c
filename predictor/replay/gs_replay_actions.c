/* The replayer of `gridscope predict`: each rank reads its action stream (written by
 * gridscope-actions, format in predictor/src/actions.hpp) and issues the MPI calls it lists
 * with buffers of the recorded sizes, computation as simulated time. Built with
 * `gridscope cc --simulate`, so the collector records the replay as a normal simulated run
 * (the predicted trace) and the collectives go through SMPI or the topology-aware library.
 *
 *   gs_replay_actions DIR [--speedup REGION[@RANKS]=FACTOR ...]
 *
 * RANKS (e.g. 5 or 4-7,9) limits a speed-up to those ranks.
 * DIR/speeds.txt (optional, one line per rank): flop/s of the host the rank was recorded
 * on; its computation then takes seconds x that / the speed of the host it replays on.
 */
#include <mpi.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gridscope/user.h>

#define MAX_REGIONS_OPEN 256
#define LINE 65536

static void die(int rank, const char *what, const char *why)
{
  fprintf(stderr, "gs_replay_actions: rank %d: %s: %s\n", rank, what, why);
  MPI_Abort(MPI_COMM_WORLD, 2);
}

typedef struct {
  char **regions;
  int nregions;
  double *factor; /* per region: computation scale (1 = as recorded) */
  MPI_Comm *comms;
  int ncomms;
  int *group_of; /* per comm id: 1 when built by `ki`/`kc` */
  int **members, *nmembers;
  int build_at_create; /* comms.txt's "at create": `kc` builds them, else `ki` */
  unsigned long long **vblock; /* per comm id: the block of its K-th v-collective (vblocks.txt) */
  int *nvblocks;
} world_t;

static char *path_of(const char *dir, const char *name)
{
  size_t n = strlen(dir) + strlen(name) + 2;
  char *p = malloc(n);
  snprintf(p, n, "%s/%s", dir, name);
  return p;
}

static void read_regions(world_t *w, const char *dir, int rank)
{
  char *path = path_of(dir, "regions.txt");
  FILE *f = fopen(path, "r");
  if (!f) die(rank, path, "cannot be read");
  char line[LINE];
  int cap = 16;
  w->regions = malloc(cap * sizeof *w->regions);
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\n")] = 0;
    if (w->nregions == cap) w->regions = realloc(w->regions, (cap *= 2) * sizeof *w->regions);
    w->regions[w->nregions++] = strdup(line);
  }
  fclose(f);
  free(path);
  w->factor = malloc((w->nregions + 1) * sizeof *w->factor);
  for (int i = 0; i < w->nregions; i++) w->factor[i] = 1.0;
}

static void read_comms(world_t *w, const char *dir, int rank)
{
  char *path = path_of(dir, "comms.txt");
  FILE *f = fopen(path, "r");
  if (!f) die(rank, path, "cannot be read");
  int id, n;
  char kind[16];
  if (fscanf(f, " at %15s", kind) != 1) die(rank, path, "lacks its first line `at create|init`");
  w->build_at_create = !strcmp(kind, "create");
  while (fscanf(f, "%d %15s %d", &id, kind, &n) == 3) {
    if (id >= w->ncomms) {
      int m = id + 1;
      w->comms = realloc(w->comms, m * sizeof *w->comms);
      w->group_of = realloc(w->group_of, m * sizeof *w->group_of);
      w->vblock = realloc(w->vblock, m * sizeof *w->vblock);
      w->nvblocks = realloc(w->nvblocks, m * sizeof *w->nvblocks);
      w->members = realloc(w->members, m * sizeof *w->members);
      w->nmembers = realloc(w->nmembers, m * sizeof *w->nmembers);
      for (int i = w->ncomms; i < m; i++) {
        w->comms[i] = MPI_COMM_NULL;
        w->group_of[i] = 0;
        w->vblock[i] = NULL;
        w->nvblocks[i] = 0;
        w->members[i] = NULL;
        w->nmembers[i] = 0;
      }
      w->ncomms = m;
    }
    w->nmembers[id] = n;
    w->members[id] = malloc((n + 1) * sizeof(int));
    for (int i = 0; i < n; i++)
      if (fscanf(f, "%d", &w->members[id][i]) != 1) die(rank, path, "truncated");
    if (!strcmp(kind, "world")) w->comms[id] = MPI_COMM_WORLD;
    else if (!strcmp(kind, "self")) w->comms[id] = MPI_COMM_SELF;
    else w->group_of[id] = 1;
  }
  fclose(f);
  free(path);
}

static int is_member(const world_t *w, int id, int rank)
{
  for (int i = 0; i < w->nmembers[id]; i++)
    if (w->members[id][i] == rank) return 1;
  return 0;
}

/* vblocks.txt (COMM K BLOCK, by COMM then K); returns the largest buffer the rank's
 * v-collectives need (BLOCK x the size of each communicator it belongs to). */
static unsigned long long read_vblocks(world_t *w, const char *dir, int rank, int world_size)
{
  char *path = path_of(dir, "vblocks.txt");
  FILE *f = fopen(path, "r");
  if (!f) die(rank, path, "cannot be read");
  int id;
  unsigned long long k, block, need = 0;
  while (fscanf(f, "%d %llu %llu", &id, &k, &block) == 3) {
    if (id < 0 || id >= w->ncomms || k != (unsigned long long)w->nvblocks[id]) die(rank, path, "out of order");
    w->vblock[id] = realloc(w->vblock[id], (k + 1) * sizeof **w->vblock);
    w->vblock[id][w->nvblocks[id]++] = block;
    int size = w->comms[id] == MPI_COMM_WORLD ? world_size : w->comms[id] == MPI_COMM_SELF ? 1 : w->nmembers[id];
    int mine = w->comms[id] == MPI_COMM_WORLD || w->comms[id] == MPI_COMM_SELF || is_member(w, id, rank);
    if (mine && block * (unsigned long long)size > need) need = block * (unsigned long long)size;
  }
  fclose(f);
  free(path);
  return need;
}

/* The smallest communicator built so far (or the world, -1) holding all of id's members. */
static int parent_of(const world_t *w, int id, const int *built)
{
  int best = -1, size = 1 << 30;
  for (int p = 0; p < w->ncomms; p++) {
    if (!built[p] || !w->group_of[p] || w->nmembers[p] >= size) continue;
    int all = 1;
    for (int i = 0; all && i < w->nmembers[id]; i++) all = is_member(w, p, w->members[id][i]);
    if (all) {
      best = p;
      size = w->nmembers[p];
    }
  }
  return best;
}

/* `k`: every communicator of the trace, split from its smallest enclosing communicator;
 * disjoint communicators with the same parent come from one split (as a program's
 * MPI_Comm_split makes them), so the replay adds as few collective calls as it can. */
static void build_comms(world_t *w, int rank)
{
  int *built = calloc(w->ncomms + 1, sizeof(int)), *batch = malloc((w->ncomms + 1) * sizeof(int));
  for (int id = 0; id < w->ncomms; id++) {
    if (!w->group_of[id] || built[id]) continue;
    int parent = parent_of(w, id, built), n = 0;
    batch[n++] = id;
    for (int other = id + 1; other < w->ncomms; other++) {
      if (!w->group_of[other] || built[other] || parent_of(w, other, built) != parent) continue;
      int disjoint = 1;
      for (int b = 0; disjoint && b < n; b++)
        for (int i = 0; disjoint && i < w->nmembers[other]; i++) disjoint = !is_member(w, batch[b], w->members[other][i]);
      if (disjoint) batch[n++] = other;
    }
    MPI_Comm parent_comm = parent < 0 ? MPI_COMM_WORLD : w->comms[parent];
    if (parent < 0 || is_member(w, parent, rank)) {
      int color = MPI_UNDEFINED, key = 0;
      for (int b = 0; b < n; b++)
        for (int i = 0; i < w->nmembers[batch[b]]; i++)
          if (w->members[batch[b]][i] == rank) {
            color = b;
            key = i;
          }
      MPI_Comm made;
      MPI_Comm_split(parent_comm, color, key, &made);
      if (color != MPI_UNDEFINED) w->comms[batch[color]] = made;
    }
    for (int b = 0; b < n; b++) built[batch[b]] = 1;
  }
  free(built);
  free(batch);
}

/* ------------------------------------------------------------ wildcard receives
 * A master that receives from MPI_ANY_SOURCE (`ra`) and answers the rank it matched (`sa`)
 * schedules work at run time: the replay posts the wildcard and answers whichever rank it
 * matches now. The answered ranks (its workers) then run the work each answer stands for:
 * the recorded actions of the rank that got that answer in the trace, from the receive to
 * its next answered receive (the "segment": the task's computation and its request for
 * more, at that rank's recorded speed); the answer's id travels as the message's tag
 * (ANSWER_TAG0 + id). The recorded last answer of a rank (the "stop") sends the worker on
 * with its own stream after its own last answered receive. A master whose workers'
 * segments hold anything but computation, regions and sends to it (or whose answers go to
 * ranks with wildcard receives of their own) is replayed as recorded. answers.txt (written
 * by gridscope-actions) lists the ranks with wildcard receives and every answer. */
#define ANSWER_TAG0 (1 << 16)

typedef struct {
  int master, master_local, comm, dest_local, nth; /* "a RANK ME COMM PEER N" */
  int dest;                                         /* DEST in the world */
  int pos;                                          /* the answered `r` in dest's stream */
} answer_t;

typedef struct {
  char **lines; /* the stream in memory (header dropped) */
  size_t n;
  int *answered; /* per line: the answer it receives, -1 when none */
  int *order;    /* the answers the rank received, in stream order */
  int *recvs, nrecvs, recvs_comm, recvs_src; /* its receives from (recvs_src, recvs_comm): lines */
  int norder;
  unsigned long long max_bytes;
  double speed; /* flop/s of the host it was recorded on */
} stream_t;

typedef struct {
  int nranks, *wild, nanswers;
  answer_t *answers;
  int *answers_of;     /* per world rank: how many answers it sends */
  int *dynamic_master; /* per world rank: its `ra`/`sa` replay as wildcards */
  int *worker;         /* per world rank: runs answers' segments */
  stream_t *streams;   /* per world rank, loaded for workers */
  int compute_of_worker; /* GS_REPLAY_TASK_COMPUTE=worker: a worker's own recorded segments */
} dyn_t;

static int world_of(const world_t *w, int comm, int local)
{
  if (comm < 0 || comm >= w->ncomms) return -1;
  if (w->comms[comm] == MPI_COMM_WORLD) return local;
  if (!w->group_of[comm] || local < 0 || local >= w->nmembers[comm]) return -1;
  return w->members[comm][local];
}

static int split(char *line, char **fields, int max);

/* Rank WHO's action stream, opened past its header (largest payload, buffer slots); RANK:
 * the rank reading it, for error messages. */
static FILE *open_stream(const char *dir, int who, int rank, unsigned long long *max_bytes, size_t *slots)
{
  char name[64];
  snprintf(name, sizeof name, "rank-%d.act", who);
  char *path = path_of(dir, name);
  FILE *f = fopen(path, "r");
  if (!f) die(rank, path, "cannot be read");
  char header[LINE];
  if (!fgets(header, LINE, f) || sscanf(header, "# bytes %llu slots %zu", max_bytes, slots) != 2)
    die(rank, path, "not an action stream");
  free(path);
  return f;
}

static void load_stream(stream_t *st, const char *dir, int who, int rank)
{
  size_t cap = 64, slots;
  FILE *f = open_stream(dir, who, rank, &st->max_bytes, &slots);
  char *line = malloc(LINE);
  st->lines = malloc(cap * sizeof *st->lines);
  while (fgets(line, LINE, f)) {
    if (st->n == cap) st->lines = realloc(st->lines, (cap *= 2) * sizeof *st->lines);
    st->lines[st->n++] = strdup(line);
  }
  fclose(f);
  free(line);
  st->answered = malloc((st->n + 1) * sizeof(int));
  for (size_t i = 0; i < st->n; i++) st->answered[i] = -1;
}

/* The fields of line I of a stream (a copy: split() writes into it). */
static int fields_of(const stream_t *st, size_t i, char *buf, char **tok)
{
  snprintf(buf, LINE, "%s", st->lines[i]);
  return split(buf, tok, 16);
}

/* Finds the receive of each answer of master M in its worker's stream (the N-th receive
 * from the master on the communicator: MPI keeps a pair's messages in order); 0 when one
 * is missing or not a blocking receive. */
static int place_answers(dyn_t *d, int m)
{
  char *buf = malloc(LINE), *tok[17];
  int ok = 1;
  for (int a = 0; ok && a < d->nanswers; a++) {
    answer_t *x = &d->answers[a];
    if (x->master != m) continue;
    stream_t *st = &d->streams[x->dest];
    if (!st->recvs || st->recvs_comm != x->comm || st->recvs_src != x->master_local) {
      /* the stream's receives from this master, listed once per (master, communicator) */
      st->recvs = realloc(st->recvs, (st->n + 1) * sizeof(int));
      st->nrecvs = 0;
      st->recvs_comm = x->comm;
      st->recvs_src = x->master_local;
      for (size_t i = 0; i < st->n; i++) {
        int nt = fields_of(st, i, buf, tok);
        if (nt < 5 || atoi(tok[3]) != x->comm) continue;
        int from = !strcmp(tok[0], "sr") && nt == 8 ? atoi(tok[5]) : atoi(tok[1]);
        int recv = !strcmp(tok[0], "r") || !strcmp(tok[0], "ra") || !strcmp(tok[0], "ir") || !strcmp(tok[0], "sr");
        if (recv && from == x->master_local) st->recvs[st->nrecvs++] = (int)i;
      }
    }
    x->pos = x->nth < st->nrecvs ? st->recvs[x->nth] : -1;
    if (x->pos < 0) {
      ok = 0;
    } else {
      fields_of(st, (size_t)x->pos, buf, tok);
      ok = !strcmp(tok[0], "r"); /* only a blocking receive is answered dynamically */
      st->answered[x->pos] = a;
    }
  }
  free(buf);
  return ok;
}

/* Worker R's segments (from one answered receive to the next) hold only computation,
 * balanced regions and sends to the answering master on the answer's communicator. */
static int segments_ok(dyn_t *d, int r)
{
  stream_t *st = &d->streams[r];
  char *buf = malloc(LINE), *tok[17];
  int ok = 1;
  st->norder = 0;
  st->order = realloc(st->order, (st->n + 1) * sizeof(int));
  for (size_t i = 0; i < st->n; i++)
    if (st->answered[i] >= 0) st->order[st->norder++] = st->answered[i];
  for (int j = 0; ok && j + 1 < st->norder; j++) {
    answer_t *x = &d->answers[st->order[j]];
    int depth = 0;
    for (int i = x->pos + 1; ok && i < d->answers[st->order[j + 1]].pos; i++) {
      int nt = fields_of(st, (size_t)i, buf, tok);
      if (nt == 0 || tok[0][0] == '#' || !strcmp(tok[0], "c")) continue;
      if (!strcmp(tok[0], "b")) depth++;
      else if (!strcmp(tok[0], "e")) ok = depth-- > 0;
      else if ((!strcmp(tok[0], "s") || !strcmp(tok[0], "ss")) && nt == 5)
        ok = atoi(tok[1]) == x->master_local && atoi(tok[3]) == x->comm;
      else ok = 0;
    }
    ok = ok && depth == 0;
  }
  free(buf);
  return ok;
}

/* Master M replays as recorded, and so does every worker it answers and, in turn, every
 * other master answering those. */
static void make_static(dyn_t *d, int m)
{
  if (!d->dynamic_master[m]) return;
  d->dynamic_master[m] = 0;
  for (int a = 0; a < d->nanswers; a++) {
    answer_t *x = &d->answers[a];
    if (x->master != m || !d->worker[x->dest]) continue;
    d->worker[x->dest] = 0;
    for (int b = 0; b < d->nanswers; b++)
      if (d->answers[b].dest == x->dest) make_static(d, d->answers[b].master);
  }
}

static void read_answers(dyn_t *d, const world_t *w, const char *dir, int rank, int world_size)
{
  memset(d, 0, sizeof *d);
  d->nranks = world_size;
  d->wild = calloc(world_size, sizeof(int));
  d->dynamic_master = calloc(world_size, sizeof(int));
  d->answers_of = calloc(world_size, sizeof(int));
  d->worker = calloc(world_size, sizeof(int));
  const char *mode = getenv("GS_REPLAY_TASK_COMPUTE");
  d->compute_of_worker = mode && !strcmp(mode, "worker");
  char *path = path_of(dir, "answers.txt");
  FILE *f = fopen(path, "r");
  free(path);
  if (!f) return; /* streams from before answers.txt: replayed as recorded */
  char kind[8];
  int cap = 0;
  while (fscanf(f, " %7s", kind) == 1) {
    int r;
    if (!strcmp(kind, "wild")) {
      if (fscanf(f, "%d", &r) != 1 || r < 0 || r >= world_size) die(rank, "answers.txt", "bad `wild` line");
      d->wild[r] = 1;
      continue;
    }
    if (d->nanswers == cap) d->answers = realloc(d->answers, (cap = cap ? 2 * cap : 64) * sizeof *d->answers);
    answer_t *x = &d->answers[d->nanswers++];
    if (strcmp(kind, "a") || fscanf(f, "%d %d %d %d %d", &x->master, &x->master_local, &x->comm, &x->dest_local,
                                    &x->nth) != 5 || x->master < 0 || x->master >= world_size)
      die(rank, "answers.txt", "bad line");
    x->dest = world_of(w, x->comm, x->dest_local);
    if (x->dest < 0) die(rank, "answers.txt", "answer to a rank outside its communicator");
  }
  fclose(f);
  if (d->nanswers == 0) return;
  int tag_ub = 0, *attr, flag = 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &attr, &flag);
  if (flag) tag_ub = *attr;
  /* masters whose every answer goes to a rank without wildcard receives of its own */
  for (int a = 0; a < d->nanswers; a++) d->dynamic_master[d->answers[a].master] = 1;
  for (int a = 0; a < d->nanswers; a++) d->answers_of[d->answers[a].master]++;
  for (int a = 0; a < d->nanswers; a++)
    if (d->wild[d->answers[a].dest] || (flag && ANSWER_TAG0 + d->nanswers > tag_ub))
      d->dynamic_master[d->answers[a].master] = 0;
  d->streams = calloc(world_size, sizeof *d->streams);
  for (int a = 0; a < d->nanswers; a++)
    if (d->dynamic_master[d->answers[a].master] && !d->streams[d->answers[a].dest].lines) {
      d->worker[d->answers[a].dest] = 1;
      load_stream(&d->streams[d->answers[a].dest], dir, d->answers[a].dest, rank);
    }
  for (int m = 0; m < world_size; m++)
    if (d->dynamic_master[m] && !place_answers(d, m)) make_static(d, m);
  for (int r = 0; r < world_size; r++)
    if (d->worker[r] && !segments_ok(d, r))
      for (int a = 0; a < d->nanswers; a++)
        if (d->answers[a].dest == r) make_static(d, d->answers[a].master);
}

static MPI_Comm comm_of(world_t *w, int id, int rank)
{
  if (id < 0 || id >= w->ncomms || w->comms[id] == MPI_COMM_NULL) die(rank, "action", "unknown communicator");
  return w->comms[id];
}

static double speed_of(const char *dir, int rank, double own)
{
  char *path = path_of(dir, "speeds.txt");
  FILE *f = fopen(path, "r");
  free(path);
  if (!f) return own;
  double s = own, v;
  for (int r = 0; r <= rank && fscanf(f, "%lf", &v) == 1; r++)
    if (r == rank && v > 0) s = v;
  fclose(f);
  return s;
}

/* Splits LINE at blanks in place into at most MAX fields; returns how many it has. */
static int split(char *line, char **fields, int max)
{
  int n = 0;
  for (char *save = NULL, *t = strtok_r(line, " \t\n", &save); t; t = strtok_r(NULL, " \t\n", &save)) {
    if (n == max) return max + 1;
    fields[n++] = t;
  }
  return n;
}

/* Computation of SECONDS (at the recorded host's speed, flop/s): simulated once at least
 * MIN_COMPUTE_S has gathered. Half the computations between MPI calls are a few clock ticks
 * (the time a call's bookkeeping took), and each simulated one costs SimGrid an activity and
 * two context switches (a tenth of a replay's time); deferring them moves the following MPI
 * calls by less than MIN_COMPUTE_S and keeps every rank's total computation. */
#define MIN_COMPUTE_S 1e-7
static void flush_compute(double *deferred, double speed, int finalized)
{
  if (*deferred > 0 && !finalized) smpi_execute_flops(*deferred * speed);
  *deferred = 0;
}

static void compute(double *deferred, double seconds, double speed, int finalized)
{
  if (seconds > 0) *deferred += seconds;
  if (*deferred >= MIN_COMPUTE_S) flush_compute(deferred, speed, finalized);
}

/* A request slot field of an action (0 .. nslots-1). */
static int slot_of(const char *field, size_t nslots, int rank)
{
  long slot = strtol(field, NULL, 10);
  if (slot < 0 || slot >= (long)nslots) die(rank, field, "request slot out of range");
  return (int)slot;
}

/* A collective of COUNT bytes per process, blocking (REQ NULL) or its non-blocking form. */
static int collective(const char *coll, MPI_Comm comm, int root, int cnt, char *sbuf, char *rbuf, MPI_Request *req)
{
  if (!strcmp(coll, "barrier")) req ? MPI_Ibarrier(comm, req) : MPI_Barrier(comm);
  else if (!strcmp(coll, "bcast"))
    req ? MPI_Ibcast(sbuf, cnt, MPI_BYTE, root, comm, req) : MPI_Bcast(sbuf, cnt, MPI_BYTE, root, comm);
  else if (!strcmp(coll, "reduce"))
    req ? MPI_Ireduce(sbuf, rbuf, cnt, MPI_BYTE, MPI_BOR, root, comm, req)
        : MPI_Reduce(sbuf, rbuf, cnt, MPI_BYTE, MPI_BOR, root, comm);
  else if (!strcmp(coll, "allreduce"))
    req ? MPI_Iallreduce(sbuf, rbuf, cnt, MPI_BYTE, MPI_BOR, comm, req)
        : MPI_Allreduce(sbuf, rbuf, cnt, MPI_BYTE, MPI_BOR, comm);
  else if (!strcmp(coll, "gather"))
    req ? MPI_Igather(sbuf, cnt, MPI_BYTE, rbuf, cnt, MPI_BYTE, root, comm, req)
        : MPI_Gather(sbuf, cnt, MPI_BYTE, rbuf, cnt, MPI_BYTE, root, comm);
  else if (!strcmp(coll, "scatter"))
    req ? MPI_Iscatter(sbuf, cnt, MPI_BYTE, rbuf, cnt, MPI_BYTE, root, comm, req)
        : MPI_Scatter(sbuf, cnt, MPI_BYTE, rbuf, cnt, MPI_BYTE, root, comm);
  else if (!strcmp(coll, "allgather"))
    req ? MPI_Iallgather(sbuf, cnt, MPI_BYTE, rbuf, cnt, MPI_BYTE, comm, req)
        : MPI_Allgather(sbuf, cnt, MPI_BYTE, rbuf, cnt, MPI_BYTE, comm);
  else if (!strcmp(coll, "alltoall"))
    req ? MPI_Ialltoall(sbuf, cnt, MPI_BYTE, rbuf, cnt, MPI_BYTE, comm, req)
        : MPI_Alltoall(sbuf, cnt, MPI_BYTE, rbuf, cnt, MPI_BYTE, comm);
  else if (!strcmp(coll, "reduce_scatter_block"))
    req ? MPI_Ireduce_scatter_block(sbuf, rbuf, cnt, MPI_BYTE, MPI_BOR, comm, req)
        : MPI_Reduce_scatter_block(sbuf, rbuf, cnt, MPI_BYTE, MPI_BOR, comm);
  else if (!strcmp(coll, "scan"))
    req ? MPI_Iscan(sbuf, rbuf, cnt, MPI_BYTE, MPI_BOR, comm, req) : MPI_Scan(sbuf, rbuf, cnt, MPI_BYTE, MPI_BOR, comm);
  else if (!strcmp(coll, "exscan"))
    req ? MPI_Iexscan(sbuf, rbuf, cnt, MPI_BYTE, MPI_BOR, comm, req)
        : MPI_Exscan(sbuf, rbuf, cnt, MPI_BYTE, MPI_BOR, comm);
  else return 0;
  return 1;
}

/* Whether RANK is in LIST, comma-separated ranks and ranges: "5", "4-7,9". */
static int in_rank_list(const char *list, int rank)
{
  while (*list) {
    char *end;
    long lo = strtol(list, &end, 10), hi = lo;
    if (end == list) return 0;
    if (*end == '-') {
      list = end + 1;
      hi = strtol(list, &end, 10);
      if (end == list) return 0;
    }
    if (rank >= lo && rank <= hi) return 1;
    list = *end == ',' ? end + 1 : end;
    if (*end && *end != ',') return 0;
  }
  return 0;
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (argc < 2) die(rank, "usage", "gs_replay_actions DIR [--speedup REGION[@RANKS]=FACTOR ...]");
  const char *dir = argv[1];
  world_t w;
  memset(&w, 0, sizeof w);
  read_regions(&w, dir, rank);
  read_comms(&w, dir, rank);
  for (int i = 2; i < argc; i++) {
    if (strcmp(argv[i], "--speedup") || i + 1 >= argc) die(rank, argv[i], "unknown argument");
    char *spec = argv[++i], *eq = strrchr(spec, '=');
    if (!eq) die(rank, spec, "want REGION[@RANKS]=FACTOR");
    *eq = 0;
    double factor = atof(eq + 1);
    char *at = strrchr(spec, '@');
    if (at) {
      *at = 0;
      if (!in_rank_list(at + 1, rank)) continue;
    }
    for (int r = 0; r < w.nregions; r++)
      if (!strcmp(w.regions[r], spec)) w.factor[r] = factor;
  }
  double own = sg_host_get_speed(sg_host_self());
  double recorded = speed_of(dir, rank, own);

  unsigned long long max_bytes = 0;
  size_t nslots = 0;
  FILE *f = open_stream(dir, rank, rank, &max_bytes, &nslots);
  char *line = malloc(LINE);
  /* The payloads' contents never matter: the buffers live in SMPI's shared memory, whose
   * blocks SMPI does not copy between ranks (the copies were a fifth of a replay's time). */
  int world_size;
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
  unsigned long long vneed = read_vblocks(&w, dir, rank, world_size);
  if (vneed > max_bytes) max_bytes = vneed;
  dyn_t dy;
  read_answers(&dy, &w, dir, rank, world_size);
  /* a worker runs from memory (its own stream and the segments of the answers it gets) */
  stream_t *cur = dy.worker[rank] ? &dy.streams[rank] : NULL;
  size_t at = 0;
  double speed = recorded; /* of the stream running */
  int own_tasks = 0;       /* answers this worker got (GS_REPLAY_TASK_COMPUTE=worker) */
  if (cur)
    for (int r = 0; r < world_size; r++)
      if (dy.worker[r]) {
        dy.streams[r].speed = speed_of(dir, r, own);
        if (dy.streams[r].max_bytes > max_bytes) max_bytes = dy.streams[r].max_bytes;
      }
  /* when each rank last sent to a dynamic master (simulated seconds): one table for all
   * ranks (SMPI shares a shared allocation's call site between ranks) */
  double *sent_at = NULL;
  for (int r = 0; r < world_size && !sent_at; r++)
    if (dy.dynamic_master[r]) sent_at = SMPI_SHARED_MALLOC((world_size + 1) * sizeof(double));
  int *last_src = malloc((w.ncomms + 1) * sizeof(int)); /* per comm: the source `ra` matched */
  for (int i = 0; i <= w.ncomms; i++) last_src[i] = -1;
  char *sbuf = SMPI_SHARED_MALLOC(max_bytes + 1);
  char *rbuf = SMPI_SHARED_MALLOC(max_bytes + 1);
  MPI_Request *slots = malloc((nslots + 1) * sizeof *slots);
  for (size_t i = 0; i <= nslots; i++) slots[i] = MPI_REQUEST_NULL;
  MPI_Request *waiting = malloc((nslots + 1) * sizeof *waiting);
  int open[MAX_REGIONS_OPEN], depth = 0, finalized = 0;

  /* one action a line: split into fields once (sscanf per line cost more than our
   * own share of the replay's other work) */
  char **tok = malloc((LINE / 2 + 1) * sizeof *tok);
  double deferred = 0; /* computation too short to simulate yet (seconds) */
  for (;;) {
    int answered = -1;
    if (cur) {
      if (at >= cur->n) break;
      answered = cur->answered[at];
      snprintf(line, LINE, "%s", cur->lines[at++]);
    } else if (!fgets(line, LINE, f)) {
      break;
    }
    int nt = split(line, tok, LINE / 2);
    if (nt == 0 || tok[0][0] == '#') continue;
    const char *op = tok[0];
#define FIELDS(k) \
  if (nt != (k)) die(rank, op, "wrong number of fields")
#define INT(i) atoi(tok[i])
#define BYTES(i) ((int)strtoull(tok[i], NULL, 10))
#define SLOT(i) slot_of(tok[i], nslots, rank)
    if (!strcmp(op, "c")) {
      FIELDS(2);
      double s = strtod(tok[1], NULL), factor = 1.0;
      for (int i = depth; i-- > 0;)
        if (w.factor[open[i]] != 1.0) {
          factor = w.factor[open[i]];
          break;
        }
      compute(&deferred, s * factor, speed, finalized);
    } else if (!strcmp(op, "b") || !strcmp(op, "e")) {
      FIELDS(2);
      int region = INT(1);
      if (region < 0 || region >= w.nregions) die(rank, op, "unknown region");
      if (op[0] == 'b') {
        if (depth < MAX_REGIONS_OPEN) open[depth++] = region;
        GS_REGION_BEGIN(w.regions[region]);
      } else {
        if (depth > 0) depth--;
        GS_REGION_END(w.regions[region]);
      }
    } else if (!strcmp(op, "ki")) {
      if (!w.build_at_create) build_comms(&w, rank);
    } else if (!strcmp(op, "kc")) {
      FIELDS(2);
      double s = strtod(tok[1], NULL);
      if (w.build_at_create) build_comms(&w, rank);
      else compute(&deferred, s, speed, finalized);
    } else if (!strcmp(op, "s") || !strcmp(op, "ss")) { /* PEER TAG COMM BYTES */
      FIELDS(5);
      MPI_Comm comm = comm_of(&w, INT(3), rank);
      int to = world_of(&w, INT(3), INT(1));
      if (sent_at && to >= 0 && dy.dynamic_master[to]) sent_at[rank] = simgrid_get_clock();
      if (op[1] == 's') MPI_Ssend(sbuf, BYTES(4), MPI_BYTE, INT(1), INT(2), comm);
      else MPI_Send(sbuf, BYTES(4), MPI_BYTE, INT(1), INT(2), comm);
    } else if (!strcmp(op, "is") || !strcmp(op, "iss")) { /* PEER TAG COMM BYTES SLOT */
      FIELDS(6);
      MPI_Comm comm = comm_of(&w, INT(3), rank);
      MPI_Request *req = &slots[SLOT(5)];
      if (op[2] == 's') MPI_Issend(sbuf, BYTES(4), MPI_BYTE, INT(1), INT(2), comm, req);
      else MPI_Isend(sbuf, BYTES(4), MPI_BYTE, INT(1), INT(2), comm, req);
    } else if ((!strcmp(op, "sa") || !strcmp(op, "ssa"))) { /* PEER TAG COMM BYTES ID */
      FIELDS(6);
      int c = INT(3), peer = INT(1), tag = INT(2);
      if (dy.dynamic_master[rank]) { /* to the rank the wildcard matched now, with the answer's id */
        if (c < 0 || c >= w.ncomms || last_src[c] < 0) die(rank, op, "no wildcard receive before it");
        peer = last_src[c];
        tag = ANSWER_TAG0 + INT(5);
      }
      MPI_Comm comm = comm_of(&w, c, rank);
      if (op[1] == 's') MPI_Ssend(sbuf, BYTES(4), MPI_BYTE, peer, tag, comm);
      else MPI_Send(sbuf, BYTES(4), MPI_BYTE, peer, tag, comm);
    } else if (!strcmp(op, "ra")) { /* PEER TAG COMM BYTES: posted with MPI_ANY_SOURCE */
      FIELDS(5);
      int c = INT(3);
      MPI_Comm comm = comm_of(&w, c, rank);
      if (!dy.answers_of[rank] || dy.dynamic_master[rank]) {
        /* the first message to come; among messages sent at the same instant (which MPI
         * leaves open, and a simulation orders by chance) the recorded source's, as the
         * recording took it. PMPI checks: the predicted trace shows the receive alone. */
        MPI_Status st;
        int there = 0, src = MPI_ANY_SOURCE;
        if (sent_at && dy.dynamic_master[rank]) PMPI_Iprobe(MPI_ANY_SOURCE, INT(2), comm, &there, &st);
        if (there) {
          int recorded_src = INT(1), also = 0;
          src = st.MPI_SOURCE;
          if (recorded_src != src) PMPI_Iprobe(recorded_src, INT(2), comm, &also, MPI_STATUS_IGNORE);
          int wr = world_of(&w, c, recorded_src), ws = world_of(&w, c, src);
          /* posted as a wildcard unless it must take the tie's recorded source: the
           * predicted trace keeps the mark (collector) where it can */
          src = also && wr >= 0 && ws >= 0 && sent_at[wr] == sent_at[ws] ? recorded_src : MPI_ANY_SOURCE;
        }
        MPI_Recv(rbuf, (int)max_bytes, MPI_BYTE, src, INT(2), comm, &st);
        last_src[c] = st.MPI_SOURCE;
      } else {
        MPI_Recv(rbuf, BYTES(4), MPI_BYTE, INT(1), INT(2), comm, MPI_STATUS_IGNORE);
      }
    } else if (!strcmp(op, "r")) { /* PEER TAG COMM BYTES */
      FIELDS(5);
      if (answered < 0) {
        MPI_Recv(rbuf, BYTES(4), MPI_BYTE, INT(1), INT(2), comm_of(&w, INT(3), rank), MPI_STATUS_IGNORE);
        continue;
      }
      /* an answered receive: whichever answer the master sends now, then its segment */
      MPI_Status st;
      MPI_Recv(rbuf, (int)max_bytes, MPI_BYTE, INT(1), MPI_ANY_TAG, comm_of(&w, INT(3), rank), &st);
      int a = st.MPI_TAG - ANSWER_TAG0;
      if (a < 0 || a >= dy.nanswers || !dy.worker[dy.answers[a].dest])
        die(rank, op, "a message that answers no wildcard receive where one was expected");
      stream_t *from = &dy.streams[dy.answers[a].dest], *mine = &dy.streams[rank];
      flush_compute(&deferred, speed, finalized);
      if (from->order[from->norder - 1] == a) { /* the recorded stop: on with this rank's own stream */
        cur = mine;
        at = dy.answers[mine->order[mine->norder - 1]].pos + 1;
      } else if (dy.compute_of_worker && mine->norder > 1) { /* this worker's own recorded tasks, in turn */
        cur = mine;
        at = dy.answers[mine->order[own_tasks++ % (mine->norder - 1)]].pos + 1;
      } else { /* the task's recorded actions, where it ran */
        cur = from;
        at = dy.answers[a].pos + 1;
      }
      speed = cur->speed;
    } else if (!strcmp(op, "ir")) { /* PEER TAG COMM BYTES SLOT */
      FIELDS(6);
      MPI_Irecv(rbuf, BYTES(4), MPI_BYTE, INT(1), INT(2), comm_of(&w, INT(3), rank), &slots[SLOT(5)]);
    } else if (!strcmp(op, "sr")) { /* PEER TAG COMM BYTES PEER TAG BYTES */
      FIELDS(8);
      MPI_Sendrecv(sbuf, BYTES(4), MPI_BYTE, INT(1), INT(2), rbuf, BYTES(7), MPI_BYTE, INT(5), INT(6),
                   comm_of(&w, INT(3), rank), MPI_STATUS_IGNORE);
    } else if (!strcmp(op, "w")) { /* N SLOT... */
      if (nt < 2 || nt != 2 + INT(1)) die(rank, op, "wrong number of fields");
      for (int i = 2; i < nt; i++) {
        int slot = SLOT(i);
        waiting[i - 2] = slots[slot];
        slots[slot] = MPI_REQUEST_NULL;
      }
      MPI_Waitall(nt - 2, waiting, MPI_STATUSES_IGNORE);
    } else if (!strcmp(op, "x") || !strcmp(op, "ix") || !strcmp(op, "xv") || !strcmp(op, "ixv")) {
      /* OP COMM ROOT BYTES [SLOT] [K]: a slot when non-blocking, K for a v-collective */
      int nb = op[0] == 'i', v = op[strlen(op) - 1] == 'v';
      FIELDS(5 + nb + v);
      int c = INT(2);
      unsigned long long n = strtoull(tok[4], NULL, 10);
      if (v) {
        unsigned long long k = strtoull(tok[5 + nb], NULL, 10);
        if (c < 0 || c >= w.ncomms || k >= (unsigned long long)w.nvblocks[c])
          die(rank, op, "v-collective not in vblocks.txt");
        n = w.vblock[c][k];
      }
      if (!collective(tok[1], comm_of(&w, c, rank), INT(3), (int)n, sbuf, rbuf, nb ? &slots[SLOT(5)] : NULL))
        die(rank, tok[1], "unknown collective");
    } else if (!strcmp(op, "f")) {
      flush_compute(&deferred, speed, finalized); /* what is left, before MPI_Finalize */
      if (!finalized) MPI_Finalize();
      finalized = 1;
    } else {
      die(rank, op, "unknown action");
    }
  }
  free(tok);
  fclose(f);
  if (!finalized) MPI_Finalize();
  return 0;
}
