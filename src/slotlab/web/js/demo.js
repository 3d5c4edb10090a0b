// Demo mode in the client: "Play demo" on the welcome screen when the server offers it
// (GET /api/demo), a demo session opened with POST /api/demo, and the DEMO badge in the top bar
// (sticky, so it stays on screen at every size) while the session is a demo one.
import { t } from "./i18n.js";
import { h } from "./util.js";

// Its texts are the "demo.*" messages of the catalogues (web/i18n/).
export const dt = (key) => t(key);

/** What the server says about demo play: {enabled, code, message, balance, currency}. */
export async function demoOffer(api) {
  try {
    return await api.call("GET", "/api/demo", undefined, { retries: 0 });
  } catch {
    return { enabled: false };
  }
}

/** The welcome screen's offer: a note and the PLAY DEMO button. */
export function demoPanel(onStart) {
  return h(
    "div.demo-offer",
    { "data-testid": "demo-offer" },
    h("p.note", {}, dt("demo.offer")),
    h("button.demo-start", { type: "button", "data-testid": "demo-start", onclick: onStart }, dt("demo.start")),
  );
}

/** Show (or take away) the demo look: the badge, the balance label, the logout text. */
export function showDemo(on) {
  document.body.classList.toggle("demo", on);
  let badge = document.querySelector("[data-testid=demo-badge]");
  if (on && !badge) {
    badge = h("span.demo-badge", { "data-testid": "demo-badge", role: "img", "aria-label": dt("demo.badge.label"), title: dt("demo.badge.label") }, dt("demo.badge"));
    document.querySelector(".topbar .brand").after(badge);
  }
  if (badge) badge.hidden = !on;
  const label = document.querySelector(".wallet .label");
  if (label) {
    label.dataset.real ??= label.textContent;
    label.textContent = on ? dt("demo.balance") : label.dataset.real;
  }
  const out = document.getElementById("logout");
  if (out) {
    out.dataset.real ??= out.textContent;
    out.textContent = on ? dt("demo.end") : out.dataset.real;
  }
}
