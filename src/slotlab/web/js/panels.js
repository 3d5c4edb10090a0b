// The game's panels: BET settings, AUTO SPIN settings, PAYS / HELP, MENU.
import { alertBox, closeAll, openDialog } from "./dialogs.js";
import { poolName } from "./eventtext.js";
import { openRecall } from "./recall.js";
import { lineColor } from "./reels.js";
import { openLimits } from "./responsible.js";
import { sound } from "./sound.js";
import { glyph } from "./symbols.js";
import { h, pct } from "./util.js";

export function openBetDialog(game) {
  if (game.freePkg) {
    alertBox("Bet settings", "The bet is fixed while you play free rounds.");
    return;
  }
  if (game.state !== "idle") return;
  const d = game.desc;
  const list = h(
    "div.bet-ladder",
    { role: "radiogroup", "aria-label": "Total bet" },
    game.ladder.map((b, i) =>
      h(
        "button.bet-choice" + (i === game.betIndex ? ".selected" : ""),
        {
          role: "radio",
          "aria-checked": String(i === game.betIndex),
          "data-testid": `bet-option-${i}`,
          "data-minor": game.ladderMoney[i],
          onclick: () => {
            game.setBetIndex(i);
            dlg.close(i);
          },
        },
        game.app.money(game.ladderMoney[i]),
      ),
    ),
  );
  const lines = d.lines?.length;
  const dlg = openDialog(
    "Bet settings",
    [
      h("p", {}, `Choose your total bet${lines ? ` (played on ${lines} lines)` : ""}.`),
      list,
      d.progressives ? h("p.note", {}, "Progressives are available at max bet only.") : null,
    ],
    { testid: "bet-dialog" },
  );
}

export function openAutoDialog(game) {
  const cur = game.app.currency;
  // The jurisdiction's stop conditions: only those it offers are shown; a mandatory one is on
  // and needs its amount before auto spin can start.
  const prof = game.app.profile;
  const offered = (stop) => !prof.autoplayStops || prof.autoplayStops.includes(stop);
  const required = (stop) => (prof.autoplayRequired || []).includes(stop);
  const money = (label, key, testid, stop) => {
    const must = required(stop);
    const chk = h("input", { type: "checkbox", id: `auto-${key}`, "data-testid": `${testid}-on`, checked: must, disabled: must });
    const inp = h("input.money-input", {
      type: "text",
      inputmode: "decimal",
      "data-testid": testid,
      "aria-label": label,
      "aria-required": must && "true",
      placeholder: "0.00",
      oninput: () => (chk.checked = must || inp.value.trim() !== ""),
    });
    const text = must ? `${label} (required)` : label;
    const row = offered(stop) && h("div.auto-row", { "data-required": must }, chk, h("label", { for: `auto-${key}` }, text), inp, h("span.cur", {}, cur));
    return { row, chk, inp, must };
  };
  const most = prof.autoplayMaxRounds;
  const counts = [10, 25, 50, 100, 250].filter((n) => !most || n <= most);
  if (most && !counts.includes(most)) counts.push(most);
  const musts = [
    required("rounds") && (most ? `a number of rounds (at most ${most})` : "a number of rounds"),
    required("any_win") && "stop on any win",
    required("single_win_above") && "a single-win limit",
    required("balance_up_by") && "a balance-increase limit",
    required("balance_down_by") && "a loss limit",
  ].filter(Boolean);
  const rounds = h(
    "div.auto-rounds",
    { role: "radiogroup", "aria-label": "Number of auto spins" },
    counts.map((n) =>
      h("button.bet-choice" + (n === counts[0] ? ".selected" : ""), {
        "data-testid": `auto-rounds-${n}`,
        role: "radio",
        "aria-checked": String(n === counts[0]),
        onclick: (e) => {
          for (const b of rounds.children) {
            b.classList.remove("selected");
            b.setAttribute("aria-checked", "false");
          }
          e.currentTarget.classList.add("selected");
          e.currentTarget.setAttribute("aria-checked", "true");
          chosen = n;
        },
      }, String(n)),
    ),
  );
  let chosen = counts[0];
  const anyWin = h("input", { type: "checkbox", id: "auto-anywin", "data-testid": "auto-any-win", checked: required("any_win"), disabled: required("any_win") });
  const feature = h("input", { type: "checkbox", id: "auto-feature", "data-testid": "auto-feature", checked: true });
  const single = money("If a single win reaches or exceeds", "single", "auto-single-win", "single_win_above");
  const up = money("If balance increases by", "up", "auto-balance-up", "balance_up_by");
  const down = money("If balance decreases by", "down", "auto-balance-down", "balance_down_by");
  const err = h("p.error-text", { role: "alert" });
  const parse = (x) => {
    if (!x.chk.checked) return 0;
    const v = game.app.parseMoney(x.inp.value);
    if (v === null || v <= 0) throw new Error(`Enter an amount for "${x.inp.getAttribute("aria-label")}".`);
    return v;
  };
  const content = [
    musts.length > 0 && h("p.note", { "data-testid": "auto-required" }, `Required in your jurisdiction: ${musts.join(", ")}.`),
    h("h3", {}, "Number of auto spins"),
    rounds,
    h("h3", {}, "Advanced settings: stop auto spin"),
    offered("any_win") && h("div.auto-row", {}, anyWin, h("label", { for: "auto-anywin" }, "On any win")),
    single.row,
    up.row,
    down.row,
    h("div.auto-row", {}, feature, h("label", { for: "auto-feature" }, "When a feature is won (free spins, progressive)")),
    h("p.note", {}, "Auto spin always collects wins (it never gambles). Press STOP or the spin button to stop at any time. Settings go back to their defaults when you reload."),
    err,
  ];
  openDialog("Auto spin", content, {
    testid: "auto-dialog",
    actions: [
      {
        label: "Reset",
        testid: "auto-reset",
        onclick: () => {
          for (const x of [single, up, down]) {
            x.chk.checked = x.must;
            x.inp.value = "";
          }
          anyWin.checked = required("any_win");
          feature.checked = false;
        },
      },
      {
        label: "Start auto spin",
        primary: true,
        testid: "auto-start",
        onclick: (close) => {
          let cfg;
          try {
            cfg = {
              rounds: chosen,
              onAnyWin: anyWin.checked,
              onFeature: feature.checked,
              singleWinExceeds: parse(single),
              balanceUp: parse(up),
              balanceDown: parse(down),
            };
          } catch (e) {
            err.textContent = e.message;
            return;
          }
          close(true);
          game.startAuto(cfg);
        },
      },
    ],
  });
}

