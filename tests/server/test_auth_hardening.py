"""The login and request-handling attacks of the hardening issue, each reproduced over HTTP.

Login floods, the lockout race, oversized bodies, session hoarding, usernames differing only by
case and missing security headers; on SQLite and PostgreSQL, against a real uvicorn server.
"""

from __future__ import annotations

import functools
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import httpx
import pytest
from sqlalchemy import func, select, text, update

from slotlab.server.services import auth, maintenance
from slotlab.store import Database as StoreDatabase
from slotlab.store.engine import migrate
from slotlab.store.models import LoginLimit, utcnow

from .server_util import Database, LiveServer, ServerClock, key

PASSWORD = "correct horse 1"
# Generous limits, so that a test about one defence is not cut short by another.
OPEN_LIMITS = {"login_limit_per_address": 10_000, "lockout_attempts": 10_000}
PROXIED = {"trusted_proxies": ["127.0.0.1"]}  # X-Forwarded-For names the client

Start = Callable[..., LiveServer]


@pytest.fixture
def start(make_server: Callable[..., LiveServer]) -> Start:
    """Servers on the test's games as ``slotlab serve`` runs them: the app alone decides which
    X-Forwarded-For to believe."""
    return functools.partial(make_server, proxy_headers=False)


def register(srv: LiveServer, username: str, password: str = PASSWORD) -> None:
    with srv.client() as c:
        r = c.post("/api/players", json={"username": username, "password": password})
        assert r.status_code == 201, r.text


def login(c: httpx.Client, username: str, password: str = PASSWORD,
          forwarded_for: str | None = None) -> httpx.Response:
    headers = {"X-Forwarded-For": forwarded_for} if forwarded_for else {}
    return c.post("/api/sessions", json={"username": username, "password": password},
                  headers=headers)


def code(r: httpx.Response) -> str:
    return str(r.json()["error"]["code"]) if r.status_code >= 400 else str(r.status_code)


def name() -> str:
    return f"u{uuid.uuid4().hex[:10]}"


# --- 1. login floods ----------------------------------------------------------------------------


def test_failed_logins_are_limited_per_address_with_retry_after(start: Start) -> None:
    srv = start(login_limit_per_address=5, login_limit_window_s=600, lockout_attempts=100)
    with srv.client() as c:
        answers = [login(c, name(), "wrong password") for _ in range(8)]
    assert [a.status_code for a in answers] == [401] * 5 + [429] * 3
    last = answers[-1]
    assert code(last) == "too_many_logins"
    assert 1 <= int(last.headers["Retry-After"]) <= 600
    # From then on the address is refused before its request is even parsed.
    with srv.client() as c:
        r = c.post("/api/sessions", content=b"not json",
                   headers={"Content-Type": "application/json"})
    assert r.status_code == 429 and code(r) == "too_many_logins" and "Retry-After" in r.headers


@dataclass
class Guess:
    status: int
    code: str
    sent: float  # perf_counter when the request left
    answered: float  # and when its answer came


def guesses(c: httpx.Client, username: str, count: int, first_address: int = 1
            ) -> list[Guess]:
    """``count`` wrong logins at ``username`` one after another, each from an address of its
    own (through the trusted proxy)."""
    out = []
    for i in range(first_address, first_address + count):
        sent = time.perf_counter()
        r = login(c, username, "wrong guess", forwarded_for=f"203.0.113.{i}")
        out.append(Guess(r.status_code, code(r), sent, time.perf_counter()))
    return out


def test_an_account_under_guessing_slows_each_guess_but_never_refuses(start: Start) -> None:
    # Each address guesses once, so only the account's delay acts: after two free guesses,
    # 0.5 s, then 1 s (doubled, and the most an account's delay may be). A guess is counted
    # after it is sent, and the next one is checked no sooner than that delay after: so
    # between the send of one guess and the answer to the next lies at least the delay.
    srv = start(lockout_attempts=2, login_delay_s=0.5, login_account_delay_max_s=1.0, **PROXIED)
    owner = name()
    register(srv, owner)
    delay_before = [0, 0, 0.5, 1.0, 1.0]
    with srv.client() as c:
        for who in (name(), owner):  # a name nobody has, and an account: slowed alike
            answers = guesses(c, who, 5)
            assert [(g.status, g.code) for g in answers] == [(401, "invalid_credentials")] * 5
            for k in range(2, 5):
                assert answers[k].answered - answers[k - 1].sent >= delay_before[k] - 0.01, k
        # The owner, from an address that did not guess, gets in with the right password, after
        # the account's delay (at most 1 s here): never refused.
        r = login(c, owner, forwarded_for="198.51.100.7")
        assert r.status_code == 201, r.text
        assert time.perf_counter() - answers[-1].sent >= 1.0 - 0.01
        # The success ended the account's streak: it starts again from nothing.
        again = guesses(c, owner, 3, first_address=100)
        assert [(g.status, g.code) for g in again] == [(401, "invalid_credentials")] * 3
    assert streak(srv, f"f:u:{owner}") == 3


