// The player's language: message catalogues (i18n/<lang>.json for the client, i18n/games/<lang>.json
// for the games' texts) with ICU-style messages: "{name}", "{n, number}", "{n, plural, one {# spin}
// other {# spins}}", "{x, select, red {…} other {…}}".
//
// The lookup and the formatter are written here (about 70 lines) rather than taken from a
// library: the client has no build step and fetches nothing from the internet, and FormatJS's
// intl-messageformat would have to be vendored as a bundle with its parser. Plural categories and
// numbers come from the browser's own Intl (Intl.PluralRules, Intl.NumberFormat). Apostrophes are
// plain text (no ICU quoting), so a message cannot contain a literal "{".
//
// The language: the player's choice in the MENU (kept for the browser session), else the
// operator's launch parameter (?lang=es), else the browser's (navigator.languages), else English.

const STORE_KEY = "slotlab.lang";
const TAG = /^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/;

let lang = "en";
let messages = {}; // the client catalogue of `lang`
let englishMessages = {}; // English: the fallback, and the templates that server texts are read with
let gameMessages = {};
let gameEnglish = {};
let offered = { en: "English" }; // i18n/languages.json: the languages the MENU offers

async function fetchJson(path) {
  const res = await fetch(path, { cache: "no-cache" });
  if (!res.ok) throw new Error(`${path}: HTTP ${res.status}`);
  return res.json();
}

/**
 * The languages to try, best first. Only catalogues that exist are asked for (a missing one would
 * be a 404 on every load): a language the MENU offers, or the operator's launch parameter (a
 * catalogue deployed beside the shipped ones). A regional tag ("es-CO", "en-US") falls back to
 * its language; English ends the search (it is loaded already).
 */
function wanted() {
  const out = [];
  try {
    const chosen = sessionStorage.getItem(STORE_KEY);
    if (chosen) out.push(chosen);
  } catch {
    /* storage blocked: no remembered choice */
  }
  const param = new URLSearchParams(location.search).get("lang")?.toLowerCase();
  if (param) out.push(param);
  out.push(...(navigator.languages || [navigator.language]));
  const tags = [...new Set(out.flatMap((l) => [l, String(l).split("-")[0]]).map((l) => String(l).toLowerCase()))].filter((l) => TAG.test(l));
  return tags.filter((l) => l === "en" || l in offered || l === param);
}

/** Load the catalogues of the best available language (English always, as the fallback). */
export async function initI18n() {
  [englishMessages, gameEnglish] = await Promise.all([fetchJson("i18n/en.json"), fetchJson("i18n/games/en.json")]);
  offered = await fetchJson("i18n/languages.json").catch(() => offered);
  lang = "en";
  messages = englishMessages;
  gameMessages = gameEnglish;
  for (const l of wanted()) {
    if (l === "en") break;
    try {
      [messages, gameMessages] = await Promise.all([fetchJson(`i18n/${l}.json`), fetchJson(`i18n/games/${l}.json`)]);
      lang = l;
      break;
    } catch {
      /* no catalogue for this one: try the next */
    }
  }
  document.documentElement.lang = lang;
  translateStatic(document);
}

export const language = () => lang;
export const languages = () => offered;

/** The player's choice from the MENU: kept for the browser session, applied by a reload. */
export function chooseLanguage(l) {
  try {
    sessionStorage.setItem(STORE_KEY, l);
  } catch {
    /* storage blocked: the launch parameter still says it */
  }
  // an operator's ?lang= gives way to the player's choice (kept in the address for a reload)
  const url = new URL(location.href);
  if (url.searchParams.has("lang") && url.searchParams.get("lang") !== l) {
    url.searchParams.set("lang", l);
    location.replace(url.toString());
  } else location.reload();
}

/** The client's text for `key`, with its placeholders filled from `args`. */
export function t(key, args = {}) {
  const msg = messages[key] ?? englishMessages[key];
  if (msg === undefined) {
    console.warn(`i18n: no message ${key}`);
    return key;
  }
  return format(msg, args);
}

/** The text for `key` where the catalogue has one (a server's status, say), else undefined. */
export function tMaybe(key, args = {}) {
  const msg = messages[key] ?? englishMessages[key];
  return msg === undefined ? undefined : format(msg, args);
}

/** A game's text (i18n/games/<lang>.json), keyed "<game or kind>.<key>"; undefined if none. */
export function gameText(key, args = {}) {
  const msg = gameMessages[key] ?? gameEnglish[key];
  return msg === undefined ? undefined : format(msg, args);
}

/** The games' English templates whose keys start with one of `prefixes`: [key, template]. */
export function gameTemplates(prefixes) {
  return Object.entries(gameEnglish).filter(([k]) => prefixes.some((p) => k.startsWith(p)));
}

/** The English message of a game's `key` (a model's own name, for one: js/names.js). */
export const englishGameText = (key) => gameEnglish[key];

