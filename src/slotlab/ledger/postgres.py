"""The fast round write on PostgreSQL: a whole batch of rounds in ONE statement (asyncpg).

The statement is its own transaction (one commit, one WAL flush, for every round in it). Per
round it checks, with the wallet row locked, what the general path checks in its transaction:
the funds, the wallet's currency, no live round, the idempotency key unused, the player's loss
limits (:mod:`.loss_limits`; a free round is not checked); where the profile paces rounds, that
the player's last round started long enough ago (the player's row locked, then stamped with this
round's start); for a free round, its package as it was when read and no older package of its
game still playable (locked, then one round used and the win added); for a round of an autoplay
run, the run still active with the figures its row had when read (locked, then the round's share
added, and stopped if this round meets a condition); the session it was played under still live
and the player still in its jurisdiction (its last-seen time set when due). Then it debits the
bet and credits the win, inserts the ledger entries, the round, the key with its stored answer
(a write with no key, an auto-completion's, answers no request: none; a split round's opening
reserves its key with no answer), and adds the jackpot contributions to the pools. A choice's
write (a round that ``continues``) instead requires its round still waiting at the step and
update time it was read with (locked), and updates that row; a split round's settling is such a
write on its ``open`` round, and answers the key its opening reserved. In operator-wallet
mode a round that carries its credit's row (a free round, or a choice that completes its
round) is not credited to the wallet: the row is inserted ``pending`` for the operator
pipeline to send. A round whose checks fail is left out of every
insert: refused for the pace, a loss limit or the funds where the general path would refuse it
for them, or found to have a key used before (its row returned with the reason,
:class:`~.batch.Refused`, or the key's first answer, :class:`~.batch.Stored`, and the session's
last-seen time set where due: the caller answers the player), else returned as nothing, and the
caller takes the general path for it. A round that won jackpots is written alone
(:meth:`PostgresRoundWriter.write_won`): its wallet and its game's pools locked first, the
amounts paid from the pools' values as locked, then the same statement with the awards among its
pool entries.

Locks are taken in one global order, so batches of several processes and the general path
never wait on each other in a cycle: the batch's wallets in player order, then the rows that
belong to a held wallet's player (a paced player's row, a free round's package, an autoplay
run, a round waiting for a choice: whoever else locks one holds its wallet or no other lock),
then, once every wallet is held, the pools in tier order (the general path: one wallet, the
player's rows, pools by tier).

Read committed: each statement sees the database as it was when it began, but the lock on a
wallet waits for any transaction that holds it. A round whose wallet was changed after the
statement began (a request of the same player in another process, or on the general path) is
left out (the locked row's ``xmin`` differs from the one in the snapshot), so its checks never
run on a stale view. A concurrent use of the same key elsewhere hits the key's primary key: the
statement fails whole and :class:`~.batch.GroupWriter` writes its rounds again one by one.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import asyncpg
from sqlalchemy import JSON
from sqlalchemy.engine import make_url

from slotlab.json_text import json_object_with, json_text
from slotlab.ledger import loss_limits
from slotlab.ledger.batch import (
    CHOICE_COLUMNS,
    FUNDS,
    KEY,
    LOSS_LIMIT,
    PACE,
    RUN_ACTIVE,
    RUN_STOPPED,
    Outcome,
    Refused,
    RoundSession,
    RoundWrite,
    Stored,
    Written,
    pool_moves,
)
from slotlab.ledger.kinds import PLAY_KINDS
from slotlab.store.models import LIVE_STATUSES, OPEN, Player, Round
from slotlab.store.operator_wallet import OperatorWalletOp


def _window_start(now: str) -> str:
    """The start of a loss limit ``l``'s window ending at ``now``."""
    return f"{now} - CASE l.period " + " ".join(
        f"WHEN '{period}' THEN interval '{int(length.total_seconds())} seconds'"
        for period, length in loss_limits.PERIODS.items()) + " END"


