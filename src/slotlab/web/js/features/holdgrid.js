// A hold-and-win grid laid over the reel window: one cell per reel position, each empty or
// holding something (a star with its value, a prize, a die, MINOR / MAJOR). Free cells spin on
// their own and land one by one; held cells stay put. Lucky Stars (5x3) and the Superstars Bonus
// Game (5x5) both use it. Cells are [data-testid="<testid>-cell-<reel>-<row>"] with data-kind and
// data-value.
import { t, tMaybe } from "../i18n.js";
import { h } from "../util.js";
import { fast, wait } from "./common.js";

export class HoldGrid {
  constructor(cols, rows, { testid = "hold" } = {}) {
    this.cols = cols;
    this.rows = rows;
    this.testid = testid;
    this.cells = [];
    this.el = h("div.hold-grid", { "data-testid": `${testid}-grid`, hidden: true, style: { "--cols": cols, "--rows": rows } });
    for (let c = 0; c < cols; c++) {
      this.cells.push([]);
      for (let r = 0; r < rows; r++) {
        const el = h("div.hold-cell", { "data-testid": `${testid}-cell-${c}-${r}`, "data-kind": "empty", style: { gridColumn: c + 1, gridRow: r + 1 } });
        this.cells[c].push(el);
        this.el.append(el);
      }
    }
  }

  open() {
    this.el.hidden = false;
  }

  close() {
    this.el.hidden = true;
  }

  get isOpen() {
    return !this.el.hidden;
  }

  cell(c, r) {
    return this.cells[c]?.[r];
  }

  /** Empty every cell. */
  reset() {
    for (const col of this.cells) for (const el of col) this.clear(el);
  }

  clear(cOrEl, r) {
    const el = typeof cOrEl === "number" ? this.cell(cOrEl, r) : cOrEl;
    if (!el) return;
    el.dataset.kind = "empty";
    delete el.dataset.value;
    delete el.dataset.label;
    el.className = "hold-cell";
    el.replaceChildren();
    el.removeAttribute("aria-label");
  }

  /** Put content in a cell: {kind: "star"|"prize"|"dice"|"minor"|"major"|..., label, value, sub};
   * `art`: a drawing (SVG markup) behind the label, as a coin's face behind its value. */
  set(c, r, { kind = "prize", label = "", value, sub = "", art = "" } = {}) {
    const el = this.cell(c, r);
    if (!el) return;
    el.className = `hold-cell held ${kind}`;
    el.dataset.kind = kind;
    if (value !== undefined) el.dataset.value = String(value);
    else delete el.dataset.value;
    el.dataset.label = String(label);
    el.replaceChildren(...[art ? h("span.hc-art", { html: art, "aria-hidden": "true" }) : null, h(String(label).length > 5 ? "span.hc-label.long" : "span.hc-label", {}, label),
      sub ? h("span.hc-sub", {}, sub) : null].filter(Boolean));
    el.setAttribute("aria-label", t("hold.cell", { kind: tMaybe(`hold.kind.${kind}`) ?? kind, label }));
  }

  kind(c, r) {
    return this.cell(c, r)?.dataset.kind || "empty";
  }

  value(c, r) {
    const v = this.cell(c, r)?.dataset.value;
    return v === undefined ? undefined : Number(v);
  }

  /** Every held cell as [c, r]. */
  held() {
    const out = [];
    for (let c = 0; c < this.cols; c++) for (let r = 0; r < this.rows; r++) if (this.kind(c, r) !== "empty") out.push([c, r]);
    return out;
  }

  /** A short highlight on cells (merge, multiplier, +1 ...). */
  flash(list, cls = "flash") {
    for (const [c, r] of list) {
      const el = this.cell(c, r);
      if (!el) continue;
      el.classList.remove(cls);
      void el.offsetWidth; // restart the animation
      el.classList.add(cls);
    }
  }

  /**
   * One respin: every free cell spins, then the landings arrive one at a time (in reel order),
   * and the cells that get nothing stop empty. landings: [{c, r, content}] (content as in set()).
   */
  async respin(landings, host, { free, ms = 700, gap = 260 } = {}) {
    const spinning = (free ?? this.freeCells()).map(([c, r]) => this.cell(c, r));
    if (!fast(host)) {
      for (const el of spinning) el.classList.add("spinning");
      await wait(host, ms);
    }
    const order = [...landings].sort((a, b) => a.c - b.c || a.r - b.r);
    for (const l of order) {
      this.set(l.c, l.r, l.content);
      this.cell(l.c, l.r)?.classList.add("landed");
      if (!fast(host)) await wait(host, gap);
    }
    for (const el of spinning) el.classList.remove("spinning");
  }

  freeCells() {
    const out = [];
    for (let c = 0; c < this.cols; c++) for (let r = 0; r < this.rows; r++) if (this.kind(c, r) === "empty") out.push([c, r]);
    return out;
  }
}
