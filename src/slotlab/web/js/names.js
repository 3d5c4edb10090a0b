// The names a game's model gives (symbols, paytable combinations, progressive pools) in the
// player's language. The games' catalogue keys them "symbol.<game id>.<symbol id>",
// "combination.<game id>.<combination id>" and "pool.<game id>.<tier>", its English message being
// the model's own name. A name is translated only while the model still says that English name,
// so a designer's own model file (or one that renamed a symbol) shows its names as it wrote them.
// Only the displayed text changes: the artwork is still chosen by the model's id and English name
// (symbols.js).
import { englishGameText, gameText, locale, tMaybe } from "./i18n.js";

function named(key, name) {
  if (name === undefined || name === null || name === "") return name;
  return englishGameText(key) === String(name) ? gameText(key) : String(name);
}

/** A symbol's name ({id, name}) in the player's language. */
export function symbolText(desc, sym) {
  if (!sym) return "";
  return named(`symbol.${desc?.id}.${sym.id}`, sym.name ?? sym.id);
}

/** A paytable row's name: its combination's, else its symbol's. */
export function payLabel(desc, row, sym) {
  if (row.combination !== undefined) return named(`combination.${desc?.id}.${row.combination}`, row.label);
  if (sym && (!row.label || row.label === sym.name)) return symbolText(desc, sym);
  return row.label || String(row.symbol ?? "");
}

/** A progressive pool's name ("Top Progressive") given by the model. */
export const poolText = (desc, tier, name) => named(`pool.${desc?.id}.${tier}`, name);

/** A pool's tier ("top") as a word of the player's language ("Top", "Superior"). */
export function tierText(tier) {
  const s = String(tier ?? "");
  return tMaybe(`pool.tier.${s}`) ?? `${s.charAt(0).toUpperCase()}${s.slice(1)}`;
}

/** The English names of a game's model (symbols, combinations, pools) -> the player's words:
 * how a name inside a rule sentence (a placeholder's value) is said in the player's language. */
export function modelNames(desc) {
  const out = new Map();
  const syms = new Map((desc?.symbols || []).map((s) => [String(s.id), s]));
  for (const s of syms.values()) if (s.name) out.set(String(s.name), symbolText(desc, s));
  for (const p of desc?.paytable || []) if (p.label) out.set(String(p.label), payLabel(desc, p, syms.get(String(p.symbol))));
  const prog = desc?.progressives;
  const pools = Array.isArray(prog) ? prog : Object.entries(prog || {}).map(([tier, v]) => ({ tier, ...(v || {}) }));
  for (const p of pools) if (p.name) out.set(String(p.name), poolText(desc, p.tier, p.name));
  return out;
}

export const upper = (text) => String(text).toLocaleUpperCase(locale());
