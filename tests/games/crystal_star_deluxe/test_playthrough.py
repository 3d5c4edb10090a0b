"""Golden rounds: recorded seeds must replay to the recorded events, forever.

A stored round is replayed from its seed; any change to the draw (ChaCha20, ``randbelow``, the
stop split), the rules or the event format would make history unreplayable, so it must be a
deliberate new model version. Regenerate (only then) with
``.venv/bin/python -m tests.games.crystal_star_deluxe.test_playthrough``.
"""

from __future__ import annotations

import json
from pathlib import Path

from slotlab.games import find_game
from slotlab.rng import parse_seed
from slotlab.rounds import replay

GOLDEN = Path(__file__).with_name("playthrough.json")
# Seeds chosen so that the file holds losses, line wins after nudges and a bottom progressive;
# the forced round adds both progressives and a win on the last nudge.
CASES = [(45, 0), (9, 2), (18, 15), (45, 85), (27, 93), (36, 97), (45, 259)]


def _record() -> dict[str, object]:
    game = find_game("crystal-star-deluxe")
    rounds = []
    for bet, seed in CASES:
        result = game.play(bet, [parse_seed(seed)])
        rounds.append({"bet": bet, "seed": seed, **result.to_json()})
    forced = game.play_stops(45, [0, 35, 36])
    return {"model_hash": game.model_hash, "rounds": rounds,
            "forced": {"bet": 45, "stops": [0, 35, 36], **forced.to_json()}}


def test_golden_rounds_replay_exactly():
    golden = json.loads(GOLDEN.read_text())
    game = find_game("crystal-star-deluxe")
    assert golden["model_hash"] == game.model_hash
    for stored in golden["rounds"]:
        ok, result = replay(game, stored["bet"], [parse_seed(stored["seed"])], [],
                            stored["events"])
        assert ok, stored["seed"]
        assert (result.win, list(result.jackpots)) == (stored["win"], stored["jackpots"])
    forced = golden["forced"]
    assert game.play_stops(forced["bet"], forced["stops"]).to_json() == {
        k: v for k, v in forced.items() if k not in ("bet", "stops")
    } | {"bet": forced["bet"]}


if __name__ == "__main__":
    GOLDEN.write_text(json.dumps(_record(), indent=1) + "\n")
    print(f"written {GOLDEN}")
