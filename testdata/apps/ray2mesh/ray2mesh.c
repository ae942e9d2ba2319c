/* ray2mesh: a model of the seismic ray-tracing application of seed 000 (Coti, Herault,
 * Cappello: "MPI Applications on Grids: a Topology Aware Approach", Fig. 1).
 *
 * Three phases:
 *   1. broadcasts: parameters, mesh and velocity model go from rank 0 to everyone;
 *   2. master-worker ray tracing, either flat (rank 0 hands chunks of rays to every other
 *      rank) or hierarchical (--hierarchical: rank 0 hands batches of chunks to one boss
 *      per metahost, each boss hands chunks to the workers of its metahost and relays the
 *      results back);
 *   3. a broadcast and an all-to-all exchange of the per-cell results, then local output.
 *
 * Metahosts: --groups N1,N2,... (ranks per metahost, in rank order), otherwise the
 * processor name with its "-<number>" suffix removed (gridscope's simulated hosts are
 * named METAHOST-i), otherwise one metahost.
 * Ray tracing is modelled (app_compute): ray i costs a deterministic amount that varies
 * with i, so dynamic scheduling matters. Rank 0 prints one JSON line with phase times.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gs_app.h"

enum { TAG_WORK = 1, TAG_STOP = 2, TAG_RESULT = 3, TAG_FINAL = 4 };

typedef struct {
  int rays, chunk, batch, hierarchical;
  long mesh_bytes, model_bytes, result_bytes_per_ray, alltoall_bytes;
  double gflop_per_ray;
  const char *groups;
} options;

static void usage(const char *prog)
{
  fprintf(stderr,
          "usage: %s [--rays N] [--chunk RAYS] [--hierarchical] [--batch CHUNKS] "
          "[--groups N1,N2,...] [--mesh-bytes B] [--alltoall-bytes B] [--gflop-per-ray X]\n",
          prog);
}

static int parse(int argc, char **argv, options *o)
{
  o->rays = 2000;
  o->chunk = 10;
  o->batch = 0; /* default: as many chunks as the boss has workers */
  o->hierarchical = 0;
  o->mesh_bytes = 2L << 20;
  o->model_bytes = 512L << 10;
  o->result_bytes_per_ray = 2048;
  o->alltoall_bytes = 16L << 10;
  o->gflop_per_ray = 0.02; /* 10 ms per ray on a 2 Gflop/s core */
  o->groups = NULL;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--hierarchical")) o->hierarchical = 1;
    else if (!strcmp(a, "--flat")) o->hierarchical = 0;
    else if (!strcmp(a, "--rays") && v) { o->rays = atoi(v); i++; }
    else if (!strcmp(a, "--chunk") && v) { o->chunk = atoi(v); i++; }
    else if (!strcmp(a, "--batch") && v) { o->batch = atoi(v); i++; }
    else if (!strcmp(a, "--groups") && v) { o->groups = v; i++; }
    else if (!strcmp(a, "--mesh-bytes") && v) { o->mesh_bytes = atol(v); i++; }
    else if (!strcmp(a, "--alltoall-bytes") && v) { o->alltoall_bytes = atol(v); i++; }
    else if (!strcmp(a, "--gflop-per-ray") && v) { o->gflop_per_ray = atof(v); i++; }
    else return 0;
  }
  return o->rays > 0 && o->chunk > 0 && o->batch >= 0 && o->mesh_bytes >= 0 &&
         o->alltoall_bytes >= 0 && o->gflop_per_ray >= 0;
}

/* ------------------------------------------------------------ metahost groups */

