// Super 12 Stars' features drawn from its events (the formats are in
// games/super_12_stars/game.py and RULES.md): the Wheel spinning to its segment, the TV mini game
// drawing the free spins and their multiplier, the free-spin counter and multiplier, the Super 7
// turning the central reel Wild and the respin with it held, the Super 10 reel spinning to its
// outcome, the Frenzy Wheel with its Red / Green choice (the round waits for the click), and
// Lucky Stars as a grid of held stars with a respin counter that goes back to 3, with the Minor,
// Major and Grand amounts on show. Line and scatter wins are drawn by the generic client.
import { h } from "../util.js";
import { Feature } from "./base.js";
import { announce, fast, hidePanel, showPanel, times, wait } from "./common.js";
import { choiceButtons, Counters } from "./controls.js";
import { Drum } from "./drum.js";
import { HoldGrid } from "./holdgrid.js";
import { Wheel } from "./wheel.js";

const CENTRE = 2; // the central reel (0-based)
const WHEEL_COLOURS = ["#6a1b9a", "#ef6c00", "#1565c0", "#c2185b", "#2e7d32", "#f9a825"];
const COLOUR = { red: "#d32f2f", green: "#2e7d32" };
const FEATURE_TYPES = new Set(["wheel_spun", "tv_drawn", "free_spins_awarded", "super7_expanded", "super10_spun", "lucky_stars_started", "frenzy_offered"]);

export class Super12Stars extends Feature {
  mount() {
    const d = this.desc;
    this.grid = new HoldGrid(d.reels || 5, d.rows || 3, { testid: "lucky" });
    this.host.reels.el.append(this.grid.el);
    this.counters = new Counters();
    this.host.status.append(this.counters.el);
    this.lucky = d.lucky_stars || { respins: 3, minor_x: 15, major_x: 50, grand_x: 250 };
  }

  /** Money of x times the total bet; of x times the line bet. */
  xBet(x) {
    return this.host.credits(Number(x) * this.host.bet());
  }
  xLine(x) {
    return this.host.credits((Number(x) * this.host.bet()) / Number(this.desc.pay_divisor || 30));
  }

  reset() {
    this.grid.reset();
    this.grid.close();
    this.counters.clear();
    this.chosen = null;
    this.frenzy = null;
    this.host.reels.reelEls?.[CENTRE]?.classList.remove("expanded", "giant");
    this.host.reels.el.classList.remove("lucky-on");
    hidePanel(this.host);
  }

  /**
   * The round is over: the free spins' total screen (what they won, their multiplier), shown
   * where the profile celebrates this round's win; then every counter goes with the round.
   */
  async finish(res) {
    const events = res.events || [];
    const first = events.findIndex((e) => e.type === "reels_stopped" && e.stage && e.stage !== "base" && !e.respin);
    if (first >= 0 && !this.host.instant && res.celebrate !== false) {
      const won = events.slice(first).reduce((a, e) => a + (this.eventWin(e) ?? (["line_won", "scatter_won"].includes(e.type) ? Number(e.win) || 0 : 0)), 0);
      const x = events[first].multiplier;
      await announce(this.host, this.text("msg.free_total_banner"), 2200, x > 1 ? this.text("msg.free_total_x", { amount: this.host.credits(won), x }) : this.host.credits(won));
    }
    this.counters.clear();
  }

  isFeature(e) {
    return FEATURE_TYPES.has(e.type);
  }

  /** Wins the generic client does not count (it counts line and scatter wins). */
  eventWin(e) {
    if (["bonus_won", "wheel_spun", "super10_spun", "lucky_stars_ended", "frenzy_ended"].includes(e.type)) return Number(e.win) || 0;
    return undefined;
  }