def streak(srv: LiveServer, key: str) -> int | None:
    """The guesses counted in a failed-login streak (None: no streak)."""
    with srv.ctx.db.read() as s:
        return s.scalar(select(LoginLimit.attempts).where(LoginLimit.key == key))


def test_successful_logins_do_not_use_up_the_address_limit(start: Start) -> None:
    srv = start(login_limit_per_address=3)
    users = [name() for _ in range(5)]
    for u in users:
        register(srv, u)
    with srv.client() as c:
        assert [login(c, u).status_code for u in users] == [201] * 5


def test_forwarded_for_is_believed_only_from_trusted_proxies(start: Start) -> None:
    untrusting = start(login_limit_per_address=2)
    with untrusting.client() as c:
        answers = [login(c, name(), "x", forwarded_for=f"198.51.100.{i}") for i in range(4)]
    assert [a.status_code for a in answers] == [401, 401, 429, 429]

    trusting = start(login_limit_per_address=2, trusted_proxies=["127.0.0.0/8"])
    with trusting.client() as c:
        # Each client behind the proxy has its own budget; the spoofed left-most entry that a
        # client adds itself is not the address: the right-most untrusted one is.
        answers = [login(c, name(), "x", forwarded_for=f"10.9.9.9, 198.51.100.{i}")
                   for i in range(4)]
        assert [a.status_code for a in answers] == [401] * 4
        same = [login(c, name(), "x", forwarded_for=f"1.2.3.{i}, 198.51.100.77")
                for i in range(3)]
        assert [a.status_code for a in same] == [401, 401, 429]


def test_login_limits_are_shared_by_server_processes_on_one_database(start: Start) -> None:
    a = start(login_limit_per_address=4, lockout_attempts=100)
    b = start(login_limit_per_address=4, lockout_attempts=100)
    answers = []
    for i in range(6):
        with (a if i % 2 else b).client() as c:
            answers.append(login(c, name(), "guess"))
    assert [r.status_code for r in answers] == [401] * 4 + [429] * 2


def test_a_limit_ends_with_its_window_and_the_sweep_drops_it(start: Start,
                                                             monkeypatch: pytest.MonkeyPatch
                                                             ) -> None:
    window_s = 3
    srv = start(login_limit_per_address=2, login_limit_window_s=window_s,
                login_delay_memory_s=window_s)
    clock = ServerClock(monkeypatch, (auth,))  # the window's clock: a slow machine cannot end it
    with srv.client() as c:
        assert [login(c, name(), "x").status_code for _ in range(3)] == [401, 401, 429]
        wait = int(login(c, name(), "x").headers["Retry-After"])
        assert 0 < wait <= window_s
        threading.Event().wait(wait + 0.1)  # the address's block in memory ends (Retry-After)
        clock.advance(window_s)  # and the window counted in the database
        assert login(c, name(), "x").status_code == 401
        with srv.ctx.db.write() as s:
            s.execute(update(LoginLimit).values(window_start=utcnow() - timedelta(seconds=4)))
        assert maintenance.sweep(srv.ctx)["login_limits_dropped"] >= 1
        with srv.ctx.db.read() as s:
            assert s.scalar(select(func.count()).select_from(LoginLimit)) == 0


