"""Periodic jobs (slotlab.store.jobs): exactly one claimer runs a due job per interval, on both
back-ends and with both locks; a failed or killed run leaves the job due for the next one."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from datetime import timedelta

import pytest

from slotlab.store import Database, jobs
from slotlab.store.models import utcnow

from .server_util import make_database


@pytest.fixture
def db(database):
    d = Database(database.url)
    d.migrate()
    yield d
    d.dispose()


def _locks(db: Database) -> list[str]:
    return ["advisory", "lease"] if db.dialect == "postgresql" else ["lease"]


def test_a_due_job_runs_once_per_interval(db):
    for lock in _locks(db):
        name = f"job-{lock}"
        jobs.ensure(db, name, utcnow())
        jobs.ensure(db, name, utcnow() + timedelta(days=1))  # exists: left as it is
        with jobs.claim(db, name, 3600, lock=lock, holder="a") as run:
            assert run is not None
            run.result = {"n": 1}
        with jobs.claim(db, name, 3600, lock=lock, holder="b") as run:
            assert run is None, "ran again within its interval"
        at, result = jobs.last_run(db, name)
        assert result == {"n": 1} and at is not None


def _race(db: Database, name: str, lock: str, n: int = 8) -> list[str]:
    """``n`` claimers at once (as ``n`` processes' ticks); the holders that ran the job."""
    ran: list[str] = []
    start = threading.Barrier(n)

    def tick(i: int) -> None:
        start.wait()
        with jobs.claim(db, name, 3600, lock=lock, holder=f"p{i}") as run:
            if run is not None:
                ran.append(run.holder)
                time.sleep(0.2)  # still running while the others try: they skip it

    threads = [threading.Thread(target=tick, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return ran


def test_concurrent_claimers_run_a_job_once(db):
    for lock in _locks(db):
        jobs.ensure(db, f"race-{lock}", utcnow())
        ran = _race(db, f"race-{lock}", lock)
        assert len(ran) == 1, (lock, ran)


def test_a_failed_run_leaves_the_job_due(db):
    for lock in _locks(db):
        name = f"fails-{lock}"
        jobs.ensure(db, name, utcnow())
        with pytest.raises(RuntimeError), jobs.claim(db, name, 3600, lock=lock) as run:
            assert run is not None
            raise RuntimeError("the job failed")
        with jobs.claim(db, name, 3600, lock=lock) as run:
            assert run is not None, "a failed run must be retried at the next tick"


def test_a_job_not_yet_due_is_not_run(db):
    jobs.ensure(db, "later", utcnow() + timedelta(hours=1))
    for lock in _locks(db):
        with jobs.claim(db, "later", 60, lock=lock) as run:
            assert run is None


_HOLD = textwrap.dedent("""
    import sys, time
    from slotlab.store import Database, jobs
    db = Database(sys.argv[1])
    with jobs.claim(db, "killed", 3600, lock=sys.argv[2], lease_s=float(sys.argv[3])) as run:
        assert run is not None
        print("running", flush=True)
        time.sleep(120)
""")


@pytest.mark.parametrize("lock", ["advisory", "lease"])
def test_a_holder_killed_mid_run_does_not_keep_the_job(db, database, lock, monkeypatch):
    """kill -9 of the process running a job: with the advisory lock the job is free at once
    (PostgreSQL ends the dead connection's transaction); with a lease, when the lease ends."""
    if lock == "advisory" and db.dialect != "postgresql":
        pytest.skip("advisory locks are PostgreSQL's")
    jobs.ensure(db, "killed", utcnow())
    lease_s = 60.0
    # This process's claims see the time we set, so the lease (taken by the holder on its own
    # clock) ends when the test says, not when a slow machine gets round to the next step.
    now = [utcnow()]  # before the holder's claim: its lease is running at this time
    monkeypatch.setattr(jobs, "utcnow", lambda: now[0])
    proc = subprocess.Popen([sys.executable, "-c", _HOLD, database.url, lock, str(lease_s)],
                            stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "running"
        with jobs.claim(db, "killed", 3600, lock=lock) as run:
            assert run is None, "a running job was claimed twice"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    now[0] = utcnow() + timedelta(seconds=lease_s)  # the holder claimed before now: lease over
    deadline = time.monotonic() + 60  # PostgreSQL notices the closed socket (polled)
    while True:
        with jobs.claim(db, "killed", 3600, lock=lock) as run:
            if run is not None:
                break
        assert time.monotonic() < deadline, "the killed holder kept the job"
        time.sleep(0.2)


def test_a_job_held_in_one_schema_is_free_in_another(db, database, tmp_path):
    """Advisory locks are the whole database's: a deployment in another schema of it (the
    suite's parallel workers, staging beside production) runs its own jobs."""
    if db.dialect != "postgresql":
        pytest.skip("advisory locks are PostgreSQL's")
    other_schema = make_database("postgres", tmp_path)
    other = Database(other_schema.url)
    try:
        other.migrate()
        for d in (db, other):
            jobs.ensure(d, "sweep", utcnow())
        with jobs.claim(db, "sweep", 3600, lock="advisory") as run:
            assert run is not None
            with jobs.claim(db, "sweep", 3600, lock="advisory") as again:
                assert again is None, "the job's lock did not hold in its own schema"
            with jobs.claim(other, "sweep", 3600, lock="advisory") as there:
                assert there is not None, "another schema's job was skipped"
    finally:
        other.dispose()
        other_schema.cleanup()
