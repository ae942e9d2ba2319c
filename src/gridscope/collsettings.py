"""The collectives library's settings (GRIDSCOPE_COLL* environment variables).

They are declared once, in collectives/settings.toml (installed as
share/collectives/settings.toml). This module reads that declaration and renders it: the
C table the library validates with (collectives/tools/gen_settings.py writes it), the
table in docs/collectives.md, and the listing of `gridscope collectives --settings`.
Standard library only: the generator runs it at build time from the source tree.
"""

from __future__ import annotations

import textwrap
import tomllib
from dataclasses import dataclass
from pathlib import Path

from gridscope.errors import GridscopeError

TYPES = ("choice", "algorithm", "integer", "path")
PREFIX = "GRIDSCOPE_COLL"
INT64_MAX = 2**63 - 1


@dataclass(frozen=True)
class Setting:
    name: str
    type: str
    default: str  # as text; "" = unset
    meaning: str
    choices: tuple[str, ...] = ()
    op: str = ""
    minimum: int = 0
    maximum: int = 0
    unit: str = ""
    fallback: str = ""  # what a bad value becomes ("" = the default)

    @property
    def ident(self) -> str:
        """The C enum name: GSC_SET_ + the name after GRIDSCOPE_COLL_ (MODE for GRIDSCOPE_COLL)."""
        return "GSC_SET_" + (self.name[len(PREFIX) + 1:] if self.name != PREFIX else "MODE")

    @property
    def allowed(self) -> str:
        """What a value may be, in words (the warning, the docs and the listing say this)."""
        if self.type in ("choice", "algorithm"):
            return "one of " + ", ".join(self.choices)
        if self.type == "integer":
            return f"a whole number of {self.unit} from {self.minimum} to {self.maximum}"
        return "a file name"

    @property
    def default_text(self) -> str:
        return self.default if self.default != "" else "unset"

    @property
    def on_bad(self) -> str:
        """What the library does with a bad value."""
        if self.fallback:
            return f"using {self.fallback}"
        return f"using the default ({self.default_text})"


def _bad(path: Path, index: int, what: str) -> GridscopeError:
    return GridscopeError(path, f"setting #{index + 1}: {what}")


def _setting(path: Path, index: int, raw: dict) -> Setting:
    known = {"name", "type", "default", "meaning", "choices", "op", "min", "max", "unit", "fallback"}
    extra = sorted(set(raw) - known)
    if extra:
        raise _bad(path, index, f"unknown field {extra[0]!r}")
    for field in ("name", "type", "default", "meaning"):
        if field not in raw:
            raise _bad(path, index, f"no {field!r}")
    name, kind = raw["name"], raw["type"]
    if not isinstance(name, str) or not (name == PREFIX or name.startswith(PREFIX + "_")):
        raise _bad(path, index, f"name {name!r} does not start with {PREFIX}")
    if kind not in TYPES:
        raise _bad(path, index, f"{name}: type {kind!r} is not one of {', '.join(TYPES)}")
    default = raw["default"]
    s = dict(name=name, type=kind, meaning=str(raw["meaning"]), fallback=str(raw.get("fallback", "")))
    if kind in ("choice", "algorithm"):
        choices = raw.get("choices")
        if not choices or not all(isinstance(c, str) and c for c in choices):
            raise _bad(path, index, f"{name}: want a list of choices")
        if kind == "algorithm" and not raw.get("op"):
            raise _bad(path, index, f"{name}: an algorithm setting names its op")
        for what, value in (("default", default), ("fallback", s["fallback"])):
            if value != "" and value not in choices:
                raise _bad(path, index, f"{name}: {what} {value!r} is not one of the choices")
        s.update(choices=tuple(choices), op=str(raw.get("op", "")), default=str(default))
    elif kind == "integer":
        lo, hi, unit = raw.get("min"), raw.get("max"), raw.get("unit")
        if not (isinstance(lo, int) and isinstance(hi, int) and 0 <= lo <= hi <= INT64_MAX and unit):
            raise _bad(path, index, f"{name}: an integer setting has min <= max (0 to 2^63-1) and a unit")
        if default != "" and not (isinstance(default, int) and lo <= default <= hi):
            raise _bad(path, index, f"{name}: default {default!r} is not in {lo}..{hi}")
        s.update(minimum=lo, maximum=hi, unit=str(unit), default=str(default))
    else:
        if default != "":
            raise _bad(path, index, f"{name}: a path setting has no default")
        s.update(default="")
    return Setting(**s)


def load(path: Path) -> list[Setting]:
    """The settings declared in `path`, in file order; a bad declaration is one GridscopeError."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as err:
        raise GridscopeError(path, f"cannot read the settings declaration: {err.strerror}") from None
    except tomllib.TOMLDecodeError as err:
        raise GridscopeError(path, f"not TOML: {err}") from None
    rows = data.get("setting")
    if not isinstance(rows, list) or not rows:
        raise GridscopeError(path, "no [[setting]] tables")
    out = [_setting(path, i, row) for i, row in enumerate(rows)]
    names = [s.name for s in out]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise GridscopeError(path, f"{dup[0]} is declared twice")
    return out


# ---------------------------------------------------------------- renderings

def _c_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def c_ids(settings: list[Setting], banner: str) -> str:
    lines = [banner, "#ifndef GS_COLL_SETTINGS_IDS_H", "#define GS_COLL_SETTINGS_IDS_H", "",
             "typedef enum {"]
    lines += [f"    {s.ident}, /* {s.name} */" for s in settings]
    lines += ["    GSC_NSETTINGS", "} gsc_setting_id;", "", "#endif", ""]
    return "\n".join(lines)


def c_table(settings: list[Setting], banner: str) -> str:
    lines = [banner, '#include "settings.h"', ""]
    for s in settings:
        if s.choices:
            items = ", ".join(_c_string(c) for c in s.choices)
            lines.append(f"static const char *const choices_{s.ident}[] = {{{items}, NULL}};")
    lines += ["", "const gsc_setting_decl_t gsc_setting_decls[GSC_NSETTINGS] = {"]
    for s in settings:
        choices = f"choices_{s.ident}" if s.choices else "NULL"
        lines += [
            f"    [{s.ident}] = {{{_c_string(s.name)}, GSC_TYPE_{s.type.upper()}, "
            f"{_c_string(s.default)}, {_c_string(s.fallback)},",
            f"        {s.minimum}LL, {s.maximum}LL, {choices}, {_c_string(s.op)},",
            f"        {_c_string(s.allowed)}}},",
        ]
    lines += ["};", ""]
    return "\n".join(lines)


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def markdown(settings: list[Setting]) -> str:
    rows = ["| variable | type | default | allowed | meaning |", "|---|---|---|---|---|"]
    for s in settings:
        rows.append(f"| `{s.name}` | {s.type} | `{s.default_text}` | {_cell(s.allowed)} "
                    f"| {_cell(s.meaning)} |")
    return "\n".join(rows) + "\n"


def listing(settings: list[Setting]) -> str:
    """Plain text for a terminal: one block per setting."""
    out = []
    for s in settings:
        out.append(f"{s.name}  ({s.type}, default: {s.default_text})")
        out.append(textwrap.fill(f"allowed: {s.allowed}; a bad value: warning, {s.on_bad}",
                                 width=96, initial_indent="    ", subsequent_indent="      "))
        out.append(textwrap.fill(s.meaning, width=96, initial_indent="    ",
                                 subsequent_indent="    "))
    return "\n".join(out) + "\n"
