// Superstars: the 5x5 reels, then the Bonus Game drawn from its events (the formats are in
// games/superstars/bonus.py, EVENT_DOC): every position spinning on its own, locked prizes with
// their values, the spin / dice / heart counters, the 24-square board round the reels with the
// token moving square by square, each feature step by step, the Wheel Game and the Final Game.
// "Throw Dice" and the wheel's "Spin" only pace the show (auto spin and a quick stop skip them).
// Prizes are multiples of the total bet; they are shown in money.
import { h } from "../util.js";
import { Feature } from "./base.js";
import { Board } from "./board.js";
import { announce, fast, hidePanel, showPanel, times, wait } from "./common.js";
import { Counters, pace } from "./controls.js";
import { HoldGrid } from "./holdgrid.js";
import { Wheel } from "./wheel.js";

const ROWS = 5;
const SQUARE_NAMES = {
  START: "START",
  "-": "",
  FINN: "FINN",
  STARBURST: "STARBURST",
  WHEEL: "WHEEL",
  GONZO: "GONZO",
  MISSBANKS: "MISS BANKS",
  EXTRASPINS: "EXTRA SPINS",
  SPACEWARS: "SPACE WARS",
};
const FEATURE_NAMES = { ...SQUARE_NAMES, "-": "the upgraded square", START: "Extra Life" };
const SEGMENT_NAMES = { DICE1: "1 DICE", DICE2: "2 DICE", RANDOM: "RANDOM", REPLAY: "REPLAY", PLUS1: "+1", UPGRADE: "UPGRADE" };
const SEGMENT_COLOURS = { DICE1: "#1e88e5", DICE2: "#3949ab", RANDOM: "#8e24aa", REPLAY: "#00897b", PLUS1: "#f9a825", UPGRADE: "#e65100" };
const PIPS = ["", "⚀", "⚁", "⚂", "⚃", "⚄", "⚅"];

const cellRC = (cell) => [Math.floor(Number(cell) / ROWS), Number(cell) % ROWS];

