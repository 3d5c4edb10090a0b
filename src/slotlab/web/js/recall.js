// RECALL: the player's last rounds, and a step-by-step replay of any of them from its event log.
import { explain } from "./api.js";
import { openDialog } from "./dialogs.js";
import { describeEvent, eventWin } from "./eventtext.js";
import { featureFor, hostForReplay } from "./features/index.js";
import { t, tMaybe } from "./i18n.js";
import { Reels } from "./reels.js";
import { fmtTime, h, pick } from "./util.js";

/** A round's status in words (an unknown one as the server says it). */
const statusText = (s) => tMaybe(`recall.status.${s}`) ?? String(s || "");
/** A round voided for a malfunction says so, with the operator's reason. */
const statusOf = (r) => (r.void ? t("recall.voided_because", { reason: r.void.reason }) : statusText(r.status));

export function openRecall(app, gameId) {
  const body = h("div.recall", { "data-testid": "recall" });
  openDialog(t("recall.title"), body, { testid: "recall-dialog", wide: true });
  return showList(app, gameId, body);
}

async function showList(app, gameId, body) {
  body.replaceChildren(h("p", {}, t("recall.loading")));
  let data;
  try {
    data = await app.api.get("/api/history?limit=50");
  } catch (err) {
    body.replaceChildren(h("p.error-text", {}, explain(err)));
    return;
  }
  const rounds = data?.rounds || (Array.isArray(data) ? data : []);
  if (!rounds.length) {
    body.replaceChildren(h("p", {}, t("recall.empty")), fairnessLine(app));
    return;
  }
  const name = (id) => (app.games || []).find((g) => g.id === id)?.name || id;
  // a table on a desktop; on a phone each row is a card (css: .history), its cells labelled
  const cols = ["time", "game", "bet", "win_col", "status"].map((k) => t(`recall.${k}`));
  const cell = (i, text, attrs = {}) => h("td", { "data-label": cols[i], ...attrs }, text);
  const table = h(
    "table.history",
    { "data-testid": "history" },
    h("thead", {}, h("tr", {}, cols.map((c) => h("th", {}, c)), h("th"))),
    h(
      "tbody",
      {},
      rounds.map((r) =>
        h(
          "tr",
          { "data-testid": "history-row", "data-round": r.round_id, class: r.game === gameId ? "this-game" : "" },
          cell(0, fmtTime(pick(r, "completed_at", "created_at", "started_at")), { class: "when" }),
          cell(1, name(pick(r, "game", "game_id")), { class: "what" }),
          cell(2, app.money(pick(r, "bet_amount", "bet") ?? 0)),
          cell(3, app.money(Number(pick(r, "win_amount", "win") ?? 0) + Number(r.jackpot_win || 0)), { "data-testid": "history-win" }),
          cell(4, statusOf(r), { "data-testid": "history-status" }),
          h("td.act", {}, h("button.ctl.small-text", { "data-testid": "replay", onclick: () => showRound(app, r.round_id, body, () => showList(app, gameId, body)) }, t("recall.replay"))),
        ),
      ),
    ),
  );
  body.replaceChildren(h("p.note", {}, t("recall.note")), fairnessLine(app), table);
}

/** The provably fair seed pair in use, where the server offers it: its commitment is shown
 * before any round is played under it (nothing is shown where the scheme is off). */
function fairnessLine(app) {
  const line = h("p.note.fairness", { "data-testid": "fairness" });
  app.api
    .get("/api/fairness", { retries: 0 })
    .then((f) => {
      line.textContent = t("recall.commitment", { hash: f.active.commitment, client: f.active.client_seed });
    })
    .catch(() => line.remove());
  return line;
}

