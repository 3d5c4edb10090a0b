"""Super 12 Stars: 5 reels x 3 rows, 30 lines, golden and silver scatters, the Wheel, Bonus free
spins with the TV mini game, the Super 7 wild respin, the Super 10 mini game with the Frenzy
Wheel, and Lucky Stars (see RULES.md).

The game is ``slotlab.games.find_game("super-12-stars")``; this package imports nothing, so that
loading the model (``.model``) does not compile the kernel.
"""
