// The game's panels: BET settings, AUTO SPIN settings, PAYS / HELP, MENU.
import { alertBox, closeAll, openDialog } from "./dialogs.js";
import { poolName } from "./eventtext.js";
import { gameRules } from "./gametext.js";
import { chooseLanguage, duration, english, language, languages, num, percent, readEnglish, simulatedMaxWin, t } from "./i18n.js";
import { payLabel, symbolText } from "./names.js";
import { openRecall } from "./recall.js";
import { lineColor } from "./reels.js";
import { openLimits } from "./responsible.js";
import { sound } from "./sound.js";
import { glyph, symbolName } from "./symbols.js";
import { h, moneyPlaceholder } from "./util.js";

export function openBetDialog(game) {
  if (game.freePkg) {
    alertBox(t("bet.title"), t("bet.fixed_free_rounds"));
    return;
  }
  if (game.state !== "idle") return;
  const d = game.desc;
  const list = h(
    "div.bet-ladder",
    { role: "radiogroup", "aria-label": t("bet.total_bet") },
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
    t("bet.title"),
    [
      h("p", {}, lines ? t("bet.choose_lines", { lines }) : t("bet.choose")),
      list,
      d.progressives ? h("p.note", {}, t("jackpot.max_bet_only")) : null,
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
      placeholder: moneyPlaceholder(game.app.wallet.decimals),
      oninput: () => (chk.checked = must || inp.value.trim() !== ""),
    });
    const text = must ? t("auto.required_label", { label }) : label;
    const row = offered(stop) && h("div.auto-row", { "data-required": must }, chk, h("label", { for: `auto-${key}` }, text), inp, h("span.cur", {}, cur));
    return { row, chk, inp, must };
  };
  const most = prof.autoplayMaxRounds;
  const counts = [10, 25, 50, 100, 250].filter((n) => !most || n <= most);
  if (most && !counts.includes(most)) counts.push(most);
  const musts = [
    required("rounds") && (most ? t("auto.must_rounds_max", { most }) : t("auto.must_rounds")),
    required("any_win") && t("auto.must_any_win"),
    required("single_win_above") && t("auto.must_single_win"),
    required("balance_up_by") && t("auto.must_balance_up"),
    required("balance_down_by") && t("auto.must_loss_limit"),
  ].filter(Boolean);
  const rounds = h(
    "div.auto-rounds",
    { role: "radiogroup", "aria-label": t("auto.rounds") },
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
  const single = money(t("auto.single_win"), "single", "auto-single-win", "single_win_above");
  const up = money(t("auto.balance_up"), "up", "auto-balance-up", "balance_up_by");
  const down = money(t("auto.balance_down"), "down", "auto-balance-down", "balance_down_by");
  const err = h("p.error-text", { role: "alert" });
  const parse = (x) => {
    if (!x.chk.checked) return 0;
    const v = game.app.parseMoney(x.inp.value);
    if (v === null || v <= 0) throw new Error(t("auto.enter_amount", { label: x.inp.getAttribute("aria-label") }));
    return v;
  };
  const content = [
    musts.length > 0 && h("p.note", { "data-testid": "auto-required" }, t("auto.required_here", { list: musts.join(", ") })),
    h("h3", {}, t("auto.rounds")),
    rounds,
    h("h3", {}, t("auto.advanced")),
    offered("any_win") && h("div.auto-row", {}, anyWin, h("label", { for: "auto-anywin" }, t("auto.any_win"))),
    single.row,
    up.row,
    down.row,
    h("div.auto-row", {}, feature, h("label", { for: "auto-feature" }, t("auto.feature"))),
    h("p.note", {}, t("auto.note")),
    err,
  ];
  openDialog(t("auto.title"), content, {
    testid: "auto-dialog",
    actions: [
      {
        label: t("auto.reset"),
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
        label: t("auto.start"),
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
      h("td", {}, h("div.pay-sym", {}, sym ? h("span.mini-glyph", { html: glyph(sym, symbolName(sym, symbolText(d, sym))) }) : comboGlyphs(p, syms, d), h("span", {}, payLabel(d, p, sym) || String(p.symbol ?? p.combination)))),
      h(
        "td.pay-vals",
        {},
        pays.map(([n, v]) => h("div", {}, h("b", {}, t("pays.count", { n })), " ", h("span", { "data-testid": "pay-value" }, game.credits((Number(v) * bet) / k)))),
      ),
    );
  });
  const table = h("table.paytable", { "data-testid": "paytable" }, h("caption", {}, t("pays.caption", { bet: game.credits(bet) })), h("tbody", {}, rows));
  const lines = (d.lines || []).map((line, i) => h("figure.payline", { "data-testid": `payline-${i + 1}` }, lineSvg(line, d.rows, i + 1), h("figcaption", {}, t("pays.line", { n: i + 1 }))));
  const special = (d.symbols || []).filter((s) => s.wild || s.scatter);
  const content = [
    table,
    special.length
      ? h("div.special", {}, special.map((s) => h("div.special-sym", {}, h("span.mini-glyph", { html: glyph(s, symbolName(s, symbolText(d, s))) }), h("span", {}, t(s.wild ? "pays.wild_symbol" : "pays.scatter_symbol", { name: symbolText(d, s) })))))
      : null,
    scatterPays(game),
    extraPays(game),
    h("h3", {}, t("pays.paylines", { n: (d.lines || []).length })),
    h("div.paylines", {}, lines),
    h("h3", {}, t("pays.rules")),
    // the game's rules say how it pays, its maximum win and that malfunction voids; the page adds
    // only what the server knows beside them, so no rule is read twice
    h("ul.rules", { "data-testid": "rules" }, [...new Set(gameRules(d))].map((r) => h("li", {}, r))),
    h("ul.rules", {}, [
      t("pays.rtp", { rtp: percent(d.rtp) }),
      d.operator?.unfinished_rounds ? null : t("pays.incomplete"),
    ].filter(Boolean).map((t) => h("li", {}, t))),
    ...featureHelp(game),
    operatorHelp(d),
    h("h3", {}, t("pays.additional")),
    helpButtons(),
  ];
  openDialog(t("pays.title", { game: d.name }), content, { testid: "pays-dialog", wide: true });
}

/** The game's own features (its feature module), e.g. the Lucky Stars prizes at this bet. */
function featureHelp(game) {
  const d = game.desc;
  const syms = new Map((d.symbols || []).map((s) => [String(s.id), s]));
  return (game.feature?.help() || []).map((sec) => {
    // the symbols that start the feature, drawn as on the reels
    const pics = (sec.symbols || []).map((id) => syms.get(String(id))).filter(Boolean);
    return h(
      "section.help-feature",
      { "data-testid": sec.testid ? `${sec.testid}-section` : null },
      h("h3", {}, sec.title),
      h("div.help-feature-body", {},
        pics.length ? h("div.help-pics", {}, pics.map((s) => h(`span.mini-glyph.help-pic${s.giant ? ".tall" : ""}`, { html: glyph(s, symbolName(s, symbolText(d, s))) }))) : null,
        h("ul.rules", { "data-testid": sec.testid || null }, sec.items.map((t) => h("li", {}, t)))),
    );
  });
}

/** What the operator says (GET /api/games/{id} -> operator): contact, terms, how unfinished
 * rounds are handled, the inactivity timeout. */
function operatorHelp(d) {
  const op = d.operator;
  if (!op || typeof op !== "object") return null;
  const items = [];
  if (op.contact) items.push(h("li", { "data-testid": "operator-contact" }, t("operator.contact", { contact: op.contact })));
  if (op.unfinished_rounds) items.push(h("li", { "data-testid": "operator-unfinished" }, t("operator.unfinished", { text: operatorText(op.unfinished_rounds, "operator.unfinished_default", { wait: duration(op.auto_complete_after_s) }) })));
  const idle = op.inactivity_timeout_s ? operatorText(op.inactivity || "", "operator.inactivity_default", { duration: duration(op.inactivity_timeout_s) }) : op.inactivity;
  if (idle) items.push(h("li", { "data-testid": "operator-inactivity" }, t("operator.inactivity", { text: idle })));
  if (op.terms_url) items.push(h("li", {}, t("operator.terms"), h("a", { href: op.terms_url, target: "_blank", rel: "noopener" }, op.terms_url)));
  if (!items.length) return null;
  return h(
    "div",
    { "data-testid": "operator-help" },
    h("h3", {}, op.name ? t("operator.title_named", { name: op.name }) : t("operator.title")),
    h("p.note", {}, t("operator.note")),
    h("ul.rules", {}, items),
  );
}

/** The server's default text (English, built from its settings) in the player's language; an
 * operator's own text (SLOTLAB_UNFINISHED_ROUNDS_TEXT) as the operator wrote it. */
function operatorText(server, key, args) {
  return !server || readEnglish(english(key), server) ? t(key, args) : server;
}

function comboGlyphs(p, syms, d) {
  // a combination lists its symbols (older descriptions only named them in the label)
  const ids = (Array.isArray(p.symbols) ? p.symbols.map(String) : String(p.label || "").split(/\s+/)).filter((t) => syms.has(t));
  if (!ids.length) return null;
  return h("span.combo", {}, ids.map((id) => h("span.mini-glyph", { html: glyph(syms.get(id), symbolName(syms.get(id), symbolText(d, syms.get(id)))) })));
}

/** Scatter pays a description gives beside its paytable ({kind: {count: x total bet}}), in
 * money at the current bet, each with its symbol. */
function scatterPays(game) {
  const d = game.desc;
  const table = d.scatter_pays_x_total_bet;
  if (!table || typeof table !== "object") return null;
  const scatters = (d.symbols || []).filter((s) => s.scatter);
  const rows = Object.entries(table).map(([kind, pays], i) => {
    const sym = scatters.find((s) => String(s.name).toLowerCase().includes(kind.toLowerCase())) || scatters[i];
    const counts = Object.entries(pays).sort((a, b) => Number(b[0]) - Number(a[0]));
    return h(
      "tr",
      { "data-testid": `scatter-row-${kind}` },
      h("td", {}, h("div.pay-sym", {}, sym ? h("span.mini-glyph", { html: glyph(sym, symbolName(sym, symbolText(d, sym))) }) : null, h("span", {}, sym ? symbolText(d, sym) : kind))),
      h("td.pay-vals", {}, counts.map(([n, x]) => h("div", {}, h("b", {}, t("pays.count", { n })), " ", h("span", { "data-testid": "scatter-value" }, game.credits(Number(x) * game.betCredits))))),
    );
  });
  return h("div", { "data-testid": "scatter-pays" }, h("h3", {}, t("pays.scatter_title")), h("p.note", {}, t("pays.scatter_note")), h("table.paytable", {}, h("tbody", {}, rows)));
}

function extraPays(game) {
  const d = game.desc;
  const out = [];
  // symbols that multiply the wins they are part of (Crystal Star Deluxe's 2X, 3X, 5X), pictured
  const mults = (d.symbols || []).filter((s) => Number(s.multiplier) > 1);
  if (mults.length) {
    out.push(h("h3", {}, t("pays.multipliers")));
    out.push(
      h("div.special", { "data-testid": "multiplier-symbols" }, mults.map((s) =>
        h("div.special-sym", {}, h("span.mini-glyph", { html: glyph(s, symbolName(s, symbolText(d, s))) }), h("span", {}, t("pays.multiplier_item", { name: symbolText(d, s), x: Number(s.multiplier) }))))),
    );
  }
  if (d.progressives) {
    // a list of pools ({tier, name, reset}) or, from older servers, an object keyed by tier
    const pools = Array.isArray(d.progressives) ? d.progressives : Object.entries(d.progressives).map(([tier, v]) => ({ tier, ...(v && typeof v === "object" ? v : {}) }));
    out.push(h("h3", {}, t("lobby.progressives")));
    out.push(
      h("ul.rules", { "data-testid": "progressives" }, pools.map((p) => h("li", {}, p.reset !== undefined ? t("pays.pool_reset", { pool: poolName(p.tier, d), amount: game.credits(p.reset) }) : t("pays.pool", { pool: poolName(p.tier, d) })))),
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
    html: `<svg viewBox="0 0 ${w} ${hh}" role="img" aria-label="${t("pays.line_rows", { n, rows: line.map((y) => y + 1).join(", ") })}">${cells}<polyline points="${pts}" fill="none" stroke="${lineColor(n)}" stroke-width="3" stroke-linejoin="round"/></svg>`,
  });
}

function helpButtons() {
  const items = ["menu", "bet", "auto", "spin", "sound", "lobby", "pays", "recall"];
  return h("dl.help-buttons", {}, items.map((k) => [h("dt", {}, t(`button.${k}`)), h("dd", {}, t(`help.button.${k}`))]));
}

export function openMenu(game) {
  const app = game.app;
  const p = app.profile;
  const space = h("input", { type: "checkbox", id: "set-space", checked: app.spaceToSpin, onchange: (e) => app.setSpaceToSpin(e.target.checked) });
  const snd = h("input", { type: "checkbox", id: "set-sound", "data-testid": "menu-sound", checked: sound.enabled, onchange: () => game.toggleSound() });
  const vol = h("input", {
    type: "range", id: "set-volume", min: 0, max: 100, step: 5, value: Math.round(sound.volume * 100), "data-testid": "volume", "aria-label": t("menu.volume"),
    oninput: (e) => sound.setVolume(Number(e.target.value) / 100),
  });
  const go = (fn) => () => {
    closeAll();
    setTimeout(fn, 0);
  };
  const content = [
    h("h3", {}, t("menu.settings")),
    h("div.auto-row", {}, snd, h("label", { for: "set-sound" }, t("menu.sound")), vol),
    h("div.auto-row", {}, space, h("label", { for: "set-space" }, t("menu.space"))),
    languageRow(),
    h("div.menu-grid", {}, [
      h("button.ctl", { "data-testid": "menu-bet", onclick: go(() => openBetDialog(game)) }, t("menu.bet")),
      h("button.ctl", { "data-testid": "menu-auto", disabled: !p.autoplay, onclick: go(() => openAutoDialog(game)) }, t("button.auto")),
      h("button.ctl", { "data-testid": "menu-pays", onclick: go(() => openPays(game)) }, t("button.pays")),
      h("button.ctl", { "data-testid": "menu-recall", onclick: go(() => openRecall(app, game.id)) }, t("button.recall")),
      h("button.ctl", { "data-testid": "menu-limits", onclick: go(() => openLimits(app)) }, t("menu.limits")),
      h("button.ctl", { "data-testid": "menu-lobby", onclick: go(() => app.go("#/lobby")) }, t("button.lobby")),
      h("button.ctl", { "data-testid": "menu-logout", onclick: go(() => app.logout()) }, t("shell.logout")),
    ]),
    h("h3", {}, t("menu.info")),
    h("dl.info", {}, [
      h("dt", {}, t("menu.rtp")), h("dd", {}, percent(game.desc.rtp)),
      h("dt", {}, t("menu.max_win")), h("dd", {}, game.desc.max_win_simulated ? simulatedMaxWin(game.desc.max_win_simulated, "menu.simulated_max_win_x") : game.desc.max_win_x ? t(game.desc.max_win_bound ? "menu.max_win_up_to_x" : "menu.max_win_x", { x: num(Number(game.desc.max_win_x)) }) : "—"),
    ]),
    // what this market's rules take away, in words (no profile code, no model hash: the auditor's)
    p.autoplay && p.quickStop ? null : h("p.note", { "data-testid": "menu-market" }, t("menu.rules_here", { list: [p.autoplay ? null : t("menu.no_autoplay"), p.quickStop ? null : t("menu.no_quick_stop")].filter(Boolean).join(", ") })),
  ];
  openDialog(t("menu.title"), content, { testid: "menu-dialog" });
}

/** The language of the client and the games' texts: chosen here, kept for the browser session. */
function languageRow() {
  const offered = languages();
  const select = h(
    "select",
    { id: "set-language", "data-testid": "menu-language", onchange: (e) => chooseLanguage(e.target.value) },
    Object.entries(offered).map(([code, name]) => h("option", { value: code, selected: code === language() }, name)),
  );
  return h("div.auto-row", {}, h("label", { for: "set-language" }, t("menu.language")), select);
}
