// Symbol glyphs drawn as SVG (no image downloads). A glyph is chosen from the symbol's id and
// name (seven, bar, cherry, star, dragon, coin, ...); anything unknown gets a medallion with its
// name (art/creatures.js), so every game described by the server can be drawn. The larger
// drawings live in art/.
import { characterOf } from "./art/characters.js";
import { coin, creatureOf, MEDALLION, medallion } from "./art/creatures.js";
import { ART_DEFS, seven } from "./art/common.js";
import { royal, royalOf } from "./art/royals.js";
import { tMaybe } from "./i18n.js";
import { symbolText } from "./names.js";
import { bonus, diamondGem, dice, fierySeven, giant, superFiveStar, superSeven, tallFrame, wheel, wild } from "./art/specials.js";

const DEFS = `
<svg id="glyph-defs" width="0" height="0" aria-hidden="true">
 <defs>
  <linearGradient id="g-red" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#ff6b6b"/><stop offset="1" stop-color="#c0101e"/></linearGradient>
  <linearGradient id="g-gold" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#fff3a3"/><stop offset=".5" stop-color="#ffc21a"/><stop offset="1" stop-color="#c27a00"/></linearGradient>
  <linearGradient id="g-blue" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#e8fbff"/><stop offset=".45" stop-color="#6fd3ff"/><stop offset="1" stop-color="#1f5fd6"/></linearGradient>
  <linearGradient id="g-purple" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#c58cff"/><stop offset="1" stop-color="#5b1a9e"/></linearGradient>
  <linearGradient id="g-yellow" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#fffb9a"/><stop offset="1" stop-color="#e8c000"/></linearGradient>
  <linearGradient id="g-orange" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#ffc36b"/><stop offset="1" stop-color="#ef6c00"/></linearGradient>
  <linearGradient id="g-green" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#8dff8a"/><stop offset="1" stop-color="#1a8f2e"/></linearGradient>
  <linearGradient id="g-bar" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#3a3f58"/><stop offset="1" stop-color="#0d0f1a"/></linearGradient>
  <radialGradient id="g-shine" cx=".35" cy=".3" r=".7"><stop offset="0" stop-color="#fff" stop-opacity=".8"/><stop offset=".4" stop-color="#fff" stop-opacity="0"/></radialGradient>
  ${ART_DEFS}
 </defs>
</svg>`;

export function installDefs() {
  if (!document.getElementById("glyph-defs")) document.body.insertAdjacentHTML("afterbegin", DEFS);
}

const svg = (inner, label, tall) =>
  `<svg viewBox="0 0 100 ${tall ? 300 : 100}" class="glyph${tall ? " glyph-giant" : ""}" role="img" aria-label="${escapeAttr(label)}" focusable="false">${inner}</svg>`;

const escapeAttr = (t) => String(t).replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

function sevens(n, fill = "url(#g-red)") {
  if (n === 1) return seven(22, 10, 1, fill);
  if (n === 2) return seven(4, 18, 0.8, fill) + seven(51, 18, 0.8, fill);
  return seven(3, 26, 0.56, fill) + seven(35, 26, 0.56, fill) + seven(67, 26, 0.56, fill);
}

function bars(n) {
  const h = n === 1 ? 30 : n === 2 ? 22 : 17;
  const gap = 5;
  const total = n * h + (n - 1) * gap;
  let out = "";
  for (let i = 0; i < n; i++) {
    const y = 50 - total / 2 + i * (h + gap);
    out += `<rect x="10" y="${y}" width="80" height="${h}" rx="5" fill="url(#g-bar)" stroke="#ffd54a" stroke-width="2.5"/>`;
    out += `<path d="M14 ${y + 3} L 86 ${y + 3} L 86 ${y + h * 0.4} Q 50 ${y + h * 0.25} 14 ${y + h * 0.4} Z" fill="#fff" opacity=".18"/>`;
    out += `<text x="50" y="${y + h * 0.76}" font-size="${h * 0.78}" font-weight="900" font-family="Arial Black, Arial, sans-serif" text-anchor="middle" fill="#fff">BAR</text>`;
  }
  return out;
}

function star(fill = "url(#g-gold)", stroke = "#7a4a00", r1 = 44, r2 = 19) {
  const pts = [];
  for (let i = 0; i < 10; i++) {
    const r = i % 2 ? r2 : r1;
    const a = -Math.PI / 2 + (i * Math.PI) / 5;
    pts.push(`${(50 + r * Math.cos(a)).toFixed(1)},${(52 + r * Math.sin(a)).toFixed(1)}`);
  }
  return `<polygon points="${pts.join(" ")}" fill="${fill}" stroke="${stroke}" stroke-width="3" stroke-linejoin="round"/>`;
}

