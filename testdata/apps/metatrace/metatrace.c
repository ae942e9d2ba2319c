/* metatrace: a model of MetaTrace, the coupled groundwater code of seed 002 (Becker,
 * Frings, Wolf: "Performance Evaluation and Optimization of Metacomputing Applications").
 *
 * Two submodels share MPI_COMM_WORLD:
 *   Trace (first ranks, one metahost): water flow on a 3-D domain decomposition. Each
 *     time step first hands the current velocity field to Partrace (printtolink()), then
 *     runs a variable number of CG iterations (longer steps need more) and picks the next
 *     adaptive step with an MPI_Allreduce(MIN). cgiteration() computes, exchanges halos
 *     with its nearest neighbours (border ranks have fewer neighbours, so less packing and
 *     fewer exchanges) and computes a dot product with MPI_Allreduce.
 *   Partrace (last ranks, the other metahost): particle transport with constant time
 *     steps. ReadFieldsFromTrace() receives the velocity field, which is then replicated
 *     on every Partrace rank, and the particles move for as many constant steps as the
 *     Trace step covers.
 *
 * --opt selects the seed's optimisation cycles:
 *   0  synchronous: blocking pairwise halo exchange, world barrier before the coupling,
 *      blocking send/receive of the field, systolic loop (blocking ring) to replicate it;
 *   1  as 0 but the halo exchange in cgiteration() is non-blocking (Irecv/Isend/Waitall);
 *   2  as 1 and the coupling is asynchronous: no barrier, Trace Isends each field, Partrace
 *      has every receive posted up front, only tests them, and moves its particles in the
 *      newest field all Partrace ranks hold; MPI_Allgather replaces the systolic loop.
 * The work model below is the same for every --opt; the wait states follow from the
 * communication structure (docs/testbed.md explains the mechanisms).
 *
 * Computation is modelled (app_compute), so simulated runs are fast and deterministic.
 * At the end rank 0 prints its own accounting (fractions of the summed run time), a rough
 * check of what `gridscope analyze` measures from the trace, as one JSON line.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gs_app.h"

/* Global domain of the seed: 192 x 32 x 32 cells. */
static const int GLOBAL_CELLS[3] = {192, 32, 32};

/* Work model (flop per cell or per particle); same for every --opt. */
#define FLOP_CG_PER_CELL 1400.0     /* matrix-vector product + vector updates */
#define FLOP_PACK_PER_CELL 1200.0   /* border cells: boundary fluxes + strided gather */
#define FLOP_UNPACK_PER_CELL 150.0  /* received border cells: contiguous copy into the ghosts */
#define FIELD_DOUBLES_PER_CELL 3    /* velocity field: 3 components per cell */
#define PARTICLES_PER_RANK 20000
#define FLOP_PER_PARTICLE_STEP 4300.0
#define PARTRACE_DT 0.25            /* constant Partrace step (Trace steps vary around 1) */

enum { TAG_HALO = 10, TAG_FIELD = 1000, TAG_RING = 20 };

typedef struct {
  int opt;
  int steps;
  int ntrace, npartrace;
  int grid[3];
  double scale;
  unsigned long long seed;
} options;

/* Per-rank accounting (seconds). */
typedef struct {
  double total, compute, halo, allreduce, barrier, coupling, replicate, final_sync;
} account;

static account acc;

/* --cg-scale F: every computation inside cgiteration() (its own and the halo packing) takes
 * F times as long, the "what if cgiteration were faster" run `gridscope predict --speedup`
 * is checked against. */
static double cg_scale = 1.0;
static int in_cgiteration;

/* --halo-bytes B: bytes per border cell in one halo message. The default (two ghost layers
 * x 16 doubles) is ~30x the volume seed 002's Table 2 implies (1120 MB inside FH-BRS, i.e.
 * about 8 bytes per border cell and CG iteration); benchmarks/seeds/seed002.py sweeps it to
 * show how the opt 0 wait states depend on the cost of one blocking exchange. */
static int halo_bytes_per_cell = 256;

static void compute(double gflop)
{
  double t = app_now();
  app_compute(in_cgiteration ? gflop * cg_scale : gflop);
  acc.compute += app_now() - t;
}

static void usage(const char *prog)
{
  fprintf(stderr, "usage: %s [--opt 0|1|2] [--steps N] [--trace NRANKS] [--grid XxYxZ] "
          "[--scale X] [--cg-scale F] [--halo-bytes B] [--seed S]\n", prog);
}

