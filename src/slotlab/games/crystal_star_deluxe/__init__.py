"""Crystal Star Deluxe: 3 reels x 3 rows, 9 lines, wild Crystal Stars that nudge twice,
fixed multiplier symbols and two symbol-triggered progressives (see RULES.md).

The game is ``slotlab.games.find_game("crystal-star-deluxe")``; this package imports nothing,
so that loading the model (``.model``) does not compile the kernel.
"""
