// Words for every event of the log (used by the game's message bar and by the recall replay).
// Players read names, never ids: symbols by their name, combinations by the paytable's label,
// progressive pools by their name (fmt.desc is the game's describe(), where the caller has it).

/** The pool's name ("Top Progressive") from the game's description, else from its tier. */
export function poolName(tier, desc) {
  const list = Array.isArray(desc?.progressives) ? desc.progressives : Object.entries(desc?.progressives || {}).map(([t, v]) => ({ tier: t, ...(v || {}) }));
  const named = list.find((p) => p.tier === tier)?.name;
  if (named) return named;
  const t = String(tier ?? "");
  return `${t.charAt(0).toUpperCase()}${t.slice(1)} Progressive`;
}

/** What a line paid for: a combination's label (its paytable row) or the symbol's name. */
function paidFor(e, { sym, desc }) {
  const row = (desc?.paytable || []).find((p) => p.combination !== undefined && String(p.combination) === String(e.symbol));
  if (row?.label) return row.label;
  // a round of an older model version names the combination by its own label ("777 x3"): say
  // the symbols in it by their names
  if (e.label) {
    const words = String(e.label).replace(new RegExp(`\\s+x${e.count}$`), "").split(/\s+/);
    return words.map((t) => (sym(t)?.name && sym(t).name !== t ? sym(t).name : t)).join(" ");
  }
  return sym(e.symbol)?.name || String(e.symbol);
}

const FLAT_REASONS = {
  three_stars_below_max_bet: () => "three Crystal Stars below max bet",
  top_progressive_already_won: (desc) => `${poolName("top", desc)} already won in this play`,
  bottom_progressive_already_won: (desc) => `${poolName("bottom", desc)} already won in this play`,
};

export function describeEvent(e, fmt) {
  const { money, sym, desc } = fmt;
  const name = (id) => sym(id)?.name || id;
  switch (e.type) {
    case "reels_stopped":
      return e.stage === "free" ? "Free spin: the reels stop." : "The reels stop.";
    case "reels_nudged":
      return `Nudge ${e.step}: the Crystal Stars nudge one position.`;
    case "line_won":
      return `Line ${e.line}: ${e.count} × ${paidFor(e, fmt)}${e.multiplier > 1 ? `, multiplied by ${e.multiplier},` : ""} pays ${money(e.win)}.`;
    case "scatter_won":
      return `${e.count} × ${name(e.symbol)} scattered pays ${money(e.win)}.`;
    case "free_spins_triggered":
      return `${e.awarded} free spins awarded${e.total_awarded && e.total_awarded !== e.awarded ? ` (${e.total_awarded} in total)` : ""}.`;
    case "free_spin_started":
      return `Free spin ${e.index}${e.remaining !== undefined ? ` (${e.remaining} left)` : ""}${e.multiplier > 1 ? `, wins × ${e.multiplier}` : ""}.`;
    case "progressive_won":
      return `${poolName(e.tier, desc)} won on line ${e.line}${e.amount !== undefined ? `: ${money(e.amount, true)}` : ""}!`;
    case "flat_prize_won": {
      const why = FLAT_REASONS[e.reason]?.(desc) ?? (e.reason ? String(e.reason).replaceAll("_", " ") : "");
      return `Line ${e.line}: flat prize ${money(e.win)}${why ? ` (${why})` : ""}.`;
    }
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
