// Autoplay runs on the server (docs/server.md, "Autoplay runs"): AUTO starts a run with its stop
// conditions, every round it starts names the run, and the run is stopped when auto spin stops.
// The server counts the run's rounds and losses itself and refuses the next round once a stop
// condition is met (409 autoplay_stopped), whatever this client believes.
import { explain } from "./api.js";
import { toast } from "./dialogs.js";
import { t } from "./i18n.js";

// Its texts are the "autorun.*" messages of the catalogues (web/i18n/).
const at = (key, args = {}) => t(key, args);
const REASONS = new Set(["rounds", "loss_limit", "balance_up", "single_win", "any_win", "replaced"]);

/** Start a run for the game's auto spin settings: the run's id, or null (told) when refused. */
export async function startRun(game, cfg) {
  const body = { game: game.id, any_win: !!cfg.onAnyWin };
  if (Number.isFinite(cfg.rounds)) body.rounds = cfg.rounds;
  if (cfg.singleWinExceeds) body.single_win_above = cfg.singleWinExceeds;
  if (cfg.balanceUp) body.balance_up_by = cfg.balanceUp;
  if (cfg.balanceDown) body.balance_down_by = cfg.balanceDown;
  try {
    const run = await game.app.api.post("/api/autoplay", body, { retries: 1 });
    return run.run_id;
  } catch (err) {
    const text = at("autorun.refused", { why: explain(err) });
    game.message(text, "error");
    toast(text, "error", 8000);
    return null;
  }
}

/** Tell the server the run stopped (the reason the server recorded first is kept). */
export function stopRun(game, runId, reason) {
  game.app.api.post(`/api/autoplay/${runId}/stop`, { reason }, { retries: 1 }).catch(() => {});
}

/** A round refused because the server stopped the run: auto spin stops with the server's
 * reason. True when the refusal was that one. */
export function handleRunRefusal(game, err) {
  if (err?.status !== 409 || err.code !== "autoplay_stopped") return false;
  const reason = err.body?.stop_reason;
  const why = at(REASONS.has(reason) ? `autorun.reason.${reason}` : "autorun.reason.other");
  const text = at("autorun.server_stopped", { why });
  if (game.auto) game.auto.serverStopped = true;
  game.stopAuto(text, "error");
  toast(text, "info");
  return true;
}
