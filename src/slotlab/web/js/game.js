// One game screen: plays back the server's event log. The client never decides an outcome: it
// sends the bet (or a choice) and draws what the returned events say. A gamble is offered on
// request: after a win the round waits with a GAMBLE button, and SPIN collects and plays on.
import { explain } from "./api.js";
import { alertBox, clearToast, dialogOpen, toast } from "./dialogs.js";
import { describeEvent, eventWin, FEATURE_EVENTS, poolName } from "./eventtext.js";
import { featureFor, hostForGame } from "./features/index.js";
import { num, t } from "./i18n.js";
import { openAutoDialog, openBetDialog, openMenu, openPays } from "./panels.js";
import { openRecall } from "./recall.js";
import { Reels } from "./reels.js";
import { handleRoundRefusal } from "./responsible.js";
import { handleRunRefusal, startRun, stopRun } from "./autorun.js";
import { sound } from "./sound.js";
import { h, pick, sleep, store } from "./util.js";

// wins gathered into one presentation per reel stop
const WIN_EVENTS = new Set(["line_won", "scatter_won", "flat_prize_won"]);
// what a free spin is made of; any other event after the free spins ends them
const FREE_SPIN_EVENTS = new Set([...WIN_EVENTS, "free_spin_started", "free_spins_triggered", "reels_stopped", "reels_nudged"]);

export class GameView {
  constructor(app, gameId) {
    this.app = app;
    this.id = gameId;
    this.busy = false;
    this.round = null; // the round being shown (server JSON)
    this.shown = 0; // events of this.round already played back
    this.roundWin = 0; // credits shown so far in this round
    this.auto = null;
    this.skip = false;
    this.cycleToken = 0;
    this.lastStart = 0;
    this.lastWins = [];
    this.paid = []; // this round's wins, stage by stage: {e, stage, window}
    this.nudges = 0; // nudges so far in this round (its stage)
    this.offer = null; // the gamble the round waits for, offered on request
    this.freePkg = null;
  }

  // ---- money -----------------------------------------------------------------------------
  /** Event amounts are credits; the wallet is minor units: credits × denomination. */
  credits(c) {
    return this.app.money(Number(c) * this.denom);
  }
  get betCredits() {
    return this.ladder[this.betIndex];
  }
  get betMoney() {
    return this.ladderMoney[this.betIndex];
  }

  async mount(root) {
    const api = this.app.api;
    this.desc = await api.get(`/api/games/${encodeURIComponent(this.id)}`);
    this.listing = (this.app.games || []).find((g) => g.id === this.id) || {};
    this.denom = Number(pick(this.desc, "denomination") ?? pick(this.listing, "denomination") ?? 1) || 1;
    // the server gives the ladder in money (bets) and in credits (bets_credits); the engine's
    // describe() alone gives credits
    this.ladder = (this.desc.bets_credits || this.desc.bets).map(Number);
    this.ladderMoney = this.desc.bets_credits ? this.desc.bets.map(Number) : this.ladder.map((b) => b * this.denom);
    const saved = store(`bet.${this.id}`);
    this.betIndex = Math.max(0, this.ladderMoney.indexOf(saved));
    this.reels = new Reels(this.desc);
    this.root = root;
    root.replaceChildren(this.render());
    // a game with features of its own (wheels, hold-and-win, a board) draws them in its module
    this.feature = featureFor(this.desc, hostForGame(this));
    this.updateBet();
    this.keyHandler = (e) => this.onKey(e);
    document.addEventListener("keydown", this.keyHandler);
    if (this.desc.progressives) this.startJackpots();
    await this.loadFreeRounds();
    this.setState("idle");
    this.refreshSessionInfo();
  }

  /** Where the profile asks for it: time played this session and the net position. */
  async refreshSessionInfo() {
    if (!this.app.profile.showNet) return;
    try {
      const s = await this.app.api.get("/api/session", { retries: 0 });
      const mins = Math.floor(Number(s.session?.elapsed_s ?? 0) / 60);
      const net = Number(s.net_position ?? 0);
      this.sessEl.hidden = false;
      this.sessEl.textContent = t("game.session_info", { mins, net: `${net > 0 ? "+" : ""}${this.app.money(net)}` });
    } catch {
      /* informational only */
    }
  }

  unmount() {
    this.gone = true;
    if (this.auto && !this.auto.serverStopped) stopRun(this, this.auto.runId, "left");
    this.auto = null;
    document.removeEventListener("keydown", this.keyHandler);
    clearInterval(this.jpTimer);
    sound.stopSpin();
  }