/* Metahost index of every rank (rank order), from --groups or the processor names. */
static int *metahost_of_ranks(const options *o, int size, int *ngroups)
{
  int *group = malloc(sizeof(int) * (size_t)size);
  if (o->groups) {
    int g = 0, filled = 0;
    const char *p = o->groups;
    while (*p && filled < size) {
      int n = atoi(p);
      for (int k = 0; k < n && filled < size; k++)
        group[filled++] = g;
      g++;
      p = strchr(p, ',');
      if (!p)
        break;
      p++;
    }
    while (filled < size) /* ranks beyond the list join the last metahost */
      group[filled++] = g > 0 ? g - 1 : 0;
    *ngroups = g > 0 ? g : 1;
    return group;
  }
  char name[MPI_MAX_PROCESSOR_NAME] = {0};
  int len = 0;
  MPI_Get_processor_name(name, &len);
  char *dash = strrchr(name, '-');
  if (dash && dash[1] && strspn(dash + 1, "0123456789") == strlen(dash + 1))
    *dash = '\0';
  char *all = calloc((size_t)size, MPI_MAX_PROCESSOR_NAME);
  MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all, MPI_MAX_PROCESSOR_NAME, MPI_CHAR,
                MPI_COMM_WORLD);
  int n = 0;
  for (int r = 0; r < size; r++) {
    group[r] = -1;
    for (int q = 0; q < r; q++)
      if (!strcmp(all + (size_t)q * MPI_MAX_PROCESSOR_NAME, all + (size_t)r * MPI_MAX_PROCESSOR_NAME)) {
        group[r] = group[q];
        break;
      }
    if (group[r] < 0)
      group[r] = n++;
  }
  free(all);
  *ngroups = n;
  return group;
}

/* ------------------------------------------------------------ ray tracing */

static double ray_gflop(const options *o, int ray)
{
  /* rays cross the mesh on paths of different length: 0.5x .. 1.5x the mean cost */
  unsigned long long state = 0x9E3779B97F4A7C15ULL ^ (unsigned long long)ray;
  return o->gflop_per_ray * (0.5 + app_uniform(&state));
}

static int chunks_total(const options *o) { return (o->rays + o->chunk - 1) / o->chunk; }

static int rays_in_chunk(const options *o, int c)
{
  int first = c * o->chunk;
  return first + o->chunk <= o->rays ? o->chunk : o->rays - first;
}

static void trace_chunk(const options *o, int c)
{
  APP_REGION_BEGIN("trace_rays");
  for (int r = c * o->chunk; r < c * o->chunk + rays_in_chunk(o, c); r++)
    app_compute(ray_gflop(o, r));
  APP_REGION_END("trace_rays");
}

/* A worker asks its master for work by sending results (none at first). */
static int worker(const options *o, int master, MPI_Comm comm, char *buf)
{
  int done = 0, work[2] = {0, 0}; /* first chunk, number of chunks */
  int bytes = 0;
  for (;;) {
    MPI_Send(buf, bytes, MPI_BYTE, master, TAG_RESULT, comm);
    MPI_Status st;
    MPI_Recv(work, 2, MPI_INT, master, MPI_ANY_TAG, comm, &st);
    if (st.MPI_TAG == TAG_STOP)
      break;
    bytes = 0;
    for (int c = work[0]; c < work[0] + work[1]; c++) {
      trace_chunk(o, c);
      bytes += (int)(rays_in_chunk(o, c) * o->result_bytes_per_ray);
      done++;
    }
  }
  return done;
}

/* Hand out [first, first+count) chunks `per_request` at a time to `nworkers` requesters
 * (ranks in `workers`), collecting their results; returns once every one got TAG_STOP. */
static void master(const options *o, int first, int count, int per_request, int nworkers,
                   MPI_Comm comm, char *buf, long bufsize)
{
  int next = first, end = first + count, active = nworkers;
  while (active > 0) {
    MPI_Status st;
    MPI_Recv(buf, (int)bufsize, MPI_BYTE, MPI_ANY_SOURCE, TAG_RESULT, comm, &st);
    if (next < end) {
      int work[2] = {next, next + per_request <= end ? per_request : end - next};
      next += work[1];
      MPI_Send(work, 2, MPI_INT, st.MPI_SOURCE, TAG_WORK, comm);
    } else {
      int work[2] = {0, 0};
      MPI_Send(work, 2, MPI_INT, st.MPI_SOURCE, TAG_STOP, comm);
      active--;
    }
  }
  (void)o;
}

