// Responsible gambling in the client (docs/operators.md, "Reality checks" and "Player limits"):
// the reminder and the loss-limit refusal a round start can meet, and the player's own limits.
// The server decides both; the client only tells the player and lets them act.
import { explain } from "./api.js";
import { openDialog, toast } from "./dialogs.js";
import { t } from "./i18n.js";
import { fmtTime, h, moneyPlaceholder } from "./util.js";

// "your daily loss limit": one message per kind and period (the words agree in each language)
const limitName = (kind, period) => t(`limits.name.${kind}.${period}`);

const signed = (app, minor) => `${minor > 0 ? "+" : ""}${app.money(minor)}`;

/**
 * A round start the server refused for a reminder due or a loss limit: tell the player (and
 * stop auto spin with the reason). True when handled here; the refused spin is not replayed.
 */
export function handleRoundRefusal(game, err) {
  if (err?.status !== 409) return false;
  if (err.code === "reality_check_due") {
    const figures = err.body?.reality_check || {};
    halt(game, t("reality.halt"));
    showRealityCheck(game, figures);
    return true;
  }
  if (err.code === "loss_limit_reached") {
    const b = err.body || {};
    const text = t("limits.would_pass", { limit: limitName("loss", b.period), amount: game.app.money(b.limit), used: game.app.money(b.used) });
    halt(game, text);
    openDialog(t("limits.reached_title"), h("p", { "data-testid": "loss-limit-text" }, text), {
      testid: "loss-limit",
      actions: [
        { label: t("limits.title"), testid: "loss-limit-limits", onclick: (close) => (close(null), openLimits(game.app)) },
        { label: t("dialog.ok"), primary: true, value: true, testid: "loss-limit-ok" },
      ],
    });
    return true;
  }
  return false;
}

function halt(game, text) {
  game.message(text, "error");
  game.stopAuto(t("auto.stopped_because", { why: text }), "error");
}

function showRealityCheck(game, figures) {
  const app = game.app;
  const minutes = Math.floor(Number(figures.elapsed_s ?? 0) / 60);
  const net = Number(figures.net_position ?? 0);
  const err = h("p.error-text", { role: "alert" });
  const content = [
    h("p", { "data-testid": "reality-check-text" },
      t("reality.text", { minutes, net: signed(app, net) })),
    h("p.note", {}, t("reality.note")),
    err,
  ];
  let sending = false;
  openDialog(t("reality.title"), content, {
    testid: "reality-check",
    actions: [
      {
        label: t("reality.leave"), testid: "reality-check-leave",
        onclick: (close) => {
          close("leave");
          game.leave("#/lobby");
        },
      },
      {
        label: t("reality.continue"), primary: true, testid: "reality-check-continue",
        onclick: async (close) => {
          if (sending) return;
          sending = true;
          try {
            await app.api.post("/api/session/reality-check");
            close("continue");
            game.message(t("reality.play_on"));
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
  const dlg = openDialog(t("limits.title"), body, { testid: "limits-dialog", wide: true });
  const render = (v) => body.replaceChildren(...limitsContent(app, v, render));
  render(view);
  return dlg;
}

function limitsContent(app, view, render) {
  const days = Math.round(Number(view.cooling_off_s || 86400) / 86400);
  const wait = t("limits.cooling_off", { days });
  const kinds = ["loss", ...(view.deposits_here ? ["deposit"] : [])];
  const out = [
    h("p.note", { "data-testid": "limits-rule" },
      t("limits.rule", { wait })),
  ];
  for (const kind of kinds) {
    out.push(h("h3", {}, t(`limits.kind.${kind}`)));
    for (const lim of view.limits.filter((l) => l.kind === kind)) out.push(limitRow(app, lim, render));
  }
  if (!view.deposits_here) out.push(h("p.note", { "data-testid": "limits-operator-deposits" }, t("limits.operator_deposits")));
  return out;
}

function limitRow(app, lim, render) {
  const id = `${lim.kind}-${lim.period}`;
  const shown = (x) => (x === null || x === undefined ? t("limits.none") : app.money(x));
  const err = h("p.error-text", { role: "alert", "data-testid": `limit-${id}-error`, hidden: true });
  const say = (text) => {
    err.textContent = text;
    err.hidden = !text;
  };
  const input = h("input.money-input", {
    type: "text", inputmode: "decimal", placeholder: moneyPlaceholder(app.wallet.decimals), id: `limit-${id}`,
    "data-testid": `limit-${id}-input`, "aria-label": limitName(lim.kind, lim.period),
  });
  const save = async (amount) => {
    say("");
    try {
      const v = await app.api.call("PUT", `/api/limits/${lim.kind}/${lim.period}`, { amount }, { retries: 1 });
      render(v);
      const now = v.limits.find((l) => l.kind === lim.kind && l.period === lim.period);
      toast(now?.pending_from ? t("limits.changes_on", { limit: limitName(lim.kind, lim.period), date: fmtTime(now.pending_from) }) : t("limits.is_now", { limit: limitName(lim.kind, lim.period), amount: shown(now?.amount) }));
    } catch (e) {
      say(explain(e));
    }
  };
  const set = () => {
    const amount = app.parseMoney(input.value);
    if (amount === null || amount <= 0) {
      say(t("limits.above_zero"));
      return;
    }
    save(amount);
  };
  input.addEventListener("keydown", (e) => e.key === "Enter" && set());
  const removing = Boolean(lim.pending_from) && (lim.pending_amount === null || lim.pending_amount === undefined);
  const pending = lim.pending_from
    ? h("p.note", { "data-testid": `limit-${id}-pending` },
        removing ? t("limits.removed_from", { date: fmtTime(lim.pending_from) }) : t("limits.rises_to", { amount: app.money(lim.pending_amount), date: fmtTime(lim.pending_from) }))
    : null;
  return h("div.limit", { "data-testid": `limit-${id}`, style: { margin: "10px 0" } }, [
    h("label", { for: `limit-${id}` }, [
      h("strong", {}, t(`limits.period.${lim.period}`)), " · ",
      h("span", { "data-testid": `limit-${id}-amount` }, lim.amount === null ? t("limits.no_limit") : t("limits.limit", { amount: app.money(lim.amount) })),
      " · ",
      h("span", { "data-testid": `limit-${id}-used` }, t(`limits.used.${lim.kind}`, { amount: app.money(Math.max(0, Number(lim.used))) })),
    ]),
    h("div.auto-row", {}, [
      input,
      h("span.cur", {}, app.currency),
      h("button", { "data-testid": `limit-${id}-set`, onclick: set }, t("limits.set")),
      lim.amount !== null && !removing
        ? h("button", { "data-testid": `limit-${id}-remove`, onclick: () => save(null) }, t("limits.remove"))
        : null,
    ]),
    pending,
    err,
  ]);
}