function crystalStar(dir) {
  let s = star("url(#g-blue)", "#0b2e7a", 46, 20);
  s += `<polygon points="50,14 58,45 50,52 42,45" fill="#fff" opacity=".55"/>`;
  if (dir) {
    const up = dir === "up";
    const y = up ? 30 : 74;
    s += `<polygon points="${up ? `50,${y - 16} 64,${y + 2} 36,${y + 2}` : `50,${y + 16} 64,${y - 2} 36,${y - 2}`}" fill="#ffe14d" stroke="#5a3b00" stroke-width="3" stroke-linejoin="round"/>`;
  }
  return s;
}

const cherry = () =>
  `<path d="M50 14 C 46 34, 34 46, 30 60 M50 14 C 56 34, 64 46, 70 58" stroke="#2e7d32" stroke-width="5" fill="none" stroke-linecap="round"/>
   <path d="M50 14 q 16 -6 26 4 q -14 6 -26 -4z" fill="#43a047"/>
   <circle cx="30" cy="68" r="19" fill="url(#g-red)" stroke="#5c0010" stroke-width="2.5"/>
   <circle cx="70" cy="66" r="19" fill="url(#g-red)" stroke="#5c0010" stroke-width="2.5"/>
   <circle cx="24" cy="61" r="5" fill="#fff" opacity=".6"/><circle cx="64" cy="59" r="5" fill="#fff" opacity=".6"/>`;

const lemon = () =>
  `<ellipse cx="50" cy="54" rx="38" ry="28" fill="url(#g-yellow)" stroke="#8a6d00" stroke-width="3"/>
   <ellipse cx="12" cy="54" rx="5" ry="4" fill="#e8c000" stroke="#8a6d00" stroke-width="2"/>
   <ellipse cx="88" cy="54" rx="5" ry="4" fill="#e8c000" stroke="#8a6d00" stroke-width="2"/>
   <ellipse cx="38" cy="44" rx="12" ry="6" fill="#fff" opacity=".5"/>`;

const orange = () =>
  `<circle cx="50" cy="55" r="36" fill="url(#g-orange)" stroke="#8a3a00" stroke-width="3"/>
   <path d="M50 19 q 10 -12 22 -6 q -8 12 -22 6z" fill="#43a047"/>
   <circle cx="38" cy="42" r="8" fill="#fff" opacity=".45"/>`;

const plum = () =>
  `<ellipse cx="50" cy="56" rx="33" ry="36" fill="url(#g-purple)" stroke="#2e0a52" stroke-width="3"/>
   <path d="M50 22 q 2 30 0 66" stroke="#2e0a52" stroke-width="2" fill="none" opacity=".5"/>
   <path d="M50 20 l 4 -10" stroke="#5d4037" stroke-width="4" stroke-linecap="round"/>
   <ellipse cx="37" cy="42" rx="7" ry="11" fill="#fff" opacity=".4"/>`;

function grapes() {
  const pos = [[34, 36], [50, 36], [66, 36], [42, 52], [58, 52], [34, 52], [66, 52], [50, 67], [42, 81], [58, 67], [50, 90]];
  let s = `<path d="M50 26 l 0 -14 q 12 -4 20 4" stroke="#2e7d32" stroke-width="4" fill="none" stroke-linecap="round"/>`;
  for (const [x, y] of pos.slice(0, 10)) s += `<circle cx="${x}" cy="${y}" r="10" fill="url(#g-purple)" stroke="#2e0a52" stroke-width="2"/>`;
  return s;
}

const bell = () =>
  `<path d="M50 12 C 30 12, 24 34, 24 52 C 24 64, 18 70, 12 76 L 88 76 C 82 70, 76 64, 76 52 C 76 34, 70 12, 50 12z" fill="url(#g-gold)" stroke="#6b4400" stroke-width="3"/>
   <rect x="10" y="74" width="80" height="8" rx="4" fill="#c27a00" stroke="#6b4400" stroke-width="2"/>
   <circle cx="50" cy="88" r="7" fill="#c27a00" stroke="#6b4400" stroke-width="2"/>
   <path d="M36 28 q -6 14 -4 30" stroke="#fff" stroke-width="5" opacity=".55" fill="none" stroke-linecap="round"/>`;