static int parse(int argc, char **argv, options *o)
{
  o->opt = 0;
  o->steps = 12;
  o->ntrace = -1;
  o->scale = 1.0;
  o->seed = 2008;
  o->grid[0] = o->grid[1] = o->grid[2] = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--opt") && v) { o->opt = atoi(v); i++; }
    else if (!strcmp(a, "--steps") && v) { o->steps = atoi(v); i++; }
    else if (!strcmp(a, "--trace") && v) { o->ntrace = atoi(v); i++; }
    else if (!strcmp(a, "--scale") && v) { o->scale = atof(v); i++; }
    else if (!strcmp(a, "--cg-scale") && v) { cg_scale = atof(v); i++; }
    else if (!strcmp(a, "--halo-bytes") && v) { halo_bytes_per_cell = atoi(v); i++; }
    else if (!strcmp(a, "--seed") && v) { o->seed = strtoull(v, NULL, 10); i++; }
    else if (!strcmp(a, "--grid") && v) {
      if (sscanf(v, "%dx%dx%d", &o->grid[0], &o->grid[1], &o->grid[2]) != 3) return 0;
      i++;
    }
    else return 0;
  }
  return o->opt >= 0 && o->opt <= 2 && o->steps > 0 && o->scale > 0 && halo_bytes_per_cell > 0;
}

/* The adaptive Trace steps: length (in units of the mean step) and CG iterations needed.
 * Identical on every rank (same seed). */
typedef struct { double dt; int iterations; } timestep;

static timestep *make_schedule(const options *o)
{
  timestep *s = malloc(sizeof *s * (size_t)o->steps);
  unsigned long long state = o->seed;
  for (int i = 0; i < o->steps; i++) {
    s[i].dt = 0.5 + app_uniform(&state); /* 0.5 .. 1.5 mean steps */
    /* longer steps need more CG iterations (worse initial guess), +-15 % around that */
    s[i].iterations = (int)(16.0 * s[i].dt * (0.85 + 0.3 * app_uniform(&state)) + 0.5);
  }
  return s;
}

/* ------------------------------------------------------------------ Trace */

/* Trace's process grid: --grid, or MPI_Dims_create's factors laid over (z, y, x), i.e. the
 * largest factor splits the outermost (z) axis, so the subdomains are slabs stacked along
 * z and the ranks in the middle of the stack exchange the two largest faces. */
static void process_grid(int ntrace, const options *o, int dims[3])
{
  if (o->grid[0] > 0) {
    for (int d = 0; d < 3; d++)
      dims[d] = o->grid[d];
    return;
  }
  int f[3] = {0, 0, 0};
  MPI_Dims_create(ntrace, 3, f); /* non-increasing */
  dims[0] = f[2];
  dims[1] = f[1];
  dims[2] = f[0];
}

typedef struct {
  MPI_Comm cart;
  int dims[3], coords[3];
  int local[3];         /* cells per dimension */
  int nbr[3][2];        /* neighbour ranks (MPI_PROC_NULL at the border), [d][0]=minus */
  double *send[3][2], *recv[3][2];
  int face_cells[3];
  long cells;
} trace_grid;

static void trace_setup(trace_grid *g, MPI_Comm comm, const options *o)
{
  int n, periods[3] = {0, 0, 0};
  MPI_Comm_size(comm, &n);
  process_grid(n, o, g->dims);
  MPI_Cart_create(comm, 3, g->dims, periods, 0, &g->cart);
  int me;
  MPI_Comm_rank(g->cart, &me);
  MPI_Cart_coords(g->cart, me, 3, g->coords);
  g->cells = 1;
  for (int d = 0; d < 3; d++) {
    g->local[d] = GLOBAL_CELLS[d] / g->dims[d] > 0 ? GLOBAL_CELLS[d] / g->dims[d] : 1;
    g->cells *= g->local[d];
    MPI_Cart_shift(g->cart, d, 1, &g->nbr[d][0], &g->nbr[d][1]);
  }
  for (int d = 0; d < 3; d++) {
    g->face_cells[d] = (int)(g->cells / g->local[d]);
    for (int s = 0; s < 2; s++) {
      size_t bytes = (size_t)g->face_cells[d] * halo_bytes_per_cell;
      g->send[d][s] = calloc(bytes, 1);
      g->recv[d][s] = calloc(bytes, 1);
    }
  }
}