/** PAYS / HELP: the paytable at the current bet, the paylines drawn, the rules, the buttons. */
export function openPays(game) {
  const d = game.desc;
  const k = Number(d.pay_divisor || 1);
  const bet = game.betCredits;
  const syms = new Map((d.symbols || []).map((s) => [String(s.id), s]));
  const rows = (d.paytable || []).map((p, i) => {
    const sym = syms.get(String(p.symbol));
    const pays = Object.entries(p.pays || {}).sort((a, b) => Number(b[0]) - Number(a[0]));
    return h(
      "tr",
      { "data-testid": `pay-row-${i}` },
      h("td", {}, h("div.pay-sym", {}, sym ? h("span.mini-glyph", { html: glyph(sym) }) : comboGlyphs(p, syms), h("span", {}, p.label || sym?.name || String(p.symbol ?? p.combination)))),
      h(
        "td.pay-vals",
        {},
        pays.map(([n, v]) => h("div", {}, h("b", {}, `${n}×`), " ", h("span", { "data-testid": "pay-value" }, game.credits((Number(v) * bet) / k)))),
      ),
    );
  });
  const table = h("table.paytable", { "data-testid": "paytable" }, h("caption", {}, `Pays at your bet of ${game.credits(bet)}`), h("tbody", {}, rows));
  const lines = (d.lines || []).map((line, i) => h("figure.payline", { "data-testid": `payline-${i + 1}` }, lineSvg(line, d.rows, i + 1), h("figcaption", {}, `Line ${i + 1}`)));
  const special = (d.symbols || []).filter((s) => s.wild || s.scatter);
  const content = [
    table,
    special.length
      ? h("div.special", {}, special.map((s) => h("div.special-sym", {}, h("span.mini-glyph", { html: glyph(s) }), h("span", {}, `${s.name}: ${s.wild ? "the wild symbol" : "a scatter symbol"}`))))
      : null,
    extraPays(game),
    h("h3", {}, `Paylines (${(d.lines || []).length})`),
    h("div.paylines", {}, lines),
    h("h3", {}, "Rules"),
    // the game's rules say how it pays, its maximum win and that malfunction voids; the page adds
    // only what the server knows beside them, so no rule is read twice
    h("ul.rules", { "data-testid": "rules" }, [...new Set(d.rules || [])].map((r) => h("li", {}, r))),
    h("ul.rules", {}, [
      `Theoretical return to player: ${pct(d.rtp)}.`,
      d.operator?.unfinished_rounds ? null : "Incomplete games are resolved automatically; their winnings are paid on your next visit and can be reviewed in RECALL.",
    ].filter(Boolean).map((t) => h("li", {}, t))),
    ...featureHelp(game),
    operatorHelp(d),
    h("h3", {}, "Additional information"),
    helpButtons(),
  ];
  openDialog(`${d.name}: pays and help`, content, { testid: "pays-dialog", wide: true });
}

