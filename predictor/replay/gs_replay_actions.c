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

/* The parts of the replayer, in this order (one translation unit: every build of it —
 * predictor/CMakeLists.txt, share/predictor, src/gridscope/predict/replay.py — lists them). */
#include "gs_replay_world.inc"
#include "gs_replay_wildcard.inc"
#include "gs_replay_ops.inc"

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
