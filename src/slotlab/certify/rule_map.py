"""The rule map of a game (its RULES.md: each sentence, the code, the tests), with each test
named there run now and its result recorded.

The tests run in a subprocess of pytest from the source checkout the package was installed from
(``pip install -e .``); an installed package without the tests folder says so for every test
instead of claiming a result.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from slotlab.certify.digests import PACKAGE

NOT_PRESENT = "not run: tests not present"
NONE = "none"  # the marker that runs no test
_ABBREV = re.compile(r"\*\*([A-Za-z]+)\*\*\s*=\s*`([^`]+)`")
_TESTS_DIR = re.compile(r"`(tests/games/[^`]+?)/?`")
_TEST_NAME = re.compile(r"`(test_\w+)`")


@dataclass
class Test:
    file: str  # relative to the checkout: tests/games/x/test_rules.py
    name: str
    result: str = NOT_PRESENT

    @property
    def node(self) -> str:
        return f"{self.file}::{self.name}"


@dataclass
class Row:
    section: str
    sentence: str
    code: str
    tests_text: str
    tests: list[Test] = field(default_factory=list)


def checkout_root() -> Path | None:
    """The source checkout holding the tests, or None for an installed package."""
    root = PACKAGE.parent.parent
    return root if (root / "tests").is_dir() and (root / "pyproject.toml").is_file() else None


def rules_path(family_dir: Path) -> Path | None:
    path = family_dir / "RULES.md"
    return path if path.is_file() else None


def parse(text: str) -> tuple[list[Row], str | None]:
    """The table rows of a RULES.md (``sentence | code | tests`` or ``claim | code | tests``),
    each test of the tests column resolved to its file through the header's abbreviations."""
    head = text.split("\n## ")[0]
    abbrev = dict(_ABBREV.findall(head))
    dir_match = _TESTS_DIR.search(head)
    tests_dir = dir_match.group(1) if dir_match else None
    test_files = {k: v for k, v in abbrev.items() if v.startswith("test_")}
    token = re.compile(r"\b(" + "|".join(sorted(map(re.escape, test_files), key=len,
                                                  reverse=True)) + r")\b" if test_files
                       else r"((?!x)x)")  # no test files: matches nothing
    rows: list[Row] = []
    section, in_table = "", False
    for line in text.splitlines():
        if line.startswith("## "):
            section, in_table = line[3:].strip(), False
            continue
        if not line.startswith("|"):
            in_table = False
            continue
        cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
        if cells[-1] == "tests" and len(cells) == 3:
            in_table = True
            continue
        if not in_table or set(line) <= set("|- ") or len(cells) < 3:
            continue
        row = Row(section, cells[0], cells[1], cells[2])
        current: str | None = None
        for m in re.finditer(token.pattern + r"|`(test_\w+)`", cells[2]):
            if m.group(1):
                current = m.group(1)
            elif tests_dir and current:
                row.tests.append(Test(f"{tests_dir}/{test_files[current]}", m.group(2)))
        rows.append(row)
    return rows, tests_dir


def _defined(root: Path, test: Test) -> bool:
    path = root / test.file
    return path.is_file() and re.search(rf"^\s*(async\s+)?def {test.name}\(",
                                        path.read_text(encoding="utf-8"), re.M) is not None


def run_tests(rows: list[Row], marker: str | None, workers: int = 2) -> dict[str, Any]:
    """Run every test the rows name (once each) and write its result into the rows."""
    root = checkout_root()
    tests = [t for r in rows for t in r.tests]
    if marker == NONE:
        for t in tests:
            t.result = "not run: --tests none"
        return {"ran": False, "why": "asked not to run them (--tests none)", "command": None}
    if root is None:
        return {"ran": False, "why": "tests not present: this is an installed package, not a "
                                     "source checkout", "command": None}
    todo: dict[str, list[Test]] = {}
    for t in tests:
        if _defined(root, t):
            todo.setdefault(t.node, []).append(t)
        else:
            t.result = "not found: no such test in " + t.file
    if not todo:
        return {"ran": False, "why": "no test named in the rule map", "command": None}
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "junit.xml"
        cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
               f"--junitxml={report}", "-o", "junit_family=xunit1"]
        if workers > 1 and importlib.util.find_spec("xdist") is not None:
            cmd += ["-n", str(min(workers, 2)), "--dist", "loadfile"]
        if marker:
            cmd += ["-m", marker]
        proc = subprocess.run([*cmd, *sorted(todo)], cwd=root, capture_output=True, text=True,
                              check=False)
        results = _junit(report) if report.is_file() else {}
    for node, ts in todo.items():
        result = results.get(node, f"not run: deselected by -m {marker!r}" if marker
                             else "not run: not collected")
        for t in ts:
            t.result = result
    tail = proc.stdout.strip().splitlines()[-1:] if proc.stdout.strip() else []
    shown = [c for c in cmd if not c.startswith("--junitxml")]
    return {"ran": True, "command": " ".join(["python", *shown[1:], "<tests>"]),
            "exit_code": proc.returncode, "summary": tail[0] if tail else proc.stderr[-500:]}


def _junit(path: Path) -> dict[str, str]:
    """pytest's JUnit report, by test function: passed, failed (any case), or skipped."""
    out: dict[str, str] = {}
    for case in ET.parse(path).getroot().iter("testcase"):
        file = case.get("file") or (case.get("classname", "").replace(".", "/") + ".py")
        node = f"{file}::{case.get('name', '').split('[')[0]}"
        if case.find("failure") is not None or case.find("error") is not None:
            state = "failed"
        elif case.find("skipped") is not None:
            state = "skipped"
        else:
            state = "passed"
        prev = out.get(node)
        if prev is None or state == "failed" or (prev == "skipped" and state == "passed"):
            out[node] = state
    return out


def rule_map(family_dir: Path, marker: str | None) -> dict[str, Any]:
    path = rules_path(family_dir)
    if path is None:
        return {"rules_file": None, "note": "this game has no RULES.md: its rules are its model "
                                            "file's (a data-only line game)", "rows": [],
                "run": {"ran": False, "why": "no rule map"}}
    rows, tests_dir = parse(path.read_text(encoding="utf-8"))
    run = run_tests(rows, marker)
    results = [t.result for r in rows for t in r.tests]
    return {
        "rules_file": f"games/{family_dir.name}/RULES.md",
        "tests_dir": tests_dir,
        "marker": marker,
        "run": run,
        "counts": {k: results.count(k) for k in sorted(set(results))},
        "rows": [{"section": r.section, "sentence": r.sentence, "code": r.code,
                  "tests_text": r.tests_text,
                  "tests": [{"test": t.node, "result": t.result} for t in r.tests]}
                 for r in rows],
    }