def first_loss_limit_passed(player: str, bet: str, now: str) -> str:
    """The first loss limit a bet of ``bet`` at ``now`` would pass (the shortest period first),
    as JSON text ``[period, amount in force, losses so far]``, what the player is told; NULL:
    none (:func:`.loss_limits.passing_sql`)."""
    return "(" + loss_limits.passing_sql(
        player, bet, now, _window_start(now),
        "json_build_array(l.period, {in_force}, {losses})::text") + " LIMIT 1)"


def limit_passed(text: str) -> tuple[str, int, int]:
    """:func:`first_loss_limit_passed`'s JSON text as (period, amount in force, losses)."""
    period, amount, used = json.loads(text)
    return str(period), int(amount), int(used)


_FIRST_LIMIT_PASSED = first_loss_limit_passed("r.pid", "r.bet", "r.ts")
_COLUMNS = [c for c in Round.__table__.columns if c.key != "seq"]
_JSON_COLUMNS = frozenset(c.key for c in _COLUMNS if isinstance(c.type, JSON))
_LIVE = ", ".join(f"'{s}'" for s in LIVE_STATUSES)
_PLAY = ", ".join(f"'{k}'" for k in PLAY_KINDS)
# A demo player's round feeds no pool (services/demo.py): such a round takes the general path.
_DEMO = ("AND (NOT EXISTS (SELECT 1 FROM cin WHERE cin.n = r.n) OR NOT EXISTS "
         "(SELECT 1 FROM players p WHERE p.id = r.pid AND p.demo))"
         if "demo" in Player.__table__.c else "")

# A round's session (batch.RoundWrite.session; fields sid, jur, seen of the round ``r``): live at
# the round's time, its player still in the jurisdiction the round was played under (its
# last-seen time set where due: session_seen).
SESSION_FIELDS = [("sid", "bigint"), ("jur", "text"), ("seen", "boolean")]
SESSION_LIVE = """(r.sid IS NULL OR EXISTS (SELECT 1 FROM sessions s
      JOIN players sp ON sp.id = s.player_id
      WHERE s.id = r.sid AND s.player_id = r.pid AND NOT s.revoked AND s.expires_at > r.ts
        AND sp.jurisdiction IS NOT DISTINCT FROM r.jur))"""


def session_seen(rows: str) -> str:
    """The update that sets the last-seen time of the sessions of ``rows`` (a CTE of rounds
    written or answered: their ``ts``, ``sid``, ``seen``) where due."""
    return (f"UPDATE sessions SET last_seen = {rows}.ts FROM {rows} "
            f"WHERE sessions.id = {rows}.sid AND {rows}.seen RETURNING sessions.id")


def locked_wallets(columns: str) -> str:
    """The CTEs ``snap`` and ``lk`` of a batch statement over the rounds ``r`` (field ``pid``):
    their wallets as the statement's snapshot saw them, then locked in player order with
    ``columns`` (``lk.x`` and ``snap.x``: the row's version in each). A round whose two versions
    differ is left out: its wallet changed since the statement began."""
    return f"""snap AS MATERIALIZED (
  SELECT w.id, w.xmin::text AS x FROM wallets w WHERE w.player_id IN (SELECT pid FROM r)
), lk AS MATERIALIZED (
  SELECT w.id, w.player_id, {columns}, w.xmin::text AS x FROM wallets w
  WHERE w.player_id IN (SELECT pid FROM r) ORDER BY w.player_id FOR UPDATE
)"""


def status_is(alias: str, status: str) -> str:
    """A condition on the status of a row found by its key, written so that it is no index
    condition: a status's index would read every row in that status for each batch (every
    round waiting for a choice, every open round or pending operation, a pile of them once
    the operator has been down a while), where the key's finds the batch's own. (On tables
    never analysed, the generic plan took the status's.)"""
    return f"CASE WHEN {alias}.status = '{status}' THEN true ELSE false END"


def session_fields(session: RoundSession | None) -> dict[str, Any]:
    """A round's session as the statements read it (nothing: not checked)."""
    if session is None:
        return {}
    return {"sid": session[0], "jur": session[1], "seen": session[2]}


