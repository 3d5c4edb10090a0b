// The reel window: spins at once, lands reel by reel on the server's window with a little
// overshoot, nudges, highlights wins and draws paylines. The DOM is test-readable: every visible
// cell is [data-testid="cell-<reel>-<row>"][data-symbol="<symbol id>"]. A quick stop lands every
// reel at once: waits end, landings in flight jump to their end and later ones are not animated.
import { t } from "./i18n.js";
import { symbolText } from "./names.js";
import { caption, glyph, symbolName } from "./symbols.js";
import { h } from "./util.js";

const FILL = 14; // filler cells passing by while a reel spins

export class Reels {
  /** game: the server's describe() ({reels, rows, symbols, lines}). */
  constructor(game, { testid = "reels" } = {}) {
    this.game = game;
    this.nReels = game.reels;
    this.nRows = game.rows;
    this.symbols = new Map((game.symbols || []).map((s) => [String(s.id), s]));
    this.fillers = (game.symbols || []).map((s) => String(s.id));
    this.window = null;
    this.spinning = new Set();
    this.quick = false;
    this.waiters = new Set(); // wait()s a quick stop ends
    this.landing = new Set(); // landing and nudge animations a quick stop finishes
    this.el = h("div.reels", {
      "data-testid": testid,
      style: { "--reels": this.nReels, "--rows": this.nRows },
      role: "img",
      "aria-label": t("reels.label"),
    });
    this.reelEls = [];
    this.strips = [];
    for (let r = 0; r < this.nReels; r++) {
      const strip = h("div.strip");
      const reel = h("div.reel", { "data-testid": `reel-${r}` }, strip);
      this.reelEls.push(reel);
      this.strips.push(strip);
      this.el.append(reel);
    }
    this.overlay = document.createElementNS("http://www.w3.org/2000/svg", "svg");
    this.overlay.setAttribute("class", "lines-overlay");
    this.overlay.setAttribute("viewBox", `0 0 ${this.nReels * 100} ${this.nRows * 100}`);
    this.overlay.setAttribute("preserveAspectRatio", "none");
    this.tags = h("div.win-tags");
    this.el.append(this.overlay, this.tags);
    this.setWindow(this.randomWindow());
  }

  sym(id) {
    return this.symbols.get(String(id)) || { id, name: String(id) };
  }

  randomWindow() {
    const pool = this.fillers.filter((s) => s !== "-" && !this.sym(s).scatter);
    const p = pool.length ? pool : this.fillers;
    return Array.from({ length: this.nReels }, () =>
      Array.from({ length: this.nRows }, () => p[Math.floor(Math.random() * p.length)]),
    );
  }

  cell(id, reel, row) {
    const s = this.sym(id);
    // the symbol speaks for itself; its name is for screen readers and the tooltip
    const attrs = { html: glyph(s, symbolName(s, s && symbolText(this.game, s))) };
    if (row === null) return h("div.cell.filler", { ...attrs, "aria-hidden": "true" });
    return h("div.cell", {
      ...attrs,
      "data-testid": `cell-${reel}-${row}`,
      "data-symbol": String(id),
      "data-reel": reel,
      "data-row": row,
      title: this.caption(s),
      "aria-label": this.caption(s),
    });
  }

  /** A symbol's name for screen readers and the tooltip, in the player's language. */
  caption(s) {
    return caption(s, s && symbolText(this.game, s)) || t("reels.blank");
  }

  /** Say what the window shows, for screen readers. */
  describe(window) {
    const cols = window.map((col, r) => t("reels.reel", { n: r + 1, symbols: col.map((id) => this.caption(this.sym(id))).join(", ") }));
    this.el.setAttribute("aria-label", t("reels.window", { reels: cols.join("; ") }));
  }

  /** Show a window at rest, with no animation. */
  setWindow(window) {
    this.window = window.map((c) => c.slice());
    for (let r = 0; r < this.nReels; r++) {
      this.stopLoop(r);
      const strip = this.strips[r];
      strip.replaceChildren(...window[r].map((id, row) => this.cell(id, r, row)));
      setStripSize(strip, this.nRows, this.nRows);
      strip.style.transform = "translateY(0)";
    }
    this.el.dataset.state = "idle";
    this.describe(window);
  }

  stopLoop(r) {
    const a = this.strips[r]._loop;
    if (a) a.cancel();
    this.strips[r]._loop = null;
    this.reelEls[r].classList.remove("spinning", "anticipate");
  }

  randomIds(n) {
    const p = this.fillers.filter((s) => s !== "-");
    return Array.from({ length: n }, () => p[Math.floor(Math.random() * p.length)]);
  }

