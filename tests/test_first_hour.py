"""A new operator's first hour: the server says it listens only once it does, a busy port and a
database that cannot be used are one line each, ``make serve`` takes a port, and the math
commands are readable at 80 columns without markup eating their hints."""

from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import httpx
import pytest
from typer.testing import CliRunner

from slotlab.cli import app
from slotlab.games import find_game, game_ids

ROOT = Path(__file__).resolve().parents[1]
SLOTLAB = str(Path(sys.executable).parent / "slotlab")
PG_URL = os.environ.get("SLOTLAB_TEST_DATABASE_URL")
runner = CliRunner()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _serve_env() -> dict[str, str]:
    # One game: a cold kernel cache would compile every game's kernels (minutes).
    return {**os.environ, "SLOTLAB_GAMES": '["classic-3x3"]', "COLUMNS": "200"}


def test_the_server_says_it_listens_only_once_it_answers(tmp_path: Path) -> None:
    port = _free_port()
    proc = subprocess.Popen([SLOTLAB, "serve", "--port", str(port), "--db",
                             f"sqlite:///{tmp_path / 'first.db'}"], env=_serve_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines: list[str] = []
    try:
        assert proc.stdout is not None
        for line in proc.stdout:  # ends when the process does
            lines.append(line)
            if "listening on" in line:
                # Said once the socket listens: the very next connection is answered.
                r = httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=10)
                assert r.status_code == 200
                break
        else:
            pytest.fail("the server never said it listens:\n" + "".join(lines))
    finally:
        proc.terminate()
        proc.wait(30)
    text = "".join(lines)
    assert f"listening on http://127.0.0.1:{port}" in text
    assert "starting on" not in text
    assert any("games: classic-3x3" in ln for ln in lines[:-1]), "listening before loaded"


def test_a_busy_port_is_refused_before_anything_loads(tmp_path: Path) -> None:
    db = tmp_path / "never.db"
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run([SLOTLAB, "serve", "--port", str(port), "--db", f"sqlite:///{db}"],
                              env=_serve_env(), capture_output=True, text=True, timeout=120)
    out = done.stdout + done.stderr
    assert done.returncode == 1, out
    assert out.strip() == (f"error: port {port} on 127.0.0.1 is in use by another program: "
                           "stop it, or choose another port (--port, or make serve PORT=...)")
    assert not db.exists(), "the database was opened before the port was checked"


def test_make_serve_takes_a_port_and_a_host() -> None:
    done = subprocess.run(["make", "-n", "serve", "PORT=8123", "HOST=0.0.0.0"], cwd=ROOT,
                          capture_output=True, text=True, check=True)
    assert "slotlab serve --host 0.0.0.0 --port 8123" in done.stdout
    default = subprocess.run(["make", "-n", "serve"], cwd=ROOT, capture_output=True, text=True,
                             check=True)
    assert "slotlab serve --host 127.0.0.1 --port 8000" in default.stdout


def _serve(db: str) -> str:
    result = runner.invoke(app, ["serve", "--port", str(_free_port()), "--db", db])
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    return lines[0]


def test_a_database_host_that_does_not_exist_is_one_line() -> None:
    assert _serve("postgresql+psycopg://user@nosuchhost.invalid/db") == (
        "error: cannot use the database postgresql+psycopg://user@nosuchhost.invalid/db: "
        "no such host 'nosuchhost.invalid'")


def test_a_database_server_that_is_down_is_one_line() -> None:
    # A port held bound but not listening: every connection is refused, and no other test's
    # server can take it meanwhile (a port merely free when chosen once answered HTTP here).
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        port = int(held.getsockname()[1])
        assert _serve(f"postgresql+psycopg://user:secret@127.0.0.1:{port}/db") == (
            f"error: cannot use the database postgresql+psycopg://user:***@127.0.0.1:{port}/db: "
            "connection refused: no database server listens there (is it running?)")


@pytest.mark.skipif(not PG_URL, reason="needs PostgreSQL (SLOTLAB_TEST_DATABASE_URL)")
def test_a_database_that_does_not_exist_is_one_line() -> None:
    from sqlalchemy.engine import make_url

    url = make_url(PG_URL or "").set(database="no_such_slotlab_db")
    shown = url.render_as_string(hide_password=True)
    assert _serve(url.render_as_string(hide_password=False)) == (
        f"error: cannot use the database {shown}: no such database 'no_such_slotlab_db'")


def _pgbouncer() -> ModuleType:
    spec = importlib.util.spec_from_file_location("pgbouncer", ROOT / "benchmarks" /
                                                  "pgbouncer.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    module = sys.modules.setdefault("pgbouncer", module)  # its dataclasses look it up there
    spec.loader.exec_module(module)
    return module


@pytest.mark.skipif(not PG_URL, reason="needs PostgreSQL (SLOTLAB_TEST_DATABASE_URL)")
def test_a_bad_password_is_one_line() -> None:
    """PgBouncer asking for a password (SCRAM) stands in for a PostgreSQL that does: the test
    server trusts every local connection."""
    pgb = _pgbouncer()
    if not pgb.installed():
        pytest.skip("pgbouncer is not installed (apt-get install pgbouncer)")
    with pgb.running(PG_URL, password="right-password") as bouncer:
        url = f"postgresql+psycopg://postgres:wrong@127.0.0.1:{bouncer.port}/test"
        assert _serve(url) == (
            f"error: cannot use the database postgresql+psycopg://postgres:***@127.0.0.1:"
            f"{bouncer.port}/test: bad password for user 'postgres'")


def test_the_ray_install_hint_keeps_its_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray: ImportError, as without Ray
    result = runner.invoke(app, ["simulate", "classic-3x3", "--spins", "1000", "--ray", "local"])
    assert result.exit_code == 2, result.output
    assert "pip install 'slotlab[ray]'" in result.output


def test_rtp_shows_decimals_and_the_fractions_on_request() -> None:
    exact = find_game("fruit-5x3").exact(30)  # type: ignore[attr-defined]
    fraction = exact["rtp_fraction"]
    assert len(fraction) > 1000
    plain = runner.invoke(app, ["rtp", "fruit-5x3"], env={"COLUMNS": "80"})
    assert plain.exit_code == 0, plain.output
    assert f"{exact['rtp']:.6g}" in plain.output
    assert fraction[:40] not in plain.output
    assert len(plain.output.splitlines()) < 150
    full = runner.invoke(app, ["rtp", "fruit-5x3", "--fractions"], env={"COLUMNS": "80"})
    assert full.exit_code == 0, full.output
    assert fraction[:40] in full.output


def test_games_reads_whole_at_80_columns() -> None:
    result = runner.invoke(app, ["games"], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    assert all(len(line) <= 80 for line in result.output.splitlines())
    rows = {line.split()[0]: line for line in result.output.splitlines()[2:] if line.strip()}
    for gid in game_ids():
        g = find_game(gid)
        assert g.name in rows[gid] and f"{g.theoretical_rtp():.4%}" in rows[gid]
        assert f"{g.max_win_x():,}x" in rows[gid] and g.model_hash[:8] in rows[gid]