  /** PAYS / HELP: every feature with the symbol that starts it, its rule and its pays at this bet. */
  help() {
    const d = this.desc;
    const l = this.lucky;
    const sym = (pred) => (d.symbols || []).find(pred)?.id;
    const named = (word) => sym((s) => String(s.name).toLowerCase().includes(word));
    const list = (xs) => xs.join(", ");
    const s10 = (d.super10_reel || []).map((o) => this.s10Label(o));
    const stars = (l.star_values || []).filter((v) => !/^(MINOR|MAJOR)$/i.test(String(v))).map((v) => this.xBet(v));
    const frenzy = [...new Set((d.frenzy_wheel || []).map((b) => Number(b.value)))].sort((a, b) => a - b);
    return [
      { title: this.text("help.title"), testid: "feature-help", items: [this.text("help.intro")] },
      { title: this.text("help.bonus_title"), testid: "help-bonus", symbols: [named("bonus")], items: [
        this.text("help.bonus", { amount: this.xBet(d.bonus_pay_x_total_bet ?? 0) }),
        this.text("help.tv", { spins: list((d.tv_spins || []).map(String)), mult: list((d.tv_multipliers || []).map((m) => `×${m}`)) }),
      ] },
      { title: this.text("help.wheel_title"), testid: "help-wheel", symbols: [named("wheel")], items: [this.text("help.wheel", { list: list((d.wheel_x_line_bet || []).map((v) => this.xLine(v))) })] },
      { title: this.text("help.super7_title"), testid: "help-super7", symbols: [named("super 7")], items: [this.text("help.super7")] },
      { title: this.text("help.super10_title"), testid: "help-super10", symbols: [named("super 10")], items: [this.text("help.super10", { list: list([...new Set(s10)]) })] },
      { title: this.text("help.frenzy_title"), testid: "help-frenzy", items: [
        this.text("help.frenzy_rule", { values: list(frenzy.map(String)), limit: d.frenzy_stops_above ?? 100 }),
        this.text("help.frenzy"),
      ] },
      { title: this.text("help.lucky_title"), testid: "help-lucky", symbols: [named("super 12")], items: [
        this.text("help.lucky_rule", { respins: l.respins ?? 3, values: list(stars) }),
        this.text("help.lucky", { minor: this.xBet(l.minor_x), major: this.xBet(l.major_x), grand: this.xBet(l.grand_x) }),
      ] },
    ];
  }

  after(e) {
    // a Super 10 / Super 12 in full view is one tall symbol on the central reel
    if (e.type !== "reels_stopped") return;
    const col = e.window?.[CENTRE] || [];
    const giant = col.length && col.every((s) => s === col[0]) && (this.desc.symbols || []).some((s) => s.id === col[0] && s.giant);
    const reel = this.host.reels.reelEls?.[CENTRE];
    reel?.classList.toggle("giant", !!giant);
    if (reel) reel.dataset.giant = giant ? col[0] : "";
    if (!e.respin) reel?.classList.remove("expanded");
    if (e.stage && e.stage !== "base") {
      this.counters.set("free", this.text("counter.free_spin"), this.text("counter.of", { n: e.spin, total: e.spins }));
      this.counters.set("multiplier", this.text("counter.multiplier"), `×${e.multiplier ?? 1}`);
    }
  }

  async handle(e) {
    const host = this.host;
    // a replay shows a wheel, the TV or the Super 10 reel at its own step only (the Frenzy Wheel
    // through its spins)
    if (host.instant && !/^(wheel_spun|tv_drawn|super10_spun|frenzy_)/.test(e.type)) hidePanel(host);
    switch (e.type) {
      case "reels_stopped":
        if (!e.respin) return false;
        return this.respin(e);
      case "super7_expanded": {
        const reel = host.reels.reelEls?.[CENTRE];
        host.message(this.text("msg.super7"), "feature");
        reel?.classList.add("expanding");
        await wait(host, 500);
        host.reels.setWindow(e.window);
        reel?.classList.remove("expanding");
        reel?.classList.add("expanded");
        await announce(host, this.text("msg.super7_banner"), 1100, this.text("msg.super7_sub"));
        return true;
      }
      case "bonus_won":
        host.reels.showWin(e, host.credits(e.win), { keep: true });
        host.message(this.text(e.multiplier > 1 ? "msg.bonus_pays_x" : "msg.bonus_pays", { n: e.count, amount: host.credits(e.win), x: e.multiplier }), "win");
        await wait(host, 900);
        return true;
      case "wheel_spun":
        await this.spinWheel(e);
        return true;
      case "tv_drawn":
        await this.tv(e);
        return true;
      case "free_spins_awarded":
      case "free_spins_retriggered": {
        this.counters.set("free", this.text("counter.free_spins"), e.total);
        const what = e.feature === "super10_free" ? "super10_free" : "free";
        host.message(e.type === "free_spins_retriggered" ? this.text("msg.retriggered", { n: e.awarded, total: e.total }) : this.text(`msg.awarded_${what}`, { n: e.awarded }), "feature");
        await announce(host, e.type === "free_spins_retriggered" ? this.text("msg.retriggered_banner", { n: e.awarded }) : this.text(`msg.awarded_${what}_banner`, { n: e.awarded }), 1400);
        return true;
      }
      case "super10_spun":
        await this.super10(e);
        return true;
      case "frenzy_offered":
        this.showFrenzy(e);
        host.message(this.text("msg.frenzy_offered"), "feature");
        return true;
      case "frenzy_spun":
        await this.frenzySpin(e);
        return true;
      case "frenzy_ended":
        this.counters.set("frenzy", this.text("counter.frenzy_total"), times(e.total));
        host.message(this.text("msg.frenzy_ended", { total: times(e.total), amount: host.credits(e.win) }), "win");
        // the Frenzy's total screen, over the wheel
        if (host.celebrates?.(e.win) === false) await wait(host, 1400);
        else await announce(host, this.text("msg.frenzy_total_banner"), 1600, this.text("msg.frenzy_total_sub", { total: times(e.total), amount: host.credits(e.win) }));
        if (!host.instant) hidePanel(host);
        return true;
      case "lucky_stars_started":
        await this.luckyStart(e);
        return true;
      case "lucky_stars_respun":
        await this.luckyRespin(e);
        return true;
      case "lucky_stars_ended":
        await this.luckyEnd(e);
        return true;
      default:
        return false;
    }
  }

