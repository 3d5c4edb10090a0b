// Special symbols: Wild, the Diamond scatter, the Dice, Super 12 Stars' Wheel, Bonus, Super 7 and
// golden / silver Super 5 Stars, and the giant 1x3 Super 10 / Super 12 (a 100 x 300 drawing).
import { flames, lettering, seven, sparkle, starPoints } from "./common.js";

export function wild() {
  return `<polygon points="${starPoints(50, 50, 50, 34, 16)}" fill="url(#g-glow)"/>
    <rect x="3" y="28" width="94" height="50" rx="12" fill="url(#g-gold)" stroke="#6b4400" stroke-width="2.5"/>
    <rect x="8" y="33" width="84" height="40" rx="8" fill="url(#g-purple)" stroke="#2e0a52" stroke-width="2"/>
    <path d="M12 39 Q 50 31 88 39 L 88 46 Q 50 38 12 46 Z" fill="#fff" opacity=".22"/>
    ${lettering(50, 65, 30, "WILD", { stroke: "#2e0a52", width: 4 })}
    <polygon points="${starPoints(50, 16, 11, 4.5)}" fill="url(#g-gold)" stroke="#6b4400" stroke-width="1.5"/>
    <polygon points="${starPoints(22, 20, 7, 3)}" fill="url(#g-gold)" stroke="#6b4400" stroke-width="1.2"/>
    <polygon points="${starPoints(78, 20, 7, 3)}" fill="url(#g-gold)" stroke="#6b4400" stroke-width="1.2"/>
    ${sparkle(86, 86, 6)}${sparkle(14, 88, 4)}`;
}

export function diamondGem() {
  const facet = (pts, fill) => `<polygon points="${pts}" fill="${fill}"/>`;
  return `<circle cx="50" cy="52" r="48" fill="url(#g-pinkglow)"/>
    ${facet("14,38 32,18 34,38", "#b3e5fc")}${facet("32,18 50,38 34,38", "#4fc3f7")}
    ${facet("32,18 68,18 50,38", "#e1f5fe")}${facet("68,18 66,38 50,38", "#4fc3f7")}
    ${facet("68,18 86,38 66,38", "#81d4fa")}
    ${facet("14,38 34,38 50,90", "#29b6f6")}${facet("34,38 50,38 50,90", "#81d4fa")}
    ${facet("50,38 66,38 50,90", "#0288d1")}${facet("66,38 86,38 50,90", "#01579b")}
    <polygon points="14,38 32,18 68,18 86,38 50,90" fill="none" stroke="#0b2e7a" stroke-width="3" stroke-linejoin="round"/>
    <polyline points="14,38 86,38" stroke="#0b2e7a" stroke-width="1.5" opacity=".6"/>
    ${sparkle(32, 20, 8)}${sparkle(80, 60, 6)}${sparkle(22, 70, 4)}`;
}

// pip positions on a die's face, in the face's own unit square
const PIPS = {
  1: [[0.5, 0.5]],
  3: [[0.22, 0.22], [0.5, 0.5], [0.78, 0.78]],
  5: [[0.22, 0.22], [0.78, 0.22], [0.5, 0.5], [0.22, 0.78], [0.78, 0.78]],
};

/** A red die seen from above a corner: its top, left and right faces, each a skewed square. */
export function dice() {
  const face = (m, pts, fill, n) =>
    `<polygon points="${pts}" fill="${fill}" stroke="#4a0000" stroke-width="3" stroke-linejoin="round"/>
     <g transform="matrix(${m})">${PIPS[n].map(([u, v]) => `<circle cx="${u}" cy="${v}" r="${n === 1 ? 0.17 : 0.11}" fill="#fff"/>`).join("")}</g>`;
  return `<ellipse cx="50" cy="94" rx="30" ry="4" fill="#000" opacity=".25"/>
    ${face("36,-20,36,20,14,30", "50,10 86,30 50,50 14,30", "url(#g-dice-top)", 1)}
    ${face("36,20,0,40,14,30", "14,30 50,50 50,90 14,70", "url(#g-dice-left)", 3)}
    ${face("36,-20,0,40,50,50", "50,50 86,30 86,70 50,90", "url(#g-dice-right)", 5)}
    <path d="M24 30 L 50 16" stroke="#fff" stroke-width="3" opacity=".55" stroke-linecap="round"/>`;
}

