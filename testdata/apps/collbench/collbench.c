/* collbench: an OSU-style benchmark of MPI collectives (Bcast, Reduce, Allreduce, Gather,
 * Allgather, Alltoall, Barrier).
 *
 * For every operation and message size: --warmup untimed calls, then --iterations timed
 * calls, each preceded by an MPI_Barrier; every rank averages its own times, and the
 * minimum, average and maximum of those averages over the ranks are reported (as the OSU
 * micro-benchmarks do). Sizes are bytes per rank (Bcast, Reduce, Allreduce) or per block
 * (Gather, Allgather, Alltoall); they run over powers of two from --min to --max.
 * Output: one JSON document, on standard output or in --json FILE.
 *
 * Common start (--common-start, implied by --late): every timed call starts at a common
 * instant instead of at each rank's exit from the barrier before it (a barrier releases
 * ranks up to a WAN latency apart, by an amount that depends on the barrier's algorithm).
 * Late arrivals (--late SITE=SECONDS, repeatable): from that instant the ranks of metahost
 * SITE spend SECONDS computing (simulated time under SMPI) before they call the collective. A rank's site is GRIDSCOPE_METAHOST when set, else
 * its processor name without the testbed's "-<index>" host suffix. The common instant: after
 * the barrier rank 0 broadcasts t0 = its clock + --late-guard (0.1 s), and every rank waits
 * until t0 on the common clock (MPI_Wtime: simulated time under SMPI), so the arrivals do not
 * inherit the barrier's exit spread, which differs between collective algorithms. A rank's
 * own time then includes waiting for the late site, so every call is also timed by what the
 * collective adds once everyone is there (with a common start and no late site: the time
 * from the common instant to the last rank leaving):
 *   after_last = last rank leaving - last rank arriving   (>= 0: every rank leaves after it
 *                arrives; the offset itself, the same in every algorithm, is not counted)
 *   skew       = last arrival - first arrival (SECONDS when every rank started at t0)
 *   start_spread = last - first rank starting (0 when every rank got t0 in time)
 *   late_starts  = (rank, call) pairs that got t0 after it had passed (a guard too short)
 * each averaged over the calls (late_starts: summed) and reported beside the per-rank
 * figures.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gs_app.h"
#ifdef APP_SIMULATED
#include <simgrid/host.h>
#endif

#define MAX_LATE 8
#define SITE_LEN 128

typedef enum { BCAST, REDUCE, ALLREDUCE, GATHER, ALLGATHER, ALLTOALL, BARRIER, NOPS } op_t;
static const char *OP_NAMES[NOPS] = {"bcast", "reduce", "allreduce", "gather",
                                     "allgather", "alltoall", "barrier"};

typedef struct {
  int selected[NOPS];
  long min_bytes, max_bytes;
  int iterations, warmup, root;
  const char *json;
  int nlate;
  int common;   /* --common-start, or any --late */
  char late_site[MAX_LATE][SITE_LEN];
  double late_s[MAX_LATE];
  double guard;
} options;