  render() {
    const d = this.desc;
    const p = this.app.profile;
    this.msg = h("div.message", { "data-testid": "message", role: "status", "aria-live": "polite" }, t("game.good_luck"));
    this.winEl = h("output.value", { "data-testid": "win" }, this.credits(0));
    this.betEl = h("output.value", { "data-testid": "bet" }, "");
    this.spinBtn = h("button.spin", { "data-testid": "spin", "aria-label": t("game.spin_label"), onclick: () => this.onSpinButton() }, h("span.spin-icon", { "aria-hidden": "true" }, "⟳"), h("span.spin-label", {}, t("button.spin")));
    this.autoBtn = h("button.ctl", { "data-testid": "auto", onclick: () => this.onAutoButton(), disabled: !p.autoplay, title: p.autoplay ? t("auto.title") : t("game.no_autoplay") }, t("game.auto"));
    this.soundBtn = h("button.ctl", { "data-testid": "sound", "aria-pressed": String(sound.enabled), onclick: () => this.toggleSound() }, sound.enabled ? t("game.sound_on") : t("game.sound_off"));
    this.betDown = h("button.ctl.small", { "data-testid": "bet-down", "aria-label": t("game.bet_down"), onclick: () => this.stepBet(-1) }, "−");
    this.betUp = h("button.ctl.small", { "data-testid": "bet-up", "aria-label": t("game.bet_up"), onclick: () => this.stepBet(1) }, "+");
    this.fsEl = h("div.fs-banner", { "data-testid": "free-spins", hidden: true });
    this.frbEl = h("div.frb-banner", { "data-testid": "free-rounds", hidden: true });
    this.bigEl = h("div.bigwin", { "data-testid": "bigwin", hidden: true });
    this.gambleEl = h("section.gamble", { "data-testid": "gamble", hidden: true, "aria-label": t("gamble.label") });
    this.gambleBtn = h("button.ctl.gamble-open", { "data-testid": "gamble-open", hidden: true, onclick: () => this.openGamble() }, t("gamble.open"));
    this.paidEl = h("div.paid-list", { "data-testid": "paid-list", hidden: true, "aria-label": t("game.paid_label") });
    this.jpEl = d.progressives ? h("div.jackpots", { "data-testid": "jackpots" }) : null;
    this.sessEl = h("div.session-info", { "data-testid": "session-info", hidden: true });

    const stage = h("div.stage", {}, this.reels.el, this.gambleEl, this.bigEl);
    this.stage = stage;
    this.statusRow = h("div.status-row", {}, this.sessEl);
    // the free-spin total and the PAID list sit on the cabinet's rim: showing them moves nothing
    this.plaques = h("div.plaques", {}, this.fsEl, this.paidEl);
    this.view = h(
      "section.game",
      { "data-testid": "game", "data-game": this.id, "aria-label": d.name, style: { "--game-hue": gameHue(this.id) } },
      h(
        "div.game-head",
        {},
        h("button.ctl", { "data-testid": "lobby", onclick: () => this.leave("#/lobby") }, t("game.lobby")),
        h("h1.game-title", {}, d.name),
        h("button.ctl", { "data-testid": "menu", onclick: () => openMenu(this) }, t("game.menu")),
      ),
      // the reels and what sits over them; beside them on a wide screen, the message, the
      // meters and the controls (css: one column below 1000 px, as the wrappers are not boxes)
      h(
        "div.play-area",
        {},
        this.jpEl,
        this.statusRow,
        this.frbEl,
        // the height the page leaves the reels: --chrome-narrow in one column, --chrome-wide beside the controls
        h("div.cabinet", { "data-kind": d.kind || "", style: { "--reels": d.reels, "--rows": d.rows, "--chrome-narrow": `${d.progressives ? 560 : 450}px`, "--chrome-wide": `${d.progressives ? 295 : 205}px` } }, this.plaques, stage),
      ),
      h(
        "div.side",
        {},
        h("div.message-row", {}, this.msg, this.gambleBtn),
        h(
          "div.meters",
          {},
          h("div.meter", {}, h("span.label", {}, t("button.bet")), h("div.bet-row", {}, this.betDown, this.betEl, this.betUp)),
          h("div.meter", {}, h("span.label", {}, t("game.win")), this.winEl),
        ),
        h(
          "div.controls",
          {},
          this.soundBtn,
          h("button.ctl", { "data-testid": "pays", onclick: () => openPays(this) }, t("button.pays")),
          h("button.ctl", { "data-testid": "bet-settings", onclick: () => this.collectThen(() => openBetDialog(this)) }, t("button.bet")),
          this.spinBtn,
          this.autoBtn,
          h("button.ctl", { "data-testid": "recall", onclick: () => openRecall(this.app, this.id) }, t("button.recall")),
        ),
      ),
    );
    document.documentElement.style.setProperty("--page-hue", gameHue(this.id)); // the page's background (themes.css)
    return this.view;
  }

  setState(s) {
    this.state = s;
    this.view.dataset.state = s;
    const spinning = s === "spinning" || s === "presenting";
    this.spinBtn.classList.toggle("stop", spinning && this.app.profile.quickStop);
    this.spinBtn.querySelector(".spin-label").textContent = this.auto
      ? t("game.stop_n", { n: Number.isFinite(this.auto.left) ? this.auto.left : "∞" })
      : spinning && this.app.profile.quickStop
        ? this.feature?.quickStopLabel || t("game.stop")
        : t("button.spin");
    this.spinBtn.setAttribute("aria-label", this.auto ? t("game.stop_auto_label") : spinning ? t("game.quick_stop_label") : t("game.spin_label"));
    // an offered or open gamble is collected by SPIN, AUTO or a bet change
    this.spinBtn.disabled = s === "choice" || (spinning && !this.app.profile.quickStop && !this.auto);
    const lockBet = !(s === "idle" || s === "offered") || !!this.freePkg;
    this.betUp.disabled = lockBet || this.betIndex >= this.ladder.length - 1;
    this.betDown.disabled = lockBet || this.betIndex <= 0;
    this.autoBtn.disabled = !this.app.profile.autoplay || s === "choice";
    this.gambleBtn.hidden = s !== "offered";
  }

  message(text, cls = "") {
    this.msg.textContent = text;
    this.msg.className = `message ${cls}`;
  }

  // ---- bet -------------------------------------------------------------------------------
  stepBet(d) {
    if (this.freePkg) return;
    if (this.state === "offered") return this.collectThen(() => this.stepBet(d));
    if (this.state !== "idle") return;
    this.setBetIndex(this.betIndex + d);
    sound.click();
  }

  setBetIndex(i) {
    this.betIndex = Math.min(this.ladder.length - 1, Math.max(0, i));
    store(`bet.${this.id}`, this.betMoney);
    this.updateBet();
    this.setState(this.state || "idle");
  }

  updateBet() {
    this.betEl.textContent = this.app.money(this.betMoney);
    this.betEl.dataset.minor = this.betMoney;
    this.renderJackpots();
  }

  /** What the API takes as a bet: the ladder in the games list (money) or describe's credits. */
  apiBet() {
    return this.betMoney;
  }

  toggleSound() {
    const on = sound.toggle();
    this.soundBtn.textContent = on ? t("game.sound_on") : t("game.sound_off");
    this.soundBtn.setAttribute("aria-pressed", String(on));
  }

