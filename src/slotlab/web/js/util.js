// Small helpers shared by every module: DOM building, timing, money formatting, ids.

/** Build an element: h("button.primary", {onclick, "data-testid": "spin"}, "SPIN"). */
export function h(tag, attrs = {}, ...children) {
  const [name, ...classes] = tag.split(".");
  const el = document.createElement(name || "div");
  if (classes.length) el.className = classes.join(" ");
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on") && typeof v === "function") el.addEventListener(k.slice(2), v);
    else if (k === "html") el.innerHTML = v;
    else if (k === "style" && typeof v === "object") {
      for (const [sk, sv] of Object.entries(v)) {
        if (sk.startsWith("--")) el.style.setProperty(sk, String(sv));
        else el.style[sk] = sv;
      }
    }
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children) {
    if (c === undefined || c === null || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A random id for Idempotency-Key headers (crypto.randomUUID needs a secure context). */
export function newId() {
  if (globalThis.crypto?.randomUUID) return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  return [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
}

/**
 * Money is integer minor units (cents); decimals says how many digits the fraction has.
 * Formatting never goes through floating point arithmetic on the amount itself.
 */
export function formatMoney(minor, currency = "", decimals = 2) {
  const n = Math.round(Number(minor) || 0);
  const neg = n < 0;
  const abs = Math.abs(n);
  const unit = 10 ** decimals;
  const whole = Math.floor(abs / unit);
  const frac = String(abs % unit).padStart(decimals, "0");
  const grouped = whole.toString().replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  const num = decimals > 0 ? `${grouped}.${frac}` : grouped;
  const sym = currencySymbol(currency);
  const body = sym.prefix ? `${sym.text}${num}` : `${num}${sym.text ? " " + sym.text : ""}`;
  return neg ? `-${body}` : body;
}

const symbolCache = new Map();
function currencySymbol(code) {
  if (!code) return { text: "", prefix: false };
  if (symbolCache.has(code)) return symbolCache.get(code);
  let out = { text: code, prefix: false };
  try {
    const parts = new Intl.NumberFormat("en-US", { style: "currency", currency: code })
      .formatToParts(1);
    const cur = parts.find((p) => p.type === "currency");
    const idx = parts.findIndex((p) => p.type === "currency");
    if (cur && cur.value.length <= 3 && cur.value !== code) out = { text: cur.value, prefix: idx === 0 };
  } catch {
    /* not an ISO currency (play money): show the code after the number */
  }
  symbolCache.set(code, out);
  return out;
}

export function pct(x) {
  if (x === undefined || x === null || x === "") return "—";
  const v = Number(x);
  return `${(v <= 1.5 ? v * 100 : v).toFixed(2)}%`;
}

export function fmtTime(t) {
  if (t === undefined || t === null) return "";
  const d = typeof t === "number" ? new Date(t < 1e12 ? t * 1000 : t) : new Date(t);
  if (Number.isNaN(d.getTime())) return String(t);
  return d.toLocaleString();
}

/** First defined value among keys of obj (APIs evolve; read fields tolerantly). */
export function pick(obj, ...keys) {
  if (!obj) return undefined;
  for (const k of keys) if (obj[k] !== undefined && obj[k] !== null) return obj[k];
  return undefined;
}

export function store(key, value) {
  try {
    if (value === undefined) return JSON.parse(localStorage.getItem(`slotlab.${key}`));
    if (value === null) localStorage.removeItem(`slotlab.${key}`);
    else localStorage.setItem(`slotlab.${key}`, JSON.stringify(value));
  } catch {
    return undefined;
  }
  return value;
}
