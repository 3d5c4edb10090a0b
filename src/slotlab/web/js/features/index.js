// Which feature module draws a game (by its describe().kind; by its id only for a description
// without one: a composed game whose id starts like a coded game's is still composed), and the
// hosts the game screen and the RECALL replay give it.
import { Composed } from "./composed.js";
import { Super12Stars } from "./super12stars.js";
import { Superstars } from "./superstars.js";

const byKindOrId = (kind, id) => (d) => (d.kind ? d.kind === kind : id.test(d.id || ""));
const MODULES = [
  { test: byKindOrId("super-12-stars", /^super-12-stars/), make: Super12Stars },
  { test: byKindOrId("superstars", /^superstars(-|$)/), make: Superstars },
  { test: (d) => d.kind === "composed", make: Composed },
];

/** The feature module for this game, mounted on host, or null for a game that needs none. */
export function featureFor(desc, host) {
  const m = MODULES.find((x) => x.test(desc || {}));
  if (!m) return null;
  const f = new m.make(desc, host);
  f.mount();
  return f;
}

/** The host of a live game screen (see common.js). */
export function hostForGame(game) {
  return {
    get reels() {
      return game.reels;
    },
    get stage() {
      return game.stage;
    },
    // a phone's 5x3 window is too short for a wheel: feature screens take the screen above the
    // controls instead (SPIN stays in reach for a quick stop)
    panelRoot: () => {
      if (!matchMedia("(max-width: 600px)").matches) return game.stage;
      const controls = game.view.querySelector(".controls")?.getBoundingClientRect();
      if (controls) game.view.style.setProperty("--panel-bottom", `${Math.max(0, innerHeight - controls.top + 6)}px`);
      return game.view;
    },
    get status() {
      return game.statusRow;
    },
    get instant() {
      return !!game.playingInstant;
    },
    skip: () => !!game.skip,
    auto: () => !!game.auto,
    gone: () => !!game.gone,
    credits: (c) => game.credits(c),
    bet: () => Number(game.round?.bet_credits ?? game.betCredits),
    message: (t, cls) => game.message(t, cls),
    choose: (opt) => game.choose(opt),
    setPacing: (name) => {
      if (name) game.view.dataset.pacing = name;
      else delete game.view.dataset.pacing;
    },
    setWin: (credits) => game.showFeatureWin(credits),
    // a win at or below the stake is not celebrated where the profile says so
    celebrates: (credits) => Number(credits) * game.denom > game.betMoney || game.app.profile.celebrateSmall,
  };
}

/** The host of a RECALL replay: every step drawn at once. */
export function hostForReplay({ reels, stage, status, credits, bet }) {
  return {
    reels,
    stage,
    status,
    instant: true,
    replay: true,
    skip: () => true,
    auto: () => false,
    gone: () => !stage.isConnected,
    credits,
    bet: () => bet,
    message: () => {},
    choose: null,
    setPacing: () => {},
    setWin: () => {},
  };
}