  // ---- keyboard --------------------------------------------------------------------------
  onKey(e) {
    if (e.code !== "Space" && e.key !== " ") return;
    if (dialogOpen() || this.gone) return;
    const t = e.target;
    if (t && (t.tagName === "INPUT" || t.tagName === "SELECT" || t.tagName === "TEXTAREA")) return;
    // a focused button keeps its own Space activation (keyboard users), except SPIN itself
    if (t && (t.tagName === "BUTTON" || t.tagName === "A") && t !== this.spinBtn) return;
    if (!this.app.spaceToSpin) return;
    e.preventDefault();
    if (e.repeat) return;
    if (this.state !== "choice") this.onSpinButton();
  }

  // ---- spinning --------------------------------------------------------------------------
  onSpinButton() {
    if (this.auto) {
      this.stopAuto(t("auto.stopped"));
      if (this.busy && this.app.profile.quickStop) this.quickStop();
      return;
    }
    if (this.busy) {
      if (this.app.profile.quickStop) this.quickStop();
      return;
    }
    this.collectThen(() => this.spin());
  }

  /** Collect a gamble offered (or open), then go on; nothing goes on if the collect failed. */
  async collectThen(next) {
    if (this.offer || this.state === "gamble") {
      if (this.busy || !(await this.choose("collect"))) return;
    }
    return next();
  }

  /** Leave the screen; a win waiting only for its collect is collected first. */
  async leave(hash) {
    if (this.state === "offered" && !this.busy) await this.choose("collect");
    this.app.go(hash);
  }

  quickStop() {
    this.skip = true;
    this.reels.quickStop();
  }

  /** Play one round; whatever goes wrong leaves the screen usable and stops auto spin. */
  async spin() {
    try {
      return await this.playRound();
    } catch (err) {
      console.error(err);
      sound.stopSpin();
      this.busy = false;
      this.skip = false;
      this.setState("idle");
      this.message(explain(err), "error");
      this.stopAuto(t("auto.stopped_because", { why: explain(err) }), "error");
      return false;
    }
  }

  async playRound() {
    if (this.busy || this.state === "gamble" || this.state === "choice" || this.offer) return false;
    const minGap = this.app.profile.minCycleMs;
    const since = performance.now() - this.lastStart;
    if (minGap && this.lastStart && since < minGap + 300) {
      this.message(t("game.min_cycle", { s: num(minGap / 1000, { minimumFractionDigits: 1, maximumFractionDigits: 1 }) }));
      await sleep(minGap + 300 - since); // a margin for the time the request takes to arrive
      if (this.gone) return false;
    }
    this.busy = true;
    this.skip = false;
    this.cycleToken++;
    this.hideBig();
    clearToast(); // what it said belongs to the last round
    this.lastStart = performance.now();
    this.setState("spinning");
    this.message(this.freePkg ? t("game.free_round_luck") : t("game.good_luck"));
    this.winEl.textContent = this.credits(0);
    this.winEl.dataset.minor = 0;
    this.fsEl.hidden = true;
    delete this.fsEl.dataset.done;
    this.paid = [];
    this.nudges = 0;
    this.renderPaid();
    this.reels.startSpin();
    sound.spinStart();
    const body = { bet: this.apiBet() };
    if (this.freePkg) body.free_round_id = pick(this.freePkg, "id", "free_round_id", "package_id");
    if (this.auto) body.autoplay = this.autoDeclaration();
    const t0 = performance.now();
    let res;
    try {
      const path = `/api/games/${encodeURIComponent(this.id)}/rounds`;
      try {
        res = await this.app.api.post(path, body);
      } catch (err) {
        // too fast for the profile's minimum game cycle: nothing was played, so wait and retry once
        if (!(err.status === 429 && minGap)) throw err;
        await sleep(minGap / 2);
        res = await this.app.api.post(path, body);
      }
    } catch (err) {
      sound.stopSpin();
      await this.reels.stop(this.reels.window || this.reels.randomWindow());
      this.busy = false;
      this.setState("idle");
      if (handleRunRefusal(this, err)) return false; // the server stopped the autoplay run
      if (handleRoundRefusal(this, err)) return false; // a reality check due, a loss limit
      this.message(explain(err), "error");
      this.stopAuto(t("auto.stopped_because", { why: explain(err) }), "error");
      toast(explain(err), "error", 8000);
      this.app.refreshWallet().catch(() => {});
      if (err.status === 409) await this.app.resumeOpenRound();
      if (err.status === 401) this.app.logout(true);
      return false;
    }
    // keep the reels spinning at least a moment, so a round always looks like one
    const minSpin = this.app.profile.quickStop ? 350 : 900;
    const left = minSpin - (performance.now() - t0);
    if (left > 0 && !this.skip) await this.reels.wait(left);
    this.app.setBalance(this.pendingBalance(res));
    this.round = res;
    this.shown = 0;
    this.roundWin = 0;
    this.lastWins = [];
    this.cardHistory = [];
    this.freeWin = 0;
    this.freeTotal = 0;
    this.inFree = false;
    this.view.dataset.roundId = res.round_id || "";
    this.bigShown = false;
    this.feature?.reset();
    await this.playEvents(res.events || []);
    sound.stopSpin();
    if (this.gone) return false;
    // a big win is presented as soon as the reels have shown it (before a gamble offer)
    const shownWin = res.awaiting ? this.roundWin * this.denom : this.roundWinMoney(res);
    if (shownWin >= 10 * this.betMoney && !this.skip) {
      this.bigShown = true;
      await this.bigWin(shownWin, shownWin / this.betMoney);
    }
    return this.afterRound(res);
  }

  /** Balance to show while the win is still being presented. */
  pendingBalance(res) {
    const bal = pick(res, "balance");
    if (bal === undefined) return this.app.wallet.balance;
    if (res.status === "completed") return bal - this.roundWinMoney(res);
    return bal;
  }

  roundWinMoney(res) {
    const w = pick(res, "win_amount", "win_minor");
    if (w !== undefined) return Number(w);
    // the server's round win is money (minor units); a progressive is paid beside it
    return Number(res.win || 0) + Number(res.jackpot_win || 0);
  }