def test_password_hashing_leaves_the_round_workers_free(start: Start) -> None:
    # One worker thread for the endpoints and a costly hash: before, a burst of logins held
    # the worker, and a spin queued behind every one of them.
    srv = start(threads=1, argon2_time_cost=4, argon2_memory_kib=32 * 1024, **OPEN_LIMITS)
    users = [name() for _ in range(6)]
    for u in users:
        register(srv, u)
    player, _ = srv.player()
    done: list[str] = []
    lock = threading.Lock()

    def log_in(u: str) -> None:
        with srv.client() as c:
            assert login(c, u).status_code == 201
        with lock:
            done.append("login")

    with player, ThreadPoolExecutor(len(users)) as pool:
        futures = [pool.submit(log_in, u) for u in users]
        threading.Event().wait(0.2)  # let the logins reach the server first
        r = player.post("/api/games/instant-test/rounds", json={"bet": 1}, headers=key())
        with lock:
            logins_before_spin = len(done)
        assert r.status_code == 201, r.text
        for f in futures:
            f.result()
    # The spin did not wait for the logins' hashing (all but one of them still running).
    assert logins_before_spin < len(users) - 1


def test_logins_beyond_the_backlog_answer_busy_and_cost_no_guess(
        start: Start, monkeypatch: pytest.MonkeyPatch) -> None:
    srv = start(password_backlog=2, lockout_attempts=1, **PROXIED,
                **{"login_limit_per_address": 10_000})
    users = [name() for _ in range(4)]
    for u in users:
        register(srv, u)
    # The password checks of this process are held until the test lets them go (they then
    # run as always): two logins fill the backlog for as long as the test needs.
    release = threading.Event()
    verify = auth._verify

    def held(*args: Any) -> bool:
        release.wait(60)
        return verify(*args)

    monkeypatch.setattr(auth, "_verify", held)

    def wrong(i: int, u: str) -> httpx.Response:
        with srv.client() as c:
            return login(c, u, "wrong password", forwarded_for=f"203.0.113.{i}")

    with ThreadPoolExecutor(2) as pool:
        checking = [pool.submit(wrong, i, u) for i, u in enumerate(users[:2])]
        deadline = time.monotonic() + 60
        while srv.ctx.password_pool.in_progress < 2:
            assert time.monotonic() < deadline, "the two logins never reached their check"
            time.sleep(0.01)
        busy = [wrong(i, u) for i, u in enumerate(users[2:], start=2)]
        busy.append(wrong(9, name()))  # a name without an account: the same answer
        release.set()
        checked = [f.result() for f in checking]
    assert [code(a) for a in checked] == ["invalid_credentials"] * 2
    assert [(a.status_code, code(a), a.headers["Retry-After"]) for a in busy] == \
        [(503, "login_busy", "1")] * 3
    # A busy answer was no guess: its account has no streak; every checked guess has one.
    for u in users:
        assert streak(srv, f"f:u:{u.lower()}") == (1 if u in users[:2] else None)


def test_a_login_flood_from_many_addresses_never_refuses_a_real_login(start: Start) -> None:
    # 192 logins at names nobody has, from as many addresses, 32 at a time, against a backlog
    # of 4: before, they held every place and real logins got 503 login_busy.
    srv = start(password_backlog=4, argon2_time_cost=2, argon2_memory_kib=8192, **PROXIED,
                **{"login_limit_per_address": 10_000})
    owner = name()
    register(srv, owner)
    flood_codes: list[str] = []

    def flood(loop: int) -> None:
        with srv.client() as c:
            for i in range(6):
                r = login(c, name(), "any password", forwarded_for=f"10.{loop}.{i}.1")
                flood_codes.append(code(r))

    with ThreadPoolExecutor(32) as pool:
        floods = [pool.submit(flood, loop) for loop in range(32)]
        with srv.client() as c:
            real = [login(c, owner, forwarded_for="198.51.100.7") for _ in range(5)]
        for f in floods:
            f.result()
    assert [(r.status_code, code(r)) for r in real] == [(201, "201")] * 5
    assert flood_codes.count("invalid_credentials") == 192, set(flood_codes)