static double face_gflop(const trace_grid *g, int d, double flop_per_cell, const options *o)
{
  return g->face_cells[d] * flop_per_cell * 1e-9 * o->scale;
}

/* opt 0: blocking exchange in pairs, one neighbour after the other (x-, x+, y-, y+, z-,
 * z+): pack the face, then the lower rank of the pair sends first and receives second, the
 * higher one the other way round, then unpack. */
static void halo_blocking(trace_grid *g, const options *o)
{
  int me;
  MPI_Comm_rank(g->cart, &me);
  for (int d = 0; d < 3; d++) {
    int count = g->face_cells[d] * halo_bytes_per_cell;
    for (int side = 0; side < 2; side++) {
      int nbr = g->nbr[d][side];
      if (nbr == MPI_PROC_NULL)
        continue;
      compute(face_gflop(g, d, FLOP_PACK_PER_CELL, o));
      /* the tag names the direction of travel: towards the plus side or the minus side */
      int out_tag = TAG_HALO + 2 * d + side, in_tag = TAG_HALO + 2 * d + (1 - side);
      double t = app_now();
      if (me < nbr) {
        MPI_Send(g->send[d][side], count, MPI_BYTE, nbr, out_tag, g->cart);
        MPI_Recv(g->recv[d][side], count, MPI_BYTE, nbr, in_tag, g->cart, MPI_STATUS_IGNORE);
      } else {
        MPI_Recv(g->recv[d][side], count, MPI_BYTE, nbr, in_tag, g->cart, MPI_STATUS_IGNORE);
        MPI_Send(g->send[d][side], count, MPI_BYTE, nbr, out_tag, g->cart);
      }
      acc.halo += app_now() - t;
      compute(face_gflop(g, d, FLOP_UNPACK_PER_CELL, o));
    }
  }
}

/* opt >= 1: post every receive, pack and send every face, wait for all, unpack. */
static void halo_nonblocking(trace_grid *g, const options *o)
{
  MPI_Request req[12];
  int n = 0;
  double t = app_now();
  for (int d = 0; d < 3; d++)
    for (int dir = 0; dir < 2; dir++) {
      int from = g->nbr[d][1 - dir];
      if (from != MPI_PROC_NULL)
        MPI_Irecv(g->recv[d][1 - dir], g->face_cells[d] * halo_bytes_per_cell, MPI_BYTE, from,
                  TAG_HALO + 2 * d + dir, g->cart, &req[n++]);
    }
  acc.halo += app_now() - t;
  for (int d = 0; d < 3; d++)
    for (int dir = 0; dir < 2; dir++) {
      int to = g->nbr[d][dir];
      if (to == MPI_PROC_NULL)
        continue;
      compute(face_gflop(g, d, FLOP_PACK_PER_CELL, o));
      t = app_now();
      MPI_Isend(g->send[d][dir], g->face_cells[d] * halo_bytes_per_cell, MPI_BYTE, to,
                TAG_HALO + 2 * d + dir, g->cart, &req[n++]);
      acc.halo += app_now() - t;
    }
  t = app_now();
  MPI_Waitall(n, req, MPI_STATUSES_IGNORE);
  acc.halo += app_now() - t;
  for (int d = 0; d < 3; d++)
    for (int dir = 0; dir < 2; dir++)
      if (g->nbr[d][1 - dir] != MPI_PROC_NULL)
        compute(face_gflop(g, d, FLOP_UNPACK_PER_CELL, o));
}

static double cgiteration(trace_grid *g, const options *o, double x)
{
  APP_REGION_BEGIN("cgiteration");
  in_cgiteration = 1;
  compute(g->cells * FLOP_CG_PER_CELL * 1e-9 * o->scale);
  if (o->opt == 0)
    halo_blocking(g, o);
  else
    halo_nonblocking(g, o);
  double local = x, global = 0.0;
  double t = app_now();
  MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, g->cart);
  acc.allreduce += app_now() - t;
  in_cgiteration = 0;
  APP_REGION_END("cgiteration");
  return global;
}

/* Trace rank t feeds Partrace rank t % npartrace; each Partrace rank holds up to
 * `slots` chunks (one per feeding Trace rank). */
typedef struct {
  int ntrace, npartrace, slots;
  long chunk_doubles; /* velocity field of one Trace subdomain */
} coupling;