static void usage(const char *prog)
{
  fprintf(stderr,
          "usage: %s [--ops bcast,reduce,allreduce,gather,allgather,alltoall,barrier] "
          "[--min BYTES] [--max BYTES] [--iterations N] [--warmup N] [--root R] [--json FILE] "
          "[--common-start] [--late SITE=SECONDS ...] [--late-guard SECONDS]\n",
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

/* SITE=SECONDS, SECONDS >= 0 */
static int add_late(const char *spec, options *o)
{
  const char *eq = strrchr(spec, '=');
  if (!eq || eq == spec || eq - spec >= SITE_LEN || o->nlate >= MAX_LATE)
    return 0;
  char *end = NULL;
  double s = strtod(eq + 1, &end);
  if (end == eq + 1 || *end || !(s >= 0.0))
    return 0;
  memcpy(o->late_site[o->nlate], spec, (size_t)(eq - spec));
  o->late_site[o->nlate][eq - spec] = '\0';
  o->late_s[o->nlate++] = s;
  return 1;
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
  o->nlate = 0;
  o->common = 0;
  o->guard = 0.1;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--ops") && v) { if (!select_ops(v, o)) return 0; i++; }
    else if (!strcmp(a, "--min") && v) { o->min_bytes = atol(v); i++; }
    else if (!strcmp(a, "--max") && v) { o->max_bytes = atol(v); i++; }
    else if (!strcmp(a, "--iterations") && v) { o->iterations = atoi(v); i++; }
    else if (!strcmp(a, "--warmup") && v) { o->warmup = atoi(v); i++; }
    else if (!strcmp(a, "--root") && v) { o->root = atoi(v); i++; }
    else if (!strcmp(a, "--json") && v) { o->json = v; i++; }
    else if (!strcmp(a, "--late") && v) { if (!add_late(v, o)) return 0; o->common = 1; i++; }
    else if (!strcmp(a, "--common-start")) o->common = 1;
    else if (!strcmp(a, "--late-guard") && v) { o->guard = atof(v); i++; }
    else return 0;
  }
  return o->min_bytes >= 1 && o->max_bytes >= o->min_bytes && o->iterations > 0 &&
         o->warmup >= 0 && o->root >= 0 && o->guard > 0.0;
}

/* This rank's metahost: GRIDSCOPE_METAHOST, else the host name without "-<digits>" (the
 * testbed names simulated hosts <metahost>-<i>). */
static void my_site(char *site, size_t len)
{
  const char *env = getenv("GRIDSCOPE_METAHOST");
  if (env && *env) {
    snprintf(site, len, "%s", env);
    return;
  }
  char host[MPI_MAX_PROCESSOR_NAME + 1] = "";
  int n = 0;
  MPI_Get_processor_name(host, &n);
  host[n < 0 ? 0 : n] = '\0';
  char *dash = strrchr(host, '-');
  if (dash && dash[1] && strspn(dash + 1, "0123456789") == strlen(dash + 1))
    *dash = '\0';
  snprintf(site, len, "%s", host);
}

/* Computation of SECONDS: simulated under SMPI (this host's flops for that long; smpi_execute
 * would count seconds of SMPI's reference host), a sleep otherwise. */
static void spend(double seconds)
{
  if (seconds <= 0.0)
    return;
#ifdef APP_SIMULATED
  smpi_execute_flops(seconds * sg_host_get_speed(sg_host_self()));
#else
  struct timespec ts;
  ts.tv_sec = (time_t)seconds;
  ts.tv_nsec = (long)((seconds - (double)ts.tv_sec) * 1e9);
  nanosleep(&ts, NULL);
#endif
}

/* Until the common clock reads T (no time if it already does). */
static void wait_until(double t)
{
  double now = app_now();
  if (t > now)
    spend(t - now);
}

/* Mean over the iterations of what the collective adds after the last arrival, of the
 * arrival skew and of the start spread (see the header); on rank 0. */
static void skew_figures(const double *arrive, const double *leave, const double *start, int n,
                         double *after_last, double *skew, double *spread)
{
  double *buf = malloc(sizeof(double) * 5 * (size_t)n), *red = malloc(sizeof(double) * 5 * (size_t)n);
  for (int i = 0; i < n; i++) {
    buf[i] = arrive[i];            /* max */
    buf[n + i] = leave[i];         /* max */
    buf[2 * n + i] = start[i];     /* max */
    buf[3 * n + i] = -arrive[i];   /* max of -x = -min */
    buf[4 * n + i] = -start[i];
  }
  MPI_Reduce(buf, red, 5 * n, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  double a = 0.0, k = 0.0, s = 0.0;
  for (int i = 0; i < n; i++) {
    a += red[n + i] - red[i];
    k += red[i] + red[3 * n + i];
    s += red[2 * n + i] + red[4 * n + i];
  }
  *after_last = a / n;
  *skew = k / n;
  *spread = s / n;
  free(buf);
  free(red);
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
  double late = 0.0;
  int late_ranks[MAX_LATE] = {0}, late_count[MAX_LATE] = {0};
  if (o.nlate) {
    char site[SITE_LEN];
    my_site(site, sizeof site);
    for (int k = 0; k < o.nlate; k++)
      if (!strcmp(site, o.late_site[k])) {
        late = o.late_s[k];
        late_ranks[k] = 1;
      }
    MPI_Allreduce(late_ranks, late_count, o.nlate, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (int k = 0; k < o.nlate; k++)
      if (!late_count[k]) {
        if (rank == 0)
          fprintf(stderr, "collbench: --late %s: no rank runs on metahost '%s'\n",
                  o.late_site[k], o.late_site[k]);
        MPI_Abort(MPI_COMM_WORLD, 2);
      }
  }
  if (o.common) { /* the start time's broadcast, once untimed: under SMPI a run's first
                    MPI_Bcast sets SimGrid's node layout up, over a second of simulated time
                    on asym-3 with 64 ranks (the collector does it in MPI_Init, core.c; a
                    build without the collector does it here), which would make the first
                    call miss its start */
    double warm = 0.0;
    MPI_Bcast(&warm, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  }
  double *arrive = malloc(sizeof(double) * (size_t)o.iterations);
  double *leave = malloc(sizeof(double) * (size_t)o.iterations);
  double *start = malloc(sizeof(double) * (size_t)o.iterations);
  long late_starts = 0;
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
                 "\"warmup\": %d, \"root\": %d, ", size, o.iterations, o.warmup, o.root);
    if (o.nlate) {
      fprintf(out, "\"late\": [");
      for (int k = 0; k < o.nlate; k++)
        fprintf(out, "%s{\"site\": \"%s\", \"seconds\": %.9g, \"ranks\": %d}",
                k ? ", " : "", o.late_site[k], o.late_s[k], late_count[k]);
      fprintf(out, "], ");
    }
    fprintf(out, "\"results\": [");
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
        if (o.common) { /* a common start (see the header) */
          double t0 = app_now() + o.guard;
          MPI_Bcast(&t0, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
          start[i] = app_now();
          if (start[i] > t0)
            late_starts++;
          else
            start[i] = t0;
          wait_until(start[i]);
          wait_until(start[i] + late);
        }
        double t = arrive[i] = app_now();
        run_op((op_t)op, b, o.root, sbuf, rbuf, MPI_COMM_WORLD);
        leave[i] = app_now();
        sum += leave[i] - t;
      }
      double after_last = 0.0, skew = 0.0, spread = 0.0;
      long starts_missed = 0;
      if (o.common) {
        skew_figures(arrive, leave, start, o.iterations, &after_last, &skew, &spread);
        MPI_Reduce(&late_starts, &starts_missed, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
        late_starts = 0;
      }
      double mine = sum / o.iterations, lo, hi, avg;
      MPI_Reduce(&mine, &lo, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
      MPI_Reduce(&mine, &hi, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
      MPI_Reduce(&mine, &avg, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
      if (rank == 0) {
        fprintf(out, "%s\n  {\"op\": \"%s\", \"bytes\": %ld, \"min_us\": %.3f, "
                     "\"avg_us\": %.3f, \"max_us\": %.3f",
                first ? "" : ",", OP_NAMES[op], b, lo * 1e6, avg / size * 1e6, hi * 1e6);
        if (o.common)
          fprintf(out, ", \"after_last_us\": %.3f, \"skew_us\": %.3f, \"start_spread_us\": %.3f, "
                       "\"late_starts\": %ld}",
                  after_last * 1e6, skew * 1e6, spread * 1e6, starts_missed);
        else
          fprintf(out, "}");
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
  free(arrive);
  free(leave);
  free(start);
  APP_REGION_END("main");
  MPI_Finalize();
  return 0;
}
