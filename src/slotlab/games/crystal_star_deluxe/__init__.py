"""Crystal Star Deluxe: 3 reels x 3 rows, 9 lines, wild Crystal Stars that nudge twice,
fixed multiplier symbols and two symbol-triggered progressives (see RULES.md)."""

from .game import CrystalStarDeluxe, load

__all__ = ["CrystalStarDeluxe", "load"]
