// A generic drawn set for games described by a model file alone (no art of their own): animals
// and emblems chosen by a symbol's name (dragon, tiger, koi / any fish, phoenix, lantern,
// ingot, coin), and a named medallion for any other name, so that no symbol is drawn as a
// bare lettered tile. Drawn in the style of the fruit, royal and character glyphs (100 x 100).
import { lettering, sparkle } from "./common.js";

/** A red-and-gold dragon's head seen from the front: antlers, whiskers, a green mane. */
export function dragon() {
  return `
  <path d="M14 58 L 4 40 L 18 46 L 10 26 L 26 38 L 24 18 L 36 34 L 50 26 L 64 34 L 76 18 L 74 38 L 90 26 L 82 46 L 96 40 L 86 58 Z" fill="url(#g-green)" stroke="#0b3d14" stroke-width="2.5" stroke-linejoin="round"/>
  <path d="M36 30 C 30 18, 22 12, 16 6 M 28 18 L 20 20 M 64 30 C 70 18, 78 12, 84 6 M 72 18 L 80 20" stroke="url(#g-gold)" stroke-width="6" fill="none" stroke-linecap="round"/>
  <path d="M36 30 C 30 18, 22 12, 16 6 M 64 30 C 70 18, 78 12, 84 6" stroke="#6b4400" stroke-width="1.5" fill="none" stroke-linecap="round"/>
  <path d="M26 50 C 24 30, 38 24, 50 24 C 62 24, 76 30, 74 50 C 80 60, 78 76, 66 84 C 58 90, 42 90, 34 84 C 22 76, 20 60, 26 50 Z" fill="url(#g-red)" stroke="#4a0008" stroke-width="3"/>
  <path d="M34 70 C 34 62, 42 60, 50 60 C 58 60, 66 62, 66 70 C 66 80, 58 86, 50 86 C 42 86, 34 80, 34 70 Z" fill="url(#g-gold)" stroke="#6b4400" stroke-width="2"/>
  <path d="M30 44 L 46 50 M 70 44 L 54 50" stroke="#2a0004" stroke-width="4" stroke-linecap="round"/>
  <ellipse cx="39" cy="54" rx="7" ry="5" fill="#fffde7" stroke="#2a0004" stroke-width="1.5"/><ellipse cx="61" cy="54" rx="7" ry="5" fill="#fffde7" stroke="#2a0004" stroke-width="1.5"/>
  <ellipse cx="40" cy="54" rx="2.2" ry="4" fill="#111"/><ellipse cx="60" cy="54" rx="2.2" ry="4" fill="#111"/>
  <circle cx="44" cy="68" r="2.6" fill="#4a0008"/><circle cx="56" cy="68" r="2.6" fill="#4a0008"/>
  <path d="M40 78 Q 50 84 60 78" stroke="#4a0008" stroke-width="2.5" fill="none" stroke-linecap="round"/>
  <path d="M41 78 L 43 83 L 45 79 M 59 78 L 57 83 L 55 79" fill="#fff" stroke="#fff" stroke-width="1.5" stroke-linejoin="round"/>
  <path d="M36 72 C 24 74, 14 66, 6 72 C 12 74, 14 80, 8 86 M 64 72 C 76 74, 86 66, 94 72 C 88 74, 86 80, 92 86" stroke="url(#g-gold)" stroke-width="3.5" fill="none" stroke-linecap="round"/>
  <path d="M40 32 Q 50 28 60 32" stroke="#fff" stroke-width="3" opacity=".5" fill="none" stroke-linecap="round"/>
  ${sparkle(86, 88, 5)}`;
}

