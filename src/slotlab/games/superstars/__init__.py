"""Superstars (NetEnt-style): a 5x5, 45-line slot whose Scatters start a dice-board Bonus Game.

``model.py`` (model files), ``kernel.py`` (the round: lines, trigger, cap, simulation loop),
``bonus.py`` / ``bonus_spec.py`` (the Bonus Game and its schema), ``exact.py`` (the RTP, base
game exactly), ``game.py`` (the platform facade); rules mapped to code in ``RULES.md``.
"""