  /** Play events [from..] of the log; a free spin re-spins the reels, nudges slide them. */
  async playEvents(events, { instant = false } = {}) {
    let stageWins = [];
    const flush = async () => {
      if (stageWins.length) await this.presentStage(stageWins, instant);
      stageWins = [];
    };
    this.playingInstant = instant;
    for (let i = this.shown; i < events.length; i++) {
      const e = events[i];
      this.shown = i + 1;
      if (this.gone) return;
      if (this.inFree && !FREE_SPIN_EVENTS.has(e.type) && !this.feature?.duringFreeSpins(e)) {
        await flush(); // the last free spin's wins count
        await this.endFreeSpins(instant);
      }
      if (this.feature && !WIN_EVENTS.has(e.type)) {
        await flush();
        const w = this.feature.eventWin(e);
        if (w) this.showFeatureWin(this.roundWin + Number(w));
        if (await this.feature.handle(e)) continue;
      }
      switch (e.type) {
        case "reels_stopped":
          await flush();
          this.lastWins = [];
          if (instant) this.reels.setWindow(e.window);
          else {
            if (e.stage === "free" || !this.reels.spinning.size) {
              this.reels.startSpin();
              if (this.skip) this.reels.quickStop();
              await this.reels.wait(e.stage === "free" ? 350 : 150);
            }
            const anticipate = (this.desc.symbols || []).some((s) => s.scatter);
            await this.reels.stop(e.window, { onReel: (r) => sound.reelStop(r), anticipate });
          }
          sound.stopSpin();
          break;
        case "reels_nudged":
          await flush();
          this.reels.clearWins();
          this.lastWins = [];
          this.nudges += 1;
          // the reels move away from what paid before: the wins stay listed
          this.renderPaid();
          this.message(t("game.nudge", { step: e.step }), "feature");
          if (instant) this.reels.setWindow(e.window);
          else {
            if (!this.skip) await this.reels.wait(250);
            sound.nudge();
            await this.reels.nudge(e.window);
          }
          break;
        case "line_won":
        case "scatter_won":
        case "flat_prize_won":
          stageWins.push(e);
          this.lastWins.push(e);
          break;
        case "free_spins_triggered":
          await flush();
          this.freeTotal = e.total_awarded ?? e.awarded;
          this.fsEl.hidden = false;
          this.fsEl.textContent = t("fs.counter", { n: this.freeTotal });
          // the intro says what was won: the spins and, where there is one, their multiplier
          if (!instant) await this.banner(t("fs.banner", { n: e.awarded }), "feature", 1600, e.multiplier > 1 ? t("fs.all_wins", { x: e.multiplier }) : "");
          break;
        case "free_spin_started":
          await flush();
          this.inFree = true;
          this.freeSpin = e;
          this.freeTotal = Math.max(this.freeTotal ?? 0, e.index + (e.remaining ?? 0));
          this.reels.clearWins();
          this.lastWins = [];
          // each free spin says itself: the last spin's message does not linger
          this.message(t("fs.message", { index: e.index, total: this.freeTotal }), "feature");
          this.renderFreeSpins();
          break;
        case "progressive_won":
          await flush();
          this.lastWins.push(e);
          if (!instant) {
            sound.bigWin();
            const jp = (this.round?.jackpots || []).find((j) => j.tier === e.tier);
            const amount = jp ? pick(jp, "amount", "value") : undefined;
            await this.banner(t("jackpot.won_banner", { pool: poolName(e.tier, this.desc).toUpperCase() }), "jackpot", 2600, amount !== undefined ? this.app.money(amount) : "");
          }
          break;
        case "win_capped":
          await flush();
          this.message(describeEvent(e, this.fmt()), "feature");
          this.roundWin = Number(e.cap);
          break;
        case "gamble_resolved":
          await flush();
          await this.showGambleResult(e, instant);
          break;
        case "round_ended":
          await flush();
          this.roundWin = Number(e.win);
          break;
        default:
          await flush();
      }
      this.feature?.after(e);
    }
    await flush();
    // the free spins are the end of the log: the round waits (a gamble) or is about to end
    if (this.inFree && this.shown >= events.length) await this.endFreeSpins(instant);
    this.playingInstant = false;
  }

  /** The free-spin banner: which spin, and what the free spins have won so far. */
  renderFreeSpins() {
    const e = this.freeSpin;
    this.fsEl.hidden = false;
    this.fsEl.dataset.index = e.index;
    this.fsEl.dataset.total = this.freeWin;
    this.fsEl.textContent = [t("fs.plaque", { index: e.index, total: this.freeTotal }), e.multiplier > 1 ? t("fs.all_wins", { x: e.multiplier }) : null, t("fs.won", { amount: this.credits(this.freeWin) })].filter(Boolean).join(" · ");
  }

  async endFreeSpins(instant) {
    this.inFree = false;
    const won = this.credits(this.freeWin);
    this.fsEl.hidden = false;
    this.fsEl.dataset.total = this.freeWin;
    this.fsEl.dataset.done = "true";
    this.fsEl.textContent = t("fs.total_plaque", { amount: won });
    this.message(t("fs.total_message", { amount: won }), this.freeWin > 0 ? "win" : "feature");
    if (!instant) await this.banner(t("fs.total_banner"), "feature", 1800, won);
  }

  /** The wins of earlier stages, listed once a nudge has moved the reels away from them. */
  renderPaid() {
    const moved = this.paid.filter((p) => p.stage < this.nudges);
    this.paidEl.hidden = !moved.length;
    if (!moved.length) return this.paidEl.replaceChildren();
    this.paidEl.replaceChildren(
      h("span.paid-title", {}, t("game.paid")),
      ...this.paid.map(({ e, stage }) =>
        h(
          "span.paid-win",
          { "data-testid": "paid-win", "data-line": e.line ?? "", "data-stage": stage, "data-win": eventWin(e) },
          t(stage ? "game.paid_nudge" : "game.paid_first", { what: e.line ? t("pays.line", { n: e.line }) : t("game.scatter"), amount: this.credits(eventWin(e)), stage }),
        ),
      ),
    );
  }

