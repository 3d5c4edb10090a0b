// What a game's feature module offers the game screen and the RECALL replay. A module draws the
// events of its own game; whatever it does not take is drawn by the generic client.
import { featureText } from "../gametext.js";

export class Feature {
  /** desc: the game's describe(); host: see common.js. */
  constructor(desc, host) {
    this.desc = desc;
    this.host = host;
  }

  /** The game's own message `key` in the player's language (i18n/games/<lang>.json). */
  text(key, args) {
    return featureText(this.desc, key, args);
  }

  /** Add the feature's elements to the screen (once). */
  mount() {}

  /** A new round starts (or a replay redraws from its first step). */
  reset() {}

  /** Draw event e; true when the feature took it (the generic client then skips it). */
  async handle(_e) {
    return false;
  }

  /** True when e belongs inside free spins (a feature they start), so it does not end them. */
  duringFreeSpins(_e) {
    return false;
  }

  /** After the generic client drew event e (which the feature did not take). */
  after(_e) {}

  /** Credits event e adds to the round's win, or undefined to leave it to the generic rule. */
  eventWin(_e) {
    return undefined;
  }

  /** A choice the round waits for: true when the feature shows it (the game then waits). */
  offer(_awaiting) {
    return false;
  }

  /** e in words, or undefined to use the generic text. */
  describe(_e, _fmt) {
    return undefined;
  }

  /** True when e is a feature for auto spin's "when a feature is won" stop. */
  isFeature(_e) {
    return false;
  }

  /** Sections for PAYS / HELP: [{title, items: [text]}]. */
  help() {
    return [];
  }

  /** The round is over (its total screen, then its counters go); awaited before the win. */
  async finish(_res) {}
}
