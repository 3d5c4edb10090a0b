// Counters (free spins, multiplier, spins, dice, hearts, respins), the buttons of a round that
// waits for a player choice (Red / Green), and pacing buttons ("Throw Dice", "Spin") that only
// set the pace of a show whose outcome is already known: auto spin and a quick stop skip them.
import { h, sleep } from "../util.js";

/** A row of named counters: [data-testid="counter-<name>"] with data-value. */
export class Counters {
  constructor({ testid = "feature-counters" } = {}) {
    this.el = h("div.feature-counters", { "data-testid": testid, hidden: true });
    this.items = new Map();
  }

  /** Show counter name with value (created on first use, in call order). */
  set(name, label, value, { suffix = "" } = {}) {
    let item = this.items.get(name);
    if (!item) {
      const val = h("b.fc-value");
      item = { el: h("span.fc", { "data-testid": `counter-${name}` }, h("span.fc-label", {}, label), val), val };
      this.items.set(name, item);
      this.el.append(item.el);
    }
    const text = `${value}${suffix}`;
    if (item.el.dataset.value !== String(value)) {
      item.el.classList.remove("bump");
      void item.el.offsetWidth;
      item.el.classList.add("bump");
    }
    item.el.dataset.value = String(value);
    item.val.textContent = text;
    item.el.hidden = false;
    this.el.hidden = false;
  }

  get(name) {
    const v = this.items.get(name)?.el.dataset.value;
    return v === undefined ? undefined : Number(v);
  }

  hide(name) {
    const item = this.items.get(name);
    if (item) item.el.hidden = true;
    this.el.hidden = [...this.items.values()].every((i) => i.el.hidden);
  }

  clear() {
    this.items.clear();
    this.el.replaceChildren();
    this.el.hidden = true;
  }
}

/**
 * Buttons for a choice the round waits for: options [{value, label, cls}] -> buttons
 * [data-testid="choice-<value>"] that call onChoose(value) once.
 */
export function choiceButtons(options, onChoose) {
  const row = h("div.choice-row", { "data-testid": "choice" });
  for (const o of options) {
    row.append(
      h(`button.choice-btn.${o.cls || o.value}`, {
        "data-testid": `choice-${o.value}`,
        onclick: () => {
          for (const b of row.querySelectorAll("button")) b.disabled = true;
          onChoose(o.value);
        },
      }, o.label),
    );
  }
  return row;
}

/**
 * A pacing button: resolves when the player presses it, at once under auto spin, in a replay or
 * after a quick stop. The outcome is already decided; the button only says when to show it.
 */
export async function pace(host, container, { label, testid }) {
  if (host.instant || host.skip() || host.auto()) return "skipped";
  let pressed = false;
  const btn = h("button.pace-btn", { "data-testid": testid, onclick: () => (pressed = true) }, label);
  container.append(btn);
  host.setPacing?.(testid);
  btn.focus({ preventScroll: true });
  while (!pressed && !host.skip() && !host.auto() && !host.gone?.()) await sleep(40);
  btn.remove();
  host.setPacing?.(null);
  return pressed ? "pressed" : "skipped";
}
