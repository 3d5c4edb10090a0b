// What every feature module shares: the host it draws into, waits that a quick stop cuts short,
// the layer over the reels where wheels and panels appear, and reading event fields tolerantly.
//
// A host is what a feature needs from the screen it draws on. The game screen and the RECALL
// replay each make one (see hostForGame / hostForReplay):
//   reels        the Reels of that screen (reels.el is the reel window)
//   stage        the element round the reels (position: relative), where layers go
//   status       where counters go (the row above the reels; the replay's own bar)
//   instant      true in RECALL: every step is drawn at once, no animation, no waiting
//   skip()       true once the player asked for a quick stop ("Stall") in this round
//   auto()       true while auto spin runs (it never waits for a pacing click)
//   credits(c)   credits -> money text;  bet()  the round's total bet in credits
//   message(t, cls)   the message bar;  choose(option)  sends a player choice (game only)
//   panelRoot()  where a feature's screen goes (game only; default: the stage)
//   celebrates(credits)  false where the profile celebrates no win at or below the stake (game only)
import { num } from "../i18n.js";
import { h, sleep } from "../util.js";

/** Wait ms, cut short by a quick stop; nothing at all in an instant replay. */
export async function wait(host, ms) {
  if (host.instant) return;
  const t0 = performance.now();
  while (performance.now() - t0 < ms && !host.skip() && !host.gone?.()) await sleep(20);
}

/** Wait for a promise (an animation's end), cut short by a quick stop. */
export async function raceSkip(host, promise) {
  let done = false;
  promise.then(() => (done = true), () => (done = true));
  while (!done && !host.skip() && !host.gone?.()) await sleep(30);
}

/** True when this host draws without animation (replay, or after a quick stop). */
export function fast(host) {
  return host.instant || host.skip();
}

/** The feature layer over the stage (created once per stage). */
export function layer(host) {
  return layerIn(host.stage);
}

function layerIn(root) {
  let el = root.querySelector(":scope > .feature-layer");
  if (!el) {
    el = h("div.feature-layer", { "data-testid": "feature-layer", hidden: true });
    root.append(el);
  }
  return el;
}

/** Where a feature's screen goes: over the reels, or (a phone's game, host.panelRoot) over the
 * whole screen above the controls, where a wheel is big enough to read. */
function panelLayer(host) {
  return layerIn(host.panelRoot?.() ?? host.stage);
}

/** Show one panel in the feature layer (replacing what was there); returns the panel. */
export function showPanel(host, testid, title, ...children) {
  const el = panelLayer(host);
  const panel = h("section.feature-panel", { "data-testid": testid, "aria-label": title }, title ? h("h2.feature-title", {}, title) : null, ...children);
  el.replaceChildren(panel);
  el.hidden = false;
  el.dataset.panel = testid;
  return panel;
}

export function hidePanel(host) {
  for (const el of new Set([panelLayer(host), layer(host)])) {
    el.hidden = true;
    el.replaceChildren();
    delete el.dataset.panel;
  }
}

/** A short announcement ("LUCKY STARS!"), over the panel on show or over the reels; gone after ms. */
export async function announce(host, text, ms = 1400, sub = "") {
  if (host.instant) return;
  const shown = panelLayer(host);
  const el = !shown.hidden && shown.dataset.panel ? shown : layer(host);
  const keep = [...el.children];
  const wasHidden = el.hidden;
  const note = h("div.feature-announce", { "data-testid": "feature-announce" }, h("div.fa-title", {}, text), sub ? h("div.fa-sub", {}, sub) : null);
  el.append(note);
  el.hidden = false;
  await wait(host, ms);
  note.remove();
  if (wasHidden && keep.every((c) => !c.isConnected || c === note)) el.hidden = !el.children.length;
}

/** First defined field among names (event formats are read tolerantly). */
export function field(e, ...names) {
  for (const n of names) if (e && e[n] !== undefined && e[n] !== null) return e[n];
  return undefined;
}

/** A cell position from an event: [reel, row], {reel, row} or a flat index (reel-major). */
export function cellOf(p, rows) {
  if (Array.isArray(p)) return [Number(p[0]), Number(p[1])];
  if (p && typeof p === "object") return [Number(field(p, "reel", "col", "column", "x")), Number(field(p, "row", "y"))];
  const i = Number(p);
  return [Math.floor(i / rows), i % rows];
}

/** "3×", "0.5×" for a multiple of the bet. */
export function times(x) {
  return `${num(Number(x), { maximumFractionDigits: 2 })}×`;
}
