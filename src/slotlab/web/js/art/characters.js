// Superstars' character symbols: the Starburst octagram, Gonzo, the Space Wars brute, Finn and
// Miss Banks (Lady Pig), drawn as cartoon heads in the style of the fruit and seven glyphs.
import { sparkle, starPoints } from "./common.js";

// light and dark shade of each facet pair of the octagram, round the rainbow
const FACETS = [
  ["#ff6b6b", "#c62828"], ["#ffb74d", "#e65100"], ["#fff176", "#f9a825"], ["#69f0ae", "#00a152"],
  ["#84ffff", "#00acc1"], ["#82b1ff", "#2962ff"], ["#ea80fc", "#8e24aa"], ["#ff80ab", "#d81b60"],
];

export function starburst() {
  const c = 50, r1 = 47, r2 = 24;
  const at = (r, a) => `${(c + r * Math.cos(a)).toFixed(1)},${(c + r * Math.sin(a)).toFixed(1)}`;
  let s = `<circle cx="50" cy="50" r="48" fill="url(#g-glow)" opacity=".7"/>`;
  FACETS.forEach(([light, dark], i) => {
    const a = -Math.PI / 2 + (i * Math.PI) / 4;
    const tip = at(r1, a);
    s += `<polygon points="${c},${c} ${tip} ${at(r2, a - Math.PI / 8)}" fill="${light}"/>`;
    s += `<polygon points="${c},${c} ${tip} ${at(r2, a + Math.PI / 8)}" fill="${dark}"/>`;
  });
  s += `<polygon points="${starPoints(c, c, r1, r2, 8)}" fill="none" stroke="#3a0a5e" stroke-width="3" stroke-linejoin="round"/>`;
  s += `<polygon points="${starPoints(c, c, 14, 9, 8)}" fill="#fff" opacity=".75"/>`;
  return s + sparkle(28, 26, 7) + sparkle(74, 70, 5);
}

export function gonzo() {
  return `
  <path d="M70 30 C 84 22, 94 30, 92 44 C 86 36, 80 36, 72 40 Z" fill="#e53935" stroke="#6d0000" stroke-width="2"/>
  <ellipse cx="50" cy="64" rx="24" ry="27" fill="url(#g-skin)" stroke="#6b3a1e" stroke-width="2.5"/>
  <path d="M27 46 C 27 24, 38 14, 50 14 C 62 14, 73 24, 73 46 Z" fill="url(#g-steel)" stroke="#2b3240" stroke-width="2.5"/>
  <path d="M36 22 Q 50 -2 64 22 Z" fill="url(#g-steel)" stroke="#2b3240" stroke-width="2.5" stroke-linejoin="round"/>
  <path d="M28 42 L 72 42 L 73 47 L 27 47 Z" fill="url(#g-gold)" stroke="#6b4400" stroke-width="1.5"/>
  <path d="M6 40 Q 20 54 50 50 Q 80 54 94 40 Q 88 54 74 57 Q 50 61 26 57 Q 12 54 6 40 Z" fill="url(#g-steel)" stroke="#2b3240" stroke-width="2.5" stroke-linejoin="round"/>
  <path d="M40 22 Q 44 16 50 16" stroke="#fff" stroke-width="3" fill="none" opacity=".8" stroke-linecap="round"/>
  <path d="M32 61 Q 38 56 44 61 M56 61 Q 62 56 68 61" stroke="#3e2312" stroke-width="3" fill="none" stroke-linecap="round"/>
  <ellipse cx="38" cy="66" rx="4" ry="4.6" fill="#fff" stroke="#6b3a1e" stroke-width="1"/><ellipse cx="62" cy="66" rx="4" ry="4.6" fill="#fff" stroke="#6b3a1e" stroke-width="1"/>
  <circle cx="39" cy="67" r="2.2" fill="#222"/><circle cx="61" cy="67" r="2.2" fill="#222"/>
  <ellipse cx="50" cy="73" rx="6" ry="8" fill="#e89a70" stroke="#6b3a1e" stroke-width="2"/>
  <path d="M50 80 C 44 76, 34 78, 30 86 C 38 84, 44 86, 50 83 C 56 86, 62 84, 70 86 C 66 78, 56 76, 50 80 Z" fill="#4e2a12" stroke="#2a1405" stroke-width="1.5"/>
  <path d="M44 88 Q 50 100 56 88 Q 50 91 44 88 Z" fill="#4e2a12" stroke="#2a1405" stroke-width="1.5"/>`;
}