/** A tiger's head from the front: orange fur, black stripes, a white muzzle. */
export function tiger() {
  return `
  <circle cx="22" cy="24" r="13" fill="url(#g-orange)" stroke="#3b1a00" stroke-width="2.5"/><circle cx="78" cy="24" r="13" fill="url(#g-orange)" stroke="#3b1a00" stroke-width="2.5"/>
  <circle cx="22" cy="25" r="7" fill="#ffb3c1"/><circle cx="78" cy="25" r="7" fill="#ffb3c1"/>
  <path d="M50 12 C 74 12, 90 28, 90 52 C 90 64, 86 72, 78 80 C 70 90, 60 94, 50 94 C 40 94, 30 90, 22 80 C 14 72, 10 64, 10 52 C 10 28, 26 12, 50 12 Z" fill="url(#g-orange)" stroke="#3b1a00" stroke-width="3"/>
  <path d="M50 14 L 46 24 L 50 30 L 54 24 Z M 38 16 L 40 28 M 62 16 L 60 28 M 12 46 L 26 50 L 12 56 M 88 46 L 74 50 L 88 56 M 14 66 L 26 64 M 86 66 L 74 64" stroke="#1a0d00" stroke-width="4" fill="#1a0d00" stroke-linecap="round" stroke-linejoin="round"/>
  <path d="M28 62 C 28 54, 40 56, 50 62 C 60 56, 72 54, 72 62 C 76 76, 64 90, 50 90 C 36 90, 24 76, 28 62 Z" fill="#fffaf0" stroke="#3b1a00" stroke-width="2"/>
  <path d="M30 40 L 44 44 M 70 40 L 56 44" stroke="#1a0d00" stroke-width="3.5" stroke-linecap="round"/>
  <ellipse cx="37" cy="49" rx="7" ry="6" fill="#c6ff00" stroke="#1a0d00" stroke-width="2"/><ellipse cx="63" cy="49" rx="7" ry="6" fill="#c6ff00" stroke="#1a0d00" stroke-width="2"/>
  <ellipse cx="37" cy="49" rx="2" ry="5" fill="#111"/><ellipse cx="63" cy="49" rx="2" ry="5" fill="#111"/>
  <path d="M43 62 L 57 62 L 50 70 Z" fill="#f06292" stroke="#3b1a00" stroke-width="2" stroke-linejoin="round"/>
  <path d="M50 70 L 50 76 M 50 76 Q 44 82 38 78 M 50 76 Q 56 82 62 78" stroke="#3b1a00" stroke-width="2.5" fill="none" stroke-linecap="round"/>
  <path d="M36 70 L 16 68 M 36 74 L 18 78 M 64 70 L 84 68 M 64 74 L 82 78" stroke="#fff" stroke-width="1.5" stroke-linecap="round" opacity=".9"/>
  <path d="M36 22 Q 44 16 52 18" stroke="#fff" stroke-width="3" opacity=".5" fill="none" stroke-linecap="round"/>`;
}

/** A koi (any fish): orange and white, its tail curled, in a ring of water. */
export function koi() {
  return `
  <circle cx="50" cy="50" r="46" fill="url(#g-blue)" stroke="#0b2e7a" stroke-width="3"/>
  <path d="M20 40 Q 34 30 46 40 M 54 72 Q 68 80 82 70" stroke="#fff" stroke-width="2.5" fill="none" opacity=".5" stroke-linecap="round"/>
  <path d="M70 24 C 86 12, 94 20, 90 30 C 86 36, 80 34, 74 34 C 80 40, 86 46, 84 56 C 76 52, 70 44, 68 36 Z" fill="url(#g-orange)" stroke="#5a2200" stroke-width="2.5" stroke-linejoin="round"/>
  <path d="M68 34 C 62 54, 48 72, 26 82 C 18 86, 12 80, 16 72 C 24 54, 44 38, 68 34 Z" fill="#fffaf0" stroke="#5a2200" stroke-width="3"/>
  <path d="M62 38 C 54 46, 50 56, 40 60 C 46 50, 50 44, 62 38 Z M 34 66 C 30 72, 24 76, 20 76 C 24 70, 28 68, 34 66 Z" fill="#ff5722"/>
  <path d="M54 58 C 62 62, 64 68, 60 74 C 56 68, 52 64, 48 62 Z M 40 50 C 34 44, 32 38, 36 34 C 40 40, 44 44, 46 46 Z" fill="url(#g-orange)" stroke="#5a2200" stroke-width="2" stroke-linejoin="round"/>
  <circle cx="22" cy="74" r="3.2" fill="#111"/><circle cx="21" cy="73" r="1" fill="#fff"/>
  <path d="M16 80 C 10 84, 8 90, 12 94 M 18 82 C 16 88, 18 92, 22 94" stroke="#ff8a65" stroke-width="2" fill="none" stroke-linecap="round"/>
  ${sparkle(30, 24, 5)}${sparkle(76, 84, 4)}`;
}