# The batch comes as ONE parameter, a JSON array with an object per round: its checks, its
# ledger lines, its pool contributions and its ``rounds`` row (every column by name, read by
# json_populate_record). The database parses it in C; asyncpg would encode an array per field
# element by element (about a hundred values a round, each type-checked in Python).
_R = [("n", "int"), ("pid", "bigint"), ("currency", "text"), ("bet", "bigint"),
      ("win", "bigint"), ("rid", "text"), ("owner", "text"), ("key", "text"),
      ("req_hash", "text"), ("ts", "timestamptz"), ("head", "json"), ("lines", "json"),
      ("contrib", "json"), ("row", "json"), ("pace_ms", "int"), ("since", "timestamptz"),
      ("play", "bigint"), ("fr_id", "bigint"), ("fr_left", "int"), ("fr_won", "bigint"),
      ("ap_id", "bigint"), ("ap_rounds", "bigint"), ("ap_bet", "bigint"), ("ap_win", "bigint"),
      ("ap_best", "bigint"), ("ap_stop", "text"), ("c_step", "int"), ("c_at", "timestamptz"),
      ("c_seeds", "text"), ("c_choices", "text"), ("c_events", "text"), ("c_status", "text"),
      ("op", "json"), ("opening", "boolean"), ("gives_back", "boolean"),
      ("note_action", "text"), ("note_detail", "text"), *SESSION_FIELDS]
_LINES = [("i", "int"), ("kind", "text"), ("amount", "bigint"), ("back", "bigint"),
          ("ref", "text")]
_CONTRIB = [("i", "int"), ("pool", "bigint"), ("kind", "text"), ("micro", "bigint")]
# A JSON column's None is stored as JSON null, as the general path stores it (a JSON null
# read by json_populate_record is an SQL NULL).
_ROW = [f"coalesce(x.{c.key}, 'null'::json)" if c.key in _JSON_COLUMNS else f"x.{c.key}"
        for c in _COLUMNS]
_ROW_OF = dict(zip((c.key for c in _COLUMNS), _ROW, strict=True))
_CHOICE_ROW = [_ROW_OF[k] for k in CHOICE_COLUMNS]  # a choice's update, in CHOICE_COLUMNS' order
OP_COLUMNS = [c for c in OperatorWalletOp.__table__.columns if c.key != "id"]


def row_sql(columns: Sequence[Any], alias: str) -> str:
    """The columns of a row read by json_populate_record (a JSON column's None is JSON null, as
    the ORM stores it)."""
    return ", ".join(f"coalesce({alias}.{c.key}, 'null'::json)" if isinstance(c.type, JSON)
                     else f"{alias}.{c.key}" for c in columns)


def _recordset(source: str, fields: list[tuple[str, str]], alias: str) -> str:
    return (f"json_to_recordset({source}) AS {alias}"
            f"({', '.join(f'{f} {t}' for f, t in fields)})")


# The jackpot pool entries of a batch's written rounds (their contributions, and the awards of
# a round written by ``write_won``), from a CTE ``c`` (n: the round's place in the batch, rid,
# ts, pool, kind, micro, i: its place in the round): each pool locked once, in tier order (after
# every other lock of the statement), moved by its total, and an entry per move in round order
# with the pool's value after it. The operator path's settling
# write (:mod:`.operator_rounds`) ends with the same CTEs.
CONTRIBUTIONS = """agg AS MATERIALIZED (
  SELECT pool, sum(micro) AS total FROM c GROUP BY pool
), lp AS MATERIALIZED (
  SELECT p.id FROM jackpot_pools p WHERE p.id IN (SELECT pool FROM agg) ORDER BY p.tier
  FOR UPDATE
), pu AS (
  UPDATE jackpot_pools p SET value_micro = p.value_micro + agg.total FROM agg, lp
  WHERE p.id = agg.pool AND lp.id = p.id RETURNING p.id, p.value_micro - agg.total AS before
), je AS (
  INSERT INTO jackpot_entries (pool_id, kind, amount_micro, value_after_micro, round_id,
                               created_at)
  SELECT c.pool, c.kind, c.micro,
         pu.before + sum(c.micro) OVER (PARTITION BY c.pool ORDER BY c.n, c.i), c.rid, c.ts
  FROM c JOIN pu ON pu.id = c.pool ORDER BY c.n, c.i RETURNING 1
)"""

