"""The compiled Bonus Game against the independent pure-Python reference, on the same draws.

Random 32-bit words feed both (the kernel through a scripted stream): every Bonus Game must end
with the same total, the same prizes on the reels, the same Final Game, the same features and
the same number of draws. A "hot" model (prizes land 1 time in 5) reaches the Final Game and
the full-reel paths often.
"""

from __future__ import annotations

import numpy as np
import pytest

from slotlab.games.superstars.bonus import FLAG_NAMES, pack_bonus
from slotlab.games.superstars.bonus_spec import BonusSpec

from .bonus_reference import model_spec, play_script, reference_bonus, words_below

SPEC = model_spec()
HOT = BonusSpec.model_validate({**SPEC.model_dump(), "land": {"prize": "1/5", "dice": "1/20"}})

# kernel flag name -> the reference's feature name
FEATURES = {"finn": "FINN", "starburst": "STARBURST", "wheel": "WHEEL", "gonzo": "GONZO",
            "missbanks": "MISSBANKS", "extraspins": "EXTRASPINS", "spacewars": "SPACEWARS",
            "wheel_dice1": "DICE1", "wheel_dice2": "DICE2", "wheel_random": "RANDOM",
            "wheel_replay": "REPLAY", "wheel_plus1": "PLUS1", "wheel_upgrade": "UPGRADE",
            "upgrade_paid": "UPGRADED_SQUARE"}


def trigger(rng: np.random.Generator) -> tuple[list[int], int]:
    """A trigger as the base game makes one: 3-5 symbols on distinct reels, maybe the Dice."""
    symbols = int(rng.integers(3, 6))
    dice = bool(rng.integers(0, 2))
    reels = sorted(rng.choice(4 if dice else 5, size=symbols - dice, replace=False).tolist())
    cells = [r * 5 + int(rng.integers(0, 5)) for r in reels]
    return cells, (20 + int(rng.integers(0, 5))) if dice else -1


@pytest.mark.parametrize(("spec", "n", "seed"), [(SPEC, 600, 11), (HOT, 300, 12)],
                         ids=["shipped", "hot"])
def test_kernel_equals_reference_on_the_same_draws(spec: BonusSpec, n: int, seed: int) -> None:
    bp = pack_bonus(spec)
    rng = np.random.default_rng(seed)
    seen: set[str] = set()
    finals = 0
    for _ in range(n):
        cells, dice_cell = trigger(rng)
        words = rng.integers(0, 1 << 32, size=6000).tolist()
        below, used = words_below(words)
        ref = reference_bonus(spec, below, cells, dice_cell)
        played = play_script(spec, bp, words[: used()], cells, dice_cell)  # checks the count
        ended = played.events[-1]
        assert (played.win, ended["final_total"], ended["final_game"]) == \
            (ref.total, ref.final_total, ref.final_game)
        reels = [e for e in played.events if "reels" in e][-1]["reels"]
        assert {c: v for c, v in enumerate(reels) if v} == ref.reels
        flags = {name for i, name in enumerate(FLAG_NAMES) if played.flags >> i & 1}
        assert {FEATURES[f] for f in flags if f in FEATURES} == set(ref.features)
        if ref.final_game:
            finals += 1
            assert played.of("final_game_started")[0]["dice"] == ref.final_dice
        seen |= set(ref.features)
    assert finals > 0
    assert seen == set(FEATURES.values()), f"not reached: {set(FEATURES.values()) - seen}"
