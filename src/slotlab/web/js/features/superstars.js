// Superstars: the 5x5 reels, then the Bonus Game drawn from its events (the formats are in
// games/superstars/bonus.py, EVENT_DOC): every position spinning on its own, locked prizes with
// their values, the spin / dice / heart counters, the 24-square board round the reels with the
// token moving square by square, each feature step by step, the Wheel Game and the Final Game.
// "Throw Dice" and the wheel's "Spin" only pace the show (auto spin and a quick stop skip them).
// Prizes are multiples of the total bet; they are shown in money.
import { glyph } from "../symbols.js";
import { locale, num } from "../i18n.js";
import { h } from "../util.js";
import { Feature } from "./base.js";
import { Board } from "./board.js";
import { announce, fast, hidePanel, showPanel, times, wait } from "./common.js";
import { Counters, pace } from "./controls.js";
import { HoldGrid } from "./holdgrid.js";
import { Wheel } from "./wheel.js";

const ROWS = 5;
// the board's squares, the features and the wheel's segments are named in the game's catalogue
// (superstars.square.<id>, superstars.feature.<id>, superstars.segment.<id>)
const SQUARES = ["START", "FINN", "STARBURST", "WHEEL", "GONZO", "MISSBANKS", "EXTRASPINS", "SPACEWARS"];
const SEGMENTS = ["DICE1", "DICE2", "RANDOM", "REPLAY", "PLUS1", "UPGRADE"];
// the drawing on a feature square: the character it is named after, or the wheel (by the
// English names symbols.js draws)
const SQUARE_ART = { FINN: "finn", STARBURST: "starburst", WHEEL: "wheel", GONZO: "gonzo", MISSBANKS: "miss banks", SPACEWARS: "space wars" };
const SEGMENT_COLOURS = { DICE1: "#1e88e5", DICE2: "#3949ab", RANDOM: "#8e24aa", REPLAY: "#00897b", PLUS1: "#f9a825", UPGRADE: "#e65100" };
const PIPS = ["", "⚀", "⚁", "⚂", "⚃", "⚄", "⚅"];

const cellRC = (cell) => [Math.floor(Number(cell) / ROWS), Number(cell) % ROWS];

export class Superstars extends Feature {
  // the rule text's name for quick stop
  get quickStopLabel() {
    return this.text("stall");
  }

  squareName(n) {
    return n === "-" ? "" : SQUARES.includes(n) ? this.text(`square.${n}`) : n;
  }

  featureName(n) {
    return n === "-" || SQUARES.includes(n) ? this.text(`feature.${n === "-" ? "upgraded" : n}`) : n;
  }

  segmentName(s) {
    return SEGMENTS.includes(s) ? this.text(`segment.${s}`) : s;
  }

  mount() {
    const host = this.host;
    const names = this.desc.board || Array.from({ length: 24 }, (_, i) => (i === 0 ? "START" : "-"));
    this.boardNames = names;
    this.board = new Board(this.bonusSquares(names, 0), { testid: "board" });
    // the reel window goes into the middle of the board
    host.reels.el.replaceWith(this.board.el);
    this.board.centre.append(host.reels.el);
    this.grid = new HoldGrid(5, ROWS, { testid: "bonus" });
    host.reels.el.append(this.grid.el);
    this.counters = new Counters();
    host.status.append(this.counters.el);
    this.paceSlot = h("div.pace-slot", { "data-testid": "pace-slot" });
    this.die = h("div.die", { "data-testid": "die", hidden: true, "aria-live": "polite" });
    this.board.centre.append(this.paceSlot, this.die);
    const segs = (this.desc.bonus?.wheel || SEGMENTS.map((s) => [s])).map(([s]) => ({ id: s, label: this.segmentName(s), color: SEGMENT_COLOURS[s] }));
    this.wheelSegments = segs;
  }