/** Export a finished round for `slotlab verify`; a pair not yet revealed can be rotated here. */
function fairnessPanel(app, roundId) {
  const panel = h("div.fairness", { "data-testid": "fairness-round" });
  const show = (x) => {
    const file = new Blob([JSON.stringify(x, null, 1)], { type: "application/json" });
    const link = h("a.ctl.small-text", { "data-testid": "fairness-export", href: URL.createObjectURL(file), download: `round-${roundId}.json` }, t("recall.export"));
    const rotate = h("button.ctl.small-text", { "data-testid": "fairness-rotate", onclick: () => app.api.call("PUT", "/api/fairness", {}).then(load, () => {}) }, t("recall.new_seeds"));
    panel.replaceChildren(
      h("span", {}, t("recall.commitment", { hash: x.fairness.commitment, client: x.fairness.client_seed }) + " "),
      link,
      x.fairness.revealed ? h("span", {}, " " + t("recall.revealed")) : h("span", {}, " " + t("recall.not_revealed") + " ", rotate),
    );
  };
  const load = () => app.api.get(`/api/fairness/rounds/${encodeURIComponent(roundId)}`, { retries: 0 }).then(show, () => panel.remove());
  load();
  return panel;
}

/**
 * The record's events with what the log leaves to the record: each progressive won with its
 * amount (the record's jackpots, tier by tier in the order won) and the round's end with the
 * progressives paid beside its win, so the replay ends on the record's total.
 */
export function withAwards(rec, denom) {
  const pots = [...(rec.jackpots || [])];
  const jackpotWin = Number(rec.jackpot_win || 0);
  return (rec.events || []).map((e) => {
    if (e.type === "progressive_won" && e.amount === undefined) {
      const i = pots.findIndex((j) => j.tier === e.tier);
      return i < 0 ? e : { ...e, amount: Number(pots.splice(i, 1)[0].amount) };
    }
    if (e.type === "round_ended" && jackpotWin) return { ...e, jackpot_win: jackpotWin, total: Number(e.win) * denom + jackpotWin };
    return e;
  });
}