def test_a_registration_flood_never_refuses_a_login(start: Start) -> None:
    # 40 registrations at once from one address, against their own backlog of 2 and a limit
    # of 5 per address; before, they shared the logins' backlog and real logins got 503.
    srv = start(password_backlog=2, registration_backlog=2, registration_limit_per_address=5,
                argon2_time_cost=2, argon2_memory_kib=8192, **PROXIED)
    owner = name()
    with srv.client() as c:
        r = c.post("/api/players", json={"username": owner, "password": PASSWORD},
                   headers={"X-Forwarded-For": "198.51.100.7"})
        assert r.status_code == 201, r.text
    barrier = threading.Barrier(40)

    def register_one(_: int) -> httpx.Response:
        with srv.client() as c:
            barrier.wait()
            return c.post("/api/players", json={"username": name(), "password": PASSWORD})

    with ThreadPoolExecutor(40) as pool:
        registrations = pool.map(register_one, range(40))
        with srv.client() as c:
            real = [login(c, owner, forwarded_for="198.51.100.7") for _ in range(5)]
        answers = [(r.status_code, code(r)) for r in registrations]
    assert [(r.status_code, code(r)) for r in real] == [(201, "201")] * 5
    assert set(answers) <= {(201, "201"), (429, "too_many_registrations"),
                            (503, "registration_busy")}, answers
    # One after another, the address makes accounts up to its limit of 5 in all (a busy answer
    # counted none), then is refused for the rest of its window.
    with srv.client() as c:
        more = [c.post("/api/players", json={"username": name(), "password": PASSWORD})
                for _ in range(6 - answers.count((201, "201")))]
    assert [code(r) for r in more] == ["201"] * (len(more) - 1) + ["too_many_registrations"]
    assert int(more[-1].headers["Retry-After"]) > 60


def test_registrations_are_limited_in_all(start: Start) -> None:
    srv = start(registration_limit_total=3, **PROXIED)
    with srv.client() as c:
        answers = [c.post("/api/players", json={"username": name(), "password": PASSWORD},
                          headers={"X-Forwarded-For": f"203.0.113.{i}"}) for i in range(4)]
    assert [code(a) for a in answers] == ["201"] * 3 + ["too_many_registrations"]


# --- 3. guessing: growing delays, never a lockout, the same answers for every name -------------

RACE_HASH = {"argon2_time_cost": 2, "argon2_memory_kib": 4096}


def _burst(srv: LiveServer, username: str, passwords: list[str],
           addresses: list[str] | None = None) -> list[httpx.Response]:
    barrier = threading.Barrier(len(passwords))
    addresses = addresses or ["203.0.113.66"] * len(passwords)

    def one(pw: str, address: str) -> httpx.Response:
        with srv.client() as c:
            barrier.wait()
            return login(c, username, pw, forwarded_for=address)

    with ThreadPoolExecutor(len(passwords)) as pool:
        return list(pool.map(one, passwords, addresses))


def test_a_burst_from_one_address_gets_no_more_guesses_than_allowed(start: Start) -> None:
    # The address's delay (30 s) outlasts the account's (2 s at most) by far.
    srv = start(lockout_attempts=3, login_delay_s=30, **RACE_HASH, **PROXIED,
                **{"login_limit_per_address": 10_000})
    u = name()
    register(srv, u)
    answers = _burst(srv, u, [f"wrong {i}" for i in range(24)])
    codes = [code(a) for a in answers]
    # Guesses are counted atomically before any check: three, then the address must wait.
    assert codes.count("invalid_credentials") == 3, codes
    assert codes.count("too_many_logins") == 21, codes
    waits = [int(a.headers["Retry-After"]) for a in answers if code(a) == "too_many_logins"]
    assert all(1 <= w <= 31 for w in waits), waits  # a guess may be stamped before another
    # The owner is not locked out: from their own address the right password gets in.
    with srv.client() as c:
        assert login(c, u, forwarded_for="198.51.100.7").status_code == 201
        # The guessing address stays slowed, whatever name it tries next.
        assert code(login(c, name(), "x", forwarded_for="203.0.113.66")) == "too_many_logins"


def test_a_right_password_in_a_distributed_burst_gets_in(start: Start) -> None:
    srv = start(lockout_attempts=3, login_account_delay_max_s=1.0, **RACE_HASH, **PROXIED,
                **{"login_limit_per_address": 10_000})
    u = name()
    register(srv, u)
    passwords = [f"wrong {i}" for i in range(24)]
    passwords.insert(12, PASSWORD)
    addresses = [f"203.0.113.{i}" for i in range(len(passwords))]
    codes = [code(a) for a in _burst(srv, u, passwords, addresses)]
    # Guesses from many addresses are slowed (each waits for the account's delay), never
    # refused; and the owner's right password gets in whatever the failures around it.
    assert codes[12] == "201", codes
    assert set(codes[:12] + codes[13:]) == {"invalid_credentials"}, codes