/** A phoenix: a flame-red bird, wings raised, its tail of gold plumes. */
export function phoenix() {
  return `
  <path d="M50 60 C 30 70, 20 86, 26 96 C 34 88, 42 84, 50 80 C 58 84, 66 88, 74 96 C 80 86, 70 70, 50 60 Z" fill="url(#g-gold)" stroke="#6b4400" stroke-width="2.5" stroke-linejoin="round"/>
  <path d="M46 50 C 30 40, 14 40, 4 18 C 20 24, 28 20, 36 28 C 34 18, 38 12, 44 8 C 44 22, 50 34, 50 46 Z" fill="url(#g-red)" stroke="#4a0008" stroke-width="2.5" stroke-linejoin="round"/>
  <path d="M54 50 C 70 40, 86 40, 96 18 C 80 24, 72 20, 64 28 C 66 18, 62 12, 56 8 C 56 22, 50 34, 50 46 Z" fill="url(#g-red)" stroke="#4a0008" stroke-width="2.5" stroke-linejoin="round"/>
  <ellipse cx="50" cy="56" rx="12" ry="18" fill="url(#g-orange)" stroke="#5a2200" stroke-width="2.5"/>
  <circle cx="50" cy="34" r="9" fill="url(#g-orange)" stroke="#5a2200" stroke-width="2.5"/>
  <path d="M50 26 L 46 14 L 52 20 L 56 10 L 56 24" fill="url(#g-gold)" stroke="#6b4400" stroke-width="1.5" stroke-linejoin="round"/>
  <path d="M56 34 L 66 38 L 56 40 Z" fill="#ffd54a" stroke="#6b4400" stroke-width="1.5" stroke-linejoin="round"/>
  <circle cx="52" cy="33" r="2" fill="#111"/>
  ${sparkle(16, 60, 5)}${sparkle(84, 60, 5)}`;
}

/** A red paper lantern with gold caps and a tassel. */
export function lantern() {
  return `
  <path d="M50 2 L 50 14" stroke="#6b4400" stroke-width="3"/>
  <rect x="34" y="12" width="32" height="9" rx="3" fill="url(#g-gold)" stroke="#6b4400" stroke-width="2"/>
  <ellipse cx="50" cy="50" rx="38" ry="31" fill="url(#g-red)" stroke="#4a0008" stroke-width="3"/>
  <path d="M50 19 C 36 30, 36 70, 50 81 M 50 19 C 64 30, 64 70, 50 81 M 50 19 C 24 30, 24 70, 50 81 M 50 19 C 76 30, 76 70, 50 81" stroke="#4a0008" stroke-width="1.5" fill="none" opacity=".6"/>
  <rect x="34" y="79" width="32" height="9" rx="3" fill="url(#g-gold)" stroke="#6b4400" stroke-width="2"/>
  <path d="M46 88 L 44 99 M 50 88 L 50 99 M 54 88 L 56 99" stroke="#ffd54a" stroke-width="2.5" stroke-linecap="round"/>
  <ellipse cx="34" cy="40" rx="6" ry="11" fill="#fff" opacity=".35"/>`;
}