  /**
   * At rest the reels show every win of the round whose symbols are still where they paid (a
   * nudge may have moved an earlier stage's away: those stay in the PAID list).
   */
  highlightPaid() {
    if (!this.nudges || !this.paid.length) return;
    const win = this.reels.window;
    const still = this.paid.filter(({ e, window }) =>
      (e.positions || []).every(([r, row]) => String(win?.[r]?.[row]) === String(window[r][row])),
    );
    this.reels.clearWins();
    for (const { e } of still) this.reels.showWin(e, this.credits(eventWin(e)), { keep: true });
    this.lastWins = []; // shown together, not in turn: what paid stays in view
    this.renderPaid();
  }

  /** The round's win so far, as a feature adds to it (credits). */
  showFeatureWin(credits) {
    this.roundWin = Number(credits);
    this.winEl.textContent = this.credits(this.roundWin);
  }

  fmt() {
    return { money: (c, raw) => (raw ? this.app.money(c) : this.credits(c)), sym: (id) => this.reels.sym(id), desc: this.desc };
  }

  async presentStage(wins, instant) {
    const total = wins.reduce((a, e) => a + eventWin(e), 0);
    const window = (this.reels.window || []).map((c) => c.slice());
    for (const e of wins) this.paid.push({ e, stage: this.nudges, window });
    if (this.inFree) {
      this.freeWin += total;
      this.renderFreeSpins();
    }
    this.reels.clearWins();
    for (const w of wins) this.reels.showWin(w, this.credits(eventWin(w)), { keep: true });
    const from = this.roundWin;
    this.roundWin += total;
    const small = this.roundWin * this.denom <= this.betMoney && !this.app.profile.celebrateSmall;
    this.message(wins.length === 1 ? describeEvent(wins[0], this.fmt()) : t("game.wins_pay", { n: wins.length, amount: this.credits(total) }), small ? "" : "win");
    if (instant) {
      this.winEl.textContent = this.credits(this.roundWin);
      return;
    }
    if (!small && !this.skip) sound.win(Math.min(3, Math.floor(total / Math.max(1, this.betCredits))));
    await this.countUp(from, this.roundWin, this.skip ? 0 : 500);
    if (!this.skip) await this.reels.wait(this.auto ? 500 : 800);
  }

  async countUp(from, to, ms) {
    const el = this.winEl;
    if (ms <= 0 || to <= from) {
      el.textContent = this.credits(to);
      return;
    }
    const t0 = performance.now();
    let last = 0;
    for (;;) {
      const k = Math.min(1, (performance.now() - t0) / ms);
      const v = Math.round(from + (to - from) * (1 - (1 - k) ** 3));
      el.textContent = this.credits(v);
      if (performance.now() - last > 70) {
        sound.tick();
        last = performance.now();
      }
      if (k >= 1 || this.skip) break;
      await this.reels.wait(30); // a quick stop ends the count-up at once
    }
    el.textContent = this.credits(to);
  }

  async banner(text, cls, ms, sub = "") {
    this.bigEl.hidden = false;
    this.bigEl.className = `bigwin ${cls}`;
    this.bigEl.replaceChildren(h("div.big-title", {}, text), sub ? h("div.big-amount", {}, sub) : "");
    await this.reels.wait(this.skip ? 300 : ms);
    this.hideBig();
  }

  hideBig() {
    this.bigEl.hidden = true;
  }

  /** After the log is played: a gamble to offer, or the round is over. */
  async afterRound(res) {
    if (res.awaiting && this.offerFeatureChoice(res.awaiting)) return true;
    if (res.awaiting) {
      this.busy = false;
      if (this.auto) {
        // autoplay never gambles
        return this.choose("collect");
      }
      this.offerGamble(res.awaiting);
      return true;
    }
    await this.finishRound(res);
    return true;
  }

  /** A win the round holds for a gamble: shown as won; GAMBLE opens the gamble, SPIN collects. */
  offerGamble(aw) {
    this.keepFocus();
    this.offer = aw;
    this.bigShown = true; // the win has been presented: collecting it needs no second show
    const stake = Number(aw.stake ?? this.roundWin);
    this.gambleEl.hidden = true;
    this.winEl.textContent = this.credits(stake);
    this.winEl.dataset.minor = stake * this.denom;
    this.highlightPaid();
    this.setState("offered");
    const celebrate = stake * this.denom > this.betMoney || this.app.profile.celebrateSmall;
    this.message(t("gamble.offer", { amount: this.credits(stake) }), celebrate ? "win" : "");
    this.cycleWins();
  }

  /** The gamble panel is about to close: a keyboard player's focus goes back to SPIN. */
  keepFocus() {
    if (this.gambleEl.contains(document.activeElement)) this.spinBtn.focus();
  }

  openGamble() {
    if (this.state !== "offered" || this.busy || !this.offer) return;
    sound.click();
    this.showGamble(this.offer);
  }

  /**
   * A choice the game's feature module shows (the Frenzy Wheel's colour): the round waits for the
   * player's click; auto spin stops here rather than choose for the player.
   */
  offerFeatureChoice(aw) {
    if (!this.feature?.offer(aw)) return false;
    this.busy = false;
    this.setState("choice");
    if (this.auto) {
      const why = t("auto.stopped_choice");
      this.stopAuto(why, "", "choice");
      toast(why, "info");
    }
    return true;
  }

