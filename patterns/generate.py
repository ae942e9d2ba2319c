#!/usr/bin/env python3
"""Generate the engine registry, the Python metric tree and docs/patterns.md from
patterns/patterns.toml (the one place the patterns are declared).

    python patterns/generate.py          # write the generated files
    python patterns/generate.py --check  # exit 1 if any generated file is stale
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SOURCE = REPO / "patterns" / "patterns.toml"
OUT_HPP = REPO / "analyzer" / "generated" / "gs_patterns.hpp"
OUT_DISPATCH = REPO / "analyzer" / "generated" / "gs_pattern_dispatch.hpp"
OUT_PY = REPO / "src" / "gridscope" / "analysis" / "metric_tree.py"
OUT_MD = REPO / "docs" / "patterns.md"

KINDS = ("base", "group", "pattern", "delay", "waitclass", "path", "derived")
# measured by the engine (besides the base metrics other than derived `mpi`)
ENGINE_KINDS = ("pattern", "delay", "waitclass", "path")
UNITS = ("sec", "occ", "bytes")
FIELDS = ("id", "parent", "kind", "display", "unit", "description", "diagnosis")
COLL_CLASSES = ("Barrier", "OneToN", "NToOne", "NxN", "Prefix", "Init", "Finalize")  # gs::CollClass (mpi_names.hpp)
WAIT_CLASSES = ("direct", "indirect", "propagating", "terminal")  # wait-state classes (root causes)
TERMS = ("short", "long")


def load_rules(path: Path = SOURCE) -> list[str]:
    """The shared definitions of the non-blocking collective patterns (docs only)."""
    return list(tomllib.loads(path.read_text()).get("nonblocking_rules", []))


def load(path: Path = SOURCE) -> list[dict]:
    metrics = tomllib.loads(path.read_text())["metric"]
    seen: set[str] = set()
    for m in metrics:
        for field in FIELDS:
            if field not in m:
                raise SystemExit(f"{path}: metric {m.get('id', '?')} lacks '{field}'")
        if m["kind"] not in KINDS or m["unit"] not in UNITS:
            raise SystemExit(f"{path}: metric {m['id']}: bad kind or unit")
        if m["parent"] and m["parent"] not in seen:
            raise SystemExit(f"{path}: metric {m['id']}: parent {m['parent']} must come first")
        if m["id"] in seen:
            raise SystemExit(f"{path}: duplicate metric {m['id']}")
        m.setdefault("grid_split", False)
        if "collective" in m and (m["kind"] != "pattern" or m["collective"] not in COLL_CLASSES):
            raise SystemExit(f"{path}: metric {m['id']}: collective must be one of {COLL_CLASSES} on a pattern")
        seen.add(m["id"])
    dispatch(metrics, path)  # checks the root-cause declarations hang together
    return metrics


def camel(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("_")) if name else "None"


def dispatch(metrics: list[dict], path: Path = SOURCE) -> dict:
    """The engine's dispatch tables from the declaration: collective patterns, the formulas
    and delayers they name, delay groups (in the order of their delay metrics) with their
    short/long metrics, and the wait-class metric per class and group."""
    colls = [m for m in metrics if "collective" in m]
    formulas = sorted({m[k] for m in colls for k in ("formula", "nonblocking_formula") if m.get(k)})
    delayers = sorted({m[k] for m in colls for k in ("delayer", "nonblocking_delayer") if m.get(k)})
    groups: list[str] = []
    delay: dict[tuple[str, str], str] = {}
    for m in metrics:
        if m["kind"] == "delay":
            if m.get("term") not in TERMS or not m.get("delay_group"):
                raise SystemExit(f"{path}: delay metric {m['id']} needs delay_group and term ({TERMS})")
            if m["delay_group"] not in groups:
                groups.append(m["delay_group"])
            delay[m["delay_group"], m["term"]] = m["id"]
    wait_metric = {(m["wait_class"], m["wait_family"]): m["id"] for m in metrics if m["kind"] == "waitclass"}
    family: dict[str, str] = {}
    for m in metrics:
        if m["kind"] != "pattern" or "delay_group" not in m:
            continue
        g, fam = m["delay_group"], m.get("wait_family", "")
        if g not in groups or any((g, t) not in delay for t in TERMS):
            raise SystemExit(f"{path}: pattern {m['id']}: delay group {g} has no short and long delay metrics")
        if any((c, fam) not in wait_metric for c in WAIT_CLASSES):
            raise SystemExit(f"{path}: pattern {m['id']}: wait_family {fam!r} lacks wait-class metrics")
        if family.setdefault(g, fam) != fam:
            raise SystemExit(f"{path}: delay group {g}: its patterns name different wait families")
    for g in groups:
        if g not in family:
            raise SystemExit(f"{path}: delay group {g}: no pattern names it")
    return {"colls": colls, "formulas": formulas, "delayers": delayers, "groups": groups,
            "delay": delay, "family": family, "wait_metric": wait_metric}


def stamp(comment: str, text: str) -> str:
    digest = hashlib.sha256(SOURCE.read_bytes()).hexdigest()[:16]
    return (f"{comment} GENERATED by patterns/generate.py from patterns/patterns.toml "
            f"(sha256 {digest}); do not edit.\n") + text


def engine_metrics(metrics: list[dict]) -> list[dict]:
    """Metrics the engine measures itself: base metrics other than derived `mpi`, patterns,
    root-cause metrics."""
    return [m for m in metrics if m["kind"] in ENGINE_KINDS or (m["kind"] == "base" and m["id"] != "mpi")]


def gen_hpp(metrics: list[dict]) -> str:
    engine = engine_metrics(metrics)
    lines = ["#pragma once", "#include <cstdint>", "", '#include "gridscope/trace/mpi_names.hpp"', "",
             "namespace gs {", "",
             "// Metric ids as written in the engine's severity files.",
             "enum MetricId : uint16_t {"]
    lines += [f"  M_{m['id'].upper()} = {i}," for i, m in enumerate(engine)]
    lines += [f"  M_COUNT = {len(engine)}", "};", "",
              "inline const char* const kMetricNames[M_COUNT] = {"]
    lines += [f"  \"{m['id']}\"," for m in engine]
    lines += ["};", "", "inline constexpr bool kMetricIsPattern[M_COUNT] = {"]
    lines += [f"  {'true' if m['kind'] == 'pattern' else 'false'}," for m in engine]
    lines += ["};", ""]
    lines += dispatch_hpp(metrics)
    lines += ["}  // namespace gs", ""]
    return stamp("//", "\n".join(lines))


def dispatch_hpp(metrics: list[dict]) -> list[str]:
    t = dispatch(metrics)
    up = lambda mid: f"M_{mid.upper()}"  # noqa: E731
    lines = ["// Collective patterns: the engine measures each on every complete instance of its class,",
             "// with the formula and delayer named here (implemented in analyzer/src/pattern_math.hpp).",
             "enum class CollFormula : uint8_t { None, " + ", ".join(camel(f) for f in t["formulas"]) + " };",
             "enum class CollDelayer : uint8_t { None, " + ", ".join(camel(d) for d in t["delayers"]) + " };",
             "struct CollPattern {",
             "  CollClass cls;",
             "  MetricId metric;",
             "  CollFormula formula, nonblocking_formula;  // None: not measured on such instances",
             "  CollDelayer delayer, nonblocking_delayer;  // None: no delayer (no delay analysis)",
             "  bool completion;                           // measured at the end of the call",
             "};",
             "inline constexpr CollPattern kCollPatterns[] = {"]
    for m in t["colls"]:
        lines.append(f"  {{CollClass::{m['collective']}, {up(m['id'])}, CollFormula::{camel(m.get('formula', ''))}, "
                     f"CollFormula::{camel(m.get('nonblocking_formula', ''))}, CollDelayer::{camel(m.get('delayer', ''))}, "
                     f"CollDelayer::{camel(m.get('nonblocking_delayer', ''))}, {str(m.get('completion', False)).lower()}}},")
    groups = t["groups"]
    lines += ["};", "",
              "// Root causes: wait states whose delays are costed together (-1: no delay analysis),",
              "// their short- and long-term delay metrics, and the wait-class metric per class",
              "// (direct, indirect, propagating, terminal) and group.",
              f"inline constexpr int kDelayGroups = {len(groups)};",
              "inline constexpr int8_t kDelayGroupOf[M_COUNT] = {"]
    for m in engine_metrics(metrics):
        g = m.get("delay_group") if m["kind"] == "pattern" else None
        lines.append(f"  {groups.index(g) if g else -1},  // {m['id']}")
    lines += ["};"]
    for term in TERMS:
        lines.append(f"inline constexpr MetricId kDelay{term.capitalize()}[kDelayGroups] = {{"
                     + ", ".join(up(t["delay"][g, term]) for g in groups) + "};")
    lines.append(f"inline constexpr MetricId kWaitClassMetric[{len(WAIT_CLASSES)}][kDelayGroups] = {{")
    for c in WAIT_CLASSES:
        lines.append("  {" + ", ".join(up(t["wait_metric"][c, t["family"][g]]) for g in groups) + f"}},  // {c}")
    lines += ["};", ""]
    return lines


def gen_dispatch(metrics: list[dict]) -> str:
    """Formula and delayer by name: each is the function of that name in
    analyzer/src/pattern_math.hpp, called on one instance's members (blocking: CollMember,
    non-blocking: NbcMember)."""
    t = dispatch(metrics)
    lines = ["#pragma once", "#include <cstdint>", "#include <vector>", "", '#include "gs_patterns.hpp"',
             '#include "pattern_math.hpp"', "", "namespace gs {", ""]
    for kind, key, member in (("blocking", "", "CollMember"), ("nonblocking", "nonblocking_", "NbcMember")):
        formulas = sorted({m[key + "formula"] for m in t["colls"] if m.get(key + "formula")})
        delayers = sorted({m[key + "delayer"] for m in t["colls"] if m.get(key + "delayer")})
        lines += [f"// The {kind} instance's waiting times by member (empty: not measured there).",
                  f"inline std::vector<int64_t> {kind}_formula(CollFormula f, const std::vector<{member}>& m) {{",
                  "  switch (f) {"]
        lines += [f"    case CollFormula::{camel(f)}: return {f}(m);" for f in formulas]
        lines += ["    default: return {};", "  }", "}",
                  f"// The member the {kind} instance's waits are charged to (-1: none).",
                  f"inline int {kind}_delayer(CollDelayer d, const std::vector<{member}>& m) {{",
                  "  switch (d) {"]
        lines += [f"    case CollDelayer::{camel(d)}: return {d}(m);" for d in delayers]
        lines += ["    default: return -1;", "  }", "}", ""]
    lines += ["}  // namespace gs", ""]
    return stamp("//", "\n".join(lines))


def gen_py(metrics: list[dict]) -> str:
    engine = engine_metrics(metrics)
    body = ['"""Metric tree of the analysis (patterns/patterns.toml)."""', "",
            "from __future__ import annotations", "",
            "from dataclasses import dataclass", "", "",
            "@dataclass(frozen=True)", "class MetricDecl:",
            "    id: str", "    parent: str", "    kind: str", "    display: str",
            "    unit: str", "    description: str", "    diagnosis: str", "    grid_split: bool",
            "", "",
            "METRICS: tuple[MetricDecl, ...] = ("]
    for m in metrics:
        body.append(
            f"    MetricDecl({m['id']!r}, {m['parent']!r}, {m['kind']!r}, {m['display']!r}, "
            f"{m['unit']!r},\n               {m['description']!r},\n"
            f"               {m['diagnosis']!r}, {m['grid_split']!r}),")
    body += [")", "",
             "# Engine metric ids (index = id in the engine's severity files).",
             "ENGINE_METRICS: tuple[str, ...] = (" + "".join(f"{m['id']!r}, " for m in engine) + ")",
             "PATTERNS: tuple[str, ...] = ("
             + "".join(f"{m['id']!r}, " for m in metrics if m["kind"] == "pattern") + ")",
             "# The wait states a delay can cause (docs/root-causes.md, \"Wait of a call\").",
             "DELAY_PATTERNS: tuple[str, ...] = ("
             + "".join(f"{m['id']!r}, " for m in metrics if m["kind"] == "pattern" and "delay_group" in m) + ")",
             "# The waiting the critical path's activities leave out of a call's time (Scalasca's).",
             "PATH_WAIT_PATTERNS: tuple[str, ...] = ("
             + "".join(f"{m['id']!r}, " for m in metrics
                       if m["kind"] == "pattern" and ("delay_group" in m or m.get("path_wait"))) + ")",
             ""]
    return stamp("#", "\n".join(body))


RECIPE = [
    "A wait-state pattern on an existing operation class (Barrier, NxN, OneToN, NToOne, Prefix, "
    "Init, Finalize) takes three hand-written files; the engine, the Cube metric tree, summary.json, "
    "the viewer and this page follow from the declaration:",
    "",
    "1. `patterns/patterns.toml`: a `[[metric]]` entry (`kind = \"pattern\"`, its parent, display name, "
    "description, diagnosis) with `collective` = the class, `formula` (and `nonblocking_formula` if "
    "non-blocking instances have it) naming its function, `delayer` naming the member its waits are "
    "charged to (`\"\"`: none), `completion = true` if it is measured at the end of the call, and "
    "`delay_group`/`wait_family` if root-cause analysis covers it.",
    "2. `analyzer/src/pattern_math.hpp`: the formula, a pure function of the instance's members "
    "(`std::vector<int64_t> name(const std::vector<CollMember>&)`), unless an existing one fits.",
    "3. `tests/analyzer/specs/<name>.spec`: a tiny trace whose comments derive every value by hand, "
    "with `# expect <pattern> grid=<us> local=<us>` lines; `test_golden_patterns.py` runs every spec "
    "with such lines at -j 1 and -j 2 and checks each pattern against them (and all others are 0).",
    "",
    "Then `python patterns/generate.py` writes `gs_patterns.hpp` (metric ids, the table "
    "`kCollPatterns` the engine iterates, delay groups), `gs_pattern_dispatch.hpp` (formula and "
    "delayer by name), `metric_tree.py` and this page; `tests/analyzer/test_generated.py` fails "
    "while they are stale. Done this way for Init Completion and Wait at Finalize (2026-11-28): "
    "`patterns.toml`, `pattern_math.hpp` (`completion_after_latest_begin`), `specs/world_sync.spec`. "
    "What an operation class is (which members synchronise with which, its logical messages for "
    "`--time-correct`) stays code: a new class needs the reader to record it and the replay to "
    "form its instances (`replay_collectives.cpp`, `replay_world.cpp`).",
]


def gen_md(metrics: list[dict], rules: list[str]) -> str:
    children: dict[str, list[dict]] = {}
    for m in metrics:
        children.setdefault(m["parent"], []).append(m)
    out = ["# Metrics and wait-state patterns", "",
           "The analysis measures these metrics. Patterns with a grid split show two children "
           "in the Cube file and in summary.json: `grid` (the message crossed metahosts, or the "
           "collective's communicator spans more than one metahost) and `local`.", "",
           "## Tree", ""]

    def walk(parent: str, depth: int) -> None:
        for m in children.get(parent, []):
            split = " (grid / local)" if m["grid_split"] else ""
            out.append(f"{'  ' * depth}- **{m['display']}** `{m['id']}` [{m['unit']}]{split}")
            walk(m["id"], depth + 1)

    walk("", 0)
    if rules:
        out += ["", "## Non-blocking collectives", ""] + [f"- {rule}" for rule in rules]
    out += ["", "## Adding a pattern", ""] + RECIPE
    out += ["", "## Reference", ""]
    for m in metrics:
        out += [f"### {m['display']} (`{m['id']}`)", "",
                f"- kind: {m['kind']}; unit: {m['unit']}; parent: `{m['parent'] or '-'}`; "
                f"grid split: {'yes' if m['grid_split'] else 'no'}",
                f"- what: {m['description']}", f"- diagnosis: {m['diagnosis']}"]
        if "nonblocking" in m:
            out.append(f"- non-blocking collectives: {m['nonblocking']}")
        out.append("")
    return stamp("<!--", "\n".join(out)).replace("do not edit.\n", "do not edit. -->\n", 1)


def outputs() -> dict[Path, str]:
    metrics = load()
    return {OUT_HPP: gen_hpp(metrics), OUT_DISPATCH: gen_dispatch(metrics), OUT_PY: gen_py(metrics),
            OUT_MD: gen_md(metrics, load_rules())}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--check", action="store_true", help="fail if a generated file is stale")
    args = parser.parse_args()
    stale = []
    for path, text in outputs().items():
        current = path.read_text() if path.exists() else None
        if current != text:
            if args.check:
                stale.append(path)
            else:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text)
    if stale:
        print("stale generated files (run python patterns/generate.py): "
              + ", ".join(str(p.relative_to(REPO)) for p in stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
