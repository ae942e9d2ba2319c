"""Metahost map files: ``{"<metahost>": ["<selector>", ...]}``.

A selector is a hostname glob (``"jsc-*"``) or a range of MPI_COMM_WORLD ranks
(``"rank:0-3"``, ``"rank:5"``). The collector (C) resolves the same format at run time;
this module validates maps before a launch and resolves them for traces Score-P recorded.
The first metahost (in file order) whose selectors match a rank wins.
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

from gridscope.errors import GridscopeError

_RANK_SELECTOR = re.compile(r"^rank:(\d+)(?:-(\d+))?$")


@dataclass(frozen=True)
class Selector:
    """One entry of a metahost's list: a rank range or a hostname glob."""

    text: str
    first_rank: int | None = None
    last_rank: int | None = None

    @property
    def is_rank_range(self) -> bool:
        return self.first_rank is not None

    def matches(self, rank: int, hostname: str) -> bool:
        if self.is_rank_range:
            return self.first_rank <= rank <= self.last_rank
        return fnmatch.fnmatchcase(hostname, self.text)


@dataclass(frozen=True)
class MetahostMap:
    """Metahost names in file order, each with its selectors."""

    entries: tuple[tuple[str, tuple[Selector, ...]], ...]
    source: str = "<map>"

    @property
    def names(self) -> list[str]:
        return [name for name, _ in self.entries]

    def resolve(self, rank: int, hostname: str) -> str | None:
        for name, selectors in self.entries:
            if any(s.matches(rank, hostname) for s in selectors):
                return name
        return None

    def resolve_all(self, hostnames: list[str]) -> list[str]:
        """Metahost of every rank (index = rank); one clear error if a rank matches nothing."""
        result = []
        for rank, host in enumerate(hostnames):
            name = self.resolve(rank, host)
            if name is None:
                raise GridscopeError(
                    self.source, f"no metahost matches rank {rank} on host '{host}'"
                )
            result.append(name)
        return result


def parse_selector(text: object, source: str) -> Selector:
    if not isinstance(text, str) or not text:
        raise GridscopeError(source, f"selector {text!r} is not a non-empty string")
    if text.startswith("rank:"):
        match = _RANK_SELECTOR.match(text)
        if not match:
            raise GridscopeError(source, f"bad rank selector '{text}' (want rank:LO-HI)")
        first = int(match.group(1))
        last = int(match.group(2)) if match.group(2) is not None else first
        if last < first:
            raise GridscopeError(source, f"empty rank range '{text}'")
        return Selector(text, first, last)
    return Selector(text)


def parse_map(data: object, source: str = "<map>") -> MetahostMap:
    if not isinstance(data, dict) or not data:
        raise GridscopeError(source, "a metahost map is a non-empty JSON object")
    entries = []
    for name, selectors in data.items():
        if not name or "/" in name:
            raise GridscopeError(source, f"bad metahost name {name!r}")
        if isinstance(selectors, str):
            selectors = [selectors]
        if not isinstance(selectors, list) or not selectors:
            raise GridscopeError(source, f"metahost '{name}' needs a list of selectors")
        entries.append((name, tuple(parse_selector(s, source) for s in selectors)))
    return MetahostMap(tuple(entries), source)


def load_map(path: str | os.PathLike) -> MetahostMap:
    """Read and validate a map file; every problem is one GridscopeError naming the file."""
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as err:
        raise GridscopeError(path, f"cannot read metahost map: {err.strerror}") from None
    except UnicodeDecodeError as err:
        raise GridscopeError(path, f"metahost map is not UTF-8 text (byte {err.object[err.start]:#04x} "
                                   f"at offset {err.start})") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise GridscopeError(path, f"not valid JSON: {err.msg} at line {err.lineno}") from None
    return parse_map(data, str(path))