  /** Start every reel spinning at once (before the server has answered); held reels stay. */
  startSpin({ hold = [] } = {}) {
    this.clearWins();
    this.quick = false;
    this.el.dataset.state = "spinning";
    for (let r = 0; r < this.nReels; r++) {
      if (hold.includes(r)) continue;
      const strip = this.strips[r];
      this.stopLoop(r);
      const ids = this.randomIds(FILL);
      const cells = [...ids, ...ids.slice(0, this.nRows)].map((id) => this.cell(id, r, null));
      const n = cells.length;
      strip.replaceChildren(...cells);
      setStripSize(strip, n, this.nRows);
      const from = -((n - this.nRows) / n) * 100;
      strip._loop = strip.animate(
        [{ transform: `translateY(${from}%)` }, { transform: "translateY(0%)" }],
        { duration: FILL * 55, iterations: Infinity, easing: "linear", delay: r * 40 },
      );
      this.reelEls[r].classList.add("spinning");
      this.spinning.add(r);
    }
  }

  /** Land one reel on its column, with overshoot. */
  async landReel(r, column, { duration = 420 } = {}) {
    const strip = this.strips[r];
    this.stopLoop(r);
    if (this.quick) {
      this.place(r, column);
      return;
    }
    const extra = this.randomIds(this.quick ? 3 : 6);
    const cells = [...column.map((id, row) => this.cell(id, r, row)), ...extra.map((id) => this.cell(id, r, null))];
    const n = cells.length;
    strip.replaceChildren(...cells);
    setStripSize(strip, n, this.nRows);
    const from = -((n - this.nRows) / n) * 100;
    const over = (0.18 / n) * 100;
    const anim = strip.animate(
      [
        { transform: `translateY(${from}%)`, easing: "cubic-bezier(.3,.6,.5,1)" },
        { transform: `translateY(${over}%)`, offset: 0.8, easing: "ease-in-out" },
        { transform: "translateY(0%)" },
      ],
      { duration, fill: "forwards" },
    );
    await this.animated(anim);
    for (const c of [...strip.children].slice(this.nRows)) c.remove();
    setStripSize(strip, this.nRows, this.nRows);
    strip.style.transform = "translateY(0)";
    this.spinning.delete(r);
  }

  /** Show a reel's column at rest at once. */
  place(r, column) {
    const strip = this.strips[r];
    strip.replaceChildren(...column.map((id, row) => this.cell(id, r, row)));
    setStripSize(strip, this.nRows, this.nRows);
    strip.style.transform = "translateY(0)";
    this.reelEls[r].classList.remove("nudging");
    this.spinning.delete(r);
  }

  /** Await an animation that a quick stop may finish early. */
  async animated(anim) {
    this.landing.add(anim);
    await anim.finished.catch(() => {});
    this.landing.delete(anim);
    anim.cancel();
  }

  /**
   * Stop the reels reel by reel on the window. anticipateFrom: index of the first reel to slow
   * down for (e.g. when two scatters are already showing).
   */
  async stop(window, { gap = 170, onReel, anticipate, hold = [] } = {}) {
    const tasks = [];
    let delay = 0;
    let scatters = 0;
    for (let r = 0; r < this.nReels; r++) {
      if (hold.includes(r) && !this.spinning.has(r)) continue; // a held reel (a respin) stays
      if (!this.spinning.has(r)) this.startSpinOne(r);
      const antic = anticipate && scatters >= 2 && !this.quick;
      if (antic) {
        this.reelEls[r].classList.add("anticipate");
        delay += 700;
      }
      const when = delay;
      tasks.push(
        (async () => {
          await this.wait(when);
          await this.landReel(r, window[r]);
          onReel?.(r);
        })(),
      );
      delay += gap;
      scatters += window[r].filter((id) => this.sym(id).scatter).length;
    }
    await Promise.all(tasks);
    this.window = window.map((c) => c.slice());
    this.el.dataset.state = "idle";
    this.describe(window);
  }

  startSpinOne(r) {
    const strip = this.strips[r];
    const ids = this.randomIds(FILL);
    const cells = [...ids, ...ids.slice(0, this.nRows)].map((id) => this.cell(id, r, null));
    const n = cells.length;
    strip.replaceChildren(...cells);
    setStripSize(strip, n, this.nRows);
    const from = -((n - this.nRows) / n) * 100;
    strip._loop = strip.animate([{ transform: `translateY(${from}%)` }, { transform: "translateY(0%)" }], {
      duration: FILL * 55,
      iterations: Infinity,
    });
    this.reelEls[r].classList.add("spinning");
    this.spinning.add(r);
  }

