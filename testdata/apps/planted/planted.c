/* planted: one known culprit per run, to check that gridscope's findings name it.
 *
 *   planted --plant none|slow-rank|slow-site|master|late-root|slow-wan
 *           [--rank R] [--site NAME] [--iters N]
 *
 * Every variant runs N time steps of modelled computation (app_compute) in user regions:
 * - none:      every rank solves the same work, then an 8-byte MPI_Allreduce (balanced control);
 * - slow-rank: as none, but rank R (default 5) solves twice the work;
 * - slow-site: as none, but every rank on site NAME solves twice the work; a rank's site
 *              is its host name up to the last '-' (the testbed names hosts SITE-N);
 * - master:    rank 0 hands out tasks: it serves each request (a short computation) before
 *              replying, and the workers' tasks are shorter than serving all of them;
 * - late-root: rank 0 prepares (computes) before each MPI_Bcast it roots; the others wait;
 * - slow-wan:  each rank sends 256 KiB to the rank at its position on the next site (site
 *              order as in the host names' first appearance: block placement) and receives from
 *              the previous site, then all meet in an MPI_Allreduce. Run it on a platform with
 *              one slow WAN direction: the receivers behind that direction are late.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gs_app.h"

#define WORK_GFLOP 0.02    /* one time step's solve: 20 ms at 1 Gflop/s */
#define SERVE_GFLOP 0.004  /* the master's work per request */
#define TASK_GFLOP 0.005   /* a worker's task */
#define WAN_BYTES (256 * 1024)

static void usage(void)
{
  fprintf(stderr, "usage: planted --plant none|slow-rank|slow-site|master|late-root|slow-wan "
                  "[--rank R] [--site NAME] [--iters N]\n");
  MPI_Abort(MPI_COMM_WORLD, 2);
}

/* This rank's site: its host name up to the last '-'. */
static void my_site(char site[MPI_MAX_PROCESSOR_NAME])
{
  int n = 0;
  MPI_Get_processor_name(site, &n);
  char *dash = strrchr(site, '-');
  if (dash)
    *dash = '\0';
}

static void solve(double gflop)
{
  APP_REGION_BEGIN("solve");
  app_compute(gflop);
  APP_REGION_END("solve");
}

static void balanced_steps(int iters, double my_work)
{
  double x = 1.0, sum = 0.0;
  for (int i = 0; i < iters; ++i) {
    APP_REGION_BEGIN("timestep");
    solve(my_work);
    MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    APP_REGION_END("timestep");
  }
}

