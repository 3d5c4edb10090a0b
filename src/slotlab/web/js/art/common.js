// Small drawing helpers shared by the symbol art (all on a 100 x 100 viewBox unless told).

const LETTERING = "font-weight=\"900\" font-family=\"'Arial Black', 'Arial Bold', Arial, sans-serif\" text-anchor=\"middle\"";

/** The points of a star: n tips of radius r1 and notches of radius r2 round (cx, cy). */
export function starPoints(cx, cy, r1, r2, n = 5, turn = -Math.PI / 2) {
  const pts = [];
  for (let i = 0; i < 2 * n; i++) {
    const r = i % 2 ? r2 : r1;
    const a = turn + (i * Math.PI) / n;
    pts.push(`${(cx + r * Math.cos(a)).toFixed(1)},${(cy + r * Math.sin(a)).toFixed(1)}`);
  }
  return pts.join(" ");
}

/** A slot machine's seven, drawn (no font needed): 56 x 80 at scale 1, top-left at (x, y), with
 * an optional outer rim (halo). */
export function seven(x, y, scale = 1, fill = "url(#g-red)", edge = "#4a0008", halo = "") {
  const w = (3 / scale).toFixed(2);
  const d = "M2 3 L 55 3 L 55 16 C 41 32, 32 52, 31 79 L 11 79 C 12 56, 22 36, 36 18 L 13 18 L 13 27 L 2 27 Z";
  return `<g transform="translate(${x} ${y}) scale(${scale})">
    ${halo ? `<path d="${d}" fill="${halo}" stroke="${halo}" stroke-width="${(9 / scale).toFixed(2)}" stroke-linejoin="round"/>` : ""}
    <path d="${d}" fill="${fill}" stroke="${edge}" stroke-width="${w}" stroke-linejoin="round"/>
    <path d="M6 8 L 51 8 M 34 24 C 26 38, 20 54, 19 72" stroke="#fff" stroke-width="${(2.5 / scale).toFixed(2)}" opacity=".45" fill="none" stroke-linecap="round"/>
  </g>`;
}

/** Lettering as slot machines paint it: a fill over a thick outline. */
export function lettering(x, y, size, text, { fill = "url(#g-gold)", stroke = "#3b1200", width = 3, font = LETTERING, extra = "" } = {}) {
  return `<text x="${x}" y="${y}" font-size="${size}" ${font} fill="${fill}" stroke="${stroke}" stroke-width="${width}" stroke-linejoin="round" paint-order="stroke" ${extra}>${text}</text>`;
}

/** A four-pointed twinkle, the sparkle on gems and gold. */
export function sparkle(x, y, r, fill = "#fff") {
  const s = r * 0.28;
  return `<path d="M${x} ${y - r} Q${x + s} ${y - s} ${x + r} ${y} Q${x + s} ${y + s} ${x} ${y + r} Q${x - s} ${y + s} ${x - r} ${y} Q${x - s} ${y - s} ${x} ${y - r}Z" fill="${fill}"/>`;
}

/** Flames licking up behind a symbol (the fiery sevens): tongues of fire on a glowing bed. */
export function flames(cx = 50, base = 92, w = 80, h = 70) {
  const tongue = (x, tw, th, fill) => {
    const l = x - tw / 2, r = x + tw / 2, lean = tw * 0.22, f = (v) => v.toFixed(1);
    return `<path d="M${f(l)} ${base} C${f(l)} ${f(base - th * 0.45)} ${f(x - tw * 0.05)} ${f(base - th * 0.62)} ${f(x + lean)} ${f(base - th)} C${f(x + tw * 0.38)} ${f(base - th * 0.55)} ${f(r)} ${f(base - th * 0.42)} ${f(r)} ${base} Z" fill="${fill}"/>`;
  };
  const spots = [[-0.34, 0.36, 0.55], [-0.17, 0.36, 0.86], [0.02, 0.38, 1], [0.2, 0.34, 0.78], [0.36, 0.3, 0.6]];
  let s = `<ellipse cx="${cx}" cy="${base - 8}" rx="${w / 2}" ry="12" fill="#ff5722"/>`;
  for (const [dx, tw, th] of spots) s += tongue(cx + dx * w, tw * w, th * h, "url(#g-flame)");
  for (const [dx, tw, th] of spots) s += tongue(cx + dx * w, tw * w * 0.5, th * h * 0.55, "#ffd740");
  return s + `<ellipse cx="${cx}" cy="${base - 3}" rx="${w * 0.4}" ry="5" fill="#ffd740"/>`;
}

