// Words for every event of the log (used by the game's message bar and by the recall replay).
// Players read names, never ids: symbols by their name, combinations by the paytable's label,
// progressive pools by their name (fmt.desc is the game's describe(), where the caller has it).
import { t } from "./i18n.js";
import { payLabel, poolText, symbolText, tierText } from "./names.js";

/** The pool's name ("Top Progressive") from the game's description, else from its tier. */
export function poolName(tier, desc) {
  const list = Array.isArray(desc?.progressives) ? desc.progressives : Object.entries(desc?.progressives || {}).map(([t, v]) => ({ tier: t, ...(v || {}) }));
  const named = list.find((p) => p.tier === tier)?.name;
  if (named) return poolText(desc, tier, named);
  return t("event.pool_name", { tier: tierText(tier) });
}

/** What a line paid for: a combination's label (its paytable row) or the symbol's name. */
function paidFor(e, { sym, desc }) {
  const row = (desc?.paytable || []).find((p) => p.combination !== undefined && String(p.combination) === String(e.symbol));
  if (row?.label) return payLabel(desc, row);
  // a round of an older model version names the combination by its own label ("777 x3"): say
  // the symbols in it by their names
  if (e.label) {
    const words = String(e.label).replace(new RegExp(`\\s+x${e.count}$`), "").split(/\s+/);
    return words.map((t) => (sym(t)?.name && sym(t).name !== t ? symbolText(desc, sym(t)) : t)).join(" ");
  }
  return sym(e.symbol) ? symbolText(desc, sym(e.symbol)) : String(e.symbol);
}

const FLAT_REASONS = {
  three_stars_below_max_bet: () => t("event.flat.below_max_bet"),
  top_progressive_already_won: (desc) => t("event.flat.already_won", { pool: poolName("top", desc) }),
  bottom_progressive_already_won: (desc) => t("event.flat.already_won", { pool: poolName("bottom", desc) }),
};

export function describeEvent(e, fmt) {
  const { money, sym, desc } = fmt;
  const name = (id) => (sym(id)?.name ? symbolText(desc, sym(id)) : id);
  switch (e.type) {
    case "reels_stopped":
      return e.stage === "free" ? t("event.reels_stopped_free") : t("event.reels_stopped");
    case "reels_nudged":
      return t("event.reels_nudged", { step: e.step });
    case "line_won": {
      const args = { line: e.line, count: e.count, what: paidFor(e, fmt), x: e.multiplier, amount: money(e.win) };
      return e.multiplier > 1 ? t("event.line_won_x", args) : t("event.line_won", args);
    }
    case "scatter_won":
      return t("event.scatter_won", { count: e.count, what: name(e.symbol), amount: money(e.win) });
    case "free_spins_triggered":
      return e.total_awarded && e.total_awarded !== e.awarded
        ? t("event.free_spins_total", { n: e.awarded, total: e.total_awarded })
        : t("event.free_spins", { n: e.awarded });
    case "free_spin_started":
      return [
        t("event.free_spin", { index: e.index }),
        e.remaining !== undefined ? t("event.free_spin_left", { n: e.remaining }) : "",
        e.multiplier > 1 ? t("event.free_spin_x", { x: e.multiplier }) : "",
        t("event.end"),
      ].join("");
    case "progressive_won":
      return e.amount !== undefined
        ? t("event.progressive_amount", { pool: poolName(e.tier, desc), line: e.line, amount: money(e.amount, true) })
        : t("event.progressive", { pool: poolName(e.tier, desc), line: e.line });
    case "flat_prize_won": {
      const why = FLAT_REASONS[e.reason]?.(desc) ?? (e.reason ? String(e.reason).replaceAll("_", " ") : "");
      return why ? t("event.flat_why", { line: e.line, amount: money(e.win), why }) : t("event.flat", { line: e.line, amount: money(e.win) });
    }
    case "win_capped":
      return t("event.win_capped", { amount: money(e.cap) });
    case "gamble_offered":
      return t("event.gamble_offered", { amount: money(e.stake), step: e.step, max: e.max_steps });
    case "gamble_resolved":
      return t(e.won ? "event.gamble_won" : "event.gamble_lost", { choice: t(`gamble.colour_${e.choice}`), card: t(`gamble.card_${e.card}`) });
    case "gamble_collected":
      return t("event.gamble_collected", { amount: money(e.win ?? e.stake ?? 0) });
    case "round_ended":
      // a progressive is paid beside the round's win (the replay adds it from the record)
      return e.jackpot_win
        ? t("event.round_ended_jackpot", { total: money(e.total, true), jackpot: money(e.jackpot_win, true) })
        : t("event.round_ended", { amount: money(e.win) });
    case "progressive_contributed":
      return t("event.progressive_contributed");
    default:
      return t("event.unknown", { type: e.type.replaceAll("_", " ") });
  }
}

/** The win (credits) an event adds to the round, if any. */
export function eventWin(e) {
  if (["line_won", "scatter_won", "flat_prize_won"].includes(e.type)) return Number(e.win) || 0;
  return 0;
}

export const FEATURE_EVENTS = new Set(["free_spins_triggered", "progressive_won", "bonus_triggered", "feature_triggered", "wheel_spun", "hold_and_win_triggered"]);