  async finishRound(res) {
    await this.feature?.finish(res); // a feature's total screen; its counters go with the round
    const winMoney = this.roundWinMoney(res);
    const ratio = this.betMoney ? winMoney / this.betMoney : 0;
    this.winEl.textContent = this.app.money(winMoney);
    this.winEl.dataset.minor = winMoney;
    this.keepFocus();
    this.gambleEl.hidden = true;
    this.offer = null;
    if (!this.fsEl.dataset.done) this.fsEl.hidden = true; // a free-spins total stays until the next spin
    this.highlightPaid();
    const celebrate = winMoney > 0 && (res.celebrate ?? (winMoney > this.betMoney || this.app.profile.celebrateSmall));
    if (winMoney > 0 && ratio >= 10 && !this.skip && !this.bigShown) await this.bigWin(winMoney, ratio);
    this.bigShown = false;
    const pots = (res.jackpots || []).filter((j) => Number(j.amount) > 0);
    if (pots.length && winMoney > 0) {
      // a progressive is paid beside the line wins: the message says which and how much
      const pools = pots.map((j) => t("game.jackpot_paid", { pool: poolName(j.tier, this.desc), amount: this.app.money(j.amount) })).join(" · ");
      this.message(t("game.win_jackpot", { amount: this.app.money(winMoney), pools }), "win");
    } else if (winMoney > 0) {
      this.message(
        celebrate ? t("game.win_amount", { amount: this.app.money(winMoney) }) : t("game.win_small", { amount: this.app.money(winMoney), stake: this.app.money(this.betMoney) }),
        celebrate ? "win" : "",
      );
    } else if (!res.events?.some((e) => e.type === "gamble_resolved")) {
      this.message(this.auto ? t("auto.running") : t("game.no_win"));
    }
    if (res.status === "crediting") this.message(t("game.crediting", { amount: this.app.money(winMoney) }), "win");
    if (res.status === "cancelled") this.message(t("game.voided"), "error");
    if (res.balance !== undefined && res.balance !== null) this.app.setBalance(res.balance);
    else await this.app.refreshWallet().catch(() => {});
    this.app.noteRound(res);
    this.roundsPlayed = (this.roundsPlayed || 0) + 1;
    this.view.dataset.rounds = this.roundsPlayed;
    this.view.dataset.lastRound = res.round_id || "";
    this.busy = false;
    this.round = null;
    this.refreshSessionInfo();
    this.setState("idle");
    this.cycleWins();
    await this.afterFreeRound();
    if (this.jpEl) this.refreshJackpots();
    this.continueAuto(res, winMoney);
  }

  async bigWin(winMoney, ratio) {
    const tier = ratio >= 50 ? "epic" : ratio >= 25 ? "mega" : "big";
    this.bigEl.hidden = false;
    this.bigEl.className = `bigwin big tier-${tier}`;
    const amount = h("div.big-amount", { "data-testid": "bigwin-amount" });
    this.bigEl.replaceChildren(h("div.big-title", {}, t(`bigwin.${tier}`)), amount);
    sound.bigWin();
    const ms = this.auto ? 1200 : Math.min(4000, 1200 + ratio * 40);
    const t0 = performance.now();
    while (!this.skip && !this.gone) {
      const k = Math.min(1, (performance.now() - t0) / ms);
      amount.textContent = this.app.money(Math.round(winMoney * (1 - (1 - k) ** 2)));
      if (k >= 1) break;
      await this.reels.wait(30);
    }
    amount.textContent = this.app.money(winMoney);
    await this.reels.wait(900);
    this.hideBig();
  }

  /** While idle, show each winning line in turn with its amount. */
  async cycleWins() {
    const wins = this.lastWins.filter((w) => w.positions?.length);
    if (wins.length < 2) return;
    const token = ++this.cycleToken;
    await sleep(1200);
    for (let i = 0; token === this.cycleToken && !this.gone; i = (i + 1) % wins.length) {
      const w = wins[i];
      this.reels.showWin(w, this.credits(eventWin(w)));
      await sleep(1300);
    }
  }

  // ---- gamble ----------------------------------------------------------------------------
  showGamble(aw) {
    const stake = Number(aw.stake ?? this.roundWin);
    this.offer = null;
    this.cycleToken++;
    this.setState("gamble");
    this.gambleEl.hidden = false;
    this.card = h("div.card.back", { "data-testid": "gamble-card", "aria-label": t("gamble.face_down") }, h("span", {}, "?"));
    const opts = aw.options || ["collect", "red", "black"];
    const btn = (opt, label, cls) =>
      opts.includes(opt)
        ? h(`button.gamble-btn.${cls}`, { "data-testid": `gamble-${opt}`, onclick: () => this.choose(opt) }, label)
        : null;
    const parts = [
      h("h2", {}, t("gamble.open")),
      h(
        "p.gamble-text",
        { "data-testid": "gamble-text" },
        aw.step ? t("gamble.text_step", { stake: this.credits(stake), win: this.credits(stake * 2), step: aw.step, max: aw.max_steps }) : t("gamble.text", { stake: this.credits(stake), win: this.credits(stake * 2) }),
      ),
      h("div.gamble-row", {}, btn("red", t("gamble.red"), "red"), this.card, btn("black", t("gamble.black"), "black")),
      this.cardHistory?.length
        ? h("div.card-history", { "data-testid": "gamble-history", "aria-label": t("gamble.previous_label") }, t("gamble.previous"),
            this.cardHistory.map((c) => h(`span.mini-card.${c}`, { "data-card": c, title: t(`gamble.card_${c}`) }, c === "red" ? "♥" : "♠")))
        : null,
      btn("collect", t("gamble.collect", { amount: this.credits(stake) }), "collect"),
    ];
    this.gambleEl.replaceChildren(...parts.filter(Boolean));
    this.winEl.textContent = this.credits(stake);
    const celebrate = stake * this.denom > this.betMoney || this.app.profile.celebrateSmall;
    this.message(t("gamble.prompt"), celebrate ? "win" : "");
    this.gambleEl.querySelector("[data-testid=gamble-collect]")?.focus();
  }

  /** Send a choice and show what follows; whatever goes wrong leaves the screen usable. */
  async choose(choice) {
    try {
      return await this.sendChoice(choice);
    } catch (err) {
      console.error(err);
      this.busy = false;
      this.message(explain(err), "error");
      this.stopAuto(t("auto.stopped_because", { why: explain(err) }), "error");
      // redraw the round as the server has it, or none
      if (!(await this.app.resumeOpenRound().catch(() => false))) {
        this.gambleEl.hidden = true;
        this.offer = null;
        this.round = null;
        this.setState("idle");
      }
      return false;
    }
  }