const melon = () =>
  `<path d="M10 40 A 40 40 0 0 0 90 40 Z" fill="url(#g-green)" stroke="#0d4f17" stroke-width="3"/>
   <path d="M18 42 A 32 32 0 0 0 82 42 Z" fill="#ff5a6e"/>
   <g fill="#222"><ellipse cx="36" cy="52" rx="2.5" ry="4"/><ellipse cx="50" cy="58" rx="2.5" ry="4"/><ellipse cx="64" cy="52" rx="2.5" ry="4"/></g>`;

function diamond() {
  return `<polygon points="50,8 88,40 50,92 12,40" fill="url(#g-blue)" stroke="#0b2e7a" stroke-width="3" stroke-linejoin="round"/>
    <polygon points="12,40 88,40 50,92" fill="#1f5fd6" opacity=".35"/>
    <polyline points="30,24 38,40 50,8 62,40 70,24" fill="none" stroke="#fff" stroke-width="2" opacity=".7"/>
    <rect x="16" y="56" width="68" height="22" rx="6" fill="#7a1fa2" stroke="#ffd54a" stroke-width="2.5"/>
    <text x="50" y="73" font-size="17" font-weight="900" font-family="Arial Black, Arial, sans-serif" text-anchor="middle" fill="#ffe14d">WILD</text>`;
}

function scatterBadge(inner) {
  return inner + `<rect x="8" y="78" width="84" height="18" rx="6" fill="#c2185b" stroke="#fff" stroke-width="2"/>
    <text x="50" y="92" font-size="13" font-weight="900" font-family="Arial Black, Arial, sans-serif" text-anchor="middle" fill="#fff">SCATTER</text>`;
}

function wildStar() {
  return star("url(#g-gold)", "#7a4a00", 44, 19) + `<rect x="14" y="60" width="72" height="24" rx="7" fill="#7a1fa2" stroke="#ffd54a" stroke-width="2.5"/>
    <text x="50" y="78" font-size="18" font-weight="900" font-family="Arial Black, Arial, sans-serif" text-anchor="middle" fill="#ffe14d">WILD</text>`;
}

/** A symbol with a multiplier: its drawing made smaller at the top, the badge on a plaque below
 * it (a badge over the drawing hid Crystal Star Deluxe's bars). */
function withMult(base, m) {
  return `<g class="sym-base" transform="translate(15 0) scale(.7)">${base}</g>
    <g class="mult-badge"><rect x="26" y="73" width="48" height="24" rx="9" fill="#ffe14d" stroke="#7a2a00" stroke-width="3"/>
    <text x="50" y="91" font-size="19" font-weight="900" font-family="Arial Black, Arial, sans-serif" text-anchor="middle" fill="#7a0010">${m}X</text></g>`;
}

/** The glyph (SVG markup) for a symbol: {id, name, wild, scatter, dice, giant, ...}; a giant
 * (1x3) symbol is one drawing three cells tall (css/symbols.css shows each cell its third).
 * `label`: what a screen reader says, in the player's language (names.js); the drawing is chosen by
 * the model's id and English name. */
export function glyph(sym, label = symbolName(sym)) {
  const id = String(sym?.id ?? "");
  const name = String(sym?.name ?? id).toLowerCase();
  const key = `${id}|${name}|${label}|${sym?.wild}|${sym?.scatter}|${sym?.dice}|${sym?.giant}|${sym?.arrow}|${sym?.multiplier}`;
  if (cache.has(key)) return cache.get(key);
  const tall = Boolean(sym?.giant);
  // Super 10 / Super 12 have their own tall drawing; any other tall symbol is its own, framed
  const inner = !tall ? draw(id, name, sym || {}) : /super\s*\d+/.test(name) ? giant(giantNumber(id, name)) : tallFrame(draw(id, name, { ...sym, giant: false }), sym?.name ?? id);
  const out = svg(inner, label, tall);
  cache.set(key, out);
  return out;
}
const cache = new Map();

/** The name a player knows a symbol by (for aria-label): its name without remarks in brackets;
 * `shown`: that name in the player's language (names.js). */
export function symbolName(sym, shown) {
  const name = String(sym?.name || sym?.id || "");
  const arrow = sym?.arrow || /\(.*\b(up|down)\)/i.exec(name)?.[1];
  const plain = String(shown || name).replace(/\s*\(.*?\)\s*/g, " ").trim();
  if (!arrow) return plain;
  const dir = arrow.toLowerCase();
  return tMaybe(`symbols.arrow_${dir}`, { name: plain }) ?? `${plain}, arrow ${dir}`;
}

