// A prize wheel drawn in SVG: segments round a hub, a pointer at the top, and spinTo(i) that
// turns it a few times and lands segment i under the pointer (or at once, in a replay or after a
// quick stop). Used by Super 12 Stars' Wheel and Frenzy Wheel and by Superstars' Wheel Game.
import { t } from "../i18n.js";
import { h } from "../util.js";
import { fast, raceSkip } from "./common.js";

const NS = "http://www.w3.org/2000/svg";
const LABEL_AT = 54; // a label's centre, from the hub (r 16) to the pointer's tip (r 88)
const PALETTE = ["#7e57c2", "#ef6c00", "#1e88e5", "#c2185b", "#43a047", "#f9a825", "#00838f", "#6d4c41"];

export class Wheel {
  /** segments: [{label, color?, id?}]; testid names the wheel for tests. */
  constructor(segments, { testid = "wheel", size = 260 } = {}) {
    this.segments = segments.map((s, i) => ({ color: PALETTE[i % PALETTE.length], ...s }));
    this.angle = 0;
    this.el = h("div.wheel", { "data-testid": testid, style: { "--size": `${size}px` } });
    this.svg = document.createElementNS(NS, "svg");
    this.svg.setAttribute("viewBox", "-110 -110 220 220");
    this.svg.setAttribute("class", "wheel-svg");
    this.svg.setAttribute("role", "img");
    this.rotor = document.createElementNS(NS, "g");
    this.rotor.setAttribute("class", "wheel-rotor");
    this.svg.append(this.rotor);
    this.draw();
    const pointer = document.createElementNS(NS, "polygon");
    pointer.setAttribute("points", "-9,-108 9,-108 0,-88");
    pointer.setAttribute("class", "wheel-pointer");
    const hub = document.createElementNS(NS, "circle");
    hub.setAttribute("r", "16");
    hub.setAttribute("class", "wheel-hub");
    this.svg.append(hub, pointer);
    this.result = h("div.wheel-result", { "data-testid": `${testid}-result`, "aria-live": "polite" });
    this.el.append(this.svg, this.result);
    this.svg.setAttribute("aria-label", t("wheel.label", { n: this.segments.length }));
  }

  draw() {
    const n = this.segments.length;
    const step = (2 * Math.PI) / n;
    this.rotor.replaceChildren();
    this.segments.forEach((s, i) => {
      const a0 = -Math.PI / 2 + i * step - step / 2;
      const a1 = a0 + step;
      const p = (a, r) => `${(r * Math.cos(a)).toFixed(2)},${(r * Math.sin(a)).toFixed(2)}`;
      const path = document.createElementNS(NS, "path");
      path.setAttribute("d", `M0,0 L${p(a0, 100)} A100,100 0 0 1 ${p(a1, 100)} Z`);
      path.setAttribute("fill", s.color);
      path.setAttribute("class", "wheel-seg");
      path.dataset.index = i;
      const mid = a0 + step / 2;
      const text = document.createElementNS(NS, "text");
      const deg = (mid * 180) / Math.PI;
      text.setAttribute("transform", `rotate(${deg.toFixed(2)}) translate(${LABEL_AT},0)`);
      text.setAttribute("class", "wheel-label");
      text.setAttribute("text-anchor", "middle");
      text.setAttribute("dominant-baseline", "central");
      // a long label is set smaller, so that it fits whole between the hub and the pointer's tip
      const len = String(s.label ?? "").length || 1;
      text.setAttribute("font-size", String(Math.max(7, Math.min(15, 120 / n + 4, 100 / len)).toFixed(1)));
      text.textContent = s.label;
      this.rotor.append(path, text);
    });
  }

  /** The index of the segment whose id (or label) is key; -1 when none. */
  find(key) {
    const k = String(key);
    return this.segments.findIndex((s) => String(s.id ?? s.label) === k || String(s.label) === k);
  }

  /** Turn to segment i; resolves when it rests there. */
  async spinTo(i, host, { turns = 4, ms = 2600 } = {}) {
    const n = this.segments.length;
    const target = -(i * 360) / n; // segment i's centre under the pointer at the top
    const base = Math.ceil(this.angle / 360) * 360;
    const to = base + turns * 360 + (((target % 360) + 360) % 360);
    this.el.dataset.state = "spinning";
    this.result.textContent = "";
    if (!fast(host)) {
      const anim = this.rotor.animate(
        [{ transform: `rotate(${this.angle}deg)` }, { transform: `rotate(${to}deg)` }],
        { duration: ms, easing: "cubic-bezier(.15,.7,.2,1)", fill: "forwards" },
      );
      await raceSkip(host, anim.finished);
      anim.cancel();
    }
    this.angle = to % 360;
    this.rotor.style.transform = `rotate(${this.angle}deg)`;
    this.land(i);
  }

  /** Show segment i as the result (no movement). */
  land(i) {
    const s = this.segments[i];
    this.rotor.style.transform = `rotate(${(-(i * 360) / this.segments.length + 360) % 360}deg)`;
    this.angle = (-(i * 360) / this.segments.length + 360) % 360;
    for (const p of this.rotor.querySelectorAll(".wheel-seg")) p.classList.toggle("hit", Number(p.dataset.index) === i);
    this.el.dataset.state = "stopped";
    this.el.dataset.segment = String(i);
    this.el.dataset.label = s ? String(s.label) : "";
    this.result.textContent = s ? s.label : "";
  }
}
