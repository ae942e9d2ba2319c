"""Output failures: one line, exit 2, nothing left behind (docs/analyzer.md, "Output failures").

A command that writes to `-o OUT` (analyze, diff, report, export, predict, merge, platform)
runs inside `removed_on_failure(OUT)`: whatever it created there -- OUT itself, or the
outermost missing folder above it -- is removed again when it fails, is interrupted or
is terminated; in an existing folder OUT, what the run added to it is removed (files it
had stay). An OSError (read-only or full file system, file-size limit, a path that
cannot be created) becomes one line naming the file.
"""

from __future__ import annotations

import errno
import os
import shutil
from contextlib import contextmanager
from pathlib import Path

from gridscope.errors import GridscopeError

# The commands whose -o output is theirs alone to remove on failure. Not `record`: a
# failed or killed run's trace is what it leaves to analyse.
GUARDED = frozenset({"analyze", "diff", "report", "export", "predict", "merge", "platform"})
_OUTPUT_FLAGS = ("-o", "--output", "--out")
# errors that only writing gives: whatever file they name, the output is what failed
_WRITING = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EROFS})


def output_of(argv: list[str]) -> Path | None:
    """The -o/--output/--out path of a guarded command line, else None."""
    words = [w for w in argv if not w.startswith("-")]
    if not words or words[0] not in GUARDED:
        return None
    for i, word in enumerate(argv):
        if word in _OUTPUT_FLAGS and i + 1 < len(argv):
            return Path(argv[i + 1])
        for flag in _OUTPUT_FLAGS[1:]:
            if word.startswith(flag + "="):
                return Path(word[len(flag) + 1:])
    return None


def _created_by_us(out: Path) -> Path | None:
    """The outermost of OUT and its parents that does not exist yet (what a run creates)."""
    created = None
    for folder in (out, *out.parents):
        if os.path.lexists(folder):
            break
        created = folder
    return created


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        try:
            path.unlink()
        except OSError:
            pass


@contextmanager
def removed_on_failure(out: Path | None):
    """Removes what the block created at OUT when it ends by an exception (SystemExit 0 is
    success: the command line's normal end)."""
    out = Path(out).absolute() if out is not None else None
    created = _created_by_us(out) if out is not None else None
    # an existing folder: what the run adds to it goes again (what it had stays)
    before = set(os.listdir(out)) if created is None and out is not None and out.is_dir() else None

    def undo() -> None:
        if created is not None:
            _remove(created)
        elif before is not None and out.is_dir():
            for name in set(os.listdir(out)) - before:
                _remove(out / name)

    try:
        yield
    except SystemExit as end:
        if end.code not in (0, None):
            undo()
        raise
    except BaseException:
        undo()
        raise


def os_error(err: OSError, out: Path | None) -> GridscopeError:
    """One line for an OSError: the file it names, else the command's output."""
    where = err.filename if err.filename is not None else out
    problem = err.strerror or str(err) or type(err).__name__
    if err.errno in _WRITING and out is not None:  # e.g. shutil's copy names its source
        return GridscopeError(out, f"cannot write the output: {problem}")
    if out is not None and (err.filename is None or _inside(Path(os.fsdecode(err.filename)), Path(out))):
        problem = f"cannot write the output: {problem}"
    return GridscopeError(where, problem)


def _inside(path: Path, out: Path) -> bool:
    """Whether PATH is OUT, below it, or one of the folders it would be created in."""
    path, out = path.absolute(), out.absolute()
    return path == out or out in path.parents or path in out.parents