/* A boss: requests batches from the central master (sending the results of the previous
 * batch), serves them chunk by chunk to the workers of its metahost (on `local`, where the
 * boss is rank 0), and finally sends the last results with TAG_FINAL. */
static int boss(const options *o, int central, MPI_Comm world, MPI_Comm local, char *buf,
                long bufsize)
{
  int nlocal;
  MPI_Comm_size(local, &nlocal);
  int nworkers = nlocal - 1, done = 0;
  int queue_next = 0, queue_end = 0, master_done = 0, active = nworkers;
  int pending_bytes = 0, work[2];
  if (nworkers == 0) { /* no workers on this metahost: trace the batches here */
    for (;;) {
      MPI_Send(buf, pending_bytes, MPI_BYTE, central, TAG_RESULT, world);
      MPI_Status st;
      MPI_Recv(work, 2, MPI_INT, central, MPI_ANY_TAG, world, &st);
      if (st.MPI_TAG == TAG_STOP)
        break;
      pending_bytes = 0;
      for (int c = work[0]; c < work[0] + work[1]; c++) {
        trace_chunk(o, c);
        pending_bytes += (int)(rays_in_chunk(o, c) * o->result_bytes_per_ray);
        done++;
      }
    }
    MPI_Send(buf, 0, MPI_BYTE, central, TAG_FINAL, world);
    return done;
  }
  while (active > 0) {
    MPI_Status st;
    MPI_Recv(buf, (int)bufsize, MPI_BYTE, MPI_ANY_SOURCE, TAG_RESULT, local, &st);
    int got;
    MPI_Get_count(&st, MPI_BYTE, &got);
    pending_bytes += got;
    if (queue_next == queue_end && !master_done) {
      APP_REGION_BEGIN("fetch_batch");
      MPI_Send(buf, pending_bytes, MPI_BYTE, central, TAG_RESULT, world);
      pending_bytes = 0;
      MPI_Status mst;
      MPI_Recv(work, 2, MPI_INT, central, MPI_ANY_TAG, world, &mst);
      if (mst.MPI_TAG == TAG_STOP)
        master_done = 1;
      else {
        queue_next = work[0];
        queue_end = work[0] + work[1];
      }
      APP_REGION_END("fetch_batch");
    }
    if (queue_next < queue_end) {
      int w[2] = {queue_next++, 1};
      MPI_Send(w, 2, MPI_INT, st.MPI_SOURCE, TAG_WORK, local);
    } else {
      int w[2] = {0, 0};
      MPI_Send(w, 2, MPI_INT, st.MPI_SOURCE, TAG_STOP, local);
      active--;
    }
  }
  MPI_Send(buf, pending_bytes, MPI_BYTE, central, TAG_FINAL, world);
  return done;
}