  bonusSquares(names, upgrade) {
    return names.map((n) => {
      const blank = n === "-";
      return {
        label: this.squareName(n),
        kind: blank ? "blank" : n === "START" ? "start" : `feature ${n.toLowerCase()}`,
        value: blank && upgrade ? upgrade : undefined,
        sub: blank && upgrade ? this.money(upgrade) : n === "START" ? "♥" : "",
        art: SQUARE_ART[n] ? glyph({ id: n, name: SQUARE_ART[n] }, this.squareName(n)) : "",
      };
    });
  }

  finalSquares(values) {
    return values.map((v) =>
      v === null || v === "DICE" ? { label: this.text("final.dice_square"), kind: "dice", sub: this.text("plus_one_die") } : { label: this.money(v), kind: "prize", value: v, sub: times(v) },
    );
  }

  money(x) {
    return this.host.credits(Number(x) * this.host.bet());
  }

  reset() {
    this.board.show(false);
    this.board.el.classList.remove("final");
    this.board.setSquares(this.bonusSquares(this.boardNames, 0));
    this.board.place(0);
    this.grid.reset();
    this.grid.close();
    this.grid.el.classList.remove("inactive");
    this.counters.clear();
    this.paceSlot.replaceChildren();
    this.die.hidden = true;
    this.replay = false;
    this.finalTotal = 0;
    this.reels = new Array(25).fill(0);
    this.host.reels.el.classList.remove("bonus-on");
    hidePanel(this.host);
  }

  isFeature(e) {
    return e.type === "bonus_started" || e.type === "bonus_triggered";
  }

  eventWin(e) {
    return e.type === "bonus_paid" ? Number(e.win) : undefined;
  }

  help() {
    const b = this.desc.bonus || {};
    const items = ["help.bonus", "help.dice", "help.features", "help.final", "help.pace"].map((k) => this.text(k));
    // the prizes a Scatter can become, in money at this bet
    const prizes = [...new Set((b.prizes_x_bet || []).map(([v]) => Number(v)))].sort((x, y) => x - y);
    if (prizes.length) items.splice(1, 0, this.text("help.prizes", { list: prizes.map((v) => this.money(v)).join(", ") }));
    if (b.final_board) items.push(this.text("help.final_squares", { list: b.final_board.map((v) => (v === "DICE" ? this.text("help.a_die") : this.money(v))).join(", ") }));
    // the Scatter and the Dice that start it, drawn as on the reels
    const symbols = (this.desc.symbols || []).filter((s) => s.scatter).map((s) => s.id);
    return [{ title: this.text("bonus_game"), testid: "feature-help", symbols, items }];
  }

  // ---- drawing -----------------------------------------------------------------------------

  setCounters(e) {
    if (e.spins !== undefined) this.counters.set("spins", this.text("counter.spins"), e.spins);
    if (e.dice !== undefined) this.counters.set("dice", this.text("counter.dice"), e.dice);
    if (e.hearts !== undefined) this.counters.set("hearts", "♥", e.hearts);
  }

  /** The prizes on the reels as the event says they are now (its `reels`, else the cells). */
  syncReels(reels) {
    if (!Array.isArray(reels)) return;
    this.reels = reels.slice();
    reels.forEach((v, cell) => {
      const [c, r] = cellRC(cell);
      if (v > 0) this.putPrize(c, r, v);
      else if (this.grid.kind(c, r) !== "empty") this.grid.clear(c, r);
    });
    this.showTotal();
  }

  putPrize(c, r, v, extra = "") {
    this.grid.set(c, r, { kind: "prize", label: this.money(v), value: v, sub: extra || times(v) });
  }

  showTotal() {
    const total = this.reels.reduce((a, v) => a + v, 0) + this.finalTotal;
    this.counters.set("total", this.text("counter.bonus"), this.money(total));
  }

