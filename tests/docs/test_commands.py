"""Every command in README.md, examples/README.md and docs/ runs here, so that an example cannot
go stale.

Commands are found in fenced shell blocks (```console: the lines after ``$ ``; ```sh, ```bash,
```shell: every line) and in inline code spans that start with a command (``slotlab``,
``python``, ``curl``, ``make``, ``pip``, ``ray``, ``.venv/bin/...``). An inline span with a
placeholder (``MODEL``, ``[--bet B]``, ``...``) is a synopsis, and a ``slotlab`` span without an
argument its command requires names the command in prose: neither is a command line. An untagged
fence that holds a command fails: it must say it is shell.

Each command runs once, in one scratch folder (``examples/`` and ``src/`` linked, ``benchmarks/``
copied so that their results stay there), with the test's Python first on ``PATH``, after the
substitutions of :data:`SUBSTITUTIONS` and :data:`OVERRIDES` (each says why: fewer spins, small
benchmark sizes, a free port, a local Ray head, a fresh PostgreSQL schema). It fails on a
non-zero exit or an error text (a traceback, ``error:``). Servers (:data:`SERVERS`) are started,
asked for a page and stopped; ``curl`` talks to a server the test starts. What cannot run here is
in :data:`SKIPPED` (by command) or :data:`SKIPPED_KINDS` (by pattern), each with the reason; an
entry that no document needs any more fails too. Commands over about 10 s are marked ``slow``.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import typer.main
from markdown_it import MarkdownIt
from sqlalchemy import create_engine, text

from slotlab.cli import app as slotlab_app
from slotlab.store import normalize_url

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", ROOT / "examples" / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
PG_URL = os.environ.get("SLOTLAB_TEST_DATABASE_URL")

SHELL_FENCES = {"console", "sh", "bash", "shell"}
_ENV = r"(?:[A-Z][A-Z0-9_]*=\S+\s+)*"
# A command: a program, then at least one word (a lone "slotlab" or "ray" names the program).
COMMAND_START = re.compile(
    _ENV + r"(?:slotlab|python3?|curl|make|pip|uv|ray|\.venv/bin/\S+)\s+\S")
# A placeholder: an upper-case word (MODEL, N, HOST:PORT), an option in brackets, or "...".
_PLACEHOLDER = re.compile(r"(?:^|\s)[A-Z][A-Z_]*(?::[A-Z]+)?(?=\s|$)|\[[-A-Z]|\.\.\.|<[a-z][^>]*>")
ERROR_TEXT = re.compile(r"Traceback \(most recent call last\)|^(?:error|Error|Usage):", re.M)


@dataclass(frozen=True)
class DocCommand:
    text: str  # as written, comment removed, continuation lines joined, spaces collapsed
    where: str  # file:line


def _strip_comment(line: str) -> str:
    """``line`` without a trailing ``# comment`` (a ``#`` after a space, outside quotes)."""
    quote = ""
    for i, ch in enumerate(line):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i]
    return line


def _logical_lines(lines: list[str]) -> Iterator[tuple[int, str]]:
    """(offset, line) with backslash continuations joined."""
    start, parts = 0, list[str]()
    for i, raw in enumerate(lines):
        if not parts:
            start = i
        if raw.rstrip().endswith("\\"):
            parts.append(raw.rstrip()[:-1])
            continue
        parts.append(raw)
        yield start, " ".join(parts)
        parts = []
    if parts:
        yield start, " ".join(parts)


def _normal(text: str) -> str:
    return " ".join(_strip_comment(text).split())


def _fence_commands(info: str, body: str, first_line: int, where: str) -> Iterator[DocCommand]:
    lines = body.splitlines()
    if info == "console":
        # Commands follow "$ "; a continued command goes on without it; the rest is output.
        cmd_lines, i = [], 0
        while i < len(lines):
            if lines[i].startswith("$ "):
                start, chunk = i, [lines[i][2:]]
                while chunk[-1].rstrip().endswith("\\") and i + 1 < len(lines):
                    i += 1
                    chunk.append(lines[i])
                cmd_lines.append((start, chunk))
            i += 1
        for start, chunk in cmd_lines:
            for _, line in _logical_lines(chunk):
                if _normal(line):
                    yield DocCommand(_normal(line), f"{where}:{first_line + start + 1}")
    else:
        for offset, line in _logical_lines(lines):
            if _normal(line):
                yield DocCommand(_normal(line), f"{where}:{first_line + offset + 1}")