/* ------------------------------------------------------------ main */

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  APP_REGION_BEGIN("main");
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  options o;
  if (!parse(argc, argv, &o) || size < 2) {
    if (rank == 0) {
      usage(argv[0]);
      fprintf(stderr, "ray2mesh: needs at least 2 ranks\n");
    }
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int ngroups;
  int *group = metahost_of_ranks(&o, size, &ngroups);
  /* a boss forwards the results of at most one batch plus one chunk per worker */
  long bufsize = (long)o.chunk * o.result_bytes_per_ray * ((o.batch > 0 ? o.batch : size) + size) + 64;
  char *buf = calloc((size_t)bufsize, 1);

  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = app_now();

  /* phase 1: broadcasts */
  APP_REGION_BEGIN("broadcasts");
  {
    int params[4] = {o.rays, o.chunk, ngroups, o.hierarchical};
    MPI_Bcast(params, 4, MPI_INT, 0, MPI_COMM_WORLD);
    char *mesh = calloc((size_t)o.mesh_bytes + 1, 1);
    MPI_Bcast(mesh, (int)o.mesh_bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
    char *model = calloc((size_t)o.model_bytes + 1, 1);
    MPI_Bcast(model, (int)o.model_bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
    free(mesh);
    free(model);
  }
  APP_REGION_END("broadcasts");
  double t1 = app_now();

  /* phase 2: master-worker */
  APP_REGION_BEGIN("master_worker");
  int done = 0;
  if (!o.hierarchical) {
    if (rank == 0)
      master(&o, 0, chunks_total(&o), 1, size - 1, MPI_COMM_WORLD, buf, bufsize);
    else
      done = worker(&o, 0, MPI_COMM_WORLD, buf);
  } else {
    /* the central master (rank 0) stays out of the metahost teams; each team's first
     * rank is its boss */
    int color = rank == 0 ? MPI_UNDEFINED : group[rank];
    MPI_Comm team;
    MPI_Comm_split(MPI_COMM_WORLD, color, rank, &team);
    int *is_boss = calloc((size_t)size, sizeof(int)), nbosses = 0;
    for (int g = 0; g < ngroups; g++)
      for (int r = 1; r < size; r++)
        if (group[r] == g) {
          is_boss[r] = 1;
          nbosses++;
          break;
        }
    if (rank == 0) {
      int per = o.batch > 0 ? o.batch : (size - 1 - nbosses) / (nbosses > 0 ? nbosses : 1);
      master(&o, 0, chunks_total(&o), per > 0 ? per : 1, nbosses, MPI_COMM_WORLD, buf, bufsize);
      for (int b = 0; b < nbosses; b++)
        MPI_Recv(buf, (int)bufsize, MPI_BYTE, MPI_ANY_SOURCE, TAG_FINAL, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    } else if (is_boss[rank]) {
      done = boss(&o, 0, MPI_COMM_WORLD, team, buf, bufsize);
    } else {
      done = worker(&o, 0, team, buf);
    }
    free(is_boss);
    if (team != MPI_COMM_NULL)
      MPI_Comm_free(&team);
  }
  APP_REGION_END("master_worker");
  double t2 = app_now();

  /* phase 3: broadcast of the ray assignment summary, all-to-all of cell results */
  APP_REGION_BEGIN("exchange");
  {
    int *counts = calloc((size_t)size, sizeof(int));
    MPI_Gather(&done, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Bcast(counts, size, MPI_INT, 0, MPI_COMM_WORLD);
    char *out = calloc((size_t)(o.alltoall_bytes * size) + 1, 1);
    char *in = calloc((size_t)(o.alltoall_bytes * size) + 1, 1);
    MPI_Alltoall(out, (int)o.alltoall_bytes, MPI_BYTE, in, (int)o.alltoall_bytes, MPI_BYTE,
                 MPI_COMM_WORLD);
    APP_REGION_BEGIN("output");
    app_compute(1e-4);
    APP_REGION_END("output");
    double t3 = app_now();
    double phases[4] = {t1 - t0, t2 - t1, t3 - t2, t3 - t0}, worst[4];
    MPI_Reduce(phases, worst, 4, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) {
      int total = 0, busiest = 0, workers = 0;
      for (int r = 0; r < size; r++) {
        total += counts[r];
        busiest = counts[r] > busiest ? counts[r] : busiest;
        workers += counts[r] > 0;
      }
      printf("ray2mesh {\"mode\": \"%s\", \"ranks\": %d, \"metahosts\": %d, \"rays\": %d, "
             "\"chunks\": %d, \"chunks_done\": %d, \"workers\": %d, \"max_chunks_per_rank\": %d, "
             "\"broadcast_s\": %.6f, \"master_worker_s\": %.6f, \"exchange_s\": %.6f, "
             "\"total_s\": %.6f}\n",
             o.hierarchical ? "hierarchical" : "flat", size, ngroups, o.rays, chunks_total(&o),
             total, workers, busiest, worst[0], worst[1], worst[2], worst[3]);
      fflush(stdout);
    }
    free(counts);
    free(out);
    free(in);
  }
  APP_REGION_END("exchange");
  free(buf);
  free(group);
  APP_REGION_END("main");
  MPI_Finalize();
  return 0;
}