export class Superstars extends Feature {
  // the rule text's name for quick stop
  quickStopLabel = "STALL";

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
    const segs = (this.desc.bonus?.wheel || Object.keys(SEGMENT_NAMES).map((s) => [s])).map(([s]) => ({ id: s, label: SEGMENT_NAMES[s] || s, color: SEGMENT_COLOURS[s] }));
    this.wheelSegments = segs;
  }

  bonusSquares(names, upgrade) {
    return names.map((n) => {
      const blank = n === "-";
      return {
        label: SQUARE_NAMES[n] ?? n,
        kind: blank ? "blank" : n === "START" ? "start" : `feature ${n.toLowerCase()}`,
        value: blank && upgrade ? upgrade : undefined,
        sub: blank && upgrade ? this.money(upgrade) : n === "START" ? "♥" : "",
      };
    });
  }

  finalSquares(values) {
    return values.map((v) =>
      v === null || v === "DICE" ? { label: "DICE", kind: "dice", sub: "+1 die" } : { label: this.money(v), kind: "prize", value: v, sub: times(v) },
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
    const items = [
      "Bonus Game: 3 or more Scatters (a Dice on reel 5 counts) turn into prizes of 1 to 25 times the bet; each position spins on its own, prizes lock and reset the spins to 3 (4 with Extra Spins).",
      "Dice landing in the Bonus Game are collected and rolled one at a time before the next spin; the token moves 1 to 6 squares round the 24-square board and plays the feature it lands on.",
      "Extra Life (Start): a heart for landing on or passing Start; a heart resets the spins when spins and dice run out. Starburst, Gonzo, Miss Banks, Space Wars, Finn, Extra Spins and the Wheel Game (1 Dice, 2 Dice, Random, Replay, +1, Upgrade) are played as they come.",
      "All 25 positions locked start the Final Game at once: a board of 25 to 1000 times the bet and 2 dice squares; only dice are rolled.",
      `Throw Dice and Spin pace the Bonus Game and change no outcome; auto spin and Stall (quick stop) skip them. A Bonus Game stops auto spin when "When a feature is won" is set.`,
    ];
    if (b.final_board) items.push(`Final Game squares: ${b.final_board.map((v) => (v === "DICE" ? "a die" : `${v}×`)).join(", ")}.`);
    return [{ title: "Bonus Game", testid: "feature-help", items }];
  }

  // ---- drawing -----------------------------------------------------------------------------

  setCounters(e) {
    if (e.spins !== undefined) this.counters.set("spins", "SPINS", e.spins);
    if (e.dice !== undefined) this.counters.set("dice", "DICE", e.dice);
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
    this.counters.set("total", "BONUS", this.money(total));
  }

  async handle(e) {
    const host = this.host;
    // a replay shows the Wheel Game at its own step only
    if (host.instant && e.type !== "wheel_spun") hidePanel(host);
    switch (e.type) {
      case "bonus_triggered":
        for (const [c, r] of e.positions || []) host.reels.cellAt(c, r)?.classList.add("win");
        if (e.dice) host.reels.cellAt(e.dice[0], e.dice[1])?.classList.add("win");
        host.message(`BONUS GAME! ${e.scatters} Scatters${e.dice ? " and a Dice" : ""}`, "feature");
        await announce(host, "BONUS GAME!", 1500);
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
        this.counters.set("spins", "SPINS", e.spins);
        this.counters.set("dice", "DICE", e.dice);
        this.counters.set("hearts", "♥", 0);
        this.showTotal();
        host.message(`The triggering symbols became prizes${e.dice_cell !== null && e.dice_cell !== undefined ? "; the Dice adds a die" : ""}.`, "feature");
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
          landings.push({ c, r, content: { kind: "dice", label: "🎲", sub: "+1 die" } });
        }
        host.message(`Spin ${e.spin}: ${e.prizes?.length ? `${e.prizes.length} new prize${e.prizes.length > 1 ? "s" : ""}` : "no prize"}${e.dice_cells?.length ? `, ${e.dice_cells.length} dice` : ""}.`);
        await this.grid.respin(landings, host, { ms: 650, gap: 200 });
        this.counters.set("dice", "DICE", e.dice);
        this.counters.set("spins", "SPINS", e.spins);
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
        this.counters.set("spins", "SPINS", e.spins);
        if (e.hearts !== undefined) this.counters.set("hearts", "♥", e.hearts);
        host.message(e.reason === "heart_used" ? `A heart is used: the spins are back to ${e.spins}.` : `A new prize: the spins are back to ${e.spins}.`, "feature");
        await wait(host, 300);
        return true;
      case "dice_rolled": {
        await pace(host, this.paceSlot, { label: "THROW DICE", testid: "pace-dice" });
        this.showDie(e.value);
        this.counters.set("dice", "DICE", e.dice);
        await wait(host, 450);
        await this.board.move(e.to, host, { steps: e.value });
        this.counters.set("hearts", "♥", e.hearts);
        host.message(`The die shows ${e.value}: the token moves to square ${e.to}${e.passed_start ? ", past Start" : ""}.`);
        return true;
      }
      case "heart_gained":
        this.counters.set("hearts", "♥", e.hearts);
        this.board.highlight(0);
        host.message("Extra Life: a heart for passing Start.", "feature");
        await wait(host, 500);
        return true;
      case "square_landed": {
        this.board.highlight(e.square);
        const name = e.feature === "-" ? (e.value ? `an upgraded square worth ${this.money(e.value)}` : "a blank square") : FEATURE_NAMES[e.feature] || e.feature;
        host.message(`The token lands on ${name}.`, e.feature === "-" ? "" : "feature");
        if (e.feature !== "-" && e.feature !== "START") await announce(host, FEATURE_NAMES[e.feature] || e.feature, 900);
        else await wait(host, 400);
        return true;
      }
      case "starburst_placed": {
        host.message(`Starburst${e.run > 1 ? " (Replay)" : ""}: a stack of three ${times(e.value)} prizes on reel ${e.column + 1}; overlaps multiply.`, "feature");
        for (const x of e.cells || []) {
          const [c, r] = cellRC(x.cell);
          this.putPrize(c, r, x.value, x.merged ? `${times(x.was)}×${times(e.value)}` : times(x.value));
          this.grid.flash([[c, r]], x.merged ? "merged" : "landed");
          await wait(host, 260);
        }
        await wait(host, 500);
        this.syncReels(e.reels);
        return true;
      }
      case "gonzo_multiplied": {
        host.message(`Gonzo${e.run > 1 ? " (Replay)" : ""}: ${e.count} prize${e.count > 1 ? "s" : ""} multiplied.`, "feature");
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
        host.message(`Miss Banks${e.run > 1 ? " (Replay)" : ""}: ${e.count} prizes placed; on a prize they add up.`, "feature");
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
        host.message(`Finn${e.run > 1 ? " (Replay)" : ""}: ${e.count} prize${e.count > 1 ? "s" : ""} +5×, merged into one of ${this.money(e.value)}.`, "feature");
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
            this.putPrize(c, r, e.value, "Finn");
            this.grid.flash([[c, r]], "merged");
          } else this.grid.clear(c, r);
        }
        await wait(host, 500);
        this.syncReels(e.reels);
        return true;
      }
      case "space_wars_respun": {
        host.message(`Space Wars${e.run > 1 ? " (Replay)" : ""}: 3 respins; every prize landing takes one of ${(e.values || []).map((v) => this.money(v)).join(", ")}.`, "feature");
        this.counters.set("sw", "SPACE WARS", `${e.values?.length ? (e.values || []).map(times).join(" ") : "—"}`);
        for (const rs of e.respins || []) {
          this.counters.set("respins", "RESPIN", `${rs.respin} of 3`);
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
        host.message(`+${e.amount}: every prize on the reels grows by ${this.money(e.amount)}.`, "feature");
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
        host.message(`Upgrade: every blank square is now worth ${this.money(e.square_value)}.`, "feature");
        await wait(host, 800);
        return true;
      case "upgraded_square_paid": {
        host.message(`The upgraded square adds ${this.money(e.square_value)}${e.times > 1 ? " twice (Replay)" : ""} to every prize.`, "feature");
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
          this.counters.set("replay", "REPLAY", "armed");
        }
        host.message(e.armed ? "Replay: the next feature plays twice." : "Replay: one is armed already, this one is lost.", "feature");
        await wait(host, 600);
        return true;
      case "replay_used":
        this.replay = false;
        this.counters.hide("replay");
        host.message(`Replay: ${FEATURE_NAMES[e.feature] || e.feature} plays again.`, "feature");
        await announce(host, "REPLAY!", 800);
        return true;
      case "extra_spins_gained":
        this.counters.set("spins", "SPINS", e.spins);
        this.counters.set("max", "MAX", e.max_spins);
        host.message(e.applied ? `Extra Spins: the spins go up to ${e.max_spins}.` : "Extra Spins was used already in this Bonus Game.", "feature");
        await wait(host, 700);
        return true;
      case "final_game_started": {
        this.board.setSquares(this.finalSquares(e.board || this.desc.final_board || []), { final: true });
        this.board.place(0);
        this.grid.el.classList.add("inactive");
        this.counters.hide("spins");
        this.counters.hide("max");
        this.counters.hide("replay");
        this.counters.set("dice", "DICE", e.dice);
        this.counters.set("hearts", "♥", e.hearts);
        const sum = `${e.dice_left} + ${e.max_spins} + ${e.hearts} × ${e.max_spins}${e.replay ? ", × 2 for the Replay" : ""}, + ${e.start_square_dice} = ${e.dice}`;
        this.finalDice = sum;
        host.message(`FINAL GAME: ${e.dice} dice (${sum}).`, "feature");
        await announce(host, "FINAL GAME!", 1600, `${e.dice} dice`);
        return true;
      }
      case "final_dice_rolled":
        await pace(host, this.paceSlot, { label: "THROW DICE", testid: "pace-dice" });
        this.showDie(e.value);
        await wait(host, 400);
        await this.board.move(e.to, host, { steps: e.value });
        this.counters.set("dice", "DICE", e.dice);
        return true;
      case "final_prize_collected":
        this.board.highlight(e.square);
        this.finalTotal = Number(e.final_total);
        this.showTotal();
        host.message(`Final Game: ${this.money(e.value)} collected.`, "win");
        await wait(host, 500);
        return true;
      case "final_die_gained":
        this.board.highlight(e.square);
        this.counters.set("dice", "DICE", e.dice);
        host.message("Final Game: one more die.", "feature");
        await wait(host, 400);
        return true;
      case "bonus_ended":
        this.die.hidden = true;
        host.message(`The Bonus Game pays ${this.money(e.total)}${e.final_game ? ` (Final Game ${this.money(e.final_total)})` : ""}.`, "win");
        await wait(host, 1200);
        return true;
      case "bonus_paid":
        // "after the Bonus Game, the game returns to the round that triggered it"
        this.returnToBase();
        host.message(`Bonus Game win ${host.credits(e.win)}: back to the main game.`, "win");
        return true;
      default:
        return false;
    }
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
    this.die.setAttribute("aria-label", `The die shows ${v}`);
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
    showPanel(host, "wheel-game", "WHEEL GAME", wheel.el, slot);
    await pace(host, slot, { label: "SPIN", testid: "pace-wheel" });
    const i = Number.isInteger(e.segment_index) ? e.segment_index : wheel.find(e.segment);
    await wheel.spinTo(i, host);
    const what = e.segment === "RANDOM" && e.feature ? `RANDOM: ${FEATURE_NAMES[e.feature] || e.feature}` : SEGMENT_NAMES[e.segment] || e.segment;
    wheel.result.textContent = what;
    if (e.dice !== undefined) this.counters.set("dice", "DICE", e.dice);
    host.message(`The wheel stops on ${what}.`, "feature");
    await wait(host, 1100);
    if (!host.instant) hidePanel(host);
    else this.lastWheel = what;
  }

  describe(e, fmt) {
    const m = (x) => fmt.money(Number(x) * this.host.bet());
    switch (e.type) {
      case "bonus_triggered":
        return `${e.scatters} Scatters${e.dice ? " with a Dice" : ""} start the Bonus Game.`;
      case "bonus_started":
        return `Bonus Game: prizes ${(e.prizes || []).map((p) => m(p.value)).join(", ")}; ${e.spins} spins, ${e.dice} dice.`;
      case "bonus_spun":
        return `Bonus spin ${e.spin}: ${(e.prizes || []).map((p) => m(p.value)).join(", ") || "no prize"}${e.dice_cells?.length ? `, ${e.dice_cells.length} dice` : ""}; ${e.spins} spins left, ${e.dice} dice.`;
      case "spins_reset":
        return `Spins back to ${e.spins} (${e.reason === "heart_used" ? "a heart used" : "a new prize"}).`;
      case "dice_rolled":
        return `Die rolled: ${e.value}, token from square ${e.from} to ${e.to}${e.passed_start ? " (past Start)" : ""}; ${e.dice} dice left.`;
      case "heart_gained":
        return `Extra Life: ${e.hearts} heart${e.hearts === 1 ? "" : "s"}.`;
      case "square_landed":
        return `Square ${e.square}: ${e.feature === "-" ? (e.value ? `upgraded, ${m(e.value)}` : "blank") : FEATURE_NAMES[e.feature] || e.feature}.`;
      case "starburst_placed":
        return `Starburst: three ${times(e.value)} on reel ${e.column + 1}${(e.cells || []).some((c) => c.merged) ? ", merged by product" : ""}.`;
      case "gonzo_multiplied":
        return `Gonzo: ${(e.cells || []).map((c) => `${m(c.was)} ×${c.multiplier}`).join(", ")}.`;
      case "miss_banks_placed":
        return `Miss Banks: ${e.count} prizes placed (${(e.cells || []).filter((c) => c.merged).length} merged by sum).`;
      case "finn_merged":
        return `Finn: ${e.count} prizes +5× merged into ${m(e.value)}.`;
      case "space_wars_respun":
        return `Space Wars: 3 respins with ${(e.values || []).map((v) => m(v)).join(", ")}; ${(e.respins || []).reduce((a, r) => a + (r.prizes?.length || 0), 0)} prizes landed.`;
      case "wheel_spun":
        return `Wheel Game: ${SEGMENT_NAMES[e.segment] || e.segment}${e.feature ? ` (${FEATURE_NAMES[e.feature] || e.feature})` : ""}.`;
      case "plus_one_added":
        return `+${e.amount}: every prize +${m(e.amount)}.`;
      case "upgrade_added":
        return `Upgrade: blank squares worth ${m(e.square_value)}.`;
      case "upgraded_square_paid":
        return `Upgraded square: every prize +${m(e.square_value)}${e.times > 1 ? " twice" : ""}.`;
      case "replay_armed":
        return e.armed ? "Replay armed." : "Replay lost (one already armed).";
      case "replay_used":
        return `Replay: ${FEATURE_NAMES[e.feature] || e.feature} again.`;
      case "extra_spins_gained":
        return e.applied ? `Extra Spins: ${e.spins} spins, maximum ${e.max_spins}.` : "Extra Spins already used.";
      case "final_game_started":
        return `Final Game: ${e.dice} dice = (${e.dice_left} + ${e.max_spins} + ${e.hearts} × ${e.max_spins})${e.replay ? " × 2" : ""} + ${e.start_square_dice}.`;
      case "final_dice_rolled":
        return `Final Game die: ${e.value}, square ${e.from} to ${e.to}; ${e.dice} dice left.`;
      case "final_prize_collected":
        return `Final Game prize ${m(e.value)} (total ${m(e.final_total)}).`;
      case "final_die_gained":
        return "Final Game: one more die.";
      case "bonus_ended":
        return `Bonus Game total ${m(e.total)}${e.final_game ? ` (Final Game ${m(e.final_total)})` : ""}.`;
      case "bonus_paid":
        return `Bonus Game pays ${fmt.money(e.win)}; back to the main game.`;
      default:
        return undefined;
    }
  }
}