PARAMETERS = 1


def _net_so_far(alias: str) -> str:
    """The session's net position as the ledger holds it (a written round adds its own lines):
    the play entries of the wallet of row ``alias`` since its session began (``since``)."""
    return (f"(SELECT coalesce(sum(e.amount), 0) FROM ledger_entries e WHERE e.wallet_id = "
            f"{alias}.wallet_id AND e.created_at >= {alias}.since AND e.kind IN ({_PLAY}))")


BATCH_SQL = f"""/* slotlab fast round batch */
WITH r AS MATERIALIZED (
  SELECT *, CASE WHEN r.op IS NULL THEN r.win ELSE 0 END AS paid,  -- the wallet's credit
    CASE WHEN r.gives_back THEN 0 ELSE r.win END AS won,  -- what the round paid
    -- a round given back: the bet its run's figures lose (a free round's: none counted)
    CASE WHEN r.gives_back AND r.fr_id IS NULL THEN (r.row->>'bet')::bigint ELSE 0 END
      AS bet_back
  FROM {_recordset("$1::json", _R, "r")}
), cin AS MATERIALIZED (
  SELECT r.n, e.* FROM r CROSS JOIN LATERAL {_recordset("r.contrib", _CONTRIB, "e")}
), {locked_wallets("w.balance, w.currency")}, lkp AS MATERIALIZED (
  SELECT p.id, p.last_round_at FROM players p
  WHERE p.id IN (SELECT lk.player_id FROM lk JOIN r ON r.pid = lk.player_id WHERE r.pace_ms > 0)
  ORDER BY p.id FOR UPDATE
), lkf AS MATERIALIZED (
  SELECT f.id, f.player_id, f.game_id, f.rounds_left, f.total_won FROM free_round_packages f
  WHERE f.id IN (SELECT r.fr_id FROM lk JOIN r ON r.pid = lk.player_id WHERE r.fr_id IS NOT NULL)
  ORDER BY f.id FOR UPDATE
), lka AS MATERIALIZED (
  SELECT a.id, a.status, a.rounds_played, a.total_bet, a.total_win, a.best_win
  FROM autoplay_runs a
  WHERE a.id IN (SELECT r.ap_id FROM lk JOIN r ON r.pid = lk.player_id WHERE r.ap_id IS NOT NULL)
  ORDER BY a.id FOR UPDATE
), lkr AS MATERIALIZED (
  SELECT o.id FROM rounds o JOIN r ON r.rid = o.id AND r.pid = o.player_id
  WHERE r.c_step IS NOT NULL AND o.player_id IN (SELECT lk.player_id FROM lk)
    AND CASE WHEN o.status = r.c_status THEN true ELSE false END  -- no index condition
    AND o.step = r.c_step AND o.updated_at = r.c_at
    AND o.seeds::jsonb = r.c_seeds::jsonb AND o.choices::jsonb = r.c_choices::jsonb
    AND coalesce(o.events::jsonb, 'null'::jsonb) = r.c_events::jsonb
  ORDER BY o.id FOR UPDATE OF o
), chk AS MATERIALIZED (  -- each round's checks (a wallet changed meanwhile: no row at all)
  SELECT r.*, lk.id AS wallet_id, lk.balance AS held, lkp.last_round_at AS last_at,
    k.request_hash AS k_hash, k.status_code AS k_status, k.response::text AS k_answer,
    -- the checks the general path makes before the key, and the batch's own
    coalesce(lk.currency = r.currency
      AND (SELECT count(*) FROM r AS twice WHERE twice.pid = r.pid) = 1
      AND {SESSION_LIVE}
      {_DEMO}, false) AS valid,
    lk.balance >= r.bet AS funded,
    coalesce(r.pace_ms = 0 OR (lkp.id IS NOT NULL AND (lkp.last_round_at IS NULL
             OR lkp.last_round_at <= r.ts - r.pace_ms * interval '1 millisecond')), false)
      AS paced,
    CASE WHEN r.c_step IS NULL AND r.fr_id IS NULL THEN {_FIRST_LIMIT_PASSED} END AS over,
    coalesce(r.fr_id IS NULL OR (lkf.rounds_left = r.fr_left AND lkf.total_won = r.fr_won
         AND (r.c_step IS NOT NULL OR NOT EXISTS (SELECT 1 FROM free_round_packages o
              WHERE o.player_id = lkf.player_id AND o.game_id = lkf.game_id AND o.id < lkf.id
                AND o.rounds_left > 0 AND o.expires_at > r.ts))), false) AS package_ok,
    -- the checks the general path makes after the key, before the pace
    coalesce((r.ap_id IS NULL OR r.c_step IS NOT NULL OR (lka.status = '{RUN_ACTIVE}'
         AND (r.ap_rounds, r.ap_bet, r.ap_win, r.ap_best)
             = (lka.rounds_played, lka.total_bet, lka.total_win, lka.best_win)))
    AND CASE WHEN r.c_step IS NULL THEN
      NOT EXISTS (SELECT 1 FROM rounds o WHERE o.player_id = r.pid AND o.status IN ({_LIVE}))
    ELSE EXISTS (SELECT 1 FROM lkr WHERE lkr.id = r.rid) END, false) AS ready
  FROM r JOIN lk ON lk.player_id = r.pid JOIN snap ON snap.id = lk.id AND snap.x = lk.x
  LEFT JOIN lkp ON lkp.id = r.pid LEFT JOIN lkf ON lkf.id = r.fr_id
  LEFT JOIN lka ON lka.id = r.ap_id
  LEFT JOIN idempotency_keys k ON k.owner = r.owner AND k.key = r.key
), ok AS MATERIALIZED (
  SELECT chk.*, chk.held - chk.bet + chk.paid AS balance,
    CASE WHEN NOT chk.opening THEN (left(chk.head::text, -1) || ',"balance":'
      || (chk.held - chk.bet + chk.paid) || '}}')::json
    END AS answer  -- the stored answer: the head with the balance after the round (an
                   -- opening's key waits for its settling's)
  FROM chk
  WHERE chk.valid AND chk.k_hash IS NULL AND chk.ready AND chk.paced AND chk.over IS NULL
    AND chk.package_ok AND chk.funded
), refused AS MATERIALIZED (  -- batch.Refused and batch.Stored, in the general path's order
  SELECT chk.n, chk.held, chk.last_at, chk.ts, chk.sid, chk.seen, chk.since, chk.wallet_id,
    chk.k_hash, chk.k_status, chk.k_answer, chk.over,
    CASE WHEN chk.k_hash IS NOT NULL THEN '{KEY}' WHEN NOT chk.paced THEN '{PACE}'
      WHEN chk.over IS NOT NULL THEN '{LOSS_LIMIT}' ELSE '{FUNDS}' END AS reason
  FROM chk WHERE chk.valid AND chk.c_step IS NULL AND (chk.k_hash IS NOT NULL OR (chk.ready
    AND (NOT chk.paced OR chk.over IS NOT NULL OR (NOT chk.funded AND chk.fr_id IS NULL))))
), seen_refused AS (
  {session_seen("refused")}
), w AS (
  UPDATE wallets SET balance = wallets.balance - ok.bet + ok.paid FROM ok
  WHERE wallets.id = ok.wallet_id RETURNING wallets.id
), seen AS (
  {session_seen("ok")}
), pace AS (
  UPDATE players SET last_round_at = ok.ts FROM ok
  WHERE players.id = ok.pid AND ok.pace_ms > 0 RETURNING players.id
), fru AS (
  UPDATE free_round_packages f
  SET rounds_left = f.rounds_left - (ok.c_step IS NULL)::int + ok.gives_back::int,
    total_won = f.total_won + ok.win
  FROM ok
  WHERE f.id = ok.fr_id RETURNING f.id
), aps AS (
  UPDATE autoplay_runs a SET rounds_played = a.rounds_played + (ok.c_step IS NULL)::int,
    total_bet = a.total_bet + ok.bet - ok.bet_back,
    total_win = a.total_win + ok.won, best_win = greatest(a.best_win, ok.won),
    status = CASE WHEN ok.ap_stop IS NULL THEN a.status ELSE '{RUN_STOPPED}' END,
    stop_reason = coalesce(ok.ap_stop, a.stop_reason),
    stopped_at = CASE WHEN ok.ap_stop IS NULL THEN a.stopped_at ELSE ok.ts END
  FROM ok WHERE a.id = ok.ap_id RETURNING a.id
), le AS (
  INSERT INTO ledger_entries (wallet_id, kind, amount, balance_after, round_id, ref, created_at)
  SELECT ok.wallet_id, e.kind, e.amount, ok.balance - e.back, ok.rid, e.ref, ok.ts
  FROM ok CROSS JOIN LATERAL {_recordset("ok.lines", _LINES, "e")}
  ORDER BY ok.n, e.i RETURNING 1
), ri AS (
  INSERT INTO rounds ({", ".join(c.key for c in _COLUMNS)})
  SELECT {", ".join(_ROW)}
  FROM ok CROSS JOIN LATERAL json_populate_record(NULL::rounds, ok.row) AS x
  WHERE ok.c_step IS NULL ORDER BY ok.n RETURNING 1
), ru AS (
  UPDATE rounds o SET ({", ".join(CHOICE_COLUMNS)}) = ({", ".join(_CHOICE_ROW)})
  FROM ok CROSS JOIN LATERAL json_populate_record(NULL::rounds, ok.row) AS x
  WHERE o.id = ok.rid AND ok.c_step IS NOT NULL RETURNING 1
), ki AS (
  INSERT INTO idempotency_keys (owner, key, request_hash, round_id, status_code, response,
                                created_at)
  SELECT ok.owner, ok.key, ok.req_hash, ok.rid,
         CASE WHEN ok.opening THEN NULL WHEN ok.c_step IS NULL THEN 201 ELSE 200 END,
         ok.answer, ok.ts
  FROM ok WHERE ok.key IS NOT NULL ORDER BY ok.n RETURNING 1
), ku AS (  -- an open round settled: the answer its opening's key waits for
  UPDATE idempotency_keys k SET status_code = 201, response = ok.answer FROM ok
  WHERE ok.c_status = '{OPEN}' AND k.round_id = ok.rid AND k.response IS NULL RETURNING 1
), na AS (  -- the round's notes
  INSERT INTO admin_actions (action, target, detail, created_at)
  SELECT ok.note_action, ok.rid, ok.note_detail, ok.ts FROM ok
  WHERE ok.note_action IS NOT NULL ORDER BY ok.n RETURNING 1
), oi AS (
  INSERT INTO operator_wallet_ops ({", ".join(c.key for c in OP_COLUMNS)})
  SELECT {row_sql(OP_COLUMNS, "x")}
  FROM ok CROSS JOIN LATERAL json_populate_record(NULL::operator_wallet_ops, ok.op) AS x
  WHERE ok.op IS NOT NULL ORDER BY ok.n RETURNING 1
), c AS MATERIALIZED (
  SELECT ok.n, ok.rid, ok.ts, e.pool, e.kind, e.micro, e.i FROM ok JOIN cin e ON e.n = ok.n
), {CONTRIBUTIONS}
SELECT ok.n, ok.balance,
  CASE WHEN ok.since IS NOT NULL THEN ok.play + {_net_so_far("ok")} END AS net,
  NULL::text AS reason, NULL::timestamptz AS last_at, NULL::text AS k_hash,
  NULL::int AS k_status, NULL::text AS k_answer, NULL::text AS over
FROM ok
UNION ALL
SELECT f.n, f.held,
  CASE WHEN f.reason = '{KEY}' AND f.since IS NOT NULL THEN {_net_so_far("f")} END,
  f.reason, f.last_at, f.k_hash, f.k_status, f.k_answer, f.over
FROM refused f
"""