static void printtolink(const coupling *c, const options *o, int trank, double *field,
                        int step, MPI_Request *pending)
{
  APP_REGION_BEGIN("printtolink");
  int dest = c->ntrace + trank % c->npartrace;
  double t = app_now();
  if (o->opt < 2) {
    MPI_Barrier(MPI_COMM_WORLD);
    acc.barrier += app_now() - t;
    t = app_now();
    MPI_Send(field, (int)c->chunk_doubles, MPI_DOUBLE, dest, TAG_FIELD + step, MPI_COMM_WORLD);
  } else {
    MPI_Isend(field, (int)c->chunk_doubles, MPI_DOUBLE, dest, TAG_FIELD + step, MPI_COMM_WORLD,
              &pending[step]);
  }
  acc.coupling += app_now() - t;
  APP_REGION_END("printtolink");
}

static void run_trace(const options *o, const coupling *c, const timestep *sched,
                      MPI_Comm trace_comm)
{
  trace_grid g;
  trace_setup(&g, trace_comm, o);
  int trank;
  MPI_Comm_rank(trace_comm, &trank);
  /* opt 2 keeps one field buffer per step in flight (fields are sent without waiting) */
  int buffers = o->opt < 2 ? 1 : o->steps;
  double **field = malloc(sizeof *field * (size_t)buffers);
  for (int b = 0; b < buffers; b++)
    field[b] = calloc((size_t)c->chunk_doubles, sizeof(double));
  MPI_Request *pending = malloc(sizeof *pending * (size_t)o->steps);
  double residual = 1.0;
  for (int step = 0; step < o->steps; step++) {
    APP_REGION_BEGIN("iteration");
    /* hand the current velocity field (the initial one at step 0) to Partrace, then
     * compute the next one while Partrace moves the particles through this step */
    double *f = field[o->opt < 2 ? 0 : step];
    f[0] = residual;
    printtolink(c, o, trank, f, step, pending);
    for (int it = 0; it < sched[step].iterations; it++)
      residual = cgiteration(&g, o, residual * 0.5 + 1e-3) / (double)c->ntrace;
    /* adaptive step control: the next step is the minimum of the local error estimates */
    double local_dt = sched[step].dt * (1.0 + 0.01 * trank), dt = 0.0;
    double t = app_now();
    MPI_Allreduce(&local_dt, &dt, 1, MPI_DOUBLE, MPI_MIN, g.cart);
    acc.allreduce += app_now() - t;
    APP_REGION_END("iteration");
  }
  if (o->opt >= 2) {
    double t = app_now();
    MPI_Waitall(o->steps, pending, MPI_STATUSES_IGNORE);
    acc.coupling += app_now() - t;
  }
  for (int b = 0; b < buffers; b++)
    free(field[b]);
  free(field);
  free(pending);
  MPI_Comm_free(&g.cart);
}

/* ------------------------------------------------------------------ Partrace */

/* Systolic loop: every rank passes the block it received last to its right neighbour,
 * p-1 times, with blocking calls (even ranks send first). */
static void replicate_systolic(double *all, long block, MPI_Comm comm)
{
  int me, p;
  MPI_Comm_rank(comm, &me);
  MPI_Comm_size(comm, &p);
  int right = (me + 1) % p, left = (me + p - 1) % p;
  for (int k = 0; k < p - 1; k++) {
    int send_block = (me - k + p) % p, recv_block = (me - k - 1 + p) % p;
    double *out = all + send_block * block, *in = all + recv_block * block;
    if (me % 2 == 0) {
      MPI_Send(out, (int)block, MPI_DOUBLE, right, TAG_RING, comm);
      MPI_Recv(in, (int)block, MPI_DOUBLE, left, TAG_RING, comm, MPI_STATUS_IGNORE);
    } else {
      double *tmp = malloc(sizeof(double) * (size_t)block);
      MPI_Recv(tmp, (int)block, MPI_DOUBLE, left, TAG_RING, comm, MPI_STATUS_IGNORE);
      MPI_Send(out, (int)block, MPI_DOUBLE, right, TAG_RING, comm);
      memcpy(in, tmp, sizeof(double) * (size_t)block);
      free(tmp);
    }
  }
}

static void transport(const options *o, int substeps)
{
  APP_REGION_BEGIN("transport");
  for (int k = 0; k < substeps; k++)
    compute(PARTICLES_PER_RANK * FLOP_PER_PARTICLE_STEP * 1e-9 * o->scale);
  APP_REGION_END("transport");
}

