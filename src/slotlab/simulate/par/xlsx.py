"""The PAR sheet as an XLSX workbook: one sheet per table, numbers as numbers, for a math
designer to work in (openpyxl)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from openpyxl import Workbook  # type: ignore[import-untyped]
from openpyxl.styles import Font  # type: ignore[import-untyped]
from openpyxl.utils import get_column_letter  # type: ignore[import-untyped]

EXCEL_CELL_LIMIT = 32_767  # characters in one cell
_BAD = re.compile(r"[\[\]:*?/\\]")


def sheet_names(tables: list[dict[str, Any]]) -> list[str]:
    """A distinct sheet name (31 characters at most) for each table, in order."""
    names: list[str] = []
    for table in tables:
        base = _BAD.sub("-", table["id"])[:31]
        name, k = base, 2
        while name.lower() in (n.lower() for n in names):
            suffix = f"~{k}"
            name, k = base[: 31 - len(suffix)] + suffix, k + 1
        names.append(name)
    return names


def write_workbook(figures: dict[str, Any], path: Path) -> Path:
    wb = Workbook()
    wb.remove(wb.active)
    bold = Font(bold=True)
    for table, name in zip(figures["tables"], sheet_names(figures["tables"]), strict=True):
        ws = wb.create_sheet(name)
        ws.append([table["title"]])
        ws["A1"].font = bold
        ws.append(table["columns"])
        for c in ws[2]:
            c.font = bold
        for row in table["rows"]:
            ws.append([v if not isinstance(v, str) or len(v) <= EXCEL_CELL_LIMIT
                       else v[: EXCEL_CELL_LIMIT - 20] + " ... (in par.json)" for v in row])
        if table.get("note"):
            ws.append([])
            ws.append([table["note"]])
        ws.freeze_panes = "B3"
        for i, column in enumerate(table["columns"]):  # wide enough for the header and figures
            width = max([len(str(column))] + [min(len(str(r[i])), 40) for r in table["rows"][:200]
                                              if i < len(r)])
            ws.column_dimensions[get_column_letter(i + 1)].width = min(max(width, 8), 42) + 2
    wb.save(path)
    return path
