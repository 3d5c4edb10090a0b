"""A local PgBouncer in transaction mode in front of a PostgreSQL server, for the tests and the
benchmark: its own configuration in a temporary folder, a free 127.0.0.1 port, started and
ended by its pid. Debian's ``pgbouncer`` package (``apt-get install pgbouncer``) provides it.

PgBouncer passes no ``options`` startup parameter (slotlab's tests put each test in a schema
of its own with ``options=-csearch_path=...``), so each user gets a fresh database instead
(:func:`fresh_database`), reached through PgBouncer's ``*`` entry by name.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

HOST = "127.0.0.1"


def executable() -> str | None:
    """PgBouncer's program (Debian puts it in /usr/sbin, which a user's PATH may lack)."""
    found = shutil.which("pgbouncer")
    if found is None and Path("/usr/sbin/pgbouncer").is_file():
        found = "/usr/sbin/pgbouncer"
    return found


def installed() -> bool:
    return executable() is not None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


@dataclass(frozen=True)
class PgBouncer:
    port: int
    pid: int
    folder: Path

    def url(self, database: str, user: str = "postgres") -> str:
        """A psycopg URL of ``database`` through this PgBouncer."""
        return f"postgresql+psycopg://{user}@{HOST}:{self.port}/{database}"

    def log(self) -> str:
        path = self.folder / "pgbouncer.log"
        return path.read_text() if path.exists() else ""


CONFIG = """\
[databases]
* = host={pg_host} port={pg_port}

[pgbouncer]
listen_addr = {host}
listen_port = {port}
unix_socket_dir =
auth_type = {auth_type}
auth_file = {folder}/users.txt
pool_mode = transaction
max_client_conn = 1000
default_pool_size = {pool_size}
ignore_startup_parameters = extra_float_digits
logfile = {folder}/pgbouncer.log
"""


@contextlib.contextmanager
def running(pg_url: str, pool_size: int = 20, user: str = "postgres",
            password: str = "") -> Iterator[PgBouncer]:
    """PgBouncer in transaction mode in front of ``pg_url``'s server, for ``user`` (trust: the
    server behind it authenticates; with ``password``, PgBouncer asks the client for it, SCRAM).
    PgBouncer refuses to run as root: as root it runs as the ``postgres`` system user."""
    target = make_url(pg_url)
    folder = Path(tempfile.mkdtemp(prefix="slotlab-pgbouncer-"))
    port = _free_port()
    (folder / "users.txt").write_text(f'"{user}" "{password}"\n')
    (folder / "pgbouncer.ini").write_text(CONFIG.format(
        pg_host=target.host or HOST, pg_port=target.port or 5432, host=HOST, port=port,
        folder=folder, pool_size=pool_size,
        auth_type="scram-sha-256" if password else "trust"))
    as_user: dict[str, str] = {}
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres", "postgres")
        for f in folder.iterdir():
            shutil.chown(f, "postgres", "postgres")
        as_user = {"user": "postgres", "group": "postgres"}
    exe = executable()
    if exe is None:
        raise RuntimeError("pgbouncer is not installed (apt-get install pgbouncer)")
    proc = subprocess.Popen([exe, str(folder / "pgbouncer.ini")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            **as_user)  # type: ignore[call-overload]
    try:
        deadline = time.monotonic() + 15
        while True:
            if proc.poll() is not None:
                err = proc.stderr.read().decode() if proc.stderr else ""
                log = folder / "pgbouncer.log"
                raise RuntimeError(f"pgbouncer exited ({proc.returncode}): {err}"
                                   + (log.read_text() if log.exists() else ""))
            with contextlib.suppress(OSError), socket.create_connection((HOST, port), 0.5):
                break
            if time.monotonic() > deadline:
                raise RuntimeError("pgbouncer did not listen")
            time.sleep(0.05)
        yield PgBouncer(port, proc.pid, folder)
    finally:
        if proc.poll() is None:
            proc.terminate()  # SIGTERM: PgBouncer closes its connections and exits
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        shutil.rmtree(folder, ignore_errors=True)


@contextlib.contextmanager
def fresh_database(pg_url: str, prefix: str = "slotlab_pgb") -> Iterator[str]:
    """A new, empty database on ``pg_url``'s server (its name), dropped at the end."""
    from slotlab.store import normalize_url

    name = f"{prefix}_{uuid.uuid4().hex[:10]}"
    admin_url = make_url(normalize_url(pg_url)).set(database="postgres", query={})
    admin = create_engine(admin_url, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as c:
            c.execute(text(f'CREATE DATABASE "{name}"'))
        yield name
    finally:
        with admin.connect() as c:
            c.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()