def _names_a_command(text: str) -> bool:
    """A ``slotlab`` span without an argument its command requires (``slotlab rtp``, ``slotlab
    simulate super-12-stars``) names the command in prose: it is not a command line."""
    if not text.startswith("slotlab "):
        return False
    cmd: Any = typer.main.get_command(slotlab_app)  # typer's own copy of a click command
    args = shlex.split(text)[1:]
    while hasattr(cmd, "commands"):  # a group: its subcommand follows
        if not args:
            return True
        cmd = cmd.commands.get(args.pop(0))
    if cmd is None:
        return False  # an unknown command: run it, and let it fail
    try:
        cmd.make_context("slotlab", args)
    except Exception as e:  # typer's click: MissingParameter for a left-out argument
        return type(e).__name__ == "MissingParameter"
    return False


@dataclass(frozen=True)
class Found:
    commands: list[DocCommand]
    untagged: list[DocCommand]  # commands in fences that do not say they are shell


def find_commands() -> Found:
    md = MarkdownIt("commonmark").enable("table")
    commands: list[DocCommand] = []
    untagged: list[DocCommand] = []
    for path in DOCS:
        where = str(path.relative_to(ROOT))
        for tok in md.parse(path.read_text()):
            line = tok.map[0] + 1 if tok.map else 0
            if tok.type == "fence":
                info = tok.info.strip().split()[0] if tok.info.strip() else ""
                if info in SHELL_FENCES:
                    commands += _fence_commands(info, tok.content, line, where)
                elif not info:
                    for offset, text in _logical_lines(tok.content.splitlines()):
                        text = text.removeprefix("$ ")
                        if COMMAND_START.match(text.strip()):
                            untagged.append(
                                DocCommand(_normal(text), f"{where}:{line + offset + 1}"))
            elif tok.type == "inline":
                for child in tok.children or []:
                    text = " ".join(child.content.split())
                    if (child.type == "code_inline" and COMMAND_START.match(text)
                            and not _PLACEHOLDER.search(text) and not _names_a_command(text)):
                        commands.append(DocCommand(text, f"{where}:{line}"))
    return Found(commands, untagged)


# -- what does not run here, and why ------------------------------------------------------------

SKIPPED: dict[str, str] = {
    "make serve": "installs the package and serves until stopped; `slotlab serve` runs here",
    "make serve PORT=8080 HOST=0.0.0.0": "the same; tests/test_first_hour.py checks the command "
                                         "it runs (`make -n`)",
    "make test": "the whole suite, this test included",
    "make test-slow": "the suite's slow tests, this file's slow ones included",
    "pip install 'slotlab[ray]'": "installs the project; the test runs in the installed project",
    "make install": "installs the project; the test runs in the installed project",
    ".venv/bin/pytest tests/browser -m browser": "the browser tests, which the suite runs itself",
    "slotlab simulate super-12-stars --spins 2000000000 --seed 2000 --workers 2 --record":
        "writes the game's shipped simulation record in the source tree (a short run would "
        "replace it); tests/simulate/test_record.py runs --record into a folder of its own and "
        "tests/games/super_12_stars/test_simulation_record.py checks the shipped record",
}


# Kinds of commands that need what is not here (a cloud, Kubernetes), by pattern.
SKIPPED_KINDS: dict[str, str] = {
    r"^ray (?:up|down|exec|attach|rsync-down|rsync-up|submit)\b":
        "drives a Ray cluster of other machines (`ray up`), which this machine has not",
    r"^(?:helm|kubectl) ": "needs a Kubernetes cluster (KubeRay)",
    r"^ray start\b": "starts a Ray node that outlives the command (on a port that may be "
                     "another's); the --ray commands run against a head the test starts",
}


def skip_reason(text: str) -> str | None:
    if text in SKIPPED:
        return SKIPPED[text]
    return next((why for pattern, why in SKIPPED_KINDS.items() if re.search(pattern, text)), None)


# -- substitutions ------------------------------------------------------------------------------

@dataclass(frozen=True)
class Sub:
    pattern: str
    replace: str | Callable[[re.Match[str]], str]
    why: str


def _count(text: str) -> int:
    text = text.replace("_", "").replace(",", "")
    scale = {"k": 10**3, "M": 10**6, "G": 10**9}.get(text[-1:], 1)
    return int(float(text.rstrip("kMG")) * scale)


def _at_most(option: str, most: int) -> Callable[[re.Match[str]], str]:
    return lambda m: f"{option} {min(_count(m.group(1)), most)}"