/** The game's own features (its feature module), e.g. the Lucky Stars prizes at this bet. */
function featureHelp(game) {
  return (game.feature?.help() || []).flatMap((sec) => [
    h("h3", {}, sec.title),
    h("ul.rules", { "data-testid": sec.testid || null }, sec.items.map((t) => h("li", {}, t))),
  ]);
}

/** What the operator says (GET /api/games/{id} -> operator): contact, terms, how unfinished
 * rounds are handled, the inactivity timeout. */
function operatorHelp(d) {
  const op = d.operator;
  if (!op || typeof op !== "object") return null;
  const items = [];
  if (op.contact) items.push(h("li", { "data-testid": "operator-contact" }, `For further information, please contact the operator: ${op.contact}`));
  if (op.unfinished_rounds) items.push(h("li", { "data-testid": "operator-unfinished" }, `Unfinished game rounds: ${op.unfinished_rounds}`));
  const idle = op.inactivity || (op.inactivity_timeout_s ? `Your session ends after ${minutes(op.inactivity_timeout_s)} without activity.` : "");
  if (idle) items.push(h("li", { "data-testid": "operator-inactivity" }, `Inactivity: ${idle}`));
  if (op.terms_url) items.push(h("li", {}, "Terms and conditions: ", h("a", { href: op.terms_url, target: "_blank", rel: "noopener" }, op.terms_url)));
  if (!items.length) return null;
  return h(
    "div",
    { "data-testid": "operator-help" },
    h("h3", {}, op.name ? `Your operator: ${op.name}` : "Your operator"),
    h("p.note", {}, "The following game features and settings may be subject to the terms and conditions on the casino operator's website."),
    h("ul.rules", {}, items),
  );
}

function minutes(s) {
  const n = Number(s);
  if (!Number.isFinite(n)) return String(s);
  if (n % 60) return `${n} seconds`;
  return n === 60 ? "1 minute" : `${n / 60} minutes`;
}

function comboGlyphs(p, syms) {
  // a combination lists its symbols (older descriptions only named them in the label)
  const ids = (Array.isArray(p.symbols) ? p.symbols.map(String) : String(p.label || "").split(/\s+/)).filter((t) => syms.has(t));
  if (!ids.length) return null;
  return h("span.combo", {}, ids.map((id) => h("span.mini-glyph", { html: glyph(syms.get(id)) })));
}

function extraPays(game) {
  const d = game.desc;
  const out = [];
  if (d.progressives) {
    // a list of pools ({tier, name, reset}) or, from older servers, an object keyed by tier
    const pools = Array.isArray(d.progressives) ? d.progressives : Object.entries(d.progressives).map(([tier, v]) => ({ tier, ...(v && typeof v === "object" ? v : {}) }));
    out.push(h("h3", {}, "Progressives"));
    out.push(
      h("ul.rules", { "data-testid": "progressives" }, pools.map((p) => h("li", {}, `${poolName(p.tier, d)}${p.reset !== undefined ? `: resets to ${game.credits(p.reset)}` : ""}.`))),
    );
  }
  return out.length ? h("div", {}, out) : null;
}

