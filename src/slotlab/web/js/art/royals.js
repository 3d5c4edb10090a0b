// The card royals (10, J, Q, K, A): chunky lettering with a bevel, each in its own colour, on a
// small jewelled ornament, as video slots paint their low symbols.
import { lettering, sparkle } from "./common.js";

const SERIF = "font-weight=\"900\" font-family=\"Georgia, 'DejaVu Serif', 'Times New Roman', serif\" text-anchor=\"middle\"";

const ROYALS = {
  A: { fill: "url(#g-ruby)", edge: "#4a0010", gem: "#ffd54a" },
  K: { fill: "url(#g-blue)", edge: "#08215c", gem: "#ff5252" },
  Q: { fill: "url(#g-purple)", edge: "#2e0a52", gem: "#69f0ae" },
  J: { fill: "url(#g-green)", edge: "#0b3d14", gem: "#40c4ff" },
  10: { fill: "url(#g-orange)", edge: "#5a2200", gem: "#ea80fc" },
};

const ALIASES = { ace: "A", king: "K", queen: "Q", jack: "J", ten: "10" };

/** The royal a symbol's name stands for ("A", "Ace", "10", ...), or null. */
export function royalOf(name) {
  const n = String(name).trim().toLowerCase();
  if (ALIASES[n]) return ALIASES[n];
  const up = n.toUpperCase();
  return Object.hasOwn(ROYALS, up) ? up : null;
}

export function royal(which) {
  const r = ROYALS[which];
  const wide = which.length > 1;
  const size = wide ? 60 : 74;
  const spacing = wide ? `letter-spacing="-6"` : "";
  const y = 74;
  // the ornament: a gold bar with a gem, under the letter
  const ornament = `<path d="M14 84 Q 50 74 86 84 L 82 92 Q 50 84 18 92 Z" fill="url(#g-gold)" stroke="#6b4400" stroke-width="2" stroke-linejoin="round"/>
    <polygon points="50,76 58,84 50,94 42,84" fill="${r.gem}" stroke="#3b1200" stroke-width="2" stroke-linejoin="round"/>
    <polygon points="50,76 54,84 50,86 46,84" fill="#fff" opacity=".6"/>`;
  const back = lettering(50, y, size, which, { fill: r.edge, stroke: r.edge, width: 9, font: SERIF, extra: spacing });
  const face = lettering(50, y, size, which, { fill: r.fill, stroke: "#fff", width: 1.5, font: SERIF, extra: spacing });
  const shine = `<text x="50" y="${y}" font-size="${size}" ${SERIF} ${spacing} fill="url(#g-shine)">${which}</text>`;
  return ornament + back + face + shine + sparkle(wide ? 82 : 74, 20, 6);
}