export function spaceBrute() {
  return `
  <path d="M26 48 L 6 28 L 14 58 Z M74 48 L 94 28 L 86 58 Z" fill="url(#g-alien)" stroke="#173d07" stroke-width="2.5" stroke-linejoin="round"/>
  <path d="M22 86 Q 50 98 78 86 L 80 96 Q 50 106 20 96 Z" fill="url(#g-steel)" stroke="#2b3240" stroke-width="2.5"/>
  <path d="M24 46 C 22 20, 36 8, 50 8 C 64 8, 78 20, 76 46 C 80 62, 76 80, 62 90 L 38 90 C 24 80, 20 62, 24 46 Z" fill="url(#g-alien)" stroke="#173d07" stroke-width="3"/>
  <path d="M40 14 Q 50 22 60 14 M36 22 Q 50 30 64 22" stroke="#2e6b10" stroke-width="2.5" fill="none" stroke-linecap="round"/>
  <path d="M28 42 L 47 50 L 46 56 L 29 50 Z M72 42 L 53 50 L 54 56 L 71 50 Z" fill="#1f4a0a"/>
  <ellipse cx="38" cy="56" rx="6" ry="4" fill="#ff1744" stroke="#5a0010" stroke-width="1.5"/>
  <ellipse cx="62" cy="56" rx="6" ry="4" fill="#ff1744" stroke="#5a0010" stroke-width="1.5"/>
  <circle cx="36" cy="55" r="1.6" fill="#fff"/><circle cx="60" cy="55" r="1.6" fill="#fff"/>
  <path d="M46 66 L 44 70 M54 66 L 56 70" stroke="#173d07" stroke-width="2.5" stroke-linecap="round"/>
  <path d="M32 74 Q 50 70 68 74 L 64 86 Q 50 90 36 86 Z" fill="#3b0a0a" stroke="#173d07" stroke-width="2.5" stroke-linejoin="round"/>
  <path d="M36 86 L 38 76 L 42 86 Z M58 86 L 62 76 L 64 86 Z" fill="#fffde7"/>
  <path d="M44 74 L 46 79 L 48 74 Z M52 74 L 54 79 L 56 74 Z" fill="#fffde7"/>
  <path d="M34 30 Q 40 24 46 26" stroke="#fff" stroke-width="3" fill="none" opacity=".55" stroke-linecap="round"/>`;
}

export function finn() {
  return `
  <circle cx="30" cy="58" r="6" fill="url(#g-skin)" stroke="#6b3a1e" stroke-width="2"/>
  <circle cx="70" cy="58" r="6" fill="url(#g-skin)" stroke="#6b3a1e" stroke-width="2"/>
  <circle cx="50" cy="58" r="20" fill="url(#g-skin)" stroke="#6b3a1e" stroke-width="2.5"/>
  <path d="M26 44 L 44 6 Q 52 0 57 7 L 74 44 Z" fill="url(#g-hat)" stroke="#0a3314" stroke-width="2.5" stroke-linejoin="round"/>
  <path d="M31 34 L 69 34 L 72 41 L 28 41 Z" fill="#1b1b1b"/>
  <rect x="44" y="32" width="12" height="11" rx="1.5" fill="none" stroke="url(#g-gold)" stroke-width="3"/>
  <ellipse cx="50" cy="44" rx="31" ry="6" fill="#0f5422" stroke="#0a3314" stroke-width="2.5"/>
  <path d="M46 10 Q 50 8 52 14" stroke="#b9f6ca" stroke-width="3" fill="none" opacity=".7" stroke-linecap="round"/>
  <ellipse cx="43" cy="54" rx="2.6" ry="3.2" fill="#222"/><ellipse cx="57" cy="54" rx="2.6" ry="3.2" fill="#222"/>
  <circle cx="44" cy="53" r="1" fill="#fff"/><circle cx="58" cy="53" r="1" fill="#fff"/>
  <circle cx="37" cy="62" r="4" fill="#ff8a80" opacity=".6"/><circle cx="63" cy="62" r="4" fill="#ff8a80" opacity=".6"/>
  <path d="M28 60 C 26 82, 38 97, 50 97 C 62 97, 74 82, 72 60 C 66 70, 58 72, 50 72 C 42 72, 34 70, 28 60 Z" fill="url(#g-beard)" stroke="#7a2200" stroke-width="2.5"/>
  <path d="M40 80 Q 42 88 38 92 M50 80 Q 52 88 50 94 M60 80 Q 58 88 62 92" stroke="#7a2200" stroke-width="2" fill="none" stroke-linecap="round"/>
  <path d="M50 66 C 44 62, 36 64, 34 70 C 40 70, 46 70, 50 68 C 54 70, 60 70, 66 70 C 64 64, 56 62, 50 66 Z" fill="#ff7a2e" stroke="#7a2200" stroke-width="1.8"/>
  <circle cx="50" cy="61" r="5.5" fill="#f4a07a" stroke="#6b3a1e" stroke-width="2"/>`;
}

