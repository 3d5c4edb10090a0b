"""Superstars Bonus Game events: complete enough to draw every step, consistent, JSON-ready."""

from __future__ import annotations

import itertools
import json
import re

import numpy as np

from slotlab.games.superstars.bonus import (
    EV_WIDTH,
    EVENT_DOC,
    bonus_events,
    pack_bonus,
    play_bonus,
    trace_bonus,
)
from slotlab.games.superstars.bonus_spec import BonusSpec
from slotlab.rng import chunk_stream

from .bonus_reference import model_spec

SPEC = model_spec()
HOT = BonusSpec.model_validate({**SPEC.model_dump(), "land": {"prize": "1/5", "dice": "1/20"}})
TRIGGER = np.zeros(25, np.int64)
TRIGGER[[0, 6, 12]] = 1


def sample(spec: BonusSpec, n: int, seed: int) -> list[tuple[int, list[dict]]]:
    bp = pack_bonus(spec)
    stream = chunk_stream(seed, 0)
    out = []
    for i in range(n):
        win, _, rows = trace_bonus(bp, stream, TRIGGER, 20 + i % 5 if i % 2 else -1)
        out.append((win, bonus_events(rows, spec)))
    return out


SAMPLE = sample(SPEC, 300, 1) + sample(HOT, 150, 2)


def test_every_documented_event_type_occurs() -> None:
    documented = set(re.findall(r"^\* ``(\w+)``", EVENT_DOC, re.M))
    seen = {e["type"] for _, events in SAMPLE for e in events}
    assert documented == seen


def test_events_are_json_and_the_last_reels_add_up_to_the_total() -> None:
    for win, events in SAMPLE:
        json.dumps(events)
        assert events[0]["type"] == "bonus_started" and events[-1]["type"] == "bonus_ended"
        end = events[-1]
        reels = [e for e in events if "reels" in e][-1]["reels"]
        assert sum(reels) == end["reels_total"]
        assert end["total"] == win == end["reels_total"] + end["final_total"]
        if end["final_game"]:
            assert all(reels)
            collected = [e["value"] for e in events if e["type"] == "final_prize_collected"]
            assert sum(collected) == end["final_total"]


def test_each_step_follows_from_the_previous_reels() -> None:
    """A client replaying cell changes from the start reaches each event's ``reels``."""
    for _, events in SAMPLE:
        reels = [0] * 25
        for e in events:
            for c in e.get("cells", []) + e.get("prizes", []):
                reels[c["cell"]] = c["value"]
            for r in e.get("respins", []):
                for c in r["prizes"]:
                    reels[c["cell"]] = c["value"]
            if "reels" in e:
                assert reels == e["reels"], e["type"]


def test_features_keep_to_their_rules_in_every_sampled_game() -> None:
    for _, events in SAMPLE:
        pos = 0
        for prev, e in itertools.pairwise(events):
            t = e["type"]
            if t == "dice_rolled":
                assert 1 <= e["value"] <= 6 and e["from"] == pos
                assert e["to"] == (pos + e["value"]) % 24
                assert e["passed_start"] == (pos + e["value"] >= 24)
                pos = e["to"]
            elif t == "wheel_spun":  # one spin per Wheel Game, right on landing
                assert prev["type"] == "square_landed" and prev["feature"] == "WHEEL"
            elif t == "starburst_placed":
                assert any(c["merged"] for c in e["cells"]) and 2 <= e["value"] <= 5
                assert [c["cell"] for c in e["cells"]] == \
                    [e["column"] * 5 + e["top_row"] + i for i in range(3)]
            elif t == "gonzo_multiplied":
                cells = [c["cell"] for c in e["cells"]]
                assert len(set(cells)) == len(cells) == e["count"] and 1 <= e["count"] <= 24
                assert all(c["multiplier"] in (2, 3, 5) and c["value"] == c["was"] *
                           c["multiplier"] for c in e["cells"])
            elif t == "miss_banks_placed":
                cells = [c["cell"] for c in e["cells"]]
                assert len(set(cells)) == len(cells) == e["count"] and 4 <= e["count"] <= 15
                assert all(1 <= c["added"] <= 5 and c["value"] == c["was"] + c["added"]
                           for c in e["cells"])
            elif t == "finn_merged":
                assert 1 <= e["count"] <= 5 and e["to_cell"] in e["from_cells"]
                assert e["value"] == sum(c["was"] + 5 for c in e["cells"])
                assert all(c["value"] == (e["value"] if c["cell"] == e["to_cell"] else 0)
                           for c in e["cells"])
            elif t == "space_wars_respun":
                assert len(e["respins"]) <= 3 and 1 <= len(e["values"]) <= 3
                assert e["values"] == sorted(set(e["values"]), reverse=True)
                assert all(c["value"] in e["values"] for r in e["respins"] for c in r["prizes"])
            elif t == "final_game_started":
                assert e["dice"] == (e["dice_left"] + e["max_spins"] * (1 + e["hearts"])) * \
                    (2 if e["replay"] else 1) + 1
                pos = 0


def test_a_too_small_buffer_counts_rows_and_a_retry_writes_them_all() -> None:
    bp = pack_bonus(SPEC)
    stream = chunk_stream(7, 0)
    small = np.zeros((3, EV_WIDTH), np.int64)
    _, n_small, _ = play_bonus(stream.copy(), bp, TRIGGER, -1, True, small, 0)
    big = np.zeros((n_small, EV_WIDTH), np.int64)
    win, n_big, _ = play_bonus(stream.copy(), bp, TRIGGER, -1, True, big, 0)
    assert n_small == n_big > 3
    assert (small == big[:3]).all()
    off = np.zeros((1, EV_WIDTH), np.int64)
    assert play_bonus(stream.copy(), bp, TRIGGER, -1, False, off, 0)[:2] == (win, 0)