def round_json(n: int, w: RoundWrite) -> str:
    """Round ``n`` of a batch as the statement reads it: the answer's head and the events go in
    as the JSON text already encoded for the answer, never encoded again."""
    fr = w.free_round
    record = json_text({
        "n": n, "pid": w.player_id, "currency": w.currency, "bet": w.bet, "win": w.win,
        "rid": w.round_id, "owner": w.owner, "key": w.key, "req_hash": w.request_hash, "ts": w.at,
        "pace_ms": w.pace_ms, "since": w.since, "play": w.play,
        "fr_id": fr and fr[0], "fr_left": fr and fr[1], "fr_won": fr and fr[2],
        **_autoplay(w),
        **_continues(w),
        **({} if w.credit is None else {"op": w.credit}),
        "opening": w.opening, "gives_back": w.gives_back,
        "note_action": w.note and w.note[0], "note_detail": w.note and w.note[1],
        **session_fields(w.session),
        "lines": [{"i": i, "kind": e.kind, "amount": e.amount, "back": e.back, "ref": e.ref}
                  for i, e in enumerate(w.ledger)],
        "contrib": [{"i": i, "pool": pool, "kind": kind, "micro": micro}
                    for i, (pool, kind, micro)
                    in enumerate(pool_moves(w.contributions, w.awards))]})
    row = json_object_with(json_text(w.round_values), events=w.events_json)
    return json_object_with(record, head=w.response_json, row=row)