  async handle(e) {
    const host = this.host;
    // a replay shows the Wheel Game at its own step only
    if (host.instant && e.type !== "wheel_spun") hidePanel(host);
    switch (e.type) {
      case "bonus_triggered":
        for (const [c, r] of e.positions || []) host.reels.cellAt(c, r)?.classList.add("win");
        if (e.dice) host.reels.cellAt(e.dice[0], e.dice[1])?.classList.add("win");
        host.message(this.text(e.dice ? "msg.triggered_dice" : "msg.triggered", { n: e.scatters }), "feature");
        await announce(host, this.text("msg.bonus_banner"), 1500);
        return true;
      case "bonus_started": {
        host.reels.clearWins(); // the spin's line-win tags would float over the board
        this.board.show(true);
        this.board.setSquares(this.bonusSquares(e.board || this.boardNames, 0));
        this.board.place(0);
        this.grid.reset();
        this.grid.open();
        host.reels.el.classList.add("bonus-on");
        for (const p of e.prizes || []) {
          const [c, r] = cellRC(p.cell);
          this.putPrize(c, r, p.value);
          this.grid.flash([[c, r]], "landed");
        }
        this.reels = new Array(25).fill(0);
        for (const p of e.prizes || []) this.reels[p.cell] = p.value;
        if (e.reels) this.syncReels(e.reels);
        this.counters.set("spins", this.text("counter.spins"), e.spins);
        this.counters.set("dice", this.text("counter.dice"), e.dice);
        this.counters.set("hearts", "♥", 0);
        this.showTotal();
        host.message(this.text(e.dice_cell !== null && e.dice_cell !== undefined ? "msg.started_dice" : "msg.started"), "feature");
        await wait(host, 1200);
        return true;
      }
      case "bonus_spun": {
        const landings = (e.prizes || []).map((p) => {
          const [c, r] = cellRC(p.cell);
          return { c, r, content: { kind: "prize", label: this.money(p.value), value: p.value, sub: times(p.value) } };
        });
        for (const cell of e.dice_cells || []) {
          const [c, r] = cellRC(cell);
          landings.push({ c, r, content: { kind: "dice", label: "🎲", sub: this.text("plus_one_die") } });
        }
        host.message(this.text(e.dice_cells?.length ? "msg.spun_dice" : "msg.spun", { spin: e.spin, prizes: e.prizes?.length || 0, dice: e.dice_cells?.length || 0 }));
        await this.grid.respin(landings, host, { ms: 650, gap: 200 });
        this.counters.set("dice", this.text("counter.dice"), e.dice);
        this.counters.set("spins", this.text("counter.spins"), e.spins);
        await wait(host, e.dice_cells?.length ? 500 : 250);
        // a Dice does not lock: it goes to the dice counter
        for (const cell of e.dice_cells || []) {
          const [c, r] = cellRC(cell);
          if (this.grid.kind(c, r) === "dice") this.grid.clear(c, r);
        }
        this.syncReels(e.reels);
        return true;
      }
      case "spins_reset":
        this.counters.set("spins", this.text("counter.spins"), e.spins);
        if (e.hearts !== undefined) this.counters.set("hearts", "♥", e.hearts);
        host.message(this.text(e.reason === "heart_used" ? "msg.reset_heart" : "msg.reset_prize", { n: e.spins }), "feature");
        await wait(host, 300);
        return true;
      case "dice_rolled": {
        await pace(host, this.paceSlot, { label: this.text("throw_dice"), testid: "pace-dice" });
        this.showDie(e.value);
        this.counters.set("dice", this.text("counter.dice"), e.dice);
        await wait(host, 450);
        await this.board.move(e.to, host, { steps: e.value });
        this.counters.set("hearts", "♥", e.hearts);
        host.message(this.text(e.passed_start ? "msg.rolled_start" : "msg.rolled", { value: e.value, to: e.to }));
        return true;
      }
      case "heart_gained":
        this.die.hidden = true; // the token has passed Start: the die covers no prize meanwhile
        this.counters.set("hearts", "♥", e.hearts);
        this.board.highlight(0);
        host.message(this.text("msg.extra_life"), "feature");
        await wait(host, 500);
        return true;
      case "square_landed": {
        // the token has landed: the die goes, so it covers no prize while the square's feature plays
        this.die.hidden = true;
        this.board.highlight(e.square);
        const name = e.feature === "-" ? (e.value ? this.text("msg.upgraded_square", { amount: this.money(e.value) }) : this.text("msg.blank_square")) : this.featureName(e.feature);
        host.message(this.text("msg.lands_on", { name }), e.feature === "-" ? "" : "feature");
        if (e.feature !== "-" && e.feature !== "START") await announce(host, this.featureName(e.feature), 900);
        else await wait(host, 400);
        return true;
      }
      case "starburst_placed": {
        host.message(this.text("msg.starburst", { replay: this.replayMark(e), value: times(e.value), reel: e.column + 1 }), "feature");
        for (const x of e.cells || []) {
          const [c, r] = cellRC(x.cell);
          this.putPrize(c, r, x.value, x.merged ? `${num(x.was)}×${num(e.value)}` : times(x.value));
          this.grid.flash([[c, r]], x.merged ? "merged" : "landed");
          await wait(host, 260);
        }
        await wait(host, 500);
        this.syncReels(e.reels);
        return true;
      }
      case "gonzo_multiplied": {
        host.message(this.text("msg.gonzo", { replay: this.replayMark(e), n: e.count }), "feature");
        for (const x of e.cells || []) {
          const [c, r] = cellRC(x.cell);
          this.grid.set(c, r, { kind: "prize mult", label: `×${x.multiplier}`, value: x.was, sub: this.money(x.was) });
          this.grid.flash([[c, r]], "merged");
          await wait(host, 220);
          this.putPrize(c, r, x.value);
        }
        await wait(host, 400);
        this.syncReels(e.reels);
        return true;
      }
      case "miss_banks_placed": {
        host.message(this.text("msg.miss_banks", { replay: this.replayMark(e), n: e.count }), "feature");
        for (const x of e.cells || []) {
          const [c, r] = cellRC(x.cell);
          this.putPrize(c, r, x.value, x.merged ? `${times(x.was)}+${times(x.added)}` : times(x.value));
          this.grid.flash([[c, r]], x.merged ? "merged" : "landed");
          await wait(host, 200);
        }
        await wait(host, 400);
        this.syncReels(e.reels);
        return true;
      }
      case "finn_merged": {
        host.message(this.text("msg.finn", { replay: this.replayMark(e), n: e.count, amount: this.money(e.value) }), "feature");
        for (const x of e.cells || []) {
          const [c, r] = cellRC(x.cell);
          this.putPrize(c, r, x.raised, `+5×`);
          this.grid.flash([[c, r]], "landed");
          await wait(host, 250);
        }
        await wait(host, 400);
        for (const x of e.cells || []) {
          const [c, r] = cellRC(x.cell);
          if (x.cell === e.to_cell) {
            this.putPrize(c, r, e.value, this.text("finn"));
            this.grid.flash([[c, r]], "merged");
          } else this.grid.clear(c, r);
        }
        await wait(host, 500);
        this.syncReels(e.reels);
        return true;
      }
      case "space_wars_respun": {
        host.message(this.text("msg.space_wars", { replay: this.replayMark(e), values: (e.values || []).map((v) => this.money(v)).join(", ") }), "feature");
        this.counters.set("sw", this.text("square.SPACEWARS"), `${e.values?.length ? (e.values || []).map(times).join(" ") : "—"}`);
        for (const rs of e.respins || []) {
          this.counters.set("respins", this.text("counter.respin"), this.text("counter.respin_of", { n: rs.respin, total: 3 }));
          const landings = (rs.prizes || []).map((p) => {
            const [c, r] = cellRC(p.cell);
            return { c, r, content: { kind: "prize", label: this.money(p.value), value: p.value, sub: times(p.value) } };
          });
          await this.grid.respin(landings, host, { ms: 500, gap: 160 });
          for (const l of landings) this.reels[l.c * ROWS + l.r] = l.content.value;
          this.showTotal();
          await wait(host, 250);
        }
        this.counters.hide("respins");
        this.counters.hide("sw");
        this.syncReels(e.reels);
        return true;
      }
      case "wheel_spun":
        await this.spinWheel(e);
        return true;
      case "plus_one_added": {
        host.message(this.text("msg.plus_one", { n: e.amount, amount: this.money(e.amount) }), "feature");
        for (const x of e.cells || []) {
          const [c, r] = cellRC(x.cell);
          this.putPrize(c, r, x.value, `+${e.amount}×`);
        }
        this.grid.flash((e.cells || []).map((x) => cellRC(x.cell)), "merged");
        await wait(host, 700);
        this.syncReels(e.reels);
        return true;
      }
      case "upgrade_added":
        this.upgrade = e.square_value;
        this.boardNames.forEach((n, i) => {
          if (n === "-") {
            this.board.setSquare(i, { label: "", kind: "blank upgraded", value: e.square_value, sub: this.money(e.square_value) });
            this.board.highlight(i);
          }
        });
        host.message(this.text("msg.upgrade", { amount: this.money(e.square_value) }), "feature");
        await wait(host, 800);
        return true;
      case "upgraded_square_paid": {
        host.message(this.text(e.times > 1 ? "msg.upgraded_paid_twice" : "msg.upgraded_paid", { amount: this.money(e.square_value) }), "feature");
        for (const x of e.cells || []) {
          const [c, r] = cellRC(x.cell);
          this.putPrize(c, r, x.value, `+${times(e.square_value * (e.times || 1))}`);
        }
        this.grid.flash((e.cells || []).map((x) => cellRC(x.cell)), "merged");
        await wait(host, 700);
        this.syncReels(e.reels);
        return true;
      }
      case "replay_armed":
        if (e.armed) {
          this.replay = true;
          this.counters.set("replay", this.text("counter.replay"), this.text("counter.armed"));
        }
        host.message(this.text(e.armed ? "msg.replay_armed" : "msg.replay_lost"), "feature");
        await wait(host, 600);
        return true;
      case "replay_used":
        this.replay = false;
        this.counters.hide("replay");
        host.message(this.text("msg.replay_used", { name: this.featureName(e.feature) }), "feature");
        await announce(host, this.text("msg.replay_banner"), 800);
        return true;
      case "extra_spins_gained":
        this.counters.set("spins", this.text("counter.spins"), e.spins);
        this.counters.set("max", this.text("counter.max"), e.max_spins);
        host.message(e.applied ? this.text("msg.extra_spins", { n: e.max_spins }) : this.text("msg.extra_spins_used"), "feature");
        await wait(host, 700);
        return true;
      case "final_game_started": {
        this.board.setSquares(this.finalSquares(e.board || this.desc.final_board || []), { final: true });
        this.board.place(0);
        this.grid.el.classList.add("inactive");
        this.counters.hide("spins");
        this.counters.hide("max");
        this.counters.hide("replay");
        this.counters.set("dice", this.text("counter.dice"), e.dice);
        this.counters.set("hearts", "♥", e.hearts);
        const sum = this.finalDiceText(e);
        host.message(this.text("msg.final", { n: e.dice, sum }), "feature");
        await announce(host, this.text("msg.final_banner"), 1600, this.text("msg.n_dice", { n: e.dice }));
        return true;
      }
      case "final_dice_rolled":
        await pace(host, this.paceSlot, { label: this.text("throw_dice"), testid: "pace-dice" });
        this.showDie(e.value);
        await wait(host, 400);
        await this.board.move(e.to, host, { steps: e.value });
        this.counters.set("dice", this.text("counter.dice"), e.dice);
        return true;
      case "final_prize_collected":
        this.board.highlight(e.square);
        this.finalTotal = Number(e.final_total);
        this.showTotal();
        host.message(this.text("msg.final_collected", { amount: this.money(e.value) }), "win");
        await wait(host, 500);
        return true;
      case "final_die_gained":
        this.board.highlight(e.square);
        this.counters.set("dice", this.text("counter.dice"), e.dice);
        host.message(this.text("msg.final_die"), "feature");
        await wait(host, 400);
        return true;
      case "bonus_ended":
        this.die.hidden = true;
        host.message(e.final_game ? this.text("msg.bonus_pays_final", { amount: this.money(e.total), final: this.money(e.final_total) }) : this.text("msg.bonus_pays", { amount: this.money(e.total) }), "win");
        // the Bonus Game's total screen
        await announce(host, this.text("msg.bonus_total_banner"), 2000, this.money(e.total));
        return true;
      case "bonus_paid":
        // "after the Bonus Game, the game returns to the round that triggered it"
        this.returnToBase();
        host.message(this.text("msg.back_to_main", { amount: host.credits(e.win) }), "win");
        return true;
      default:
        return false;
    }
  }

