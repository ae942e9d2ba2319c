"""Names shared by the analysis modules: files of an analysis folder, column names, classes."""

from __future__ import annotations

PROFILE_FILE = "profile.cubex"
SUMMARY_FILE = "summary.json"
WAITSTATES_FILE = "waitstates.feather"
# The critical path's covered pieces on the timeline (critical_path_pieces), when the engine gave them.
CRITICAL_PATH_FILE = "critical_path.feather"
# What analysis folders held before the Feather file; still read (waitstates.read_waitstates).
LEGACY_WAITSTATES_FILE = "waitstates.parquet"
ENGINE_DIR = ".engine"          # scratch folder for the engine's raw output
ENGINE_BINARY = "gridscope-replay"
ENGINE_DONE = "gridscope-replay: output written"  # the engine's stdout line once all is on disk
# Its line once the wait states are written, before its root-cause pass: each process P's rows
# per phase are then in WAIT_ROWS_FILE, its call paths in callpaths.P.tsv (engine_files.read_wait_head).
ENGINE_WAITS_WRITTEN = "gridscope-replay: wait states written"
WAIT_ROWS_FILE = "waits.{process}.rows.json"
# A lone engine process's line each time it has flushed its wait-state rows: this prefix, then
# how many are on disk (0 at first, once its call paths are written); they are then in the
# canonical order, so the driver converts them as they come (engine.RowsOnDisk).
ENGINE_WAIT_ROWS = "gridscope-replay: wait rows "
# Rows per record batch of the wait-state file (engine_waits): ~2.5 MB of columns per batch,
# as many rows as pyarrow.feather.write_feather puts in one (docs/perf-analyzer.md).
WAIT_BATCH_ROWS = 1 << 16

GRID = "grid"
LOCAL = "local"
CLASSES = (GRID, LOCAL)
# Engine class codes (records.hpp: CLS_LOCAL, CLS_GRID, CLS_NONE).
CLASS_BY_CODE = {0: LOCAL, 1: GRID, 2: ""}

# Columns
METRIC = "metric"
PATTERN = "pattern"
CLASS = "class"
CALLPATH = "callpath"
RANK = "rank"
METAHOST = "metahost"
NODE = "node"
VALUE = "value"
START_S = "start_s"
END_S = "end_s"
SEVERITY_S = "severity_s"

WAITSTATE_COLUMNS = (PATTERN, CLASS, RANK, START_S, END_S, SEVERITY_S, CALLPATH)
SEVERITY_COLUMNS = (METRIC, CLASS, CALLPATH, RANK, VALUE)

# Root causes (docs/root-causes.md): summary.json keys and the columns of their rows
ROOT_CAUSES = "root_causes"
# Whose rules where gridscope and Scalasca's scout differ on purpose (docs/root-causes.md,
# "Rules: scalasca or gridscope"); the engine's --rules and meta.json's "rules"
RULES_SCALASCA = "scalasca"
RULES_GRIDSCOPE = "gridscope"
RULES = (RULES_SCALASCA, RULES_GRIDSCOPE)
CRITICAL_PATH = "critical_path"
WAIT_CLASSES = "wait_classes"
CAUSE_PAIRS = "cause_pairs"
ROOT_CAUSE_ANALYSIS = "root_cause_analysis"  # the engine's meta.json "root_causes" block ("enabled", ...)
KIND = "kind"                  # what the cause is: CAUSE_KINDS
SHORT_TERM_S = "short_term_s"
LONG_TERM_S = "long_term_s"
TOTAL_S = "total_s"
WAITING_S = "waiting_s"        # root_causes: a cause's seconds per metahost of the waiting ranks
SECONDS = "seconds"
IMBALANCE_S = "imbalance_s"
CAUSE = "cause"                # cause_pairs: metahost of the delaying ranks
WAITING = "waiting"            # cause_pairs: metahost of the waiting ranks
COMPUTATION = "computation"
COMMUNICATION = "communication"
WAN = "wan"
CAUSE_KINDS = (COMPUTATION, COMMUNICATION, WAN)  # engine kind codes 0, 1, 2
DIRECT = "direct"
INDIRECT = "indirect"
PROPAGATING = "propagating"
TERMINAL = "terminal"
WAIT_CLASS_NAMES = (DIRECT, INDIRECT, PROPAGATING, TERMINAL)
ROOT_CAUSE_COLUMNS = (CALLPATH, METAHOST, KIND, PATTERN, CLASS, SHORT_TERM_S, LONG_TERM_S, TOTAL_S)
CRITICAL_PATH_COLUMNS = (CALLPATH, METAHOST, SECONDS, IMBALANCE_S)
CAUSE_PAIR_COLUMNS = (CAUSE, WAITING, SHORT_TERM_S, LONG_TERM_S)
CRITICAL_PIECE_COLUMNS = (RANK, START_S, END_S)  # stretches of the critical path on one rank

# Engine base metrics (patterns/patterns.toml)
TIME = "time"
MPI = "mpi"
VISITS = "visits"
BYTES_SENT = "bytes_sent"
BYTES_RECEIVED = "bytes_received"
# one-sided and MPI-IO bytes, named as in Score-P's profile
BYTES_PUT = "bytes_put"
BYTES_GET = "bytes_get"
IO_BYTES_READ = "io_bytes_read"
IO_BYTES_WRITTEN = "io_bytes_written"
TRANSFER_BYTES = (BYTES_PUT, BYTES_GET, IO_BYTES_READ, IO_BYTES_WRITTEN)
TRANSFERS = "transfers"        # summary.json: those bytes, when the trace has any
BYTES = "bytes"