def _continues(w: RoundWrite) -> dict[str, Any]:
    c = w.continues
    if c is None:
        return {}
    return {"c_step": c.step, "c_at": c.updated_at, "c_seeds": c.seeds, "c_choices": c.choices,
            "c_events": c.events, "c_status": c.status}


def _autoplay(w: RoundWrite) -> dict[str, Any]:
    if w.autoplay is None:
        return {}
    run, figures, stop = w.autoplay
    rounds, bet, win, best = figures or (None, None, None, None)
    return {"ap_id": run, "ap_rounds": rounds, "ap_bet": bet, "ap_win": win, "ap_best": best,
            "ap_stop": stop}


def parameters(batch: Sequence[RoundWrite]) -> list[str]:
    """The statement's one parameter."""
    return ["[" + ",".join(round_json(n, w) for n, w in enumerate(batch)) + "]"]


# Every table the statement reads is read by key. A prepared statement keeps the generic plan
# PostgreSQL made at its sixth run: on a new database, while the tables held a few rows, that
# plan scanned rounds and idempotency_keys whole, and kept scanning them as they grew (measured:
# 346 rounds/s and 7 ms of PostgreSQL CPU per round after a minute, against 900 and 0.5 ms once
# planned on indexes). Sequential scans off on these connections keeps the plan on the indexes
# whatever the statistics said when it was made; hash and merge joins off keep it from reading a
# whole index to join a batch to a table (the operator pipeline's settling and completion read
# every operation of the log by its transaction id index, a hash join to a batch of a few: 1.2 ms
# of PostgreSQL CPU per round in the operator-wallet mix), so each batch row is looked up by its
# key. (Behind PgBouncer nothing stays prepared: each batch is planned afresh on the tables as
# they are.)
KEYED_PLANS = {"enable_seqscan": "off", "enable_hashjoin": "off", "enable_mergejoin": "off"}