static int substeps_of(const timestep *s) { return (int)ceil(s->dt / PARTRACE_DT); }

/* opt 0/1: one field per Trace step, received after the world barrier, replicated by the
 * systolic loop, then the particles move through that step. */
static void partrace_synchronous(const options *o, const coupling *c, const timestep *sched,
                                 MPI_Comm part_comm, const int *src, int nsrc, double *mine,
                                 double *all, long block)
{
  int prank;
  MPI_Comm_rank(part_comm, &prank);
  for (int step = 0; step < o->steps; step++) {
    APP_REGION_BEGIN("iteration");
    APP_REGION_BEGIN("ReadFieldsFromTrace");
    double t = app_now();
    MPI_Barrier(MPI_COMM_WORLD);
    acc.barrier += app_now() - t;
    t = app_now();
    for (int i = 0; i < nsrc; i++)
      MPI_Recv(mine + i * c->chunk_doubles, (int)c->chunk_doubles, MPI_DOUBLE, src[i],
               TAG_FIELD + step, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    acc.coupling += app_now() - t;
    APP_REGION_END("ReadFieldsFromTrace");
    APP_REGION_BEGIN("replicate");
    t = app_now();
    memcpy(all + prank * block, mine, sizeof(double) * (size_t)block);
    replicate_systolic(all, block, part_comm);
    acc.replicate += app_now() - t;
    APP_REGION_END("replicate");
    transport(o, substeps_of(&sched[step]));
    APP_REGION_END("iteration");
  }
}

/* opt 2: Partrace keeps its own constant steps over the same simulated period and moves
 * the particles in the newest velocity field every Partrace rank has received (the
 * receives are posted up front and only tested, never waited for, until the end). The
 * ranks agree on the newest common field with a small MPI_Allreduce, and replicate it
 * with MPI_Allgather. */
static void partrace_asynchronous(const options *o, const coupling *c, const timestep *sched,
                                  MPI_Comm part_comm, const int *src, int nsrc, double *all,
                                  long block)
{
  double **inbox = malloc(sizeof *inbox * (size_t)o->steps);
  MPI_Request *req = malloc(sizeof *req * (size_t)(o->steps * nsrc));
  for (int s = 0; s < o->steps; s++) {
    inbox[s] = calloc((size_t)block, sizeof(double));
    for (int i = 0; i < nsrc; i++)
      MPI_Irecv(inbox[s] + i * c->chunk_doubles, (int)c->chunk_doubles, MPI_DOUBLE, src[i],
                TAG_FIELD + s, MPI_COMM_WORLD, &req[s * nsrc + i]);
  }
  int total = 0;
  for (int s = 0; s < o->steps; s++)
    total += substeps_of(&sched[s]);
  int arrived = 0, adopted = 0;
  for (int k = 0; k < total; k++) {
    APP_REGION_BEGIN("iteration");
    APP_REGION_BEGIN("ReadFieldsFromTrace");
    double t = app_now();
    int done = 1;
    while (arrived < o->steps && done) {
      MPI_Testall(nsrc, req + arrived * nsrc, &done, MPI_STATUSES_IGNORE);
      if (done)
        arrived++;
    }
    int common = 0;
    MPI_Allreduce(&arrived, &common, 1, MPI_INT, MPI_MIN, part_comm);
    acc.coupling += app_now() - t;
    APP_REGION_END("ReadFieldsFromTrace");
    if (common > adopted) {
      APP_REGION_BEGIN("replicate");
      t = app_now();
      MPI_Allgather(inbox[common - 1], (int)block, MPI_DOUBLE, all, (int)block, MPI_DOUBLE,
                    part_comm);
      acc.replicate += app_now() - t;
      adopted = common;
      APP_REGION_END("replicate");
    }
    transport(o, 1);
    APP_REGION_END("iteration");
  }
  /* fields Trace sent after the last Partrace step still have to be received */
  double t = app_now();
  MPI_Waitall(nsrc * (o->steps - arrived), req + arrived * nsrc, MPI_STATUSES_IGNORE);
  acc.coupling += app_now() - t;
  for (int s = 0; s < o->steps; s++)
    free(inbox[s]);
  free(inbox);
  free(req);
}

static void run_partrace(const options *o, const coupling *c, const timestep *sched,
                         MPI_Comm part_comm)
{
  int prank;
  MPI_Comm_rank(part_comm, &prank);
  long block = c->slots * c->chunk_doubles;
  double *mine = calloc((size_t)block, sizeof(double));
  double *all = calloc((size_t)(block * c->npartrace), sizeof(double));
  int nsrc = 0, *src = malloc(sizeof(int) * (size_t)c->slots);
  for (int t = prank; t < c->ntrace; t += c->npartrace)
    src[nsrc++] = t;
  if (o->opt < 2)
    partrace_synchronous(o, c, sched, part_comm, src, nsrc, mine, all, block);
  else
    partrace_asynchronous(o, c, sched, part_comm, src, nsrc, all, block);
  free(src);
  free(mine);
  free(all);
}

/* ------------------------------------------------------------------ main */

static void report(const options *o, int rank, int is_trace)
{
  /* sums over all ranks, and per submodel (slot 0 Trace, 1 Partrace) */
  enum { N = 8 };
  double mine[3 * N] = {0}, sum[3 * N], wall;
  double v[N] = {acc.total, acc.compute, acc.halo, acc.allreduce, acc.barrier, acc.coupling,
                 acc.replicate, acc.final_sync};
  for (int k = 0; k < N; k++) {
    mine[k] = v[k];
    mine[(is_trace ? 1 : 2) * N + k] = v[k];
  }
  MPI_Reduce(mine, sum, 3 * N, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce(&acc.total, &wall, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank != 0)
    return;
  static const char *names[N] = {"time_s", "compute", "halo", "allreduce", "barrier",
                                 "coupling", "replicate", "final_sync"};
  static const char *groups[3] = {"all", "trace", "partrace"};
  /* fractions of the summed run time of all ranks (how Scalasca reports patterns) */
  double all = sum[0] > 0 ? sum[0] : 1.0;
  printf("metatrace {\"opt\": %d, \"ranks\": %d, \"wall_s\": %.6f, \"mpi_fraction\": %.4f", o->opt,
         o->ntrace + o->npartrace, wall, 1.0 - sum[1] / all);
  for (int g = 0; g < 3; g++) {
    printf(", \"%s\": {\"%s\": %.6f", groups[g], names[0], sum[g * N]);
    for (int k = 1; k < N; k++)
      printf(", \"%s\": %.4f", names[k], sum[g * N + k] / all);
    printf("}");
  }
  printf("}\n");
  fflush(stdout);
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  APP_REGION_BEGIN("main");
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  options o;
  if (!parse(argc, argv, &o)) {
    if (rank == 0)
      usage(argv[0]);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  if (o.ntrace < 0)
    o.ntrace = (2 * size) / 3;
  if (size < 2 || o.ntrace < 1 || o.ntrace >= size ||
      (o.grid[0] > 0 && o.grid[0] * o.grid[1] * o.grid[2] != o.ntrace)) {
    if (rank == 0)
      fprintf(stderr, "metatrace: needs at least 2 ranks, 1 <= --trace < ranks and a --grid "
                      "with --trace cells\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  o.npartrace = size - o.ntrace;
  coupling c;
  c.ntrace = o.ntrace;
  c.npartrace = size - o.ntrace;
  c.slots = (c.ntrace + c.npartrace - 1) / c.npartrace;
  {
    int dims[3];
    process_grid(c.ntrace, &o, dims);
    long cells = 1;
    for (int d = 0; d < 3; d++)
      cells *= GLOBAL_CELLS[d] / dims[d] > 0 ? GLOBAL_CELLS[d] / dims[d] : 1;
    c.chunk_doubles = cells * FIELD_DOUBLES_PER_CELL;
  }
  timestep *sched = make_schedule(&o);
  int is_trace = rank < o.ntrace;
  MPI_Comm sub;
  MPI_Comm_split(MPI_COMM_WORLD, is_trace ? 0 : 1, rank, &sub);

  MPI_Barrier(MPI_COMM_WORLD);
  double start = app_now();
  if (is_trace)
    run_trace(&o, &c, sched, sub);
  else
    run_partrace(&o, &c, sched, sub);
  /* results are written together at the end */
  double t = app_now();
  MPI_Barrier(MPI_COMM_WORLD);
  acc.final_sync = app_now() - t;
  acc.total = app_now() - start;
  report(&o, rank, is_trace);
  MPI_Comm_free(&sub);
  free(sched);
  APP_REGION_END("main");
  MPI_Finalize();
  return 0;
}