# Small sizes for the benchmarks (each writes its figures under the copied benchmarks/results/).
BENCH_ARGS = {
    "bench_exact.py": "",
    "bench_lines.py": "--rounds 100000 --repeats 1 --runner-rounds 1048576",
    "bench_line_evaluator.py": "--spins 20000 --repeats 1 --rounds 20000 --fruit-repeats 1",
    "bench_simulate_vs_c.py": "--spins 200000 --runs 1 --workers 2",
    "bench_super_12_stars.py": "--rounds 100000 --repeats 1",
    "bench_superstars_bonus.py": "--bonuses 2000 --rounds 50",
    "bench_superstars_precise.py": "--precision 0.01",
    "bench_crystal_star_deluxe.py": "--spins 100000 --rounds 200",
    "bench_server.py": "--seconds 1 --levels 2",
    "bench_simulate_scale.py": "--rounds 2M",
    "bench_simulate_2e9.py": "--spins 2M --games crystal-star-deluxe",
    "bench_login_flood.py": "--seconds 1 --repeat 1",
    "bench_login_under_flood.py": "--seconds 1",
    "bench_pgbouncer.py": "--seconds 1 --levels 2",
    "bench_workers.py": "--slices 1 --seconds 1 --clients 2",
    "bench_metrics.py": "--rounds 20000",
    "bench_production_mix.py": "--seconds 1 --levels 2 --players-per-client 4",
    "bench_autoplay_run.py": "--players 2 --segments 2 --segment 5",
    "bench_composed.py": "--rounds 20000 --repeats 1",
}


def _bench(m: re.Match[str]) -> str:
    """The benchmark with its small sizes (one missing from BENCH_ARGS fails a test below)."""
    return f"{m.group(0)} {BENCH_ARGS.get(m.group(1), '')}".rstrip()


SUBSTITUTIONS = [
    Sub(r"(?<![\w/.-])(?:path/to/mine|mine|my-game)\.json\b", "examples/models/fruit-5x3.json",
        "the reader's own model file; a shipped one stands in"),
    Sub(r"--spins (\S+)", _at_most("--spins", 200_000),
        "the documented runs take minutes to hours; 200,000 rounds run the same code"),
    Sub(r"--bonuses (\S+)", _at_most("--bonuses", 20_000),
        "millions of simulated Bonus Games take minutes; 20,000 run the same code"),
    Sub(r"--precision (\S+)", lambda m: f"--precision {max(float(m.group(1)), 0.005):g}",
        "an RTP to 0.01 pp simulates tens of millions of Bonus Games; 0.5 pp runs the same code"),
    Sub(r"--bytes (\S+)", _at_most("--bytes", 65_536),
        "a gigabyte of generator output is for an external battery; 64 KiB proves the command"),
    Sub(r"\| dieharder [^|]*", "| wc -c",
        "dieharder is an external battery (hours) and not installed here"),
    Sub(r"--workers (\d+)", _at_most("--workers", 2), "this machine has 2 cores"),
    Sub(r"--ray (?!local\b)\S+", "--ray %ray%",
        "the documented address (or `auto`, the cluster this machine is in) is a cluster "
        "elsewhere; a head on this machine, started by the test on a free port, stands in"),
    Sub(r"(?<![\w.~])/data/", "data/",
        "storage on a cluster; a folder in the scratch folder stands in"),
    Sub(r"--db postgresql\S*", "--db %pg%",
        "the documented URL names a database elsewhere; the test database stands in"),
    Sub(r"--port \d+", "--port %port%", "a free port, so that nothing here is disturbed"),
    Sub(r"https?://(?:127\.0\.0\.1|localhost)(?::\d+)?", "%url%",
        "the server the test starts, on a free port"),
    Sub(r"^curl ", "curl -sS --fail-with-body ",
        "an HTTP error fails the command (curl exits 0 on one by default)"),
    Sub(r"--seconds (\S+)", lambda m: f"--seconds {min(float(m.group(1)), 1.0):g}",
        "a benchmark's timed runs; one second each proves the script runs"),
    Sub(r"\bbenchmarks/(bench_\w+\.py)", _bench,
        "benchmarks run for minutes at full size; small sizes prove the script runs (the "
        "figures come from `make bench`)"),
    Sub(r"--pg postgresql\S*", "--pg %pg_raw%",
        "the documented URL is the test database's; it is skipped without one"),
]

# Servers run until stopped: the test starts one, waits for it to answer and stops it.
SERVERS = [re.compile(r"\bslotlab serve\b"),
           re.compile(r"-m slotlab\.operator\.reference_wallet\b")]