def test_names_with_and_without_an_account_are_answered_alike(start: Start) -> None:
    # A wait far longer than four logins take on a loaded machine: the third and fourth
    # guesses always fall inside it (a 1 s wait let one through when the hashing was slow).
    srv = start(lockout_attempts=2, login_limit_per_address=6, login_delay_s=30, **PROXIED)
    known = name()
    register(srv, known)

    def shape(username: str, address: str) -> list[tuple[int, str, bool]]:
        with srv.client() as c:
            answers = [login(c, username, "wrong", forwarded_for=address) for _ in range(4)]
        waits = [r.headers.get("Retry-After") for r in answers]
        assert all(0 < int(w) <= 30 for w in waits if w is not None), waits
        return [(r.status_code, code(r), w is not None) for r, w in zip(answers, waits,
                                                                      strict=True)]

    # Status, code and a Retry-After (its seconds run down with the clock): from one address,
    # two free guesses, then the wait.
    seen = shape(known, "203.0.113.1")
    assert seen == shape(name(), "203.0.113.2")
    assert seen[:2] == [(401, "invalid_credentials", False)] * 2
    assert seen[2:] == [(429, "too_many_logins", True)] * 2
    # A name that never had an account leaves the same trace in the database as one that does.
    assert streak(srv, f"f:u:{known.lower()}") == 2


# --- 5. bodies and sessions ---------------------------------------------------------------------