  /** Wait, but cut short the moment the player asks for a quick stop. */
  wait(ms) {
    if (this.quick || !(ms > 0)) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.waiters.add(done);
    });
  }

  /** Land everything now: pending waits end, animations in flight jump to their end. */
  quickStop() {
    this.quick = true;
    for (const done of [...this.waiters]) done();
    for (const anim of [...this.landing]) anim.finish();
  }

  /** A nudge: each reel whose column moved by one position slides by one cell. */
  async nudge(window) {
    const old = this.window || window;
    const tasks = [];
    for (let r = 0; r < this.nReels; r++) {
      const a = old[r];
      const b = window[r];
      if (same(a, b)) continue;
      if (this.quick) {
        this.place(r, b);
        continue;
      }
      const strip = this.strips[r];
      const n = this.nRows + 1;
      let cells;
      let from;
      let to;
      if (same(b.slice(0, -1), a.slice(1))) {
        // content moves up: the new bottom symbol enters from below
        cells = [this.cell(a[0], r, null), ...b.map((id, row) => this.cell(id, r, row))];
        from = 0;
        to = -(1 / n) * 100;
      } else if (same(b.slice(1), a.slice(0, -1))) {
        // content moves down: the new top symbol enters from above
        cells = [...b.map((id, row) => this.cell(id, r, row)), this.cell(a[a.length - 1], r, null)];
        from = -(1 / n) * 100;
        to = 0;
      } else {
        tasks.push(this.landReel(r, b, { duration: 300 }));
        continue;
      }
      strip.replaceChildren(...cells);
      setStripSize(strip, n, this.nRows);
      this.reelEls[r].classList.add("nudging");
      const anim = strip.animate(
        [
          { transform: `translateY(${from}%)` },
          { transform: `translateY(${to + (to < from ? -1.5 : 1.5)}%)`, offset: 0.8 },
          { transform: `translateY(${to}%)` },
        ],
        { duration: 480, easing: "ease-out", fill: "forwards" },
      );
      tasks.push(this.animated(anim).then(() => this.place(r, b)));
    }
    await Promise.all(tasks);
    this.window = window.map((c) => c.slice());
    this.describe(window);
  }

  // ---- wins ------------------------------------------------------------------------------

  clearWins() {
    this.overlay.replaceChildren();
    this.tags.replaceChildren();
    this.el.classList.remove("has-wins");
    for (const c of this.el.querySelectorAll(".cell.win")) c.classList.remove("win");
  }

  cellAt(reel, row) {
    return this.el.querySelector(`[data-testid="cell-${reel}-${row}"]`);
  }

  /** Draw a payline (1-based number) as a polyline through the cell centres. */
  drawLine(lineNo, { cls = "", color } = {}) {
    const line = this.game.lines?.[lineNo - 1];
    if (!line) return null;
    const pts = line.map((row, reel) => `${reel * 100 + 50},${row * 100 + 50}`).join(" ");
    const pl = document.createElementNS("http://www.w3.org/2000/svg", "polyline");
    pl.setAttribute("points", `${-0},${line[0] * 100 + 50} ${pts} ${this.nReels * 100},${line[line.length - 1] * 100 + 50}`);
    pl.setAttribute("class", `winline ${cls}`);
    pl.setAttribute("vector-effect", "non-scaling-stroke");
    pl.style.stroke = color || lineColor(lineNo);
    pl.dataset.line = lineNo;
    this.overlay.append(pl);
    return pl;
  }

  /** Highlight the cells and line of one win; label its amount at the last winning cell. */
  showWin(win, label, { keep = false } = {}) {
    if (!keep) this.clearWins();
    this.el.classList.add("has-wins");
    if (win.line) this.drawLine(win.line, { cls: "winning" });
    const pos = win.positions || [];
    for (const [reel, row] of pos) this.cellAt(reel, row)?.classList.add("win");
    if (label && pos.length) {
      const [reel, row] = pos[pos.length - 1];
      const tag = h("div.win-tag", {
        "data-testid": "win-tag",
        style: {
          left: `${((reel + 0.5) / this.nReels) * 100}%`,
          top: `${((row + 0.5) / this.nRows) * 100}%`,
          borderColor: win.line ? lineColor(win.line) : "#ffd54a",
        },
      }, label);
      // a multiplied win says by how much (the multiplier symbols' product, or the free spins')
      if (win.multiplier > 1) {
        tag.dataset.multiplier = win.multiplier;
        tag.prepend(h("span.win-x", {}, `×${win.multiplier}`));
      }
      // on a symbol with a multiplier badge (drawn across the cell's lower quarter) the tag
      // sits at the cell's middle, so the badge stays in view
      if (this.cellAt(reel, row)?.querySelector(".mult-badge")) tag.classList.add("over-badge");
      this.tags.append(tag);
    }
  }
}

function setStripSize(strip, n, rows) {
  strip.style.height = `${(n / rows) * 100}%`;
  strip.style.setProperty("--n", n);
}

function same(a, b) {
  return a.length === b.length && a.every((x, i) => String(x) === String(b[i]));
}

const COLORS = ["#ffd54a", "#4fc3f7", "#ff8a65", "#aed581", "#f06292", "#ba68c8", "#4db6ac", "#fff176", "#90caf9", "#ffb74d"];
export function lineColor(n) {
  return COLORS[(n - 1) % COLORS.length];
}