const WHEEL_COLOURS = ["#e53935", "#ffc107", "#1e88e5", "#43a047", "#e53935", "#ffc107", "#8e24aa", "#43a047"];

export function wheel() {
  const cx = 50, cy = 50, r = 37;
  const at = (rad, a) => `${(cx + rad * Math.cos(a)).toFixed(1)} ${(cy + rad * Math.sin(a)).toFixed(1)}`;
  let s = `<path d="M36 86 L 64 86 L 72 97 L 28 97 Z" fill="url(#g-gold)" stroke="#6b4400" stroke-width="2.5" stroke-linejoin="round"/>`;
  s += `<circle cx="${cx}" cy="${cy}" r="${r + 6}" fill="url(#g-gold)" stroke="#6b4400" stroke-width="2.5"/>`;
  const n = WHEEL_COLOURS.length;
  WHEEL_COLOURS.forEach((c, i) => {
    const a0 = -Math.PI / 2 - Math.PI / n + (i * 2 * Math.PI) / n;
    const a1 = a0 + (2 * Math.PI) / n;
    s += `<path d="M${cx} ${cy} L ${at(r, a0)} A ${r} ${r} 0 0 1 ${at(r, a1)} Z" fill="${c}" stroke="#fff8e1" stroke-width="1.5"/>`;
  });
  for (let i = 0; i < 16; i++) {
    const [x, y] = at(r + 3, (i * Math.PI) / 8).split(" ");
    s += `<circle cx="${x}" cy="${y}" r="1.8" fill="${i % 2 ? "#fffde7" : "#ff6f00"}"/>`;
  }
  s += `<circle cx="${cx}" cy="${cy}" r="37" fill="url(#g-shine)" opacity=".7"/>`;
  s += `<circle cx="${cx}" cy="${cy}" r="9" fill="url(#g-gold)" stroke="#6b4400" stroke-width="2"/><circle cx="${cx}" cy="${cy}" r="3" fill="#6b4400"/>`;
  s += `<polygon points="41,1 59,1 50,19" fill="url(#g-red)" stroke="#4a0008" stroke-width="2.5" stroke-linejoin="round"/>`;
  return s;
}

export function bonus() {
  return `<polygon points="${starPoints(50, 50, 50, 30, 12)}" fill="url(#g-gold)" stroke="#6b4400" stroke-width="2" stroke-linejoin="round"/>
    <polygon points="${starPoints(50, 50, 40, 30, 12, -Math.PI / 2 + Math.PI / 12)}" fill="#ffe082" opacity=".8"/>
    <rect x="4" y="36" width="92" height="30" rx="9" fill="url(#g-ruby)" stroke="#fff3b0" stroke-width="3"/>
    <path d="M9 41 Q 50 34 91 41 L 91 47 Q 50 40 9 47 Z" fill="#fff" opacity=".25"/>
    ${lettering(50, 59, 20, "BONUS", { fill: "#fff8e1", stroke: "#5c0010", width: 3.5 })}
    ${sparkle(80, 22, 6)}${sparkle(20, 80, 5)}`;
}

export function fierySeven(seven) {
  return flames(50, 96, 84, 78) + seven;
}

/** Super 7: a fiery seven under a SUPER banner. */
export function superSeven() {
  return flames(50, 98, 90, 62) + seven(25, 29, 0.84, "url(#g-red)", "#4a0008", "url(#g-gold)") +
    `<path d="M6 6 L 94 6 L 87 16 L 94 26 L 6 26 L 13 16 Z" fill="url(#g-ruby)" stroke="#ffd54a" stroke-width="2.5" stroke-linejoin="round"/>
    ${lettering(50, 22, 15, "SUPER", { stroke: "#4a0008", width: 3 })}`;
}