# Over about 10 s each: benchmarks, a Ray head, a Superstars PAR sheet (its Bonus Game simulated).
SLOW = [re.compile(r"\bbenchmarks/bench_"), re.compile(r"--ray\b"),
        re.compile(r"\bslotlab certify super-12-stars\b"),
        re.compile(r"\bslotlab par (superstars|super-12-stars)\b"),
        # a billion rounds and more (shortened, still minutes): tests/simulate and the games'
        # simulation tests run the same paths short
        re.compile(r"--spins (1000000000|[12]e9)\b")]
NEEDS_PG = re.compile(r"--pg ")


# Whole commands that the rules above do not make short enough: (the command run, why).
OVERRIDES: dict[str, tuple[str, str]] = {
    "slotlab certify super-12-stars --out docs/certify/super-12-stars --spins 1e8 --workers 2": (
        "slotlab certify super-12-stars --out docs/certify/super-12-stars --spins 200000 "
        "--workers 2 --tests none --stop-rounds 500 --draws 2000 --no-battery",
        "the bundle's rule-map and platform tests run in tests/, its generator tests and "
        "raw battery in tests/certify; a short bundle runs the same command"),
    "slotlab certify --check docs/certify/super-12-stars": (
        "slotlab certify --check src/../docs/certify/super-12-stars",
        "docs/ is not linked into the scratch folder; through the linked src/ the repository's "
        "committed bundle is checked against the installed code"),
    "slotlab certify fruit-5x3 --out bundle/ --spins 1e8": (
        "slotlab certify fruit-5x3 --out bundle/ --spins 200000 --tests none --stop-rounds 500 "
        "--draws 2000 --no-battery", "as above: a short bundle runs the same command"),
    "python examples/rounds/export_round.py super-12-stars examples/rounds/super-12-stars.json": (
        "python examples/rounds/export_round.py super-12-stars round.json",
        "examples/ is the repository's own folder here: the new export goes to the scratch "
        "folder"),
    ".venv/bin/slotlab verify round.json": (
        ".venv/bin/slotlab verify examples/rounds/super-12-stars.json",
        "the reader's own round, exported from RECALL; the shipped example round stands in"),
    "slotlab tune superstars-92 --param bonus.land.prize --target 96.08 --lo 0.0735 --hi 0.075 "
    "--bonuses 4000000 --seed 1 --out superstars-96.json --id superstars-96": (
        "slotlab tune superstars-92 --param bonus.land.prize --target 96.08 --lo 0.06 --hi 0.09 "
        "--bonuses 20000 --seed 1 --out superstars-96.json --id superstars-96",
        "4,000,000 Bonus Games per evaluation take minutes; with 20,000 the noise is larger "
        "than the documented bracket, so the bracket is wider"),
    "export RAY_AUTH_MODE=token RAY_AUTH_TOKEN=$(ray get-auth-token)": (
        "export HOME=$(mktemp -d) && ray get-auth-token --generate > /dev/null && "
        "export RAY_AUTH_MODE=token RAY_AUTH_TOKEN=$(ray get-auth-token)",
        "on an operator's machine the head's token is in ~/.ray; here one is made first, in a "
        "home of its own (whether another test left one in this home is chance)"),
}


def substitute(text: str) -> str:
    """The command as it runs here (``%name%`` fields are filled in when it runs)."""
    if text in OVERRIDES:
        text = OVERRIDES[text][0]
    for sub in SUBSTITUTIONS:
        repl = sub.replace
        if isinstance(repl, str):  # taken literally: its backslashes escaped
            text = re.sub(sub.pattern, repl.replace("\\", "\\\\"), text)
        else:
            text = re.sub(sub.pattern, repl, text)
    if any(s.search(text) for s in SERVERS) and "--port" not in text:
        text += " --port %port%"
    return text


FOUND = find_commands()


def _unique(commands: list[DocCommand]) -> list[DocCommand]:
    """Each command once, with every place it is written."""
    places: dict[str, list[str]] = {}
    for c in commands:
        places.setdefault(c.text, []).append(c.where)
    return [DocCommand(text, ", ".join(where)) for text, where in places.items()]


RUN = _unique([c for c in FOUND.commands if skip_reason(c.text) is None])


def _id(c: DocCommand) -> str:
    return f"{c.where.split(',')[0]} {c.text[:60]}"


# -- the tests ----------------------------------------------------------------------------------