def asyncpg_dsn(url: str) -> str:
    """A SQLAlchemy PostgreSQL URL (``postgresql+psycopg://...``) as an asyncpg DSN; its query
    (``options=-csearch_path=...``) is passed on as start-up settings."""
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


async def no_reset(_: asyncpg.Connection) -> None:
    """Connections carry no session state (a statement or a transaction each time, begun and
    ended there; here and in the operator pipeline's pool): the pool's reset round trip at
    every release is not needed."""


# One player's wallet locked, alone in its transaction before the pools (a round that won
# jackpots: here and in the operator pipeline's settling).
LOCK_WALLET = "SELECT 1 FROM wallets WHERE player_id = $1 FOR UPDATE"
_LOCK_POOLS = ("SELECT id, value_micro, reset_micro FROM jackpot_pools "
               "WHERE id = ANY($1::bigint[]) ORDER BY tier FOR UPDATE")


async def lock_pools(conn: asyncpg.pool.PoolConnectionProxy[Any], pools: Sequence[int]
                     ) -> dict[int, tuple[int, int]]:
    """A game's pools locked in tier order (the order every writer locks them in, after the
    wallet), by id: (value, reset value), what an award needs (services/jackpots.won)."""
    rows = await conn.fetch(_LOCK_POOLS, list(pools))
    return {r["id"]: (int(r["value_micro"]), int(r["reset_micro"])) for r in rows}


