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

  isFeature(e) {
    return FEATURE_TYPES.has(e.type);
  }

  /** Wins the generic client does not count (it counts line and scatter wins). */
  eventWin(e) {
    if (["bonus_won", "wheel_spun", "super10_spun", "lucky_stars_ended", "frenzy_ended"].includes(e.type)) return Number(e.win) || 0;
    return undefined;
  }

  help() {
    const l = this.lucky;
    const wheel = this.desc.wheel_x_line_bet || [];
    return [
      {
        title: "Features at your bet",
        testid: "feature-help",
        items: [
          `Lucky Stars prizes: MINOR ${this.xBet(l.minor_x)}, MAJOR ${this.xBet(l.major_x)}, GRAND ${this.xBet(l.grand_x)} (fixed prizes, not progressive).`,
          wheel.length ? `Wheel segments: ${wheel.map((v) => this.xLine(v)).join(", ")}.` : null,
          "The Frenzy Wheel waits for your colour: choose RED or GREEN. Auto spin stops there.",
        ].filter(Boolean),
      },
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
      this.counters.set("free", "FREE SPIN", `${e.spin} of ${e.spins}`);
      this.counters.set("multiplier", "MULTIPLIER", `×${e.multiplier ?? 1}`);
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
        host.message("SUPER 7! The central reel turns Wild, and the other reels spin once more.", "feature");
        reel?.classList.add("expanding");
        await wait(host, 500);
        host.reels.setWindow(e.window);
        reel?.classList.remove("expanding");
        reel?.classList.add("expanded");
        await announce(host, "SUPER 7", 1100, "WILD REEL + RESPIN");
        return true;
      }
      case "bonus_won":
        host.reels.showWin(e, host.credits(e.win), { keep: true });
        host.message(`${e.count} Bonus symbols pay ${host.credits(e.win)}${e.multiplier > 1 ? ` (×${e.multiplier})` : ""}.`, "win");
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
        this.counters.set("free", "FREE SPINS", e.total);
        const what = e.feature === "super10_free" ? "SUPER 10 FREE SPINS" : "FREE SPINS";
        host.message(e.type === "free_spins_retriggered" ? `Three Bonus symbols: ${e.awarded} more free spins (${e.total} in total).` : `${e.awarded} ${what}!`, "feature");
        await announce(host, e.type === "free_spins_retriggered" ? `+${e.awarded} FREE SPINS` : `${e.awarded} ${what}`, 1400);
        return true;
      }
      case "super10_spun":
        await this.super10(e);
        return true;
      case "frenzy_offered":
        this.showFrenzy(e);
        host.message("FRENZY WHEEL: choose a colour, Red or Green.", "feature");
        return true;
      case "frenzy_spun":
        await this.frenzySpin(e);
        return true;
      case "frenzy_ended":
        this.counters.set("frenzy", "FRENZY TOTAL", times(e.total));
        host.message(`The Frenzy Wheel ends at ${times(e.total)}: ${host.credits(e.win)}.`, "win");
        await wait(host, 1400);
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
      this.host.message("Respin with the central reel held Wild.", "feature");
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
    showPanel(host, "wheel-feature", "WHEEL", wheel.el);
    host.message("Three Wheel symbols: the Wheel spins!", "feature");
    const i = Number.isInteger(e.segment) && e.segment < segs.length ? e.segment : values.indexOf(e.value);
    await wheel.spinTo(Math.max(0, i), host);
    wheel.result.textContent = `${this.xLine(e.value)} (${e.value} × line bet)`;
    host.message(`The Wheel stops on ${e.value} × the line bet: ${host.credits(e.win)}.`, "win");
    await wait(host, 1200);
    if (!host.instant) hidePanel(host);
  }

  async tv(e) {
    const host = this.host;
    const spins = new Drum((this.desc.tv_spins || [e.spins]).map(String), { testid: "tv-spins", title: "FREE SPINS" });
    const mult = new Drum((this.desc.tv_multipliers || [e.multiplier]).map((m) => `×${m}`), { testid: "tv-multiplier", title: "MULTIPLIER" });
    showPanel(host, "tv", "TV BONUS", h("div.tv-screen", {}, spins.el, mult.el));
    host.message("Three Bonus symbols: the TV draws your free spins and their multiplier.", "feature");
    await spins.spinTo(String(e.spins), host, { ms: 1500 });
    await mult.spinTo(`×${e.multiplier}`, host, { ms: 1500 });
    this.counters.set("free", "FREE SPINS", e.spins);
    this.counters.set("multiplier", "MULTIPLIER", `×${e.multiplier}`);
    host.message(`${e.spins} free spins, every win ×${e.multiplier}.`, "feature");
    await wait(host, 1100);
    if (!host.instant) hidePanel(host);
  }

  s10Label(o) {
    if (!o) return "";
    if (o.outcome === "direct") return this.xBet(o.value);
    if (o.outcome === "frenzy") return "FRENZY WHEEL";
    return `${o.value} FREE SPINS`;
  }

  async super10(e) {
    const host = this.host;
    const reel = this.desc.super10_reel || [{ outcome: e.outcome, value: e.value }];
    const labels = reel.map((o) => this.s10Label(o));
    const drum = new Drum(labels, { testid: "super10-reel", title: "SUPER 10 STARS" });
    showPanel(host, "super10", "SUPER 10 STARS", drum.el);
    host.message("SUPER 10! The central reel spins for a prize.", "feature");
    const label = this.s10Label(reel[e.index] || { outcome: e.outcome, value: e.value });
    await drum.spinTo(label, host, { ms: 2000 });
    drum.el.dataset.outcome = e.outcome;
    host.message(e.outcome === "direct" ? `Super 10 Stars: a direct win of ${host.credits(e.win)}.` : e.outcome === "frenzy" ? "Super 10 Stars: the FRENZY WHEEL!" : `Super 10 Stars: ${e.value} free spins.`, e.outcome === "direct" ? "win" : "feature");
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
    this.frenzyText = h("p.feature-text", { "data-testid": "frenzy-text" }, `Choose a colour. The wheel adds each box to the total; your colour spins again, the other colour or a total above ${this.desc.frenzy_stops_above ?? 100} ends it.`);
    this.choiceSlot = h("div.choice-slot");
    showPanel(host, "frenzy", "FRENZY WHEEL", this.frenzy.el, this.frenzyText, this.choiceSlot);
    this.counters.set("frenzy", "FRENZY TOTAL", times(0));
  }

  offer(aw) {
    if (aw?.kind !== "frenzy_colour" || !this.host.choose) return false;
    if (!this.frenzy) this.showFrenzy();
    const opts = (aw.options || ["red", "green"]).map((o) => ({ value: o, label: o.toUpperCase(), cls: o }));
    this.choiceSlot.replaceChildren(
      choiceButtons(opts, (v) => {
        this.chosen = v;
        this.frenzyText.textContent = `Your colour: ${v.toUpperCase()}.`;
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
    this.counters.set("frenzy", "FRENZY TOTAL", times(e.total));
    const again = this.chosen ? e.colour === this.chosen : undefined;
    host.message(`${e.colour.toUpperCase()} ${e.value}: the total is ${times(e.total)}${again ? ". Your colour: it spins again!" : "."}`, "feature");
    await wait(host, 900);
  }

  // ---- Lucky Stars -------------------------------------------------------------------------

  star(s) {
    const v = String(s.value);
    const special = /^(MINOR|MAJOR)$/i.test(v);
    return { kind: special ? `star ${v.toLowerCase()}` : "star", label: special ? v.toUpperCase() : this.host.credits(s.win), value: v, sub: special ? this.host.credits(s.win) : "★" };
  }

  async luckyStart(e) {
    const host = this.host;
    this.grid.reset();
    this.grid.open();
    this.host.reels.el.classList.add("lucky-on");
    const l = this.lucky;
    this.counters.set("respins", "RESPINS", e.counter);
    this.counters.set("stars", "STARS", (e.stars || []).length);
    this.counters.set("minor", "MINOR", this.xBet(l.minor_x));
    this.counters.set("major", "MAJOR", this.xBet(l.major_x));
    this.counters.set("grand", "GRAND", this.xBet(l.grand_x));
    host.message(`LUCKY STARS! The Super 12 becomes ${(e.stars || []).length} held stars; ${e.counter} respins.`, "feature");
    await announce(host, "LUCKY STARS", 1300);
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
    this.counters.set("respins", "RESPINS", e.counter);
    this.counters.set("stars", "STARS", e.stars_held);
    host.message(landings.length ? `${landings.length} new star${landings.length > 1 ? "s" : ""}: held, and the respins are back to ${e.counter}.` : `No new star: ${e.counter} respin${e.counter === 1 ? "" : "s"} left.`, landings.length ? "feature" : "");
    await wait(host, 400);
  }

  async luckyEnd(e) {
    const host = this.host;
    const parts = [`stars ${host.credits(e.values_win)}`];
    if (e.minor) parts.push(`${e.minor} × MINOR ${host.credits(e.minor_win)}`);
    if (e.major) parts.push(`${e.major} × MAJOR ${host.credits(e.major_win)}`);
    if (e.grand) parts.push(`GRAND ${host.credits(e.grand_win)}`);
    this.counters.set("stars", "STARS", e.stars);
    host.message(`Lucky Stars pays ${host.credits(e.win)}: ${parts.join(", ")}.`, "win");
    if (e.grand) {
      this.grid.flash(this.grid.held(), "merged");
      await announce(host, "GRAND!", 2000, host.credits(e.grand_win));
    } else await wait(host, 1200);
  }

  describe(e, fmt) {
    const money = (c) => fmt.money(c);
    switch (e.type) {
      case "reels_stopped":
        if (e.respin) return "Respin: the central reel is held Wild.";
        if (e.stage === "free") return `Free spin ${e.spin} of ${e.spins}${e.multiplier > 1 ? `, wins ×${e.multiplier}` : ""}.`;
        if (e.stage === "super10_free") return `Super 10 free spin ${e.spin} of ${e.spins}.`;
        return undefined;
      case "super7_expanded":
        return "Super 7: the central reel turns Wild; one respin.";
      case "bonus_won":
        return `${e.count} Bonus symbols pay ${money(e.win)}.`;
      case "wheel_spun":
        return `The Wheel stops on ${e.value} × line bet: ${money(e.win)}.`;
      case "tv_drawn":
        return `TV mini game: ${e.spins} free spins, multiplier ×${e.multiplier}.`;
      case "free_spins_awarded":
        return `${e.awarded} ${e.feature === "super10_free" ? "Super 10 " : ""}free spins awarded.`;
      case "free_spins_retriggered":
        return `${e.awarded} more free spins (${e.total} in total).`;
      case "super10_spun":
        return `Super 10 reel: ${e.outcome === "direct" ? `direct win ${money(e.win)}` : e.outcome === "frenzy" ? "the Frenzy Wheel" : `${e.value} free spins`}.`;
      case "frenzy_offered":
        return "Frenzy Wheel: the player chooses Red or Green.";
      case "frenzy_spun":
        return `Frenzy Wheel: ${e.colour} ${e.value}, total ${e.total}.`;
      case "frenzy_ended":
        return `Frenzy Wheel ends at ${e.total}: ${money(e.win)}.`;
      case "lucky_stars_started":
        return `Lucky Stars: ${(e.stars || []).length} stars held, ${e.counter} respins.`;
      case "lucky_stars_respun":
        return `Lucky Stars respin ${e.respin}: ${(e.new_stars || []).length} new star(s), ${e.stars_held} held, counter ${e.counter}.`;
      case "lucky_stars_ended":
        return `Lucky Stars ends with ${e.stars} stars: ${money(e.win)}${e.minor ? `, ${e.minor} Minor` : ""}${e.major ? `, ${e.major} Major` : ""}${e.grand ? ", GRAND" : ""}.`;
      default:
        return undefined;
    }
  }
}
