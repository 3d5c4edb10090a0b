// A composed game (a model file's features, kind "composed"): drawn from its events alone, with
// no code of the game's own. Coins show their values on the reels; a hold-and-win grid is laid
// over the window (coins, collectors, the four jackpots, the respins left); a wheel is drawn from
// the model's segments; free spins use the generic counter, with retriggers and their total; an
// expanding symbol turns its reel Wild and the respins spin the other reels with it held; a
// whole-reel symbol is drawn as one tall symbol and, filling its reel, is coins; a colour wheel
// asks the player's colour and spins again while it lands on it.
import { Feature } from "./base.js";
import { announce, fast, hidePanel, showPanel, wait } from "./common.js";
import { choiceButtons, Counters } from "./controls.js";
import { HoldGrid } from "./holdgrid.js";
import { Wheel } from "./wheel.js";
import { symbolText } from "../names.js";
import { glyph } from "../symbols.js";
import { h } from "../util.js";

const OWN = new Set(["reels_expanded", "whole_reel_shown", "colour_wheel_offered", "colour_wheel_spun", "colour_wheel_ended", "coins_shown", "hold_and_win_started", "respin_landed", "collector_collected", "hold_and_win_ended", "wheel_spun", "free_spins_retriggered", "free_spins_ended"]);

export class Composed extends Feature {
  /** The game's text, with the hold and win called by the model's name for it when it has one. */
  text(key, args) {
    const name = this.desc.hold_and_win?.name || super.text("feature_name");
    return super.text(key, { feature: name, FEATURE: name.toUpperCase(), ...args });
  }

  mount() {
    const d = this.desc;
    this.grid = new HoldGrid(d.reels || 5, d.rows || 3, { testid: "hold" });
    this.host.reels.el.append(this.grid.el);
    this.counters = new Counters();
    this.host.status.append(this.counters.el);
    // every wheel of the model (wheel_spun.wheel indexes them): its name, trigger and segments
    this.wheels = (d.wheels || []).map((w) => ({
      name: w.name || this.text("wheel"),
      trigger: w.trigger,
      segments: w.segments.map((s, i) => ({ id: String(i), label: this.segmentLabel(s) })),
    }));
  }

  /** A wheel segment in words: its pay, the feature it starts and its multiplier. */
  segmentLabel(s) {
    const parts = [];
    if (s.pay) parts.push(this.host.credits((Number(s.pay) * this.host.bet()) / Number(this.desc.pay_divisor || 1)));
    if (s.feature === "free_spins") parts.push(s.spins ? this.text("segment.free_spins_n", { n: s.spins, x: s.multiplier || 1 }) : this.text("segment.free_spins", { x: s.multiplier || 1 }));
    if (s.feature === "hold_and_win") parts.push(s.multiplier > 1 ? this.text("segment.hold_and_win_x", { x: s.multiplier }) : this.text("segment.hold_and_win"));
    if (s.feature === "colour_wheel") parts.push(`${this.desc.colour_wheel?.name || this.text("colour.name")}${s.multiplier > 1 ? ` ×${s.multiplier}` : ""}`);
    return parts.join(" + ");
  }

  reset() {
    this.colourWheel = null;
    this.chosen = null;
    this.grid.reset();
    this.grid.close();
    this.counters.clear();
    this.inGrid = false;
    this.jackpots = [];
    this.unmarkReels();
    this.host.reels.el.classList.remove("hold-on");
    hidePanel(this.host);
  }

  async finish() {
    this.counters.clear();
  }

  isFeature(e) {
    return e.type === "hold_and_win_started" || e.type === "wheel_spun" || e.type === "colour_wheel_offered" || (e.type === "reels_expanded" && e.respins > 0);
  }

  unmarkReels() {
    for (const el of this.host.reels.reelEls || []) el.classList.remove("expanding", "expanded", "giant");
  }

  /** Reels that turned Wild: marked, then the window with them Wild. */
  async expand(e) {
    const host = this.host;
    const els = (e.reels || []).map((r) => host.reels.reelEls?.[r]).filter(Boolean);
    const n = els.length;
    host.message(e.respins ? this.text("msg.expanded_respins", { n, respins: e.respins }) : this.text("msg.expanded", { n }), "feature");
    for (const el of els) el.classList.add("expanding");
    if (!fast(host)) await wait(host, 500);
    host.reels.setWindow(e.window);
    for (const el of els) {
      el.classList.remove("expanding");
      el.classList.add("expanded");
    }
    if (e.respins && !fast(host)) await announce(host, this.text("msg.expanded_banner"), 1100, this.text("msg.expanded_sub", { respins: e.respins }));
    return true;
  }

