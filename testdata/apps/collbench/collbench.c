/* collbench: an OSU-style benchmark of MPI collectives (Bcast, Reduce, Allreduce, Gather,
 * Allgather, Alltoall, Barrier).
 *
 * For every operation and message size: --warmup untimed calls, then --iterations timed
 * calls, each preceded by an MPI_Barrier; every rank averages its own times, and the
 * minimum, average and maximum of those averages over the ranks are reported (as the OSU
 * micro-benchmarks do). Sizes are bytes per rank (Bcast, Reduce, Allreduce) or per block
 * (Gather, Allgather, Alltoall); they run over powers of two from --min to --max.
 * Output: one JSON document, on standard output or in --json FILE.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gs_app.h"

typedef enum { BCAST, REDUCE, ALLREDUCE, GATHER, ALLGATHER, ALLTOALL, BARRIER, NOPS } op_t;
static const char *OP_NAMES[NOPS] = {"bcast", "reduce", "allreduce", "gather",
                                     "allgather", "alltoall", "barrier"};

typedef struct {
  int selected[NOPS];
  long min_bytes, max_bytes;
  int iterations, warmup, root;
  const char *json;
} options;

static void usage(const char *prog)
{
  fprintf(stderr,
          "usage: %s [--ops bcast,reduce,allreduce,gather,allgather,alltoall,barrier] "
          "[--min BYTES] [--max BYTES] [--iterations N] [--warmup N] [--root R] [--json FILE]\n",
          prog);
}

static int select_ops(const char *list, options *o)
{
  memset(o->selected, 0, sizeof o->selected);
  char *copy = strdup(list), *save = NULL;
  int any = 0;
  for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    int found = 0;
    for (int k = 0; k < NOPS; k++)
      if (!strcmp(tok, OP_NAMES[k])) {
        o->selected[k] = found = any = 1;
      }
    if (!found) {
      free(copy);
      return 0;
    }
  }
  free(copy);
  return any;
}

static int parse(int argc, char **argv, options *o)
{
  for (int k = 0; k < NOPS; k++)
    o->selected[k] = 1;
  o->min_bytes = 1;
  o->max_bytes = 1 << 20;
  o->iterations = 20;
  o->warmup = 5;
  o->root = 0;
  o->json = NULL;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--ops") && v) { if (!select_ops(v, o)) return 0; i++; }
    else if (!strcmp(a, "--min") && v) { o->min_bytes = atol(v); i++; }
    else if (!strcmp(a, "--max") && v) { o->max_bytes = atol(v); i++; }
    else if (!strcmp(a, "--iterations") && v) { o->iterations = atoi(v); i++; }
    else if (!strcmp(a, "--warmup") && v) { o->warmup = atoi(v); i++; }
    else if (!strcmp(a, "--root") && v) { o->root = atoi(v); i++; }
    else if (!strcmp(a, "--json") && v) { o->json = v; i++; }
    else return 0;
  }
  return o->min_bytes >= 1 && o->max_bytes >= o->min_bytes && o->iterations > 0 &&
         o->warmup >= 0 && o->root >= 0;
}

static void run_op(op_t op, long bytes, int root, char *sbuf, char *rbuf, MPI_Comm comm)
{
  int n = (int)bytes;
  switch (op) {
  case BCAST: MPI_Bcast(sbuf, n, MPI_BYTE, root, comm); break;
  case REDUCE: MPI_Reduce(sbuf, rbuf, n, MPI_BYTE, MPI_BOR, root, comm); break;
  case ALLREDUCE: MPI_Allreduce(sbuf, rbuf, n, MPI_BYTE, MPI_BOR, comm); break;
  case GATHER: MPI_Gather(sbuf, n, MPI_BYTE, rbuf, n, MPI_BYTE, root, comm); break;
  case ALLGATHER: MPI_Allgather(sbuf, n, MPI_BYTE, rbuf, n, MPI_BYTE, comm); break;
  case ALLTOALL: MPI_Alltoall(sbuf, n, MPI_BYTE, rbuf, n, MPI_BYTE, comm); break;
  case BARRIER: MPI_Barrier(comm); break;
  default: break;
  }
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  APP_REGION_BEGIN("main");
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  options o;
  if (!parse(argc, argv, &o) || o.root >= size) {
    if (rank == 0)
      usage(argv[0]);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  /* all-to-all and gathers need size blocks of the largest message */
  size_t cap = (size_t)o.max_bytes * (size_t)size;
  char *sbuf = calloc(cap, 1), *rbuf = calloc(cap, 1);
  FILE *out = NULL;
  if (rank == 0) {
    out = o.json ? fopen(o.json, "w") : stdout;
    if (!out) {
      fprintf(stderr, "collbench: cannot write %s\n", o.json);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    fprintf(out, "{\"benchmark\": \"collbench\", \"ranks\": %d, \"iterations\": %d, "
                 "\"warmup\": %d, \"root\": %d, \"results\": [", size, o.iterations, o.warmup,
            o.root);
  }
  int first = 1;
  for (int op = 0; op < NOPS; op++) {
    if (!o.selected[op])
      continue;
    APP_REGION_BEGIN(OP_NAMES[op]);
    for (long bytes = o.min_bytes; bytes <= o.max_bytes; bytes *= 2) {
      long b = op == BARRIER ? 0 : bytes;
      for (int i = 0; i < o.warmup; i++)
        run_op((op_t)op, b, o.root, sbuf, rbuf, MPI_COMM_WORLD);
      double sum = 0.0;
      for (int i = 0; i < o.iterations; i++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t = app_now();
        run_op((op_t)op, b, o.root, sbuf, rbuf, MPI_COMM_WORLD);
        sum += app_now() - t;
      }
      double mine = sum / o.iterations, lo, hi, avg;
      MPI_Reduce(&mine, &lo, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
      MPI_Reduce(&mine, &hi, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
      MPI_Reduce(&mine, &avg, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
      if (rank == 0) {
        fprintf(out, "%s\n  {\"op\": \"%s\", \"bytes\": %ld, \"min_us\": %.3f, "
                     "\"avg_us\": %.3f, \"max_us\": %.3f}",
                first ? "" : ",", OP_NAMES[op], b, lo * 1e6, avg / size * 1e6, hi * 1e6);
        first = 0;
      }
      if (op == BARRIER)
        break; /* one line: a barrier carries no data */
    }
    APP_REGION_END(OP_NAMES[op]);
  }
  if (rank == 0) {
    fprintf(out, "\n]}\n");
    if (o.json)
      fclose(out);
    else
      fflush(out);
  }
  free(sbuf);
  free(rbuf);
  APP_REGION_END("main");
  MPI_Finalize();
  return 0;
}
