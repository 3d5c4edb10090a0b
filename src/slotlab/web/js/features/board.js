// A board of 24 squares round the reel window (the ring of a 7x7 grid), a token that moves
// square by square, and the square's label and value. Square 0 is the bottom-left corner; the
// token goes up the left side, along the top, down the right side and back along the bottom.
// The reel window sits in the middle. Squares are [data-testid="board-square-<i>"] and the token
// is [data-testid="board-token"] with data-square.
import { t } from "../i18n.js";
import { h } from "../util.js";
import { fast, wait } from "./common.js";

export const SQUARES = 24;

/** Grid column and row (1-based, 7x7) of square i. */
export function squareCell(i) {
  const k = ((i % SQUARES) + SQUARES) % SQUARES;
  if (k <= 6) return [1, 7 - k]; // left side, bottom to top
  if (k <= 12) return [k - 5, 1]; // top, left to right
  if (k <= 18) return [7, k - 11]; // right side, top to bottom
  return [25 - k, 7]; // bottom, right to left
}

export class Board {
  /** squares: [{label, kind, value?, sub?, art?}] x 24; art: SVG markup drawn above the label
   * (decoration only: the label says what the square is). */
  constructor(squares, { testid = "board" } = {}) {
    this.testid = testid;
    this.position = 0;
    this.el = h("div.board.off", { "data-testid": testid });
    this.centre = h("div.board-centre");
    this.squareEls = [];
    for (let i = 0; i < SQUARES; i++) {
      const [col, row] = squareCell(i);
      const el = h("div.sq", { "data-testid": `${testid}-square-${i}`, "data-square": i, style: { gridColumn: col, gridRow: row } });
      this.squareEls.push(el);
      this.el.append(el);
    }
    this.token = h("div.board-token", { "data-testid": `${testid}-token`, "aria-label": t("board.token") });
    this.el.append(this.centre, this.token);
    this.setSquares(squares);
    this.place(0);
  }

  /** Show the ring round the reels (the Bonus Game) or hide it (the main game). */
  show(on) {
    this.el.classList.toggle("off", !on);
  }

  setSquares(squares, { final = false } = {}) {
    this.el.classList.toggle("final", final);
    this.el.dataset.board = final ? "final" : "bonus";
    squares.forEach((s, i) => this.setSquare(i, s));
  }

  setSquare(i, { label = "", kind = "blank", value, sub = "", art = "" } = {}) {
    const el = this.squareEls[i];
    if (!el) return;
    el.className = `sq ${kind}`;
    el.dataset.kind = kind;
    el.dataset.label = String(label);
    if (value !== undefined && value !== null) el.dataset.value = String(value);
    else delete el.dataset.value;
    const drawing = art ? h("span.sq-art", { "aria-hidden": "true" }) : null;
    if (drawing) drawing.innerHTML = art;
    el.classList.toggle("drawn", Boolean(drawing));
    // a long word ("STARBURST") is set tighter rather than broken in two on a small square
    const long = String(label).split(/\s+/).some((w) => w.length > 7);
    el.replaceChildren(...[drawing, h("span.sq-label" + (long ? ".long" : ""), {}, label), sub ? h("span.sq-sub", { "data-testid": `${this.testid}-value-${i}` }, sub) : null].filter(Boolean));
    el.title = sub ? `${label} ${sub}` : String(label);
  }

  /** Put the token on square i at once. */
  place(i) {
    this.position = ((i % SQUARES) + SQUARES) % SQUARES;
    const [col, row] = squareCell(this.position);
    this.token.style.gridColumn = col;
    this.token.style.gridRow = row;
    this.token.dataset.square = String(this.position);
    for (const el of this.squareEls) el.classList.toggle("here", Number(el.dataset.square) === this.position);
  }

  /** Move the token square by square to `to` (steps forward from where it is). */
  async move(to, host, { steps, ms = 190 } = {}) {
    const n = steps ?? (((to - this.position) % SQUARES) + SQUARES) % SQUARES;
    for (let k = 0; k < n; k++) {
      this.place(this.position + 1);
      if (!fast(host)) await wait(host, ms);
    }
    this.place(to);
  }

  highlight(i, cls = "hit") {
    const el = this.squareEls[((i % SQUARES) + SQUARES) % SQUARES];
    if (!el) return;
    el.classList.remove(cls);
    void el.offsetWidth;
    el.classList.add(cls);
  }
}