  /** The colour wheel's panel: its segments (colour and +multiplier) and a place for the
   * colour buttons. */
  showColourWheel() {
    const cw = this.desc.colour_wheel;
    const segs = (cw?.segments || []).map((s, i) => ({ id: String(i), label: `+${s.multiplier}`, color: String(s.colour).toLowerCase() }));
    this.colourWheel = new Wheel(segs, { testid: "colour-wheel", size: 320 });
    this.colourText = h("p.feature-text", { "data-testid": "colour-text" }, this.text("colour.rule", { limit: cw?.limit ?? 0 }));
    this.colourSlot = h("div.choice-slot");
    showPanel(this.host, "colour-wheel-panel", cw?.name || this.text("colour.name"), this.colourWheel.el, this.colourText, this.colourSlot);
    this.counters.set("colour-total", this.text("counter.total"), "×0");
  }

  /** The round waits for the player's colour: one button per colour. */
  offer(aw) {
    if (aw?.kind !== "colour_wheel" || !this.host.choose) return false;
    if (!this.colourWheel) this.showColourWheel();
    const opts = (aw.options || []).map((o) => ({ value: o, label: String(o).toUpperCase(), cls: String(o).toLowerCase() }));
    this.colourSlot.replaceChildren(
      choiceButtons(opts, (v) => {
        this.chosen = v;
        this.colourText.textContent = this.text("colour.yours", { colour: String(v).toUpperCase() });
        this.host.choose(v);
      }),
    );
    this.colourSlot.querySelector("button")?.focus({ preventScroll: true });
    return true;
  }

  /** A respin: the held (Wild) reels stay, the others spin again. */
  async respin(e) {
    const host = this.host;
    const hold = e.held || [];
    if (fast(host)) host.reels.setWindow(e.window);
    else {
      host.message(this.text("msg.respin", { n: e.respin, of: e.respins }), "feature");
      host.reels.startSpin({ hold });
      await wait(host, 350);
      await host.reels.stop(e.window, { hold });
    }
    for (const r of hold) host.reels.reelEls?.[r]?.classList.add("expanded");
    return true;
  }

  /** Wins the generic client does not count: the wheel's pay and the hold and win's total. */
  eventWin(e) {
    if (e.type === "wheel_spun") return Number(e.pay) || 0;
    if (e.type === "hold_and_win_ended" || e.type === "colour_wheel_ended") return Number(e.win) || 0;
    return undefined;
  }

  /** The hold and win and the wheel happen inside free spins too: they do not end them. */
  duringFreeSpins(e) {
    return OWN.has(e.type) && e.type !== "free_spins_ended";
  }

  coinContent(coin) {
    const jackpot = coin.jackpot;
    const face = (this.desc.symbols || []).find((s) => s.coin);
    return {
      art: face ? glyph(face, "") : "",
      kind: jackpot ? `coin jackpot ${String(jackpot).toLowerCase()}` : "coin",
      label: jackpot ? this.text(`jackpot.${jackpot}`) : this.host.credits(coin.value),
      value: coin.value,
      sub: jackpot ? this.host.credits(coin.value) : "",
    };
  }

  /** Coin values written on the reels' coin cells. */
  markCoins(coins) {
    for (const coin of coins || []) {
      const el = this.host.reels.cellAt?.(coin.cell[0], coin.cell[1]);
      if (!el) continue;
      el.querySelector(".coin-value")?.remove();
      el.append(h(coin.jackpot ? `span.coin-value.jackpot.${String(coin.jackpot).toLowerCase()}` : "span.coin-value", { "data-testid": `coin-value-${coin.cell[0]}-${coin.cell[1]}` }, coin.jackpot ? this.text(`jackpot.${coin.jackpot}`) : this.host.credits(coin.value)));
    }
  }