/** A gold ingot (yuanbao): a boat-shaped bar with a domed middle. */
export function ingot() {
  return `
  <ellipse cx="50" cy="86" rx="40" ry="6" fill="#000" opacity=".25"/>
  <path d="M6 44 C 14 50, 30 52, 50 52 C 70 52, 86 50, 94 44 C 92 64, 80 84, 50 84 C 20 84, 8 64, 6 44 Z" fill="url(#g-gold)" stroke="#6b4400" stroke-width="3" stroke-linejoin="round"/>
  <ellipse cx="50" cy="46" rx="24" ry="20" fill="url(#g-gold)" stroke="#6b4400" stroke-width="3"/>
  <path d="M34 40 Q 42 30 54 32" stroke="#fff" stroke-width="4" opacity=".6" fill="none" stroke-linecap="round"/>
  <path d="M14 58 Q 30 72 50 74" stroke="#fff" stroke-width="3" opacity=".4" fill="none" stroke-linecap="round"/>
  ${sparkle(78, 30, 7)}${sparkle(20, 34, 4)}`;
}

/** A gold coin with a square hole and a raised rim. A coin's value, where it has one, is laid over
 * its face by the game page (css: .cell .coin-value). */
export function coin() {
  return `
  <circle cx="50" cy="50" r="46" fill="url(#g-gold)" stroke="#6b4400" stroke-width="3"/>
  <circle cx="50" cy="50" r="37" fill="none" stroke="#8a5a00" stroke-width="3"/>
  <circle cx="50" cy="50" r="34" fill="#ffcf33"/>
  <rect x="38" y="38" width="24" height="24" fill="#5a3500" stroke="#8a5a00" stroke-width="3"/>
  <path d="M50 20 L 50 30 M 50 70 L 50 80 M 20 50 L 30 50 M 70 50 L 80 50" stroke="#b37400" stroke-width="5" stroke-linecap="round"/>
  <path d="M22 34 A 32 32 0 0 1 40 18" stroke="#fff" stroke-width="5" opacity=".6" fill="none" stroke-linecap="round"/>
  ${sparkle(80, 22, 7)}`;
}

/** The class that marks the medallion (a name, not a picture). */
export const MEDALLION = "medallion";

/** Any other symbol: a jewelled medallion with its name across it, sized to fit, so that a word
 * of any length stays whole and legible (no cut-off tile). */
export function medallion(name) {
  const text = String(name).trim().toUpperCase().replace(/[&<>"]/g, "");
  const size = Math.max(11, Math.min(30, Math.floor(150 / Math.max(3, text.length))));
  return `
  <circle class="${MEDALLION}" cx="50" cy="50" r="46" fill="url(#g-purple)" stroke="#2e0a52" stroke-width="3"/>
  <circle cx="50" cy="50" r="38" fill="none" stroke="url(#g-gold)" stroke-width="4"/>
  <path d="M22 30 A 34 34 0 0 1 58 14" stroke="#fff" stroke-width="4" opacity=".35" fill="none" stroke-linecap="round"/>
  <rect x="4" y="${50 - size * 0.75}" width="92" height="${size * 1.5}" rx="${size * 0.4}" fill="url(#g-gold)" stroke="#6b4400" stroke-width="2"/>
  ${lettering(50, 50 + size * 0.36, size, text, { fill: "#fff", stroke: "#3b1200", width: 3, extra: `textLength="${Math.min(86, text.length * size * 0.72).toFixed(0)}" lengthAdjust="spacingAndGlyphs"` })}
  ${sparkle(78, 22, 5)}`;
}

const BY_NAME = [
  [/dragon/, dragon],
  [/tiger/, tiger],
  [/koi|fish|carp|goldfish/, koi],
  [/phoenix|firebird/, phoenix],
  [/lantern/, lantern],
  [/ingot|gold bar|yuanbao|treasure/, ingot],
];

/** The drawing a symbol's name (lower case) stands for, or null. */
export function creatureOf(name) {
  for (const [re, draw] of BY_NAME) if (re.test(name)) return draw();
  return null;
}