function lineSvg(line, rows, n) {
  const reels = line.length;
  const w = reels * 20;
  const hh = rows * 20;
  let cells = "";
  for (let r = 0; r < reels; r++) for (let y = 0; y < rows; y++) cells += `<rect x="${r * 20 + 1}" y="${y * 20 + 1}" width="18" height="18" rx="3" class="${line[r] === y ? "on" : ""}"/>`;
  const pts = line.map((y, r) => `${r * 20 + 10},${y * 20 + 10}`).join(" ");
  return h("span", {
    html: `<svg viewBox="0 0 ${w} ${hh}" width="${w * 2}" height="${hh * 2}" role="img" aria-label="Line ${n}: rows ${line.map((y) => y + 1).join(", ")}">${cells}<polyline points="${pts}" fill="none" stroke="${lineColor(n)}" stroke-width="3" stroke-linejoin="round"/></svg>`,
  });
}

function helpButtons() {
  const items = [
    ["MENU", "Open and close game settings and information."],
    ["BET", "Open the bet settings: choose the total bet from the ladder (− and + step it)."],
    ["AUTO SPIN", "Choose a number of automatic rounds and optional stop conditions."],
    ["SPIN", "Start a round with the current bet; press the space bar too. Press again to quick stop the reels where allowed."],
    ["SOUND", "Turn the sound on or off; MENU has a slider for the volume."],
    ["LOBBY", "Return to the lobby."],
    ["PAYS / HELP", "This page: pays at the current bet and the rules."],
    ["RECALL", "Game history: your last rounds, each replayable step by step."],
  ];
  return h("dl.help-buttons", {}, items.map(([k, v]) => [h("dt", {}, k), h("dd", {}, v)]));
}

export function openMenu(game) {
  const app = game.app;
  const p = app.profile;
  const space = h("input", { type: "checkbox", id: "set-space", checked: app.spaceToSpin, onchange: (e) => app.setSpaceToSpin(e.target.checked) });
  const snd = h("input", { type: "checkbox", id: "set-sound", "data-testid": "menu-sound", checked: sound.enabled, onchange: () => game.toggleSound() });
  const vol = h("input", {
    type: "range", id: "set-volume", min: 0, max: 100, step: 5, value: Math.round(sound.volume * 100), "data-testid": "volume", "aria-label": "Volume",
    oninput: (e) => sound.setVolume(Number(e.target.value) / 100),
  });
  const go = (fn) => () => {
    closeAll();
    setTimeout(fn, 0);
  };
  const content = [
    h("h3", {}, "Settings"),
    h("div.auto-row", {}, snd, h("label", { for: "set-sound" }, "Sound"), vol),
    h("div.auto-row", {}, space, h("label", { for: "set-space" }, "Space bar to spin")),
    h("div.menu-grid", {}, [
      h("button.ctl", { "data-testid": "menu-bet", onclick: go(() => openBetDialog(game)) }, "BET SETTINGS"),
      h("button.ctl", { "data-testid": "menu-auto", disabled: !p.autoplay, onclick: go(() => openAutoDialog(game)) }, "AUTO SPIN"),
      h("button.ctl", { "data-testid": "menu-pays", onclick: go(() => openPays(game)) }, "PAYS / HELP"),
      h("button.ctl", { "data-testid": "menu-recall", onclick: go(() => openRecall(app, game.id)) }, "RECALL"),
      h("button.ctl", { "data-testid": "menu-limits", onclick: go(() => openLimits(app)) }, "LIMITS"),
      h("button.ctl", { "data-testid": "menu-lobby", onclick: go(() => app.go("#/lobby")) }, "LOBBY"),
      h("button.ctl", { "data-testid": "menu-logout", onclick: go(() => app.logout()) }, "LOG OUT"),
    ]),
    h("h3", {}, "Game information"),
    h("dl.info", {}, [
      h("dt", {}, "Return to player"), h("dd", {}, pct(game.desc.rtp)),
      h("dt", {}, "Maximum win"), h("dd", {}, game.desc.max_win_x ? `${game.desc.max_win_x} × stake` : "—"),
      h("dt", {}, "Model version"), h("dd.hash", {}, String(game.listing?.model_hash || game.desc.model_hash || "—").slice(0, 16)),
      h("dt", {}, "Jurisdiction"), h("dd", {}, `${p.name || "default"}${p.autoplay ? "" : " · no autoplay"}${p.quickStop ? "" : " · no quick stop"}`),
    ]),
  ];
  openDialog("Menu", content, { testid: "menu-dialog" });
}
