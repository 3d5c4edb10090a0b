// Words for every event of the log (used by the game's message bar and by the recall replay).

export function describeEvent(e, { money, sym }) {
  const name = (id) => sym(id)?.name || id;
  switch (e.type) {
    case "reels_stopped":
      return e.stage === "free" ? "Free spin: the reels stop." : "The reels stop.";
    case "reels_nudged":
      return `Nudge ${e.step}: the Crystal Stars nudge one position.`;
    case "line_won":
      return `Line ${e.line}: ${e.count} × ${name(e.symbol)}${e.multiplier > 1 ? ` × ${e.multiplier}` : ""} pays ${money(e.win)}.`;
    case "scatter_won":
      return `${e.count} × ${name(e.symbol)} scattered pays ${money(e.win)}.`;
    case "free_spins_triggered":
      return `${e.awarded} free spins awarded${e.total_awarded && e.total_awarded !== e.awarded ? ` (${e.total_awarded} in total)` : ""}.`;
    case "free_spin_started":
      return `Free spin ${e.index}${e.remaining !== undefined ? ` (${e.remaining} left)` : ""}${e.multiplier > 1 ? `, wins × ${e.multiplier}` : ""}.`;
    case "progressive_won":
      return `${String(e.tier).toUpperCase()} progressive jackpot won on line ${e.line}${e.amount !== undefined ? `: ${money(e.amount, true)}` : ""}!`;
    case "flat_prize_won":
      return `Line ${e.line}: flat prize ${money(e.win)}${e.reason ? ` (${String(e.reason).replaceAll("_", " ")})` : ""}.`;
    case "win_capped":
      return `The win is capped at the maximum of ${money(e.cap)}.`;
    case "gamble_offered":
      return `Gamble offered: ${money(e.stake)} (step ${e.step} of ${e.max_steps}).`;
    case "gamble_resolved":
      return `Gamble on ${e.choice}: the card is ${e.card}, ${e.won ? "won" : "lost"}.`;
    case "gamble_collected":
      return `Collected ${money(e.win ?? e.stake ?? 0)}.`;
    case "round_ended":
      return `Round over: total win ${money(e.win)}.`;
    default:
      return e.type.replaceAll("_", " ");
  }
}

/** The win (credits) an event adds to the round, if any. */
export function eventWin(e) {
  if (["line_won", "scatter_won", "flat_prize_won"].includes(e.type)) return Number(e.win) || 0;
  return 0;
}

export const FEATURE_EVENTS = new Set(["free_spins_triggered", "progressive_won", "bonus_triggered", "feature_triggered", "wheel_spun", "hold_and_win_triggered"]);