  /** The Super 7 respin: every reel but the central one (held, Wild) spins again. */
  async respin(e) {
    const reels = this.host.reels;
    if (fast(this.host)) {
      reels.setWindow(e.window);
    } else {
      this.host.message(this.text("msg.respin"), "feature");
      reels.startSpin({ hold: [CENTRE] });
      await wait(this.host, 350);
      await reels.stop(e.window, { hold: [CENTRE] });
    }
    reels.reelEls?.[CENTRE]?.classList.add("expanded");
    return true;
  }

  async spinWheel(e) {
    const host = this.host;
    const values = this.desc.wheel_x_line_bet || [e.value];
    const segs = values.map((v, i) => ({ id: i, label: this.xLine(v), color: WHEEL_COLOURS[i % WHEEL_COLOURS.length] }));
    const wheel = new Wheel(segs, { testid: "wheel", size: 250 });
    showPanel(host, "wheel-feature", this.text("wheel"), wheel.el);
    host.message(this.text("msg.wheel"), "feature");
    const i = Number.isInteger(e.segment) && e.segment < segs.length ? e.segment : values.indexOf(e.value);
    await wheel.spinTo(Math.max(0, i), host);
    wheel.result.textContent = this.text("wheel_result", { amount: this.xLine(e.value), x: e.value });
    host.message(this.text("msg.wheel_stops", { x: e.value, amount: host.credits(e.win) }), "win");
    await wait(host, 1200);
    if (!host.instant) hidePanel(host);
  }

  async tv(e) {
    const host = this.host;
    const spins = new Drum((this.desc.tv_spins || [e.spins]).map(String), { testid: "tv-spins", title: this.text("counter.free_spins") });
    const mult = new Drum((this.desc.tv_multipliers || [e.multiplier]).map((m) => `×${m}`), { testid: "tv-multiplier", title: this.text("counter.multiplier") });
    showPanel(host, "tv", "TV BONUS", h("div.tv-screen", {}, spins.el, mult.el));
    host.message(this.text("msg.tv"), "feature");
    await spins.spinTo(String(e.spins), host, { ms: 1500 });
    await mult.spinTo(`×${e.multiplier}`, host, { ms: 1500 });
    this.counters.set("free", this.text("counter.free_spins"), e.spins);
    this.counters.set("multiplier", this.text("counter.multiplier"), `×${e.multiplier}`);
    host.message(this.text("msg.tv_drawn", { n: e.spins, x: e.multiplier }), "feature");
    await wait(host, 1100);
    if (!host.instant) hidePanel(host);
  }

  /** A colour of the Frenzy Wheel in words ("red"). */
  colour(c) {
    return ["red", "green"].includes(c) ? this.text(`colour.${c}`) : String(c);
  }

  s10Label(o) {
    if (!o) return "";
    if (o.outcome === "direct") return this.xBet(o.value);
    if (o.outcome === "frenzy") return this.text("frenzy_wheel");
    return this.text("s10_free_spins", { n: o.value });
  }

  async super10(e) {
    const host = this.host;
    const reel = this.desc.super10_reel || [{ outcome: e.outcome, value: e.value }];
    const labels = reel.map((o) => this.s10Label(o));
    const drum = new Drum(labels, { testid: "super10-reel" }); // the panel's title names it
    showPanel(host, "super10", this.text("super10"), drum.el);
    host.message(this.text("msg.super10"), "feature");
    const label = this.s10Label(reel[e.index] || { outcome: e.outcome, value: e.value });
    await drum.spinTo(label, host, { ms: 2000 });
    drum.el.dataset.outcome = e.outcome;
    host.message(e.outcome === "direct" ? this.text("msg.s10_direct", { amount: host.credits(e.win) }) : e.outcome === "frenzy" ? this.text("msg.s10_frenzy") : this.text("msg.s10_free", { n: e.value }), e.outcome === "direct" ? "win" : "feature");
    await wait(host, 1300);
    if (!host.instant) hidePanel(host);
  }