  async handle(e) {
    const host = this.host;
    switch (e.type) {
      case "reels_stopped":
        if (e.respin) return this.respin(e);
        this.unmarkReels(); // a new spin: no reel is held or filled
        return false;
      case "reels_expanded":
        return this.expand(e);
      case "colour_wheel_offered":
        if (!this.colourWheel) this.showColourWheel();
        host.message(this.text("msg.colour_offered"), "feature");
        return true;
      case "colour_wheel_spun": {
        if (!this.colourWheel) this.showColourWheel();
        this.colourSlot?.replaceChildren();
        await this.colourWheel.spinTo(Number(e.segment), host, { ms: 2000 });
        this.counters.set("colour-total", this.text("counter.total"), `×${e.total}`);
        host.message(this.text(e.again ? "msg.colour_again" : "msg.colour_spun", { colour: String(e.colour).toUpperCase(), value: e.multiplier, total: e.total }), "feature");
        await wait(host, 800);
        return true;
      }
      case "colour_wheel_ended":
        host.message(this.text("msg.colour_ended", { total: e.total, amount: host.credits(e.win) }), "win");
        if (!fast(host)) await announce(host, this.text("msg.colour_banner"), 1600, host.credits(e.win));
        if (!host.instant) hidePanel(host);
        this.counters.hide?.("colour-total");
        this.colourWheel = null;
        return true;
      case "whole_reel_shown":
        for (const r of e.reels || []) host.reels.reelEls?.[r]?.classList.add("giant");
        host.message(this.text("msg.whole_reel", { n: (e.reels || []).length }), "feature");
        if (!fast(host)) await wait(host, 700);
        return true;
      case "coins_shown":
        this.markCoins(e.coins);
        return true;
      case "hold_and_win_started": {
        host.reels.clearWins?.();
        this.grid.reset();
        this.grid.open();
        this.inGrid = true;
        this.jackpots = (e.coins || []).filter((c) => c.jackpot); // each named at the end with its amount
        host.reels.el.classList.add("hold-on");
        this.counters.set("respins", this.text("counter.respins"), e.respins);
        this.counters.set("held", this.text("counter.held"), `${(e.coins || []).length}/${e.cells}`);
        if (e.multiplier > 1) this.counters.set("multiplier", this.text("counter.multiplier"), `×${e.multiplier}`);
        for (const jp of ["Mini", "Minor", "Major", "Grand"]) {
          const x = this.desc.hold_and_win?.jackpots?.[jp];
          if (x !== undefined) this.counters.set(`jackpot-${jp.toLowerCase()}`, this.text(`jackpot.${jp}`), host.credits((Number(x) * host.bet()) / Number(this.desc.pay_divisor || 1) * (e.multiplier || 1)));
        }
        host.message(this.text("msg.started", { n: (e.coins || []).length, respins: e.respins }), "feature");
        await announce(host, this.text("hold_and_win"), 1300);
        for (const coin of e.coins || []) {
          this.grid.set(coin.cell[0], coin.cell[1], this.coinContent(coin));
          this.grid.flash([coin.cell], "landed");
          await wait(host, 150);
        }
        return true;
      }
      case "respin_landed": {
        const landings = (e.coins || []).map((c) => ({ c: c.cell[0], r: c.cell[1], content: this.coinContent(c) }));
        this.jackpots = [...(this.jackpots || []), ...(e.coins || []).filter((c) => c.jackpot)];
        for (const [c, r] of e.collectors || []) landings.push({ c, r, content: { kind: "collector", label: this.text("collector"), sub: "" } });
        await this.grid.respin(landings, host, { ms: 600, gap: 220 });
        this.counters.set("respins", this.text("counter.respins"), e.respins);
        this.counters.set("held", this.text("counter.held"), `${e.held}/${this.grid.cols * this.grid.rows}`);
        host.message(landings.length ? this.text("msg.landed", { n: landings.length, respins: e.respins }) : this.text("msg.nothing", { n: e.respins }), landings.length ? "feature" : "");
        await wait(host, 350);
        return true;
      }
      case "collector_collected":
        this.grid.flash([e.cell], "merged");
        host.message(this.text("msg.collected", { amount: host.credits(e.win) }), "feature");
        await wait(host, 700);
        return true;
      case "hold_and_win_ended": {
        // a screen for each jackpot won (its name and amount), then the total's
        for (const coin of this.jackpots || []) {
          this.grid.flash([coin.cell], "merged");
          if (!fast(host)) await announce(host, this.text("msg.jackpot_banner", { name: this.text(`jackpot.${coin.jackpot}`) }), 1600, host.credits(coin.value));
        }
        this.jackpots = [];
        if (e.full_grid) {
          // the grid's own jackpot: every cell held
          const name = this.text(`jackpot.${e.full_grid.jackpot}`);
          host.message(this.text("msg.full_grid", { name, amount: host.credits(e.full_grid.win) }), "win");
          if (!fast(host)) await announce(host, this.text("msg.jackpot_banner", { name }), 1600, host.credits(e.full_grid.win));
        }
        host.message(this.text("msg.ended", { amount: host.credits(e.win) }), "win");
        if (!fast(host)) await announce(host, this.text("msg.total_banner"), 1600, host.credits(e.win));
        if (!host.instant) {
          this.grid.close();
          host.reels.el.classList.remove("hold-on");
        }
        this.inGrid = false;
        for (const k of ["respins", "held", "multiplier", "jackpot-mini", "jackpot-minor", "jackpot-major", "jackpot-grand"]) this.counters.hide?.(k);
        return true;
      }
      case "wheel_spun": {
        const spun = this.wheels[Number(e.wheel) || 0];
        const wheel = new Wheel(spun.segments, { testid: "feature-wheel", size: 400 });
        showPanel(host, "wheel-panel", spun.name, wheel.el);
        await wheel.spinTo(Number(e.segment), host);
        host.message(this.text("msg.wheel_stops", { what: spun.segments[e.segment]?.label ?? "" }), "feature");
        await wait(host, 1000);
        if (!host.instant) hidePanel(host);
        return true;
      }
      case "free_spins_retriggered":
        host.message(this.text("msg.retriggered", { n: e.awarded, total: e.total_awarded }), "feature");
        if (!fast(host)) await announce(host, this.text("msg.retriggered", { n: e.awarded, total: e.total_awarded }), 1200);
        return true;
      case "free_spins_ended":
        host.message(this.text("msg.free_ended", { n: e.played, amount: host.credits(e.win) }), "win");
        return true;
      default:
        return false;
    }
  }