const giantNumber = (id, name) => Number(/super\s*(\d+)/.exec(name)?.[1] || /(\d+)/.exec(id)?.[1] || 10);

function draw(id, name, sym) {
  const lid = id.toLowerCase();
  const m = sym.multiplier > 1 ? [null, sym.multiplier] : /x(\d+)$/.exec(lid) || /(\d+)x\b/.exec(name);
  const drawn = drawPlain(id, name, sym, m ? lid.replace(/x\d+$/, "") : lid);
  return m && drawn ? withMult(drawn, m[1]) : drawn;
}

function drawPlain(id, name, sym, base) {
  const lid = id.toLowerCase();
  if (id === "-" || id === "" || /^blank|^empty/.test(name)) return "";
  if (name.includes("crystal") || (sym.wild && base.startsWith("star"))) {
    const dir = sym.arrow || (/\^|up/.test(id + name) ? "up" : /v$|down/.test(id + " " + name) ? "down" : null);
    return crystalStar(dir);
  }
  if (sym.wild) {
    if (name.includes("diamond")) return diamond();
    if (name.includes("star")) return wildStar();
    return wild();
  }
  if (sym.dice || /\bdic?e\b/.test(name)) return dice();
  if (/super 5 stars?/.test(name)) return superFiveStar(name.includes("silver"));
  if (sym.scatter || name.includes("scatter")) {
    if (name.includes("diamond")) return diamondGem();
    // the scatter's own picture (a bell, a wheel, ...) with the badge; a star for a bare name
    const plain = { ...sym, scatter: false, name: name.replace("scatter", "").trim() };
    const inner = plain.name ? draw(plain.name, plain.name, plain) : "";
    return scatterBadge(inner && !inner.includes(MEDALLION) ? inner : star());
  }
  if (sym.coin || /\bcoins?\b/.test(name)) return coin();
  const who = characterOf(name, lid);
  if (who) return who;
  const creature = creatureOf(name);
  if (creature) return creature;
  const card = royalOf(name);
  if (card) return royal(card);
  if (/super\s*7/.test(name) || base === "s7") return superSeven();
  if (name.includes("wheel")) return wheel();
  if (name.includes("bonus")) return bonus();
  if (name.includes("fiery")) return fierySeven(sevens(1));
  const sev = /^(7+)$/.exec(base);
  if (sev) return sevens(Math.min(3, sev[1].length));
  if (name.includes("triple seven")) return sevens(3);
  if (name.includes("double seven")) return sevens(2);
  if (name.includes("seven") || base === "se" || base === "7s") return sevens(1);
  const bar = /^([123])?bar([123])?$/.exec(base);
  if (bar) return bars(Number(bar[1] || bar[2] || 1));
  if (name.includes("triple bar")) return bars(3);
  if (name.includes("double bar")) return bars(2);
  if (name.includes("bar") || base === "ba") return bars(1);
  if (name.includes("cherr") || base === "ch") return cherry();
  if (name.includes("lemon") || base === "le") return lemon();
  if (name.includes("orange") || base === "or") return orange();
  if (name.includes("plum") || base === "pl") return plum();
  if (name.includes("grape") || base === "gr") return grapes();
  if (name.includes("bell") || base === "be") return bell();
  if (name.includes("melon") || base === "wm") return melon();
  if (name.includes("star")) return star();
  return medallion(sym.name || id);
}

/** A short, readable caption for a symbol; `shown`: its name in the player's language (names.js),
 * the model's English name still says what it is (blank, arrow). */
export function caption(sym, shown) {
  if (!sym) return "";
  const id = String(sym.id);
  const name = String(sym.name || id);
  if (id === "-" || /^(blank|empty)$/i.test(name)) return "";
  const arrow = sym.arrow === "up" || /\(.*\bup\)/i.test(name) ? " ▲" : sym.arrow === "down" || /\(.*\bdown\)/i.test(name) ? " ▼" : "";
  return String(shown || name).replace(/\s*\(.*\)\s*/, "") + arrow;
}

/** Colour accents for lobby thumbnails per game (drawn, not downloaded). */
export function thumbnail(game) {
  const syms = (game.symbols || []).filter((s) => s.id !== "-");
  const pick = [syms.find((s) => s.wild) || syms[0], syms[1] || syms[0], syms[2] || syms[0]];
  return pick.map((s) => glyph(s, symbolName(s, symbolText(game, s)))).join("");
}
