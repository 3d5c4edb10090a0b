// A single reel of labels that spins and lands on one of them: the TV mini game's two draws
// (free spins, multiplier) and Super 10's prize reel. Three labels are visible; the result sits
// in the middle, framed.
import { h } from "../util.js";
import { fast, raceSkip } from "./common.js";

export class Drum {
  /** labels: what the reel carries; testid names it for tests; title is shown above. */
  constructor(labels, { testid = "drum", title = "" } = {}) {
    this.labels = labels.map(String);
    this.testid = testid;
    this.strip = h("div.drum-strip");
    this.window = h("div.drum-window", {}, this.strip);
    this.el = h("div.drum", { "data-testid": testid }, title ? h("div.drum-title", {}, title) : null, this.window);
    this.show(this.labels[0] ?? "");
    this.el.dataset.state = "ready"; // "stopped" only once it has landed on a draw
  }

  item(label, i) {
    return h("div.drum-item", { "data-i": i }, label);
  }

  neighbours(label) {
    const i = Math.max(0, this.labels.indexOf(label));
    const n = this.labels.length || 1;
    return [this.labels[(i - 1 + n) % n] ?? "", label, this.labels[(i + 1) % n] ?? ""];
  }

  /** Rest on label, no movement. */
  show(label) {
    this.strip.getAnimations().forEach((a) => a.cancel());
    const [a, b, c] = this.neighbours(String(label));
    this.strip.replaceChildren(this.item(a, 0), this.item(b, 1), this.item(c, 2));
    this.strip.children[1].classList.add("hit");
    this.strip.style.transform = "translateY(0)";
    this.el.dataset.label = String(label);
    this.el.dataset.state = "stopped";
  }

  /** Spin through the labels and land on label. */
  async spinTo(label, host, { ms = 1800 } = {}) {
    label = String(label);
    this.el.dataset.state = "spinning";
    if (!fast(host)) {
      const n = this.labels.length || 1;
      const start = Math.floor(Math.random() * n);
      const passing = Array.from({ length: 14 + n }, (_, k) => this.labels[(start + k) % n]);
      // the strip moves down: the landing three (label in the middle) are at its top
      const cells = [...this.neighbours(label), ...passing];
      this.strip.replaceChildren(...cells.map((t, i) => this.item(t, i)));
      const rows = this.strip.children.length;
      const from = -((rows - 3) / rows) * 100;
      const anim = this.strip.animate(
        [{ transform: `translateY(${from}%)` }, { transform: `translateY(${(0.4 / rows) * 100}%)`, offset: 0.9 }, { transform: "translateY(0%)" }],
        { duration: ms, easing: "cubic-bezier(.25,.6,.3,1)", fill: "forwards" },
      );
      await raceSkip(host, anim.finished);
      anim.cancel();
    }
    this.show(label);
  }
}