def test_every_command_is_run_or_listed() -> None:
    """Every command is found, runs below or is skipped with a reason; none hides untagged."""
    assert FOUND.commands, "no commands found: the extraction is broken"
    assert not FOUND.untagged, (
        "commands in fences without a language: tag them ```console ($ prompts) or ```sh:\n"
        + "\n".join(f"  {c.where}: {c.text}" for c in FOUND.untagged))
    stale = (set(SKIPPED) | set(OVERRIDES)) - {c.text for c in FOUND.commands}
    stale |= {p for p in SKIPPED_KINDS if not any(re.search(p, c.text) for c in FOUND.commands)}
    assert not stale, f"SKIPPED or OVERRIDES list commands no document has: {sorted(stale)}"


def test_every_documented_benchmark_has_small_sizes() -> None:
    documented = {m.group(1) for c in FOUND.commands
                  for m in re.finditer(r"\bbenchmarks/(bench_\w+\.py)", c.text)}
    assert documented - set(BENCH_ARGS) == set(), "add their small sizes to BENCH_ARGS"


def test_synopses_are_not_taken_for_commands() -> None:
    texts = {c.text for c in FOUND.commands}
    assert "slotlab games" in texts
    assert not any(t.startswith("slotlab play MODEL") for t in texts)
    assert _names_a_command("slotlab rtp") and _names_a_command("slotlab rtp --json")
    assert _names_a_command("slotlab simulate super-12-stars")  # no --spins
    assert not _names_a_command("slotlab games")
    assert not _names_a_command("slotlab simulate fruit-5x3 --spins 10k")


def test_substitutions_say_why() -> None:
    assert all(len(s.why) > 20 for s in SUBSTITUTIONS)
    assert all(len(why) > 20 for _, why in OVERRIDES.values())
    assert substitute("slotlab simulate g --spins 1e9 --workers 8") == \
        "slotlab simulate g --spins 200000 --workers 2"
    assert substitute("slotlab simulate g --spins 10k") == "slotlab simulate g --spins 10000"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A scratch folder in which the documents' relative paths resolve."""
    d = tmp_path_factory.mktemp("docs")
    (d / "examples").symlink_to(ROOT / "examples")
    (d / "src").symlink_to(ROOT / "src")
    (d / ".venv").symlink_to(Path(sys.prefix))
    shutil.copytree(ROOT / "benchmarks", d / "benchmarks",
                    ignore=shutil.ignore_patterns("results", "__pycache__"))
    (d / "benchmarks" / "results").mkdir()
    (d / "data").mkdir()
    return d


def _env(workdir: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["COLUMNS"] = "200"
    # The server offers one game: a cold kernel cache compiles every game's kernels (minutes).
    env["SLOTLAB_GAMES"] = '["classic-3x3"]'
    return env


def _start(cmd: str, cwd: Path, env: dict[str, str], port: int,
           ready_s: float = 240) -> subprocess.Popen[str]:
    """Start a server command and wait until it answers HTTP on ``port``."""
    proc = subprocess.Popen(["bash", "-c", cmd], cwd=cwd, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True)
    deadline = time.monotonic() + ready_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            out = proc.stdout.read() if proc.stdout else ""
            pytest.fail(f"{cmd!r} exited ({proc.returncode}) before it answered:\n{out}")
        try:
            httpx.get(f"http://127.0.0.1:{port}/", timeout=2)
            return proc
        except httpx.TransportError:
            time.sleep(0.3)
    _stop(proc)
    pytest.fail(f"{cmd!r} did not answer on port {port} within {ready_s} s")


def _stop(proc: subprocess.Popen[str]) -> str:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGINT)
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    return proc.stdout.read() if proc.stdout else ""


@pytest.fixture(scope="module")
def server(workdir: Path) -> Iterator[str]:
    """A game server for the documents' HTTP calls, on SQLite in the scratch folder."""
    port = _free_port()
    proc = _start(f"slotlab serve --port {port} --db sqlite:///{workdir}/docs-server.db",
                  workdir, _env(workdir), port)
    yield f"http://127.0.0.1:{port}"
    _stop(proc)