  // ---- Frenzy Wheel ------------------------------------------------------------------------

  /** The wheel alternates red and green boxes; the model lists red boxes first. */
  frenzyWheel() {
    const boxes = this.desc.frenzy_wheel || [];
    const red = boxes.map((b, i) => ({ ...b, box: i })).filter((b) => b.colour === "red");
    const green = boxes.map((b, i) => ({ ...b, box: i })).filter((b) => b.colour !== "red");
    const order = [];
    for (let i = 0; i < Math.max(red.length, green.length); i++) {
      if (red[i]) order.push(red[i]);
      if (green[i]) order.push(green[i]);
    }
    this.boxAt = new Map(order.map((b, i) => [b.box, i]));
    return new Wheel(order.map((b) => ({ id: b.box, label: String(b.value), color: COLOUR[b.colour] || "#555" })), { testid: "frenzy-wheel", size: 250 });
  }

  showFrenzy(e) {
    const host = this.host;
    this.frenzy = this.frenzyWheel();
    this.frenzyText = h("p.feature-text", { "data-testid": "frenzy-text" }, this.text("frenzy_text", { limit: this.desc.frenzy_stops_above ?? 100 }));
    this.choiceSlot = h("div.choice-slot");
    showPanel(host, "frenzy", this.text("frenzy_wheel"), this.frenzy.el, this.frenzyText, this.choiceSlot);
    this.counters.set("frenzy", this.text("counter.frenzy_total"), times(0));
  }

  offer(aw) {
    if (aw?.kind !== "frenzy_colour" || !this.host.choose) return false;
    if (!this.frenzy) this.showFrenzy();
    const opts = (aw.options || ["red", "green"]).map((o) => ({ value: o, label: this.colour(o).toUpperCase(), cls: o }));
    this.choiceSlot.replaceChildren(
      choiceButtons(opts, (v) => {
        this.chosen = v;
        this.frenzyText.textContent = this.text("your_colour", { colour: this.colour(v).toUpperCase() });
        this.host.choose(v);
      }),
    );
    this.choiceSlot.querySelector("button")?.focus({ preventScroll: true });
    return true;
  }

  async frenzySpin(e) {
    const host = this.host;
    if (!this.frenzy) this.showFrenzy();
    this.choiceSlot?.replaceChildren();
    const at = this.boxAt?.get(e.box) ?? 0;
    await this.frenzy.spinTo(at, host, { ms: 2200 });
    this.frenzy.result.textContent = `+${e.value}`;
    this.frenzy.el.dataset.colour = e.colour;
    this.counters.set("frenzy", this.text("counter.frenzy_total"), times(e.total));
    const again = this.chosen ? e.colour === this.chosen : undefined;
    host.message(this.text(again ? "msg.frenzy_spun_again" : "msg.frenzy_spun", { colour: this.colour(e.colour).toUpperCase(), value: e.value, total: times(e.total) }), "feature");
    await wait(host, 900);
  }

  // ---- Lucky Stars -------------------------------------------------------------------------

  star(s) {
    const v = String(s.value);
    const special = /^(MINOR|MAJOR)$/i.test(v);
    return { kind: special ? `star ${v.toLowerCase()}` : "star", label: special ? this.text(`tier.${v.toLowerCase()}`).toUpperCase() : this.host.credits(s.win), value: v, sub: special ? this.host.credits(s.win) : "★" };
  }

  async luckyStart(e) {
    const host = this.host;
    this.grid.reset();
    this.grid.open();
    this.host.reels.el.classList.add("lucky-on");
    const l = this.lucky;
    this.counters.set("respins", this.text("counter.respins"), e.counter);
    this.counters.set("stars", this.text("counter.stars"), (e.stars || []).length);
    this.counters.set("minor", this.text("tier.minor").toUpperCase(), this.xBet(l.minor_x));
    this.counters.set("major", this.text("tier.major").toUpperCase(), this.xBet(l.major_x));
    this.counters.set("grand", this.text("tier.grand").toUpperCase(), this.xBet(l.grand_x));
    host.message(this.text("msg.lucky_started", { n: (e.stars || []).length, respins: e.counter }), "feature");
    await announce(host, this.text("lucky_stars"), 1300);
    for (const s of e.stars || []) {
      const [c, r] = s.cell;
      this.grid.set(c, r, this.star(s));
      this.grid.flash([[c, r]], "landed");
      await wait(host, 200);
    }
  }