def test_a_declared_large_body_is_refused_before_it_is_sent(start: Start) -> None:
    srv = start(max_body_bytes=4096)
    with socket.create_connection(("127.0.0.1", srv.port), timeout=10) as s:
        s.sendall(b"POST /api/players HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                  b"Content-Length: 209715200\r\n\r\n")
        head = s.recv(4096).decode("latin-1")
    assert head.startswith("HTTP/1.1 413"), head


def test_a_streamed_large_body_is_cut_off(start: Start) -> None:
    srv = start(max_body_bytes=4096)

    def chunks() -> Iterator[bytes]:
        yield b'{"username": "' + b"a" * 2048
        for _ in range(200):
            yield b"b" * 16384

    with srv.client() as c:
        try:
            r = c.post("/api/players", content=chunks(),
                       headers={"Content-Type": "application/json"})
        except httpx.HTTPError:  # the server may close before the client has sent it all
            return
    assert r.status_code == 413 and code(r) == "too_large"


def _until_closed(s: socket.socket) -> bytes:
    """What the server sends until it closes the connection (bounded by the socket timeout)."""
    got = b""
    while True:
        try:
            chunk = s.recv(4096)
        except ConnectionResetError:
            return got
        if not chunk:
            return got
        got += chunk


def test_half_sent_requests_are_dropped(start: Start) -> None:
    srv = start(header_timeout_s=1, body_timeout_s=1)
    head = (b"POST /api/players HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: 64\r\n\r\n")
    # 50 connections: nothing sent, half a head, a head and part of its body.
    conns = []
    for i in range(50):
        c = socket.create_connection(("127.0.0.1", srv.port), timeout=20)
        c.sendall([b"", head[:30], head + b'{"username": '][i % 3])
        conns.append(c)
    answers = [_until_closed(c) for c in conns]
    for c in conns:
        c.close()
    # Every one was closed by the server (the socket timeout, 20 s, would have raised first);
    # those still sending their head were told why.
    assert all(a.startswith(b"HTTP/1.1 408 ") and b"request_timeout" in a
               for a in answers[0::3] + answers[1::3]), answers[:2]
    assert not any(a.startswith(b"HTTP/1.1 2") for a in answers[2::3]), answers[2]
    # A request sent whole is served as ever, on a connection that stays open between calls.
    with srv.client() as c:
        assert c.get("/api/health").status_code == 200
        assert c.get("/api/health").status_code == 200


def test_a_small_body_still_works_under_the_cap(start: Start) -> None:
    srv = start(max_body_bytes=4096)
    register(srv, name())


def test_live_sessions_per_player_are_capped_oldest_first(start: Start) -> None:
    srv = start(max_sessions_per_player=3, **OPEN_LIMITS)
    u = name()
    register(srv, u)
    with srv.client() as c:
        tokens = [login(c, u).json()["token"] for _ in range(5)]
    states = []
    for t in tokens:
        with srv.client(t) as c:
            states.append(c.get("/api/session").status_code)
    assert states == [401, 401, 200, 200, 200]


# --- 6. the password policy -----------------------------------------------------------------


@pytest.mark.parametrize(("password", "refusal"), [
    (" " * 8, "password_blank"), ("\t" * 9, "password_blank"),
    ("12345678", "password_too_common"), ("password", "password_too_common"),
    ("PassWord", "password_too_common"), ("  iloveyou  ", "password_too_common"),
    ("qwerty123", "password_too_common"), ("1q2w3e4r", "password_too_common"),
    ("SAME-NAME-{u}", "password_is_username"),
])
def test_registration_refuses_blank_common_and_username_passwords(
        start: Start, password: str, refusal: str) -> None:
    srv = start(**OPEN_LIMITS)
    u = f"same-name-{uuid.uuid4().hex[:8]}"
    with srv.client() as c:
        r = c.post("/api/players", json={"username": u, "password": password.format(u=u[10:])})
        assert r.status_code == 422 and code(r) == refusal, r.text
        assert "choose another" in r.json()["error"]["message"]
        # Nothing was made: the name is still free.
        assert c.post("/api/players", json={"username": u, "password": PASSWORD}
                      ).status_code == 201


# --- 7. usernames differing only by case --------------------------------------------------------


def test_usernames_differing_only_by_case_are_one_account(start: Start) -> None:
    srv = start(**OPEN_LIMITS)
    display = f"Alice{uuid.uuid4().hex[:6]}"
    register(srv, display)
    with srv.client() as c:
        r = c.post("/api/players", json={"username": display.lower(), "password": "other pass 2"})
        assert r.status_code == 409 and code(r) == "username_taken"
        r = login(c, display.upper())
        assert r.status_code == 201, r.text
        token = r.json()["token"]
    with srv.client(token) as c:
        assert c.get("/api/session").json()["player"]["username"] == display


def test_admin_calls_find_the_player_by_any_spelling(start: Start) -> None:
    srv = start(**OPEN_LIMITS)
    display = f"Carol{uuid.uuid4().hex[:6]}"
    register(srv, display)
    with srv.admin() as admin:
        r = admin.post(f"/api/admin/players/{display.lower()}/credit", json={"amount": 5},
                       headers=key())
        assert r.status_code == 200, r.text
        r = admin.put(f"/api/admin/players/{display.upper()}/jurisdiction",
                      json={"jurisdiction": "gb"})
        assert r.status_code == 200, r.text
    with srv.client() as c:
        token = login(c, display).json()["token"]
    with srv.client(token) as c:
        assert c.get("/api/session").json()["jurisdiction"]["id"] == "gb"


def test_migration_keeps_the_oldest_of_names_differing_by_case(database: Database) -> None:
    db = StoreDatabase(database.url)
    try:
        migrate(db.engine, "0005")
        now = utcnow()
        with db.engine.begin() as c:
            for username in ("Dave", "dave", "DAVE", "erin"):
                c.execute(text("INSERT INTO players (username, password_hash, created_at, "
                               "failed_logins) VALUES (:u, 'x', :t, 0)"),
                          {"u": username, "t": now.replace(tzinfo=None)})
        db.migrate()
        with db.engine.connect() as c:
            rows = c.execute(text("SELECT id, username, username_key FROM players ORDER BY id"))
            keys = {r.username: r.username_key for r in rows}
        ids = {u: i for i, u in enumerate(("Dave", "dave", "DAVE", "erin"), start=1)}
        assert keys["Dave"] == "dave" and keys["erin"] == "erin"
        assert keys["dave"] == f"dave#{ids['dave']}" and keys["DAVE"] == f"dave#{ids['DAVE']}"
    finally:
        db.dispose()


def test_an_accounts_delay_counts_every_spelling_of_a_name(start: Start) -> None:
    srv = start(**PROXIED)
    u = f"Bob{uuid.uuid4().hex[:6]}"
    register(srv, u)
    with srv.client() as c:
        for i, spelling in enumerate((u.lower(), u.upper(), u.swapcase())):
            assert code(login(c, spelling, "wrong", forwarded_for=f"203.0.113.{i}")) == \
                "invalid_credentials"
        assert streak(srv, f"f:u:{u.lower()}") == 3
        assert login(c, u, forwarded_for="198.51.100.7").status_code == 201
    assert streak(srv, f"f:u:{u.lower()}") is None


# --- 8. security headers ------------------------------------------------------------------------

PATHS = ["/", "/index.html", "/js/app.js", "/css/app.css", "/api/health", "/api/games",
         "/openapi.json", "/docs", "/redoc", "/no-such-page", "/api/no-such-call"]


def test_every_page_and_asset_carries_the_security_headers(start: Start) -> None:
    srv = start()
    with srv.client() as c:
        for path in PATHS:
            r = c.get(path)
            csp = r.headers.get("Content-Security-Policy", "")
            assert "frame-ancestors 'self'" in csp, (path, csp)
            assert "default-src 'self'" in csp, (path, csp)
            assert r.headers.get("X-Content-Type-Options") == "nosniff", path
            assert r.headers.get("Referrer-Policy") == "strict-origin-when-cross-origin", path
        # The game and its assets allow no inline script at all.
        app_csp = c.get("/").headers["Content-Security-Policy"]
        script = next(d for d in app_csp.split(";") if d.strip().startswith("script-src"))
        assert script.split() == ["script-src", "'self'"]


def test_frame_ancestors_are_the_operators(start: Start) -> None:
    srv = start(frame_ancestors=["https://casino.example", "https://*.casino.example"])
    with srv.client() as c:
        csp = c.get("/").headers["Content-Security-Policy"]
    assert "frame-ancestors 'self' https://casino.example https://*.casino.example" in csp


@pytest.mark.parametrize("bad", [["https://a.example; script-src *"], ["https://a.example b"],
                                 ["'unsafe-inline'"]])
def test_frame_ancestors_refuse_what_is_not_a_source(bad: list[str]) -> None:
    from pydantic import ValidationError

    from slotlab.server.settings import Settings

    with pytest.raises(ValidationError):
        Settings(frame_ancestors=bad)


def test_every_api_answer_with_a_token_or_a_balance_is_no_store(start: Start) -> None:
    srv = start(**OPEN_LIMITS)
    u = name()
    answers: dict[str, httpx.Response] = {}
    with srv.client() as c:
        answers["register"] = c.post("/api/players", json={"username": u, "password": PASSWORD})
        answers["login"] = login(c, u)
        answers["wrong login"] = login(c, u, "wrong password")
        answers["demo"] = c.post("/api/demo")
        answers["no token"] = c.get("/api/wallet")
    token = answers["login"].json()["token"]
    with srv.client(token) as c:
        answers["session"] = c.get("/api/session")
        answers["wallet"] = c.get("/api/wallet")
        answers["limits"] = c.get("/api/limits")
        answers["round"] = c.post("/api/games/instant-test/rounds", json={"bet": 1},
                                  headers=key())  # the fast round path
        waiting = c.post("/api/games/pick-test/rounds", json={"bet": 1}, headers=key())
        answers["open round"] = c.get("/api/rounds/open")
        answers["choice"] = c.post(f"/api/rounds/{waiting.json()['round_id']}/choices",
                                   json={"choice": "left", "step": 0}, headers=key())
        answers["history"] = c.get("/api/history")
        answers["record"] = c.get(f"/api/rounds/{waiting.json()['round_id']}")
        answers["bad bet"] = c.post("/api/games/instant-test/rounds", json={"bet": -1},
                                    headers=key())
    with srv.admin() as admin:
        answers["admin credit"] = admin.post(f"/api/admin/players/{u}/credit",
                                             json={"amount": 5}, headers=key())
    assert answers["round"].status_code == 201 and answers["choice"].status_code == 200
    assert "token" in answers["demo"].json() and "balance" in answers["wallet"].json()
    missing = {what: r.headers.get("Cache-Control") for what, r in answers.items()
               if r.headers.get("Cache-Control") != "no-store"}
    assert not missing, missing
    with srv.client() as c:  # the static client stays cacheable
        assert c.get("/js/app.js").headers.get("Cache-Control") != "no-store"