export function ladyPig() {
  let pearls = "";
  for (let i = 0; i <= 8; i++) {
    const a = Math.PI * (0.15 + (0.7 * i) / 8);
    pearls += `<circle cx="${(50 - 30 * Math.cos(a)).toFixed(1)}" cy="${(78 + 16 * Math.sin(a)).toFixed(1)}" r="3.6" fill="#fffaf0" stroke="#b08aa0" stroke-width="1"/>`;
  }
  return `
  <path d="M22 40 L 16 8 L 44 26 Z M78 40 L 84 8 L 56 26 Z" fill="url(#g-pig)" stroke="#8c1d4a" stroke-width="2.5" stroke-linejoin="round"/>
  <path d="M24 32 L 21 16 L 36 26 Z M76 32 L 79 16 L 64 26 Z" fill="#e0608f"/>
  <ellipse cx="50" cy="54" rx="34" ry="32" fill="url(#g-pig)" stroke="#8c1d4a" stroke-width="3"/>
  ${pearls}
  <path d="M66 17 L 86 9 L 83 28 Z M66 17 L 56 4 L 50 22 Z" fill="#e53935" stroke="#6d0000" stroke-width="2" stroke-linejoin="round"/>
  <circle cx="66" cy="17" r="5" fill="#ff5252" stroke="#6d0000" stroke-width="2"/>
  <path d="M30 40 Q 38 32 46 40 M54 40 Q 62 32 70 40" stroke="#9c27b0" stroke-width="4" fill="none" opacity=".5" stroke-linecap="round"/>
  <ellipse cx="38" cy="46" rx="6" ry="7" fill="#fff" stroke="#5a1030" stroke-width="1.5"/>
  <ellipse cx="62" cy="46" rx="6" ry="7" fill="#fff" stroke="#5a1030" stroke-width="1.5"/>
  <circle cx="39" cy="47" r="3.6" fill="#1e88e5"/><circle cx="61" cy="47" r="3.6" fill="#1e88e5"/>
  <circle cx="39" cy="47" r="1.8" fill="#111"/><circle cx="61" cy="47" r="1.8" fill="#111"/>
  <path d="M32 41 L 28 37 M35 39 L 33 34 M38 39 L 38 33 M68 41 L 72 37 M65 39 L 67 34 M62 39 L 62 33" stroke="#222" stroke-width="1.8" stroke-linecap="round"/>
  <circle cx="28" cy="60" r="5" fill="#ff4f8b" opacity=".45"/><circle cx="72" cy="60" r="5" fill="#ff4f8b" opacity=".45"/>
  <ellipse cx="50" cy="62" rx="15" ry="10" fill="#ff9ec0" stroke="#8c1d4a" stroke-width="2.5"/>
  <ellipse cx="44" cy="62" rx="3" ry="4.5" fill="#8c1d4a"/><ellipse cx="56" cy="62" rx="3" ry="4.5" fill="#8c1d4a"/>
  <path d="M40 76 Q 50 84 60 76 Q 50 79 40 76 Z" fill="#d50032" stroke="#7a0020" stroke-width="2" stroke-linejoin="round"/>
  <ellipse cx="36" cy="30" rx="7" ry="4" fill="#fff" opacity=".45" transform="rotate(-25 36 30)"/>`;
}

// name words (and Superstars' ids) -> drawing
const CHARACTERS = [
  [/starburst/, "sb", starburst],
  [/gonzo/, "go", gonzo],
  [/space wars|brute/, "sw", spaceBrute],
  [/finn/, "fi", finn],
  [/miss banks|lady pig|piggy/, "mb", ladyPig],
];

/** The character drawing for a symbol (lower-case name and id), or null. */
export function characterOf(name, id) {
  const hit = CHARACTERS.find(([re, sid]) => re.test(name) || id === sid);
  return hit ? hit[2]() : null;
}