  /** Where the Final Game's dice come from, in words, naming only what gave some: "3 for
   * your spins and 1 for Start" (dice held + spins + spins per heart, doubled by a Replay, + Start). */
  finalDiceText(e) {
    const core = [
      e.dice_left ? this.text("msg.final_held", { n: e.dice_left }) : null,
      this.text("msg.final_spins", { n: e.max_spins }),
      e.hearts ? this.text("msg.final_hearts", { n: e.hearts * e.max_spins, hearts: e.hearts }) : null,
    ].filter(Boolean);
    let text = new Intl.ListFormat(locale(), { type: "conjunction" }).format(core);
    if (e.replay) text = this.text("msg.final_doubled", { dice: text });
    return e.start_square_dice ? this.text("msg.final_and_start", { dice: text, n: e.start_square_dice }) : text;
  }

  /** The round is over: its counters go with it (the next round starts clean). */
  finish() {
    this.counters.clear();
  }

  returnToBase() {
    this.board.show(false);
    this.grid.close();
    this.host.reels.el.classList.remove("bonus-on");
    this.paceSlot.replaceChildren();
    this.die.hidden = true;
    for (const name of ["spins", "dice", "hearts", "max", "replay"]) this.counters.hide(name);
  }

  showDie(v) {
    this.die.hidden = false;
    this.die.dataset.value = String(v);
    this.die.textContent = PIPS[v] || String(v);
    this.die.setAttribute("aria-label", this.text("die_shows", { n: v }));
    if (!fast(this.host)) {
      this.die.classList.remove("roll");
      void this.die.offsetWidth;
      this.die.classList.add("roll");
    }
  }