  help() {
    const d = this.desc;
    const items = [];
    const hw = d.hold_and_win;
    if (hw) {
      items.push(this.text("help.hold_and_win", { n: hw.trigger, respins: hw.respins }));
      const amount = (j) => this.host.credits((Number(hw.jackpots[j]) * this.host.bet()) / Number(d.pay_divisor || 1));
      const xs = ["Mini", "Minor", "Major", "Grand"].filter((j) => hw.jackpots?.[j] !== undefined && j !== hw.full_grid).map((j) => `${this.text(`jackpot.${j}`)} ${amount(j)}`);
      if (xs.length) items.push(xs.join(" · "));
      if (hw.full_grid) items.push(this.text("help.full_grid", { name: this.text(`jackpot.${hw.full_grid}`), amount: amount(hw.full_grid) }));
    }
    for (const w of this.wheels) {
      const list = w.segments.map((s) => s.label).join(", ");
      const by = w.trigger;
      const sym = by && (d.symbols || []).find((s) => s.id === by.symbol);
      items.push(by ? this.text("help.wheel_trigger", { n: by.count, symbol: symbolText(d, sym) || by.symbol, wheel: w.name, list }) : this.text("help.wheel_by_award", { wheel: w.name, list }));
    }
    if (d.expanding) items.push(this.text("help.expanding", { respins: d.expanding.respins }));
    if (d.whole_reel) items.push(this.text("help.whole_reel"));
    if (d.colour_wheel) items.push(this.text("help.colour_wheel", { name: d.colour_wheel.name || this.text("colour.name"), colours: d.colour_wheel.colours.join(", "), limit: d.colour_wheel.limit }));
    const symbols = (d.symbols || []).filter((s) => s.coin || s.scatter || s.expanding || s.giant).map((s) => s.id);
    return items.length ? [{ title: this.text("help.title"), testid: "feature-help", symbols, items }] : [];
  }

  describe(e, fmt) {
    const money = (c) => fmt.money(c);
    switch (e.type) {
      case "reels_stopped":
        return e.respin ? this.text("log.respin_spin", { n: e.respin, of: e.respins }) : undefined;
      case "reels_expanded":
        return this.text("log.expanded", { n: (e.reels || []).length, respins: e.respins });
      case "whole_reel_shown":
        return this.text("log.whole_reel", { n: (e.reels || []).length });
      case "colour_wheel_offered":
        return this.text("msg.colour_offered");
      case "colour_wheel_spun":
        return this.text("log.colour_spun", { colour: String(e.colour).toUpperCase(), value: e.multiplier, total: e.total });
      case "colour_wheel_ended":
        return this.text("msg.colour_ended", { total: e.total, amount: money(e.win) });
      case "coins_shown":
        return this.text("log.coins", { n: (e.coins || []).length });
      case "hold_and_win_started":
        return this.text("log.started", { n: (e.coins || []).length, respins: e.respins });
      case "respin_landed":
        return this.text("log.respin", { n: (e.coins || []).length + (e.collectors || []).length, respins: e.respins });
      case "collector_collected":
        return this.text("log.collected", { amount: money(e.win) });
      case "hold_and_win_ended":
        return e.full_grid
          ? this.text("log.ended_full", { amount: money(e.win), name: this.text(`jackpot.${e.full_grid.jackpot}`) })
          : this.text("log.ended", { amount: money(e.win) });
      case "wheel_spun": {
        const spun = this.wheels[Number(e.wheel) || 0];
        return this.text("log.wheel", { wheel: spun?.name ?? "", what: spun?.segments[e.segment]?.label ?? "" });
      }
      case "free_spins_retriggered":
        return this.text("msg.retriggered", { n: e.awarded, total: e.total_awarded });
      case "free_spins_ended":
        return this.text("msg.free_ended", { n: e.played, amount: money(e.win) });
      default:
        return undefined;
    }
  }
}