/** Golden or silver Super 5 Stars: a star with a 5 on it. */
export function superFiveStar(silver) {
  const fill = silver ? "url(#g-silver)" : "url(#g-gold)";
  const edge = silver ? "#37474f" : "#7a4a00";
  return `<circle cx="50" cy="52" r="46" fill="${silver ? "url(#g-pinkglow)" : "url(#g-glow)"}" opacity=".8"/>
    <polygon points="${starPoints(50, 52, 47, 21)}" fill="${fill}" stroke="${edge}" stroke-width="3" stroke-linejoin="round"/>
    <polygon points="${starPoints(50, 52, 33, 15)}" fill="#fff" opacity=".3"/>
    ${lettering(50, 67, 38, "5", { fill: silver ? "url(#g-navy)" : "url(#g-red)", stroke: "#fff", width: 3 })}
    ${sparkle(24, 22, 7)}`;
}

/** The giant 1x3 Super 10 / Super 12: one drawing 100 wide and 300 tall, SUPER, the number on a
 * star between two arcs of as many small stars, and STARS. */
/** Any other symbol three cells tall: its own drawing, large, framed, with its name above and
 * below (a composed game's whole-reel symbol). */
export function tallFrame(inner, name) {
  const words = String(name).toUpperCase().split(/\s+/).filter(Boolean);
  const top = words.length > 1 ? words.slice(0, -1).join(" ") : words[0] || "";
  const bottom = words.length > 1 ? words.at(-1) : "";
  let s = `<rect x="2" y="2" width="96" height="296" rx="14" fill="url(#g-gold)" stroke="#6b4400" stroke-width="3"/>
    <rect x="9" y="9" width="82" height="282" rx="9" fill="url(#g-navy)" stroke="#6b4400" stroke-width="2"/>
    <ellipse cx="50" cy="150" rx="44" ry="80" fill="url(#g-glow)" opacity=".55"/>`;
  s += sparkle(22, 90, 4) + sparkle(78, 212, 4);
  s += lettering(50, 52, top.length > 6 ? 16 : 22, top, { stroke: "#3b1200", width: 4 });
  s += `<g transform="translate(-5 95) scale(1.1)">${inner}</g>`;
  if (bottom) s += lettering(50, 270, bottom.length > 6 ? 16 : 22, bottom, { stroke: "#3b1200", width: 4 });
  return s;
}

export function giant(number) {
  const bg = number >= 12 ? "url(#g-magenta)" : "url(#g-navy)";
  const small = (x, y) => `<polygon points="${starPoints(x, y, 7.5, 3.2)}" fill="url(#g-gold)" stroke="#6b4400" stroke-width="1.2" stroke-linejoin="round"/>`;
  const arc = (k, cy, dir) => {
    let s = "";
    for (let i = 0; i < k; i++) {
      const a = Math.PI * (0.12 + (0.76 * i) / Math.max(1, k - 1));
      s += small(50 - 38 * Math.cos(a), cy - dir * 26 * Math.sin(a));
    }
    return s;
  };
  const half = Math.ceil(number / 2);
  let s = `<rect x="2" y="2" width="96" height="296" rx="14" fill="url(#g-gold)" stroke="#6b4400" stroke-width="3"/>
    <rect x="9" y="9" width="82" height="282" rx="9" fill="${bg}" stroke="#6b4400" stroke-width="2"/>
    <ellipse cx="50" cy="150" rx="44" ry="80" fill="url(#g-glow)" opacity=".55"/>`;
  s += sparkle(22, 90, 4) + sparkle(78, 212, 4) + sparkle(74, 80, 3) + sparkle(26, 224, 3);
  s += lettering(50, 50, 25, "SUPER", { stroke: "#3b1200", width: 4 });
  s += arc(half, 112, 1) + arc(number - half, 190, -1);
  s += `<polygon points="${starPoints(50, 152, 44, 20)}" fill="url(#g-gold)" stroke="#7a4a00" stroke-width="3" stroke-linejoin="round"/>`;
  s += `<polygon points="${starPoints(50, 152, 30, 14)}" fill="#fff" opacity=".3"/>`;
  s += lettering(50, 170, 44, String(number), { fill: "url(#g-red)", stroke: "#fff", width: 4, extra: `letter-spacing="-3"` });
  s += lettering(50, 270, 25, "STARS", { stroke: "#3b1200", width: 4 });
  return s;
}