def _written(rows: Sequence[asyncpg.Record], n: int) -> list[Outcome]:
    written: list[Outcome] = [None] * n
    for row in rows:
        net, reason = row["net"], row["reason"]
        net = None if net is None else int(net)
        written[row["n"]] = (
            Written(int(row["balance"]), net) if reason is None
            else Stored(row["k_hash"], row["k_status"], row["k_answer"], net) if reason == KEY
            else Refused(reason, int(row["balance"]), row["last_at"],
                         None if row["over"] is None else limit_passed(row["over"])))
    return written


class PostgresRoundWriter:
    """Writes batches on a small asyncpg pool of its own (one connection per batch in flight,
    and one more for :meth:`fetchrow`, so that a read never waits for a batch's commit).

    ``prepared=False`` (PgBouncer in transaction mode): no statement is kept prepared on a
    server connection, which a pooler may hand to another client between statements."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool

    @classmethod
    async def connect(cls, url: str, connections: int, prepared: bool = True
                      ) -> PostgresRoundWriter:
        pool = await asyncpg.create_pool(
            asyncpg_dsn(url), min_size=connections + 1, max_size=connections + 1,
            reset=no_reset,
            statement_cache_size=100 if prepared else 0,
            server_settings=KEYED_PLANS if prepared else None)
        return cls(pool)

    async def write(self, batch: Sequence[RoundWrite]) -> list[Outcome]:
        async with self.pool.acquire() as conn:
            rows = await conn.fetch(BATCH_SQL, *parameters(batch))
        return _written(rows, len(batch))

    async def write_won(self, player_id: int, pools: Sequence[int],
                        build: Callable[[Mapping[int, tuple[int, int]]], RoundWrite]
                        ) -> tuple[RoundWrite, Outcome]:
        """A round that won jackpots, alone in its transaction: the player's wallet locked, then
        the pools in tier order (the order every writer locks them in), ``build`` given their
        values (pool id -> (value, reset value)) to make the round's write with its awards, and
        that write made by the batch statement, which takes the locks it already holds."""
        async with self.pool.acquire() as conn, conn.transaction():
            await conn.execute(LOCK_WALLET, player_id)
            w = build(await lock_pools(conn, pools))
            rows = await conn.fetch(BATCH_SQL, *parameters([w]))
        return w, _written(rows, 1)[0]

    async def fetchrow(self, query: str, *args: Any) -> Mapping[str, Any] | None:
        """One row of a read (its own transaction), or None."""
        async with self.pool.acquire() as conn:
            row = await conn.fetchrow(query, *args)
        return None if row is None else dict(row)

    async def close(self) -> None:
        await self.pool.close()
