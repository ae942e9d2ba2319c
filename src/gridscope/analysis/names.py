"""Names shared by the analysis modules: files of an analysis folder, column names, classes."""

from __future__ import annotations

PROFILE_FILE = "profile.cubex"
SUMMARY_FILE = "summary.json"
WAITSTATES_FILE = "waitstates.feather"
# What analysis folders held before the Feather file; still read (waitstates.read_waitstates).
LEGACY_WAITSTATES_FILE = "waitstates.parquet"
ENGINE_DIR = ".engine"          # scratch folder for the engine's raw output
ENGINE_BINARY = "gridscope-replay"
ENGINE_DONE = "gridscope-replay: output written"  # the engine's stdout line once all is on disk
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

# Engine base metrics (patterns/patterns.toml)
TIME = "time"
MPI = "mpi"
VISITS = "visits"
BYTES_SENT = "bytes_sent"
BYTES_RECEIVED = "bytes_received"
