"""The table every part of a PAR sheet is made of: one shape for the HTML, the XLSX and the JSON.

A table is an id, a title, column names and rows of plain cells (numbers stay numbers), so
that the three renderings show the same figures and a test can compare them cell by cell.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

Cell = int | float | str | bool | None


@dataclass
class Table:
    id: str
    title: str
    columns: list[str]
    rows: list[list[Cell]]
    note: str = ""
    section: str = "tables"
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "title": self.title, "section": self.section,
                "columns": self.columns, "rows": self.rows, "note": self.note}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Table:
        return cls(id=data["id"], title=data["title"], columns=list(data["columns"]),
                   rows=[list(r) for r in data["rows"]], note=data.get("note", ""),
                   section=data.get("section", "tables"))


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "table"


def cell(value: Any) -> Cell:
    """A plain cell: scalars as they are, anything nested as compact JSON text."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def from_records(table_id: str, title: str, records: list[dict[str, Any]],
                 section: str, note: str = "") -> Table:
    """A table of dict rows; the columns are the union of their keys in first-seen order."""
    columns: list[str] = []
    for record in records:
        columns += [k for k in record if k not in columns]
    rows = [[cell(r.get(c)) for c in columns] for r in records]
    return Table(table_id, title, columns, rows, note=note, section=section)


def _is_scalar(value: Any) -> bool:
    return value is None or isinstance(value, bool | int | float | str)


def _scalar_list(value: Any) -> bool:
    return isinstance(value, list) and all(_is_scalar(v) for v in value)


def model_tables(raw: dict[str, Any], prefix: str = "model") -> list[Table]:
    """The model file as tables a math designer works in: settings, paytables, strips,
    feature tables. Shapes are recognised generically, so any game's model file tabulates."""
    tables: list[Table] = []
    settings: list[list[Cell]] = []
    for key, value in raw.items():
        if _is_scalar(value):
            settings.append([key, value])
        elif _scalar_list(value) and len(value) <= 12 and all(
                not isinstance(v, str) or len(v) < 40 for v in value):
            settings.append([key, cell(value)])
        else:
            tables += _tabulate(f"{prefix}.{key}", value)
    if settings:
        tables.insert(0, Table(slug(f"{prefix}-settings"), f"{prefix}: settings",
                               ["key", "value"], settings, section="model"))
    return tables


def _tabulate(name: str, value: Any) -> list[Table]:
    tid = slug(name)
    if _scalar_list(value):
        return [Table(tid, name, ["index", "value"], [[i, v] for i, v in enumerate(value)],
                      section="model")]
    if isinstance(value, list) and value and all(_scalar_list(v) for v in value):
        lengths = {len(v) for v in value}
        if len(lengths) == 1 and max(lengths) <= 12:  # short rows (lines, weighted segments)
            width = lengths.pop()
            return [Table(tid, name, ["row", *(str(i + 1) for i in range(width))],
                          [[i + 1, *v] for i, v in enumerate(value)], section="model")]
        depth = max(lengths)  # long columns: reel strips, one column per reel
        rows = [[pos, *(v[pos] if pos < len(v) else None for v in value)]
                for pos in range(depth)]
        return [Table(tid, name, ["position", *(f"reel {i + 1}" for i in range(len(value)))],
                      rows, note="one column per reel, stop positions down",
                      section="model")]
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        return [from_records(tid, name, value, section="model")]
    if isinstance(value, dict) and value:
        inner = list(value.values())
        if all(isinstance(v, dict) and all(_is_scalar(x) for x in v.values()) for v in inner):
            return [from_records(tid, name, [{"key": k, **v} for k, v in value.items()],
                                 section="model")]
        if all(_scalar_list(v) for v in inner) and max(len(v) for v in inner) <= 12:
            width = max(len(v) for v in inner)
            return [Table(tid, name, ["key", *(str(i + 1) for i in range(width))],
                          [[k, *v, *([None] * (width - len(v)))] for k, v in value.items()],
                          section="model")]
        tables: list[Table] = []
        scalars = [[k, v] for k, v in value.items() if _is_scalar(v)]
        if scalars:
            tables.append(Table(tid, name, ["key", "value"], scalars, section="model"))
        for k, v in value.items():
            if not _is_scalar(v):
                tables += _tabulate(f"{name}.{k}", v)
        return tables
    return [Table(tid, name, ["value"], [[cell(value)]], section="model")]