  async sendChoice(choice) {
    if (!this.round || this.busy) return false;
    this.busy = true;
    for (const b of this.gambleEl.querySelectorAll("button")) b.disabled = true;
    const waited = this.state === "choice" ? this.round.awaiting : null;
    if (waited) {
      // the choice is sent; what follows is a show like any other (SPIN quick-stops it)
      this.skip = false;
      this.setState("spinning");
    }
    sound.click();
    // the round's step says which state of the round the choice is for (the server requires it)
    const body = { choice, step: this.round.step };
    let res;
    try {
      res = await this.app.api.post(`/api/rounds/${encodeURIComponent(this.round.round_id)}/choices`, body);
    } catch (err) {
      this.busy = false;
      if (err.status === 409 || err.status === 404) {
        // the round no longer waits (completed automatically, voided, or played in another
        // window): show where it stands
        const why = t("game.already_settled");
        this.gambleEl.hidden = true;
        this.offer = null;
        this.round = null;
        this.setState("idle");
        await this.app.refreshWallet().catch(() => {});
        this.message(why, "error");
        this.stopAuto(t("auto.stopped_because", { why }), "error");
        return false;
      }
      for (const b of this.gambleEl.querySelectorAll("button")) b.disabled = false;
      if (waited) this.offerFeatureChoice(waited);
      this.message(explain(err), "error");
      this.stopAuto(t("auto.stopped_because", { why: explain(err) }), "error");
      toast(explain(err), "error", 8000);
      return false;
    }
    const evs = res.events || [];
    // The server returns the whole log again (which may differ from the one shown before the
    // choice, e.g. without the gamble offer) or only what follows the choice: play what is new.
    const old = this.round.events || [];
    let k = 0;
    while (k < old.length && k < evs.length && JSON.stringify(old[k]) === JSON.stringify(evs[k])) k++;
    if (k === 0 && old.length) {
      this.round = { ...res, events: [...old, ...evs] };
      this.shown = old.length;
    } else {
      this.round = res;
      this.shown = Math.min(this.shown, k);
    }
    await this.playEvents(this.round.events);
    this.busy = false;
    if (res.awaiting && this.offerFeatureChoice(res.awaiting)) return true;
    if (res.awaiting) {
      await sleep(this.auto ? 0 : 400);
      this.showGamble(res.awaiting);
      return true;
    }
    await this.finishRound(res);
    return true;
  }

  async showGambleResult(e, instant) {
    this.view.dataset.lastCard = e.card;
    this.cardHistory = [...(this.cardHistory || []), e.card].slice(-6);
    if (!this.card) return;
    this.card.className = `card face ${e.card}`;
    this.card.dataset.card = e.card;
    this.card.setAttribute("aria-label", t(`gamble.card_${e.card}`));
    this.card.replaceChildren(h("span", {}, e.card === "red" ? "♥" : "♠"), h("small", {}, t(`gamble.card_${e.card}`).toUpperCase()));
    const stake = Number(e.stake);
    this.roundWin = e.win !== undefined ? Number(e.win) : e.won ? stake * 2 : 0;
    this.winEl.textContent = this.credits(this.roundWin);
    this.message(e.won ? t("gamble.won", { card: t(`gamble.card_${e.card}`), amount: this.credits(this.roundWin) }) : t("gamble.lost", { card: t(`gamble.card_${e.card}`) }), e.won ? "win" : "error");
    if (!instant) {
      if (e.won) sound.win(2);
      else sound.lose();
      await sleep(900);
    }
  }

  // ---- resume ----------------------------------------------------------------------------
  /** Restore an open round: draw its log as it stands and offer the choice it waits for. */
  async resume(open) {
    const gid = pick(open, "game", "game_id");
    if (gid && gid !== this.id) {
      // an open round of another game is shown as that game, with the address to match
      history.replaceState(null, "", `#/game/${encodeURIComponent(gid)}`);
      return this.app.route();
    }
    const i = this.ladderMoney.indexOf(Number(open.bet));
    if (i >= 0) this.setBetIndex(i);
    this.round = open;
    this.cardHistory = [];
    this.view.dataset.roundId = open.round_id || "";
    this.shown = 0;
    this.roundWin = 0;
    this.lastWins = [];
    this.paid = [];
    this.nudges = 0;
    this.freeWin = 0;
    this.freeTotal = 0;
    this.inFree = false;
    this.feature?.reset();
    await this.playEvents(open.events || [], { instant: true });
    if (open.awaiting && this.offerFeatureChoice(open.awaiting)) {
      /* the feature shows the choice */
    } else if (open.awaiting) this.offerGamble(open.awaiting);
    else await this.finishRound(open);
    if (this.offer) this.message(t("game.restored_offer", { amount: this.credits(Number(this.offer.stake ?? this.roundWin)) }), "feature");
    else this.message(t("game.restored_finish"), "feature");
    toast(t("game.restored"), "info");
  }

  // ---- autoplay --------------------------------------------------------------------------
  onAutoButton() {
    if (this.auto) return this.stopAuto(t("auto.stopped"));
    if (!this.app.profile.autoplay) {
      toast(t("game.no_autoplay_toast"), "error");
      return;
    }
    openAutoDialog(this);
  }

  async startAuto(cfg) {
    if (this.busy || this.state === "choice") return;
    if (this.offer || this.state === "gamble") {
      if (!(await this.choose("collect"))) return;
    }
    // the run is started on the server, which enforces its stop conditions across its rounds
    const runId = await startRun(this, cfg);
    if (runId === null) return;
    if (this.gone || this.busy) return stopRun(this, runId, "player");
    this.auto = { ...cfg, left: cfg.rounds, startBalance: this.app.wallet.balance, runId };
    this.autoBtn.classList.add("active");
    this.autoBtn.textContent = t("game.stop_auto");
    this.setState("idle");
    this.spin();
  }

  stopAuto(reason, cls = "", code = "player") {
    if (!this.auto) return;
    if (!this.auto.serverStopped) stopRun(this, this.auto.runId, code);
    this.auto = null;
    this.autoBtn.classList.remove("active");
    this.autoBtn.textContent = t("game.auto");
    this.setState(this.state);
    if (reason) {
      this.message(reason, cls);
      this.view.dataset.autoStop = reason;
    }
  }