@pytest.fixture
def pg_database(workdir: Path) -> Iterator[str]:
    """A fresh PostgreSQL schema (the test database's other schemas are others'), or SQLite in
    the scratch folder without SLOTLAB_TEST_DATABASE_URL."""
    if not PG_URL:
        yield f"sqlite:///{workdir}/docs-{uuid.uuid4().hex[:8]}.db"
        return
    schema = f"slotlab_docs_{uuid.uuid4().hex[:12]}"
    admin = create_engine(normalize_url(PG_URL), isolation_level="AUTOCOMMIT")
    with admin.connect() as c:
        c.execute(text(f'CREATE SCHEMA "{schema}"'))
    sep = "&" if "?" in PG_URL else "?"
    try:
        yield f"{PG_URL}{sep}options=-csearch_path%3D{schema}"
    finally:
        with admin.connect() as c:
            c.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
        admin.dispose()


@dataclass(frozen=True)
class RayHead:
    address: str
    tmpdir: str  # RAY_TMPDIR of the head, where a driver finds it


@pytest.fixture(scope="module")
def ray_head() -> Iterator[RayHead]:
    """A Ray head on this machine, on a free port (6379 is another service's), with its files in
    its own short folder (Ray's sockets live there) so that no other Ray instance finds it; only
    the commands given its address see its RAY_TMPDIR (a command starting its own Ray must not)."""
    cluster_utils = pytest.importorskip("ray.cluster_utils")
    root = Path(tempfile.mkdtemp(prefix="ray-", dir="/tmp"))
    (root / "ray").mkdir()
    saved = {k: os.environ.get(k) for k in ("RAY_TMPDIR", "RAY_USAGE_STATS_ENABLED")}
    os.environ.update(RAY_TMPDIR=str(root), RAY_USAGE_STATS_ENABLED="0")
    try:
        head = cluster_utils.Cluster(initialize_head=True, head_node_args={
            "gcs_server_port": _free_port(), "num_cpus": 2, "include_dashboard": False,
            "temp_dir": str(root / "ray")})
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    try:
        yield RayHead(str(head.address), str(root))
    finally:
        head.shutdown()
        shutil.rmtree(root, ignore_errors=True)


def _marks(c: DocCommand) -> list[pytest.MarkDecorator]:
    marks = [pytest.mark.slow] if any(p.search(c.text) for p in SLOW) else []
    if NEEDS_PG.search(substitute(c.text)) and not PG_URL:
        marks.append(pytest.mark.skip(reason="needs SLOTLAB_TEST_DATABASE_URL"))
    return marks


def run_documented(command: DocCommand, workdir: Path, request: pytest.FixtureRequest) -> str:
    """Run ``command`` after its substitutions; fail on a non-zero exit or an error text."""
    cmd = substitute(command.text)
    fields = {"port": str(_free_port()),
              "pg_raw": (PG_URL or "").replace("postgresql+psycopg://", "postgresql://")}
    if "%pg%" in cmd:
        fields["pg"] = shlex.quote(request.getfixturevalue("pg_database"))
    if "%url%" in cmd:
        fields["url"] = request.getfixturevalue("server")
    env = _env(workdir)
    if "%ray%" in cmd:
        head: RayHead = request.getfixturevalue("ray_head")
        fields["ray"] = head.address
        env["RAY_TMPDIR"] = head.tmpdir
    for name, value in fields.items():
        cmd = cmd.replace(f"%{name}%", value)
    if any(s.search(cmd) for s in SERVERS):
        out = _stop(_start(cmd, workdir, env, int(fields["port"])))
    else:
        done = subprocess.run(["bash", "-o", "pipefail", "-c", cmd], cwd=workdir, env=env,
                              capture_output=True, text=True, timeout=300)
        out = done.stdout + done.stderr
        assert done.returncode == 0, f"{command.where}: {cmd!r} exited {done.returncode}:\n{out}"
    assert not ERROR_TEXT.search(out), f"{command.where}: {cmd!r} printed an error:\n{out}"
    return out


@pytest.mark.parametrize("command", [pytest.param(c, id=_id(c), marks=_marks(c)) for c in RUN])
def test_command_runs(command: DocCommand, workdir: Path, request: pytest.FixtureRequest) -> None:
    run_documented(command, workdir, request)


def test_curl_talks_to_the_server_the_test_starts(workdir: Path,
                                                  request: pytest.FixtureRequest) -> None:
    """The path a documented ``curl`` takes: its URL becomes the test's server, an HTTP error
    fails it."""
    out = run_documented(DocCommand("curl http://127.0.0.1:8000/api/games", "self-test"),
                         workdir, request)
    assert '"classic-3x3"' in out
    with pytest.raises(AssertionError, match="exited 22"):
        run_documented(DocCommand("curl http://localhost:8000/api/games/no-such-game",
                                  "self-test"), workdir, request)