  async spinWheel(e) {
    const host = this.host;
    const wheel = new Wheel(this.wheelSegments, { testid: "bonus-wheel", size: 240 });
    const slot = h("div.pace-inline");
    showPanel(host, "wheel-game", this.text("wheel_game"), wheel.el, slot);
    await pace(host, slot, { label: this.text("wheel_spin"), testid: "pace-wheel" });
    const i = Number.isInteger(e.segment_index) ? e.segment_index : wheel.find(e.segment);
    await wheel.spinTo(i, host);
    const what = e.segment === "RANDOM" && e.feature ? this.text("random_feature", { random: this.segmentName("RANDOM"), name: this.featureName(e.feature) }) : this.segmentName(e.segment);
    wheel.result.textContent = what;
    if (e.dice !== undefined) this.counters.set("dice", this.text("counter.dice"), e.dice);
    host.message(this.text("msg.wheel_stops", { what }), "feature");
    await wait(host, 1100);
    if (!host.instant) hidePanel(host);
    else this.lastWheel = what;
  }

  /** " (Replay)" after a feature's name when it plays the second time. */
  replayMark(e) {
    return e.run > 1 ? this.text("msg.replay_mark") : "";
  }

  describe(e, fmt) {
    const m = (x) => fmt.money(Number(x) * this.host.bet());
    const list = (xs) => xs.map((p) => m(p.value)).join(", ");
    switch (e.type) {
      case "bonus_triggered":
        return this.text(e.dice ? "log.triggered_dice" : "log.triggered", { n: e.scatters });
      case "bonus_started":
        return this.text("log.started", { prizes: list(e.prizes || []), spins: e.spins, dice: e.dice });
      case "bonus_spun": {
        const args = { spin: e.spin, prizes: list(e.prizes || []) || this.text("log.no_prize"), n: e.dice_cells?.length || 0, spins: e.spins, dice: e.dice };
        return this.text(e.dice_cells?.length ? "log.spun_dice" : "log.spun", args);
      }
      case "spins_reset":
        return this.text(e.reason === "heart_used" ? "log.reset_heart" : "log.reset_prize", { n: e.spins });
      case "dice_rolled":
        return this.text(e.passed_start ? "log.rolled_start" : "log.rolled", { value: e.value, from: e.from, to: e.to, dice: e.dice });
      case "heart_gained":
        return this.text("log.hearts", { n: e.hearts });
      case "square_landed":
        return this.text("log.square", { n: e.square, what: e.feature === "-" ? (e.value ? this.text("log.upgraded", { amount: m(e.value) }) : this.text("log.blank")) : this.featureName(e.feature) });
      case "starburst_placed":
        return this.text((e.cells || []).some((c) => c.merged) ? "log.starburst_merged" : "log.starburst", { value: times(e.value), reel: e.column + 1 });
      case "gonzo_multiplied":
        return this.text("log.gonzo", { list: (e.cells || []).map((c) => `${m(c.was)} ×${c.multiplier}`).join(", ") });
      case "miss_banks_placed":
        return this.text("log.miss_banks", { n: e.count, merged: (e.cells || []).filter((c) => c.merged).length });
      case "finn_merged":
        return this.text("log.finn", { n: e.count, amount: m(e.value) });
      case "space_wars_respun":
        return this.text("log.space_wars", { values: (e.values || []).map((v) => m(v)).join(", "), n: (e.respins || []).reduce((a, r) => a + (r.prizes?.length || 0), 0) });
      case "wheel_spun":
        return e.feature
          ? this.text("log.wheel_feature", { segment: this.segmentName(e.segment), name: this.featureName(e.feature) })
          : this.text("log.wheel", { segment: this.segmentName(e.segment) });
      case "plus_one_added":
        return this.text("log.plus_one", { n: e.amount, amount: m(e.amount) });
      case "upgrade_added":
        return this.text("log.upgrade", { amount: m(e.square_value) });
      case "upgraded_square_paid":
        return this.text(e.times > 1 ? "log.upgraded_paid_twice" : "log.upgraded_paid", { amount: m(e.square_value) });
      case "replay_armed":
        return this.text(e.armed ? "log.replay_armed" : "log.replay_lost");
      case "replay_used":
        return this.text("log.replay_used", { name: this.featureName(e.feature) });
      case "extra_spins_gained":
        return e.applied ? this.text("log.extra_spins", { n: e.spins, max: e.max_spins }) : this.text("log.extra_spins_used");
      case "final_game_started":
        return this.text(e.replay ? "log.final_replay" : "log.final", { dice: e.dice, left: e.dice_left, max: e.max_spins, hearts: e.hearts, start: e.start_square_dice });
      case "final_dice_rolled":
        return this.text("log.final_rolled", { value: e.value, from: e.from, to: e.to, dice: e.dice });
      case "final_prize_collected":
        return this.text("log.final_prize", { amount: m(e.value), total: m(e.final_total) });
      case "final_die_gained":
        return this.text("msg.final_die");
      case "bonus_ended":
        return e.final_game ? this.text("log.ended_final", { amount: m(e.total), final: m(e.final_total) }) : this.text("log.ended", { amount: m(e.total) });
      case "bonus_paid":
        return this.text("log.paid", { amount: fmt.money(e.win) });
      default:
        return undefined;
    }
  }
}

