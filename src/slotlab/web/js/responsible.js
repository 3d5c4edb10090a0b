// Responsible gambling in the client (docs/operators.md, "Reality checks" and "Player limits"):
// the reminder and the loss-limit refusal a round start can meet, and the player's own limits.
// The server decides both; the client only tells the player and lets them act.
import { explain } from "./api.js";
import { openDialog, toast } from "./dialogs.js";
import { fmtTime, h } from "./util.js";

const PERIOD_ADJ = { day: "daily", week: "weekly", month: "monthly" };
const PERIOD_NAME = { day: "Day (24 hours)", week: "Week (7 days)", month: "Month (30 days)" };
const KIND_NAME = { loss: "Loss limits", deposit: "Deposit limits" };

const signed = (app, minor) => `${minor > 0 ? "+" : ""}${app.money(minor)}`;

/**
 * A round start the server refused for a reminder due or a loss limit: tell the player (and
 * stop auto spin with the reason). True when handled here; the refused spin is not replayed.
 */
export function handleRoundRefusal(game, err) {
  if (err?.status !== 409) return false;
  if (err.code === "reality_check_due") {
    const figures = err.body?.reality_check || {};
    halt(game, "Reality check: please read your session summary.");
    showRealityCheck(game, figures);
    return true;
  }
  if (err.code === "loss_limit_reached") {
    const b = err.body || {};
    const text = `This bet would pass your ${PERIOD_ADJ[b.period] || b.period} loss limit of ${game.app.money(b.limit)} (lost so far ${game.app.money(b.used)}).`;
    halt(game, text);
    openDialog("Loss limit reached", h("p", { "data-testid": "loss-limit-text" }, text), {
      testid: "loss-limit",
      actions: [
        { label: "Your limits", testid: "loss-limit-limits", onclick: (close) => (close(null), openLimits(game.app)) },
        { label: "OK", primary: true, value: true, testid: "loss-limit-ok" },
      ],
    });
    return true;
  }
  return false;
}

function halt(game, text) {
  game.message(text, "error");
  game.stopAuto(`Auto spin stopped: ${text}`, "error");
}

function showRealityCheck(game, figures) {
  const app = game.app;
  const minutes = Math.floor(Number(figures.elapsed_s ?? 0) / 60);
  const net = Number(figures.net_position ?? 0);
  const err = h("p.error-text", { role: "alert" });
  const content = [
    h("p", { "data-testid": "reality-check-text" },
      `You have played ${minutes} minute${minutes === 1 ? "" : "s"} this session; net position ${signed(app, net)}.`),
    h("p.note", {}, "Take a moment: continue playing, or leave to the lobby."),
    err,
  ];
  let sending = false;
  openDialog("Reality check", content, {
    testid: "reality-check",
    actions: [
      {
        label: "Leave", testid: "reality-check-leave",
        onclick: (close) => {
          close("leave");
          game.leave("#/lobby");
        },
      },
      {
        label: "Continue playing", primary: true, testid: "reality-check-continue",
        onclick: async (close) => {
          if (sending) return;
          sending = true;
          try {
            await app.api.post("/api/session/reality-check");
            close("continue");
            game.message("Press SPIN to play on.");
          } catch (e) {
            err.textContent = explain(e);
          } finally {
            sending = false;
          }
        },
      },
    ],
  });
}

/** The player's loss (and, where this server holds the wallet, deposit) limits per period. */
export async function openLimits(app) {
  let view;
  try {
    view = await app.api.get("/api/limits");
  } catch (e) {
    toast(explain(e), "error", 8000);
    return;
  }
  const body = h("div.limits", { "data-testid": "limits-body" });
  const dlg = openDialog("Your limits", body, { testid: "limits-dialog", wide: true });
  const render = (v) => body.replaceChildren(...limitsContent(app, v, render));
  render(view);
  return dlg;
}

function limitsContent(app, view, render) {
  const days = Math.round(Number(view.cooling_off_s || 86400) / 86400);
  const wait = days === 1 ? "a cooling-off day" : `a cooling-off period of ${days} days`;
  const kinds = ["loss", ...(view.deposits_here ? ["deposit"] : [])];
  const out = [
    h("p.note", { "data-testid": "limits-rule" },
      `Lowering a limit applies at once; raising or removing one applies after ${wait}, and the lower limit holds until then.`),
  ];
  for (const kind of kinds) {
    out.push(h("h3", {}, KIND_NAME[kind]));
    for (const lim of view.limits.filter((l) => l.kind === kind)) out.push(limitRow(app, lim, render));
  }
  if (!view.deposits_here) out.push(h("p.note", { "data-testid": "limits-operator-deposits" }, "Your operator sets deposit limits for this account."));
  return out;
}

function limitRow(app, lim, render) {
  const id = `${lim.kind}-${lim.period}`;
  const shown = (x) => (x === null || x === undefined ? "no limit" : app.money(x));
  const err = h("p.error-text", { role: "alert", "data-testid": `limit-${id}-error`, hidden: true });
  const say = (text) => {
    err.textContent = text;
    err.hidden = !text;
  };
  const input = h("input.money-input", {
    type: "text", inputmode: "decimal", placeholder: "0.00", id: `limit-${id}`,
    "data-testid": `limit-${id}-input`, "aria-label": `${PERIOD_ADJ[lim.period]} ${lim.kind} limit`,
  });
  const save = async (amount) => {
    say("");
    try {
      const v = await app.api.call("PUT", `/api/limits/${lim.kind}/${lim.period}`, { amount }, { retries: 1 });
      render(v);
      const now = v.limits.find((l) => l.kind === lim.kind && l.period === lim.period);
      toast(now?.pending_from ? `Your ${PERIOD_ADJ[lim.period]} ${lim.kind} limit changes on ${fmtTime(now.pending_from)}.` : `Your ${PERIOD_ADJ[lim.period]} ${lim.kind} limit is ${shown(now?.amount)}.`);
    } catch (e) {
      say(explain(e));
    }
  };
  const set = () => {
    const amount = app.parseMoney(input.value);
    if (amount === null || amount <= 0) {
      say("Enter an amount above zero.");
      return;
    }
    save(amount);
  };
  input.addEventListener("keydown", (e) => e.key === "Enter" && set());
  const removing = Boolean(lim.pending_from) && (lim.pending_amount === null || lim.pending_amount === undefined);
  const pending = lim.pending_from
    ? h("p.note", { "data-testid": `limit-${id}-pending` },
        removing ? `Removed from ${fmtTime(lim.pending_from)}` : `Rises to ${app.money(lim.pending_amount)} from ${fmtTime(lim.pending_from)}`)
    : null;
  return h("div.limit", { "data-testid": `limit-${id}`, style: { margin: "10px 0" } }, [
    h("label", { for: `limit-${id}` }, [
      h("strong", {}, PERIOD_NAME[lim.period]), " · ",
      h("span", { "data-testid": `limit-${id}-amount` }, lim.amount === null ? "No limit" : `Limit ${app.money(lim.amount)}`),
      " · ",
      h("span", { "data-testid": `limit-${id}-used` }, `${lim.kind === "loss" ? "Lost" : "Deposited"} ${app.money(Math.max(0, Number(lim.used)))}`),
    ]),
    h("div.auto-row", {}, [
      input,
      h("span.cur", {}, app.currency),
      h("button", { "data-testid": `limit-${id}-set`, onclick: set }, "Set"),
      lim.amount !== null && !removing
        ? h("button", { "data-testid": `limit-${id}-remove`, onclick: () => save(null) }, "Remove")
        : null,
    ]),
    pending,
    err,
  ]);
}
