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
 * Every amount the client shows goes through here: integer minor units (a number, a BigInt or a
 * string of digits) in the player's currency and locale, by Intl.NumberFormat, and never through
 * a float division. The integer is split with BigInt arithmetic into whole units and minor
 * digits (minor / 10^decimals and minor % 10^decimals, exact at any size); Intl formats the whole
 * units (a BigInt) as a currency amount with `decimals` fraction digits, and the fraction it lays
 * out (zeros) is replaced by the exact minor digits in the locale's own digits. So 35000000000
 * COP minor units with 2 decimals is "COP 350,000,000.00" in en and "$ 350.000.000,00" in es-CO,
 * and 1234567 JPY (0 decimals) is "¥1,234,567".
 */
export function formatMoney(minor, currency = "", decimals = 2, locale = moneyLocale()) {
  const n = toMinor(minor);
  const d = Math.max(0, Math.min(8, Math.trunc(Number(decimals)) || 0));
  const neg = n < 0n;
  const abs = neg ? -n : n;
  const unit = 10n ** BigInt(d);
  const whole = abs / unit;
  const frac = (abs % unit).toString().padStart(d, "0");
  const { nf, digits, suffix } = moneyFormat(locale, currency, d);
  // A negative amount under one unit still shows its sign: format -1 and zero its digits.
  const parts = nf.formatToParts(neg ? (whole === 0n ? -1n : -whole) : whole);
  let out = "";
  for (const p of parts) {
    if (p.type === "fraction") out += [...frac].map((c) => digits[Number(c)]).join("");
    else if (p.type === "integer" && neg && whole === 0n) out += digits[0];
    else out += p.value;
  }
  return suffix ? `${out} ${suffix}` : out;
}

/** What a money input shows when empty: zero with the currency's decimals ("0.00", JPY "0"),
 * in the form parseMoney reads. */
export function moneyPlaceholder(decimals = 2) {
  const d = Math.max(0, Math.trunc(Number(decimals)) || 0);
  return d ? `0.${"0".repeat(d)}` : "0";
}

/** Integer minor units as a BigInt (0 for what is not an integer amount). */
function toMinor(x) {
  if (typeof x === "bigint") return x;
  if (typeof x === "string" && /^-?\d+$/.test(x.trim())) return BigInt(x.trim());
  const v = Number(x);
  return Number.isFinite(v) ? BigInt(Math.trunc(v)) : 0n;
}

/** The locale amounts are shown in: the page's language (set by the i18n module), with the
 * browser's region where it speaks that language ("es" and "es-CO": "es-CO"). */
export function moneyLocale() {
  const nav = globalThis.navigator;
  const lang = globalThis.document?.documentElement?.lang || nav?.language || "en";
  const regional = (nav?.languages || []).find((l) => l.toLowerCase().startsWith(`${lang.toLowerCase()}-`));
  const best = regional || lang;
  try {
    return Intl.NumberFormat.supportedLocalesOf([best]).length ? best : "en";
  } catch {
    return "en";
  }
}

const formats = new Map();
function moneyFormat(locale, currency, d) {
  const key = `${locale}|${currency}|${d}`;
  if (formats.has(key)) return formats.get(key);
  const digitsOpts = { minimumFractionDigits: d, maximumFractionDigits: d };
  let nf;
  let suffix = "";
  try {
    nf = currency
      ? new Intl.NumberFormat(locale, { style: "currency", currency, ...digitsOpts })
      : new Intl.NumberFormat(locale, digitsOpts);
  } catch {
    // Not an ISO 4217 code Intl knows (play money): the number, then the code.
    nf = new Intl.NumberFormat(locale, digitsOpts);
    suffix = currency;
  }
  const plain = new Intl.NumberFormat(locale, { useGrouping: false });
  const digits = Array.from({ length: 10 }, (_, i) => plain.format(i));
  const out = { nf, digits, suffix };
  formats.set(key, out);
  return out;
}

export function pct(x) {
  if (x === undefined || x === null || x === "") return "—";
  const v = Number(x);
  return `${(v <= 1.5 ? v * 100 : v).toFixed(2)}%`;
}

/** A date and time in the player's language (the page's, as amounts are), never in the
 * browser's own: es "03/12/2026, 8:19:11" (day first), en "12/03/2026, 8:19:11 AM". */
export function fmtTime(t, locale = moneyLocale()) {
  if (t === undefined || t === null) return "";
  const d = typeof t === "number" ? new Date(t < 1e12 ? t * 1000 : t) : new Date(t);
  if (Number.isNaN(d.getTime())) return String(t);
  return d.toLocaleString(locale, { year: "numeric", month: "2-digit", day: "2-digit", hour: "numeric", minute: "2-digit", second: "2-digit" });
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