static void master_worker(int iters, int rank, int size)
{
  int task = 0;
  if (rank == 0) {
    APP_REGION_BEGIN("master");
    for (int i = 0; i < iters * (size - 1); ++i) {
      MPI_Status st;
      MPI_Recv(&task, 1, MPI_INT, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &st);
      APP_REGION_BEGIN("serve");
      app_compute(SERVE_GFLOP);
      APP_REGION_END("serve");
      MPI_Send(&i, 1, MPI_INT, st.MPI_SOURCE, 2, MPI_COMM_WORLD);
    }
    APP_REGION_END("master");
  } else {
    APP_REGION_BEGIN("worker");
    for (int i = 0; i < iters; ++i) {
      MPI_Send(&rank, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
      MPI_Recv(&task, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      APP_REGION_BEGIN("task");
      app_compute(TASK_GFLOP);
      APP_REGION_END("task");
    }
    APP_REGION_END("worker");
  }
}

static void late_root(int iters, int rank)
{
  char data[1024] = {0};
  for (int i = 0; i < iters; ++i) {
    APP_REGION_BEGIN("timestep");
    if (rank == 0) {
      APP_REGION_BEGIN("prepare");
      app_compute(WORK_GFLOP);
      APP_REGION_END("prepare");
    }
    MPI_Bcast(data, sizeof data, MPI_CHAR, 0, MPI_COMM_WORLD);
    solve(WORK_GFLOP);
    APP_REGION_END("timestep");
  }
}

/* Every rank's site index (sites in order of first appearance over the ranks) and its
 * position among its site's ranks. */
static void site_layout(int size, int *site_of_rank, int *pos_of_rank)
{
  enum { MAX_SITES = 64 };
  char *names = calloc((size_t)size, MPI_MAX_PROCESSOR_NAME);
  char mine[MPI_MAX_PROCESSOR_NAME] = {0};
  my_site(mine);
  MPI_Allgather(mine, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, MPI_COMM_WORLD);
  int first_rank[MAX_SITES], count[MAX_SITES] = {0}, nsites = 0;
  for (int r = 0; r < size; ++r) {
    const char *name = names + (size_t)r * MPI_MAX_PROCESSOR_NAME;
    int s = 0;
    while (s < nsites && strcmp(names + (size_t)first_rank[s] * MPI_MAX_PROCESSOR_NAME, name) != 0)
      ++s;
    if (s == nsites && nsites < MAX_SITES)
      first_rank[nsites++] = r;
    site_of_rank[r] = s;
    pos_of_rank[r] = count[s]++;
  }
  free(names);
}

static void slow_wan(int iters, int rank, int size)
{
  int *site = calloc((size_t)size, sizeof *site), *pos = calloc((size_t)size, sizeof *pos);
  site_layout(size, site, pos);
  int nsites = 0;
  for (int r = 0; r < size; ++r)
    if (site[r] + 1 > nsites)
      nsites = site[r] + 1;
  int to = -1, from = -1;
  for (int r = 0; r < size; ++r) {
    if (site[r] == (site[rank] + 1) % nsites && pos[r] == pos[rank]) to = r;
    if (site[r] == (site[rank] + nsites - 1) % nsites && pos[r] == pos[rank]) from = r;
  }
  char *out = calloc(WAN_BYTES, 1), *in = calloc(WAN_BYTES, 1);
  double x = 1.0, sum = 0.0;
  for (int i = 0; i < iters; ++i) {
    APP_REGION_BEGIN("timestep");
    MPI_Request req[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    if (from >= 0 && from != rank)
      MPI_Irecv(in, WAN_BYTES, MPI_CHAR, from, 3, MPI_COMM_WORLD, &req[0]);
    solve(WORK_GFLOP);
    APP_REGION_BEGIN("exchange");
    if (to >= 0 && to != rank)
      MPI_Isend(out, WAN_BYTES, MPI_CHAR, to, 3, MPI_COMM_WORLD, &req[1]);
    /* the receive first, on its own: its completion time is then the message's arrival */
    MPI_Wait(&req[0], MPI_STATUS_IGNORE);
    MPI_Wait(&req[1], MPI_STATUS_IGNORE);
    APP_REGION_END("exchange");
    MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    APP_REGION_END("timestep");
  }
  free(out);
  free(in);
  free(site);
  free(pos);
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char *plant = NULL, *slow_site = NULL;
  int slow_rank = 5, iters = 20;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--plant") && i + 1 < argc) plant = argv[++i];
    else if (!strcmp(argv[i], "--rank") && i + 1 < argc) slow_rank = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--site") && i + 1 < argc) slow_site = argv[++i];
    else if (!strcmp(argv[i], "--iters") && i + 1 < argc) iters = atoi(argv[++i]);
    else usage();
  }
  if (!plant || iters < 1) usage();
  if (!strcmp(plant, "none")) {
    balanced_steps(iters, WORK_GFLOP);
  } else if (!strcmp(plant, "slow-rank")) {
    balanced_steps(iters, rank == slow_rank ? 2 * WORK_GFLOP : WORK_GFLOP);
  } else if (!strcmp(plant, "slow-site")) {
    char site[MPI_MAX_PROCESSOR_NAME] = {0};
    my_site(site);
    if (!slow_site) usage();
    balanced_steps(iters, !strcmp(site, slow_site) ? 2 * WORK_GFLOP : WORK_GFLOP);
  } else if (!strcmp(plant, "master")) {
    master_worker(iters, rank, size);
  } else if (!strcmp(plant, "late-root")) {
    late_root(iters, rank);
  } else if (!strcmp(plant, "slow-wan")) {
    slow_wan(iters, rank, size);
  } else {
    usage();
  }
  if (rank == 0)
    printf("planted done: %s\n", plant);
  MPI_Finalize();
  return 0;
}