  async luckyRespin(e) {
    const host = this.host;
    const landings = (e.new_stars || []).map((s) => ({ c: s.cell[0], r: s.cell[1], content: this.star(s) }));
    await this.grid.respin(landings, host, { ms: 700, gap: 250 });
    this.counters.set("respins", this.text("counter.respins"), e.counter);
    this.counters.set("stars", this.text("counter.stars"), e.stars_held);
    host.message(landings.length ? this.text("msg.new_stars", { n: landings.length, respins: e.counter }) : this.text("msg.no_star", { n: e.counter }), landings.length ? "feature" : "");
    await wait(host, 400);
  }

  async luckyEnd(e) {
    const host = this.host;
    const parts = [this.text("msg.part_stars", { amount: host.credits(e.values_win) })];
    if (e.minor) parts.push(this.text("msg.part_tier", { n: e.minor, tier: this.text("tier.minor").toUpperCase(), amount: host.credits(e.minor_win) }));
    if (e.major) parts.push(this.text("msg.part_tier", { n: e.major, tier: this.text("tier.major").toUpperCase(), amount: host.credits(e.major_win) }));
    if (e.grand) parts.push(this.text("msg.part_grand", { tier: this.text("tier.grand").toUpperCase(), amount: host.credits(e.grand_win) }));
    this.counters.set("stars", this.text("counter.stars"), e.stars);
    host.message(this.text("msg.lucky_pays", { amount: host.credits(e.win), parts: parts.join(", ") }), "win");
    if (e.grand) {
      this.grid.flash(this.grid.held(), "merged");
      await announce(host, this.text("msg.grand_banner", { tier: this.text("tier.grand").toUpperCase() }), 2000, host.credits(e.grand_win));
    } else if (host.celebrates?.(e.win) === false) await wait(host, 1200);
    else await announce(host, this.text("msg.lucky_total_banner"), 1600, host.credits(e.win));
  }

  describe(e, fmt) {
    const money = (c) => fmt.money(c);
    switch (e.type) {
      case "reels_stopped":
        if (e.respin) return this.text("log.respin");
        if (e.stage === "free") return this.text(e.multiplier > 1 ? "log.free_spin_x" : "log.free_spin", { n: e.spin, total: e.spins, x: e.multiplier });
        if (e.stage === "super10_free") return this.text("log.s10_free_spin", { n: e.spin, total: e.spins });
        return undefined;
      case "super7_expanded":
        return this.text("log.super7");
      case "bonus_won":
        return this.text("log.bonus", { n: e.count, amount: money(e.win) });
      case "wheel_spun":
        return this.text("log.wheel", { x: e.value, amount: money(e.win) });
      case "tv_drawn":
        return this.text("log.tv", { n: e.spins, x: e.multiplier });
      case "free_spins_awarded":
        return this.text(e.feature === "super10_free" ? "log.awarded_s10" : "log.awarded", { n: e.awarded });
      case "free_spins_retriggered":
        return this.text("log.retriggered", { n: e.awarded, total: e.total });
      case "super10_spun":
        return e.outcome === "direct" ? this.text("log.s10_direct", { amount: money(e.win) }) : e.outcome === "frenzy" ? this.text("log.s10_frenzy") : this.text("log.s10_free", { n: e.value });
      case "frenzy_offered":
        return this.text("log.frenzy_offered");
      case "frenzy_spun":
        return this.text("log.frenzy_spun", { colour: this.colour(e.colour), value: e.value, total: e.total });
      case "frenzy_ended":
        return this.text("log.frenzy_ended", { total: e.total, amount: money(e.win) });
      case "lucky_stars_started":
        return this.text("log.lucky_started", { n: (e.stars || []).length, respins: e.counter });
      case "lucky_stars_respun":
        return this.text("log.lucky_respun", { respin: e.respin, n: (e.new_stars || []).length, held: e.stars_held, counter: e.counter });
      case "lucky_stars_ended":
        return [
          this.text("log.lucky_ended", { n: e.stars, amount: money(e.win) }),
          e.minor ? this.text("log.lucky_tier", { n: e.minor, tier: this.text("tier.minor") }) : "",
          e.major ? this.text("log.lucky_tier", { n: e.major, tier: this.text("tier.major") }) : "",
          e.grand ? this.text("log.lucky_grand", { tier: this.text("tier.grand").toUpperCase() }) : "",
          ".",
        ].join("");
      default:
        return undefined;
    }
  }
}