async function showRound(app, roundId, body, back) {
  body.replaceChildren(h("p", {}, t("recall.loading_round")));
  let rec;
  let desc;
  try {
    rec = await app.api.get(`/api/rounds/${encodeURIComponent(roundId)}`);
    desc = await app.api.get(`/api/games/${encodeURIComponent(pick(rec, "game", "game_id"))}`);
  } catch (err) {
    body.replaceChildren(h("p.error-text", {}, explain(err)));
    return;
  }
  const listing = (app.games || []).find((g) => g.id === desc.id) || {};
  const denom = Number(desc.denomination ?? listing.denomination ?? 1) || 1;
  const money = (c, raw) => app.money(raw ? c : Number(c) * denom);
  const reels = new Reels(desc, { testid: "replay-reels" });
  const events = withAwards(rec, denom);
  const stepText = h("p.replay-step", { "data-testid": "replay-step", role: "status", "aria-live": "polite" });
  const counter = h("span.replay-count", { "data-testid": "replay-count" });
  const winEl = h("output", { "data-testid": "replay-win" }, money(0));
  const log = h("ol.replay-log", { "data-testid": "replay-log" });
  let i = -1;
  let win = 0; // credits
  let jackpots = 0; // minor units, paid beside the credits
  const fmt = { money, sym: (id) => reels.sym(id), desc };
  // a game with features of its own draws them here too, every step at once
  const stage = h("div.replay-stage", {}, reels.el);
  const featureBar = h("div.replay-features");
  const feature = featureFor(desc, hostForReplay({ reels, stage, status: featureBar, credits: (c) => money(c), bet: Number(rec.bet_credits ?? rec.bet) }));
  if (feature) stage.classList.add("with-feature");
  const say = (e) => feature?.describe(e, fmt) ?? describeEvent(e, fmt);
  let drawing = 0;
  const apply = async (k) => {
    // redraw from the start up to event k (so stepping back works too)
    const token = ++drawing;
    win = 0;
    jackpots = 0;
    log.replaceChildren();
    reels.clearWins();
    feature?.reset();
    for (let j = 0; j <= k; j++) {
      const e = events[j];
      if (feature) {
        const w = feature.eventWin(e);
        if (w) win += Number(w);
        const took = await feature.handle(e);
        if (token !== drawing) return;
        if (took) {
          log.append(h("li" + (j === k ? ".current" : ""), {}, say(e)));
          continue;
        }
      }
      if (e.type === "reels_stopped" || e.type === "reels_nudged") {
        reels.setWindow(e.window);
      } else if (e.positions) {
        reels.showWin(e, money(eventWin(e)), { keep: j > 0 && events[j - 1].positions });
      }
      win += eventWin(e);
      if (e.type === "gamble_resolved") win = e.win !== undefined ? Number(e.win) : e.won ? Number(e.stake) * 2 : 0;
      if (e.type === "round_ended" || e.type === "win_capped") win = Number(e.win ?? e.cap);
      if (e.type === "progressive_won") jackpots += Number(e.amount || 0);
      feature?.after(e);
      log.append(h("li" + (j === k ? ".current" : ""), {}, say(e)));
    }
    stepText.textContent = k >= 0 ? say(events[k]) : t("recall.press_next");
    counter.textContent = t("recall.step", { k: k + 1, n: events.length });
    winEl.textContent = app.money(win * denom + jackpots);
    winEl.dataset.minor = String(win * denom + jackpots);
    prev.disabled = k <= 0;
    next.disabled = k >= events.length - 1;
  };
  const prev = h("button.ctl", { "data-testid": "replay-prev", onclick: () => apply((i = Math.max(0, i - 1))) }, t("recall.prev"));
  const next = h("button.ctl", { "data-testid": "replay-next", onclick: () => apply((i = Math.min(events.length - 1, i + 1))) }, t("recall.next"));
  const all = h("button.ctl", { "data-testid": "replay-end", onclick: () => apply((i = events.length - 1)) }, t("recall.to_end"));
  const verify = h("span.verify", { "data-testid": "replay-verify" }, "");
  const info = h("dl.info", {}, [
    h("dt", {}, t("recall.round")), h("dd.hash", {}, String(rec.round_id || roundId)),
    h("dt", {}, t("recall.game")), h("dd", {}, desc.name),
    h("dt", {}, t("recall.bet")), h("dd", {}, app.money(rec.bet_credits !== undefined || !desc.bets_credits ? Number(rec.bet) : Number(rec.bet) * denom)),
    h("dt", {}, t("recall.status")), h("dd", { "data-testid": "replay-status" }, statusOf(rec)),
    ...(rec.void ? [h("dt", {}, t("recall.incident")), h("dd", {}, String(rec.void.incident_id))] : []),
    // the player's own choices, in words (the model and its hash are the auditor's, not shown here)
    ...((rec.choices || []).length ? [h("dt", {}, t("recall.choices")), h("dd", {}, rec.choices.map((c) => tMaybe(`recall.choice.${c}`) ?? c).join(", "))] : []),
  ]);
  body.replaceChildren(
    h("button.ctl.back", { "data-testid": "replay-back", onclick: back }, t("recall.back")),
    info,
    featureBar,
    stage,
    h("div.replay-bar", {}, prev, counter, next, all, h("span", {}, t("recall.win"), winEl)),
    stepText,
    verify,
    rec.status === "completed" || rec.status === "cancelled" ? fairnessPanel(app, roundId) : "",
    log,
  );
  if (events.length) apply((i = 0));
  // ask the server to re-run the round from its seed and compare
  if (rec.status === "completed") {
    app.api
      .get(`/api/rounds/${encodeURIComponent(roundId)}/replay`, { retries: 0 })
      .then((r) => {
        const ok = pick(r, "identical", "match", "ok", "verified");
        verify.textContent = ok ? t("recall.verified") : t("recall.not_verified");
        verify.className = `verify ${ok ? "ok" : "bad"}`;
      })
      .catch(() => {});
  }
}