/** The English message of `key` (the template a server's English text is read with). */
export const english = (key) => englishMessages[key];

/**
 * Read an English text made from `template` ("{lines} fixed paylines on {reels} reels."): its
 * placeholders' values ({lines: "20", reels: "5"}), or null when the text is not made from it.
 * Templates read this way hold plain placeholders only (tests/i18n checks it); a value holds no
 * sentence end (". "), so a text of two sentences is read by two templates, never by one.
 */
export function readEnglish(template, text) {
  if (template === undefined) return null;
  const names = [];
  const pattern = template.replace(/\{(\w+)\}|[.*+?^$()|[\]\\]/g, (m, name) => {
    if (!name) return `\\${m}`;
    names.push(name);
    return "((?:(?!\\. ).)+?)"; // a value never runs over the end of a sentence
  });
  const m = new RegExp(`^${pattern}$`, "s").exec(text);
  return m ? Object.fromEntries(names.map((n, i) => [n, m[i + 1]])) : null;
}

/** Elements of the page shell carry data-i18n="key" (their text), data-i18n-aria-label="key". */
export function translateStatic(root) {
  for (const el of root.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const el of root.querySelectorAll("[data-i18n-aria-label]")) el.setAttribute("aria-label", t(el.dataset.i18nAriaLabel));
}

/** The locale for Intl (numbers, amounts, dates): the language, with the browser's region where
 * it speaks the same language ("es" and navigator "es-CO": "es-CO"). */
export function locale() {
  const regional = (navigator.languages || []).find((l) => l.toLowerCase().startsWith(`${lang}-`));
  const best = regional || lang;
  return Intl.NumberFormat.supportedLocalesOf([best]).length ? best : "en";
}

/** A number in the player's language (grouping, decimal sign). */
export function num(n, opts) {
  return new Intl.NumberFormat(locale(), opts).format(n);
}

/** The largest win of a game's recorded simulation with its odds: "890.1× (1 in 2,000,000,000)". */
export function simulatedMaxWin(sim, key) {
  return t(key, { x: num(Number(sim.max_win_x), { minimumFractionDigits: 1, maximumFractionDigits: 1 }), n: num(Number(sim.one_in)) });
}

/** A duration in words, in the largest unit that divides it ("24 hours", "2 days", "90 seconds"),
 * as the server's HELP texts say it (server/services/help.py duration_text). */
export function duration(seconds) {
  const s = Math.round(Number(seconds));
  for (const [unit, size] of [["days", 86400], ["hours", 3600], ["minutes", 60]]) {
    if (s >= size && s % size === 0 && !(unit === "days" && s / size < 2)) return t(`duration.${unit}`, { n: s / size });
  }
  return t("duration.seconds", { n: s });
}

/** A return to player (0.965 or 96.5) as a percentage with two decimals ("96.50%", "96,50 %"). */
export function percent(x) {
  if (x === undefined || x === null || x === "") return "—";
  const v = Number(x);
  return num(v <= 1.5 ? v : v / 100, { style: "percent", minimumFractionDigits: 2, maximumFractionDigits: 2 });
}

// ---- the formatter -------------------------------------------------------------------------

function closing(s, open) {
  let depth = 0;
  for (let i = open; i < s.length; i++) {
    if (s[i] === "{") depth++;
    else if (s[i] === "}" && --depth === 0) return i;
  }
  throw new Error(`i18n: unbalanced braces in ${s}`);
}

export function format(msg, args, pound) {
  let out = "";
  for (let i = 0; i < msg.length; i++) {
    if (msg[i] === "{") {
      const end = closing(msg, i);
      out += argument(msg.slice(i + 1, end), args);
      i = end;
    } else if (msg[i] === "#" && pound !== undefined) out += pound;
    else out += msg[i];
  }
  return out;
}

function argument(body, args) {
  const m = /^\s*(\w+)\s*(?:,\s*(\w+)\s*(?:,([\s\S]*))?)?$/.exec(body);
  if (!m) throw new Error(`i18n: bad placeholder {${body}}`);
  const [, name, type, rest] = m;
  const v = args[name];
  if (!type) return v === undefined ? `{${name}}` : String(v);
  if (type === "number") return num(Number(v));
  const options = {};
  for (let s = rest.trim(); s; ) {
    const k = /^(=?[\w-]+)\s*\{/.exec(s);
    if (!k) throw new Error(`i18n: bad options in {${body}}`);
    const open = k[0].length - 1;
    const end = closing(s, open);
    options[k[1]] = s.slice(open + 1, end);
    s = s.slice(end + 1).trim();
  }
  if (type === "plural") {
    const n = Number(v);
    const branch = options[`=${n}`] ?? options[new Intl.PluralRules(locale()).select(n)] ?? options.other;
    return format(branch, args, num(n));
  }
  return format(options[String(v)] ?? options.other, args);
}