  /** The stop conditions of the autoplay run, declared with each round it starts (the server
   * refuses autoplay its jurisdiction forbids, or without the conditions it makes mandatory). */
  autoDeclaration() {
    const a = this.auto;
    const d = {};
    if (Number.isFinite(a.left)) d.rounds_left = a.left;
    if (a.onAnyWin) d.any_win = true;
    if (a.singleWinExceeds) d.single_win_above = a.singleWinExceeds;
    if (a.balanceUp) d.balance_up_by = a.balanceUp;
    if (a.balanceDown) d.balance_down_by = a.balanceDown;
    d.run_id = a.runId;
    return d;
  }

  continueAuto(res, winMoney) {
    const a = this.auto;
    if (!a) return;
    a.left -= 1;
    const bal = this.app.wallet.balance;
    const feature = (res.events || []).some((e) => FEATURE_EVENTS.has(e.type) || this.feature?.isFeature(e));
    let why = null;
    if (a.left <= 0) why = t("auto.finished");
    else if (a.onAnyWin && winMoney > 0) why = t("auto.stopped_win");
    else if (a.singleWinExceeds && winMoney >= a.singleWinExceeds) why = t("auto.stopped_single_win", { amount: this.app.money(winMoney) });
    else if (a.balanceUp && bal - a.startBalance >= a.balanceUp) why = t("auto.stopped_balance_up");
    else if (a.balanceDown && a.startBalance - bal >= a.balanceDown) why = t("auto.stopped_balance_down");
    else if (a.onFeature && feature) why = t("auto.stopped_feature");
    else if (bal < this.betMoney && !this.freePkg) why = t("auto.stopped_low_balance");
    if (why) {
      this.stopAuto(why, "", a.left <= 0 ? "rounds" : a.onFeature && feature ? "feature" : bal < this.betMoney ? "balance_low" : "player");
      toast(why, "info");
      return;
    }
    this.setState("idle");
    setTimeout(() => {
      if (this.auto && !this.gone && !dialogOpen()) this.spin();
      else if (this.auto && dialogOpen()) this.waitDialogThenSpin();
    }, 350);
  }

  async waitDialogThenSpin() {
    while (this.auto && dialogOpen() && !this.gone) await sleep(200);
    if (this.auto && !this.gone) this.spin();
  }

  // ---- free rounds -----------------------------------------------------------------------
  async loadFreeRounds() {
    const pkgs = await this.app.loadFreeRounds();
    const mine = pkgs.filter((p) => (p.game ?? p.game_id) === this.id && Number(pick(p, "rounds_left", "remaining", "rounds") ?? 0) > 0);
    this.freePkg = mine[0] || null;
    this.renderFreeRounds();
  }

  renderFreeRounds() {
    const p = this.freePkg;
    if (!p) {
      this.frbEl.hidden = true;
      return;
    }
    const bet = Number(p.bet);
    const i = this.ladderMoney.indexOf(bet);
    if (i >= 0) {
      this.betIndex = i;
      this.updateBet();
    }
    const left = pick(p, "rounds_left", "remaining", "rounds");
    this.frbEl.hidden = false;
    this.frbEl.textContent = t("frb.banner", { n: Number(left), bet: this.app.money(this.betMoney) });
    this.setState(this.state || "idle");
  }

  async afterFreeRound() {
    if (!this.freePkg) return;
    const before = this.freePkg;
    await this.loadFreeRounds();
    if (!this.freePkg) {
      this.stopAuto();
      await alertBox(
        t("frb.finished"),
        [
          before.total_won !== undefined ? t("frb.used_up_won", { amount: this.app.money(before.total_won) }) : t("frb.used_up"),
          t("frb.next_costs", { bet: this.app.money(this.betMoney) }),
        ],
        { testid: "frb-ended" },
      );
      this.setState("idle");
    }
  }

  // ---- jackpots --------------------------------------------------------------------------
  startJackpots() {
    this.refreshJackpots();
    this.jpTimer = setInterval(() => this.refreshJackpots(), 8000);
  }

  async refreshJackpots() {
    try {
      const data = await this.app.api.get("/api/jackpots", { retries: 0 });
      const list = Array.isArray(data) ? data : data?.jackpots || data?.pools || [];
      this.jackpots = list.filter((j) => !j.game || j.game === this.id || j.game_id === this.id);
    } catch {
      this.jackpots = null;
    }
    this.renderJackpots();
  }

  renderJackpots() {
    if (!this.jpEl) return;
    const prog = {};
    const raw = this.desc.progressives || {};
    if (Array.isArray(raw)) for (const p of raw) prog[p.tier] = p;
    else Object.assign(prog, raw);
    const maxBet = this.betIndex === this.ladder.length - 1;
    const tiers = Object.keys(prog).length ? Object.keys(prog).sort((x, y) => (x === "top" ? -1 : y === "top" ? 1 : 0)) : ["top", "bottom"];
    this.jpEl.replaceChildren(
      ...tiers.map((tier) => {
        const live = (this.jackpots || []).filter((j) => j.tier === tier);
        const mine = live.find((j) => Number(j.denomination ?? this.denom) === this.denom) || live[0];
        let value = mine ? Number(pick(mine, "value", "amount", "balance")) : undefined;
        if (value === undefined) {
          const reset = pick(prog[tier] || {}, "reset", "seed", "reset_credits");
          value = reset !== undefined ? Number(reset) * this.denom : undefined;
        }
        return h(
          `div.jp.${tier}`,
          { "data-testid": `jackpot-${tier}` },
          h("span.jp-name", {}, poolName(tier, this.desc).toUpperCase()),
          h("span.jp-value", {}, value !== undefined ? this.app.money(value) : "—"),
        );
      }),
      h("div.jp-note", {}, maxBet ? t("jackpot.live") : t("jackpot.max_bet_only")),
      // demo play never feeds or wins a real pool: the meters are for display
      ...(this.app.demo ? [h("div.jp-note", { "data-testid": "demo-jackpots" }, t("demo.jackpots"))] : []),
    );
  }
}

/** A hue of the game's own (0-359), from its id: a game with no theme in css/themes.css (one
 * described by a model file alone) still gets a background and frame unlike the others'. */
export function gameHue(id) {
  let x = 0;
  for (const ch of String(id)) x = (x * 31 + ch.codePointAt(0)) % 3600;
  return Math.round(x / 10) % 360;
}