/** Gradients the art modules use (added to the page once, with the others). */
export const ART_DEFS = `
  <linearGradient id="g-flame" x1="0" y1="1" x2="0" y2="0"><stop offset="0" stop-color="#ff3d00"/><stop offset=".6" stop-color="#ff9100"/><stop offset="1" stop-color="#ffd740" stop-opacity=".2"/></linearGradient>
  <linearGradient id="g-silver" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#ffffff"/><stop offset=".5" stop-color="#c9d2de"/><stop offset="1" stop-color="#6d7a8c"/></linearGradient>
  <linearGradient id="g-steel" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#f4f7fb"/><stop offset=".45" stop-color="#a9b5c6"/><stop offset="1" stop-color="#4b5668"/></linearGradient>
  <linearGradient id="g-skin" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#ffe0c2"/><stop offset="1" stop-color="#e9a77c"/></linearGradient>
  <linearGradient id="g-pig" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#ffd6e4"/><stop offset="1" stop-color="#f27aa6"/></linearGradient>
  <linearGradient id="g-alien" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#b7f56b"/><stop offset="1" stop-color="#3f8f1a"/></linearGradient>
  <linearGradient id="g-hat" x1="0" y1="0" x2="1" y2="0"><stop offset="0" stop-color="#1b7a34"/><stop offset=".45" stop-color="#4cc95f"/><stop offset="1" stop-color="#0f5422"/></linearGradient>
  <linearGradient id="g-beard" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#ff8a3d"/><stop offset="1" stop-color="#c0390b"/></linearGradient>
  <linearGradient id="g-ruby" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#ff5c7a"/><stop offset="1" stop-color="#9e0031"/></linearGradient>
  <linearGradient id="g-magenta" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#ff4fa3"/><stop offset="1" stop-color="#7a0050"/></linearGradient>
  <linearGradient id="g-navy" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#3949ab"/><stop offset="1" stop-color="#0d1247"/></linearGradient>
  <linearGradient id="g-dice-top" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#ff8a80"/><stop offset="1" stop-color="#e53935"/></linearGradient>
  <linearGradient id="g-dice-left" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#e53935"/><stop offset="1" stop-color="#b71c1c"/></linearGradient>
  <linearGradient id="g-dice-right" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#b71c1c"/><stop offset="1" stop-color="#7f0000"/></linearGradient>
  <linearGradient id="g-ice" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#ffffff"/><stop offset=".5" stop-color="#b3f0ff"/><stop offset="1" stop-color="#29b6f6"/></linearGradient>
  <radialGradient id="g-glow" cx=".5" cy=".5" r=".5"><stop offset="0" stop-color="#fff59d" stop-opacity=".95"/><stop offset=".6" stop-color="#ffca28" stop-opacity=".45"/><stop offset="1" stop-color="#ff6f00" stop-opacity="0"/></radialGradient>
  <radialGradient id="g-pinkglow" cx=".5" cy=".5" r=".5"><stop offset="0" stop-color="#ffffff" stop-opacity=".9"/><stop offset=".55" stop-color="#ff80ab" stop-opacity=".5"/><stop offset="1" stop-color="#c2185b" stop-opacity="0"/></radialGradient>
`;
