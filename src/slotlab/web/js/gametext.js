// A game's own texts in the player's language. The server describes a game in English, built
// from its model (GET /api/games/{id} -> rules); the games' catalogue (i18n/games/<lang>.json)
// holds each of those sentences as a message keyed "<game id or kind>.rule.<name>", whose English
// version is the template the server's sentence is read with: its numbers and names are the
// placeholders, filled again into the player's language. No model file holds a translation, so
// no model hash changes with one (tests/i18n/test_game_texts.py checks that every rule of every
// game is read by a template).
import { gameText, gameTemplates, locale, num, readEnglish } from "./i18n.js";
import { modelNames } from "./names.js";

const EN_NUMBER = /^\d{1,3}(,\d{3})+$|^\d+(\.\d+)?$/;

const prefixes = (desc) => [desc.id, desc.kind].filter(Boolean);

/**
 * A placeholder's English value in the player's language: a number ("10,000") in their digits; a
 * list of names ("A, B and C": placeholders named *_and, *_or) joined in their words; a list of
 * parts ("3 scatters: 10, 4 scatters: 15") read part by part with the "<game>.part.<name>" template;
 * a name the model gives (a symbol's, a combination's, a pool's) in the player's words (names.js).
 */
function localValue(desc, name, value) {
  if (EN_NUMBER.test(value)) return num(Number(value.replaceAll(",", "")));
  const names = modelNames(desc);
  if (names.has(value)) return names.get(value);
  const list = /_(and|or)$/.exec(name);
  if (list) {
    const items = value.split(/, | and | or /).map((v) => names.get(v) ?? v);
    return new Intl.ListFormat(locale(), { type: list[1] === "and" ? "conjunction" : "disjunction" }).format(items);
  }
  for (const [key, template] of gameTemplates(prefixes(desc).map((p) => `${p}.part.${name}`))) {
    if (key.split(".").pop() !== name) continue;
    const parts = value.split(", ").map((part) => readEnglish(template, part));
    if (parts.every(Boolean)) return parts.map((args) => gameText(key, localArgs(desc, args))).join(", ");
  }
  return value;
}

function localArgs(desc, args) {
  return Object.fromEntries(Object.entries(args).map(([k, v]) => [k, localValue(desc, k, v)]));
}

/** One English sentence of the game in the player's language; undefined if no template reads it. */
function sentence(desc, text) {
  for (const [key, template] of gameTemplates(prefixes(desc).map((p) => `${p}.rule.`))) {
    const args = readEnglish(template, text);
    if (args) return gameText(key, localArgs(desc, args));
  }
  return undefined;
}

/** A text of the game's description, translated whole, else sentence by sentence, else (an
 * operator's or a model's sentence no catalogue knows) as the server wrote it. */
export function gameSentence(desc, text) {
  const whole = sentence(desc, text);
  if (whole !== undefined) return whole;
  const parts = String(text).split(/(?<=\.)\s+/);
  const each = parts.map((p) => sentence(desc, p));
  return parts.length > 1 && each.every((p) => p !== undefined) ? each.join(" ") : text;
}

/** The game's rules (describe().rules) in the player's language. */
export function gameRules(desc) {
  return (desc.rules || []).map((r) => gameSentence(desc, r));
}

/** A game's own message (its feature module's help, counters), keyed "<kind>.<key>". */
export function featureText(desc, key, args = {}) {
  for (const p of prefixes(desc)) {
    const text = gameText(`${p}.${key}`, args);
    if (text !== undefined) return text;
  }
  console.warn(`i18n: no game message ${key} for ${desc.id}`);
  return key;
}
