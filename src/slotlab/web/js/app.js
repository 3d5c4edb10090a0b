// The application: log in / register, the lobby, routing to a game, things told on load
// (an open round, rounds completed while away, free round packages), the balance.
import { Api, ApiError, explain } from "./api.js";
import { alertBox, closeAll, openDialog, toast } from "./dialogs.js";
import { demoOffer, demoPanel, dt, showDemo } from "./demo.js";
import { GameView } from "./game.js";
import { installDefs, thumbnail } from "./symbols.js";
import { initI18n, num, percent, simulatedMaxWin, t } from "./i18n.js";
import { tierText, upper } from "./names.js";
import { formatMoney, h, pick, store } from "./util.js";

// What the server accepts for a new account (server/schemas.py: Username, Password).
const MIN_PASSWORD = 8;
const USERNAME_RULE = /^[A-Za-z0-9_.-]{3,32}$/;
const accountRules = () => t("login.account_rules", { min: 3, max: 32, password: MIN_PASSWORD });

class App {
  constructor() {
    this.api = new Api("");
    this.wallet = { balance: 0, currency: "", decimals: 2 };
    this.profile = { autoplay: true, quickStop: true, minCycleMs: 0, celebrateSmall: true, name: "" };
    this.games = [];
    this.view = null;
    this.spaceToSpin = store("space") ?? true;
    this.freeRounds = [];
    this.api.onUnauthorized = (err) => this.logout(true, err);
    this.api.onNetwork = (lost) => {
      document.body.classList.toggle("offline", lost);
      if (lost) toast(t("net.retrying"), "error", 0);
      else toast(t("net.restored"), "info");
    };
  }

  money(minor) {
    return formatMoney(minor, this.wallet.currency, this.wallet.decimals);
  }

  /** "12.50" -> 1250 minor units (null when not a number). */
  parseMoney(text) {
    const t = String(text).trim().replace(/[^\d.,]/g, "").replace(",", ".");
    if (!/^\d+(\.\d*)?$/.test(t)) return null;
    const [w, f = ""] = t.split(".");
    const d = this.wallet.decimals;
    return Number(w) * 10 ** d + Number((f + "0".repeat(d)).slice(0, d) || 0);
  }

  get currency() {
    return this.wallet.currency;
  }

  setSpaceToSpin(v) {
    this.spaceToSpin = v;
    store("space", v);
  }

  async start() {
    installDefs();
    await initI18n();
    this.root = document.getElementById("view");
    this.balanceEl = document.getElementById("balance");
    document.getElementById("logout").addEventListener("click", () => this.logout());
    window.addEventListener("hashchange", () => this.route());
    window.addEventListener("online", () => toast(t("net.online"), "info"));
    window.addEventListener("offline", () => toast(t("net.offline"), "error", 0));
    if (!this.api.token) return this.showLogin();
    try {
      await this.enter();
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) return this.showLogin();
      this.fatal(err);
    }
  }

  fatal(err) {
    this.root.replaceChildren(
      h("section.panel", { "data-testid": "fatal" }, h("h1", {}, t("app.cannot_start")), h("p.error-text", {}, explain(err)), h("button.primary", { onclick: () => location.reload() }, t("app.try_again"))),
    );
  }

  /** After login: session, wallet, games; then what must be told on load. */
  async enter() {
    const session = await this.api.get("/api/session");
    this.session = session;
    this.readProfile(session);
    this.demo = session.demo === true; // play money: the DEMO badge stays on screen
    showDemo(this.demo);
    document.body.classList.add("signed-in");
    document.getElementById("user").textContent = this.demo ? dt("demo.player") : pick(session.player || {}, "username", "name") || session.username || "";
    await Promise.all([this.refreshWallet(), this.loadGames()]);
    await this.tellUnseen(session);
    // the lobby (or the game) is drawn first: the free-round notice never sits over the login form
    const resumed = await this.resumeOpenRound();
    if (!resumed) await this.route();
    await this.announceFreeRounds();
  }

  readProfile(session) {
    const prof = session.profile ?? session.jurisdiction ?? session.jurisdiction_profile ?? {};
    const f = typeof prof === "object" ? { ...prof, ...(prof.flags || {}) } : {};
    const b = (keys, dflt) => {
      for (const k of keys) if (typeof f[k] === "boolean") return f[k];
      return dflt;
    };
    const num = (keys) => {
      for (const k of keys) if (typeof f[k] === "number") return f[k];
      return undefined;
    };
    let minMs = num(["min_cycle_ms", "min_round_interval_ms", "min_game_cycle_ms"]);
    const minS = num(["min_round_interval_s", "min_game_cycle_s", "min_cycle_s", "min_game_cycle_seconds", "min_round_interval_seconds"]);
    if (minMs === undefined && minS !== undefined) minMs = minS * 1000;
    this.profile = {
      name: typeof prof === "string" ? prof : f.id || f.name || f.code || "",
      showNet: b(["show_net_position"], false),
      autoplay: b(["autoplay", "autoplay_allowed", "allow_autoplay"], !b(["no_autoplay"], false)),
      quickStop: b(["quick_stop", "quick_stop_allowed", "allow_quick_stop", "turbo_allowed"], !b(["no_quick_stop"], false)),
      minCycleMs: minMs || 0,
      celebrateSmall: b(
        ["celebrate_small_wins", "celebrate_wins_not_above_stake", "celebrate_ldw", "celebrate_losses_disguised_as_wins"],
        !b(["no_celebration_at_or_below_stake", "no_celebration_below_stake", "no_ldw_celebration"], false),
      ),
      // autoplay's stop conditions: those offered (null: all), those made mandatory, the most rounds
      autoplayStops: Array.isArray(f.autoplay_stop_conditions) ? f.autoplay_stop_conditions : null,
      autoplayRequired: Array.isArray(f.autoplay_required_stops) ? f.autoplay_required_stops : [],
      autoplayMaxRounds: num(["autoplay_max_rounds"]) ?? null,
    };
    document.body.dataset.profile = this.profile.name || "default";
  }

  async refreshWallet() {
    const w = await this.api.get("/api/wallet");
    this.wallet = { balance: Number(w.balance), currency: w.currency || "", decimals: Number(w.decimals ?? 2) };
    this.setBalance(this.wallet.balance);
  }

  setBalance(minor) {
    if (minor === undefined || minor === null) return;
    this.wallet.balance = Number(minor);
    this.balanceEl.textContent = this.money(minor);
    this.balanceEl.dataset.minor = String(minor);
  }

  async loadGames() {
    const g = await this.api.get("/api/games");
    this.games = Array.isArray(g) ? g : g?.games || [];
  }

  noteRound() {
    /* the balance came with the round; history is fetched fresh when RECALL opens */
  }

  async tellUnseen(session) {
    const list = session.unseen_results || session.unseen || session.auto_completed || [];
    if (!list.length) return;
    const name = (id) => this.games.find((g) => g.id === id)?.name || id;
    await alertBox(
      t("unseen.title"),
      [
        t("unseen.text"),
        h(
          "ul.unseen",
          { "data-testid": "unseen-list" },
          list.map((r) => h("li", {}, t("unseen.item", { game: name(pick(r, "game", "game_id")), round: String(r.round_id || "").slice(0, 10), win: this.money(pick(r, "win_amount", "win") ?? 0) }))),
        ),
      ],
      { testid: "unseen" },
    );
    await this.api.call("DELETE", "/api/session/unseen", undefined, { retries: 0 }).catch(() => {});
  }

  async loadFreeRounds() {
    try {
      const data = await this.api.get("/api/free-rounds", { retries: 0 });
      const list = Array.isArray(data) ? data : data?.packages || data?.free_rounds || [];
      this.freeRounds = list.filter((p) => Number(pick(p, "rounds_left", "remaining", "rounds") ?? 0) > 0 && p.status !== "expired");
    } catch {
      this.freeRounds = []; // not available on this server (yet)
    }
    return this.freeRounds;
  }

  /** The free round packages waiting, each with a PLAY button that opens the game it is for. */
  async announceFreeRounds() {
    const list = await this.loadFreeRounds();
    if (!list.length) return;
    const name = (id) => this.games.find((g) => g.id === id)?.name || id;
    const games = [...new Set(list.map((p) => pick(p, "game", "game_id")))];
    const chosen = await openDialog(
      t("frb.title"),
      [
        h("p", {}, t("frb.text")),
        h("ul", { "data-testid": "frb-list" }, list.map((p) => h("li", {}, t("frb.item", { n: Number(pick(p, "rounds_left", "remaining", "rounds")), game: name(pick(p, "game", "game_id")), bet: this.money(p.bet) })))),
      ],
      {
        testid: "frb-announce",
        actions: [
          { label: t("frb.later"), value: null, testid: "frb-later" },
          ...games.map((g, i) => ({
            label: games.length > 1 ? t("frb.play_game", { game: name(g) }) : t("frb.play"),
            primary: i === 0,
            value: g,
            testid: games.length > 1 ? `frb-play-${g}` : "frb-announce-ok",
          })),
        ],
      },
    ).done;
    if (chosen) this.go(`#/game/${encodeURIComponent(chosen)}`);
  }

  /** If a round is open, go to its game and restore it. Returns true when one was restored. */
  async resumeOpenRound() {
    const open = await this.openRound();
    if (!open) return false;
    const gid = pick(open, "game", "game_id");
    if (this.view instanceof GameView && this.view.id === gid && this.view.desc) {
      await this.view.resume(open);
    } else {
      history.replaceState(null, "", `#/game/${encodeURIComponent(gid)}`);
      await this.route(); // route() restores the open round of the game it opens
    }
    return true;
  }

  async openRound() {
    try {
      const open = await this.api.get("/api/rounds/open");
      return open && open.round_id ? open : null;
    } catch {
      return null;
    }
  }

  go(hash) {
    if (location.hash === hash) this.route();
    else location.hash = hash;
  }

  async route() {
    if (!this.api.token) return this.showLogin();
    closeAll();
    const m = /^#\/game\/(.+)$/.exec(location.hash);
    if (this.view?.unmount) this.view.unmount();
    this.view = null;
    const token = (this.routeToken = (this.routeToken || 0) + 1);
    if (m) {
      // one round at a time: an unfinished round takes the player to its own game
      let gid = decodeURIComponent(m[1]);
      const open = await this.openRound();
      if (token !== this.routeToken || !this.api.token) return; // a later navigation (or a logout) won
      const openGame = open ? pick(open, "game", "game_id") : null;
      if (openGame && openGame !== gid) {
        gid = openGame;
        history.replaceState(null, "", `#/game/${encodeURIComponent(gid)}`);
        toast(t("app.unfinished_elsewhere"), "info");
      }
      const view = new GameView(this, gid);
      this.view = view;
      const holder = h("div");
      this.root.replaceChildren(holder);
      try {
        await view.mount(holder);
        document.title = `${view.desc.name} · slotlab`;
        if (open && this.view === view) await view.resume(open);
      } catch (err) {
        this.root.replaceChildren(h("section.panel", {}, h("p.error-text", {}, explain(err)), h("button.primary", { onclick: () => this.go("#/lobby") }, t("app.back_to_lobby"))));
      }
      return;
    }
    this.showLobby();
  }

  showLobby() {
    document.title = t("lobby.page_title");
    const cards = this.games.map((g) => {
      const thumb = h("div.thumb", { "aria-hidden": "true" });
      const card = h(
        "a.game-card",
        { href: `#/game/${encodeURIComponent(g.id)}`, "data-testid": `game-card-${g.id}`, "aria-label": t("lobby.play_label", { game: g.name }) },
        thumb,
        h("h2", {}, g.name),
        h("dl.facts", {}, [
          h("dt", {}, t("lobby.rtp")), h("dd", {}, percent(g.rtp)),
          h("dt", {}, t("lobby.max_win")), h("dd", {}, g.max_win_simulated ? simulatedMaxWin(g.max_win_simulated, "lobby.simulated_times") : g.max_win ? t(g.max_win_bound ? "lobby.up_to_times" : "lobby.times", { x: num(Number(g.max_win)) }) : "—"),
          h("dt", {}, t("lobby.bets")), h("dd", {}, g.bets?.length ? t("lobby.bet_range", { low: this.money(g.bets[0]), high: this.money(g.bets[g.bets.length - 1]) }) : "—"),
        ]),
        g.progressives ? h("p.lobby-jp", { "data-testid": `lobby-jackpots-${g.id}` }, t("lobby.progressives")) : null,
        h("span.play", {}, t("lobby.play")),
      );
      // thumbnails are drawn from the game's own symbols
      this.api.get(`/api/games/${encodeURIComponent(g.id)}`, { retries: 0 }).then((d) => {
        thumb.innerHTML = thumbnail(d);
        thumb.dataset.reels = d.reels;
      }).catch(() => {});
      return card;
    });
    const frb = this.freeRounds.length
      ? h("p.frb-note", { "data-testid": "lobby-frb" }, t("lobby.frb_waiting", { list: this.freeRounds.map((p) => t("lobby.frb_item", { n: Number(pick(p, "rounds_left", "remaining", "rounds")), game: this.games.find((g) => g.id === (p.game ?? p.game_id))?.name || p.game })).join(", ") }))
      : null;
    if (this.games.some((g) => g.progressives)) {
      this.api.get("/api/jackpots", { retries: 0 }).then((data) => {
        for (const g of this.games) {
          const el = this.root.querySelector(`[data-testid="lobby-jackpots-${g.id}"]`);
          const pools = (data?.jackpots || []).filter((j) => j.game === g.id).sort((a, b) => b.value - a.value);
          if (el && pools.length) el.textContent = pools.map((j) => t("lobby.pool", { tier: upper(tierText(j.tier)), amount: this.money(j.value) })).join(" · ");
        }
      }).catch(() => {});
    }
    this.root.replaceChildren(
      h("section.lobby", { "data-testid": "lobby" }, h("h1.lobby-title", {}, t("lobby.title")), this.demo ? h("p.note.demo-note", { "data-testid": "demo-lobby" }, dt("demo.lobby")) : null, frb, h("div.cards", {}, cards)),
    );
  }

  // ---- login -------------------------------------------------------------------------------
  showLogin(message) {
    document.body.classList.remove("signed-in");
    document.title = t("login.page_title");
    const user = h("input", { id: "username", name: "username", autocomplete: "username", required: true, "data-testid": "username" });
    const pass = h("input", { id: "password", name: "password", type: "password", autocomplete: "current-password", required: true, minlength: 1, "data-testid": "password" });
    const err = h("p.error-text", { role: "alert", "data-testid": "login-error" }, message || "");
    const submit = async (mode) => {
      err.textContent = "";
      const body = { username: user.value.trim(), password: pass.value };
      if (!body.username || !body.password) {
        err.textContent = t("login.empty");
        return;
      }
      // The server's rules for a new account, said in words before it refuses them.
      if (mode === "register" && !USERNAME_RULE.test(body.username)) {
        err.textContent = t("login.choose", { rules: accountRules() });
        return;
      }
      if (mode === "register" && body.password.length < MIN_PASSWORD) {
        err.textContent = t("login.password_short", { min: MIN_PASSWORD });
        return;
      }
      try {
        // The operator's launch parameter ?currency=COP names the new wallet's currency.
        const currency = new URLSearchParams(location.search).get("currency");
        if (mode === "register") await this.api.call("POST", "/api/players", currency ? { ...body, currency: currency.toUpperCase() } : body, { retries: 1 });
        const s = await this.api.call("POST", "/api/sessions", body, { retries: 1 });
        this.api.setToken(s.token);
        if (!location.hash || location.hash === "#/login") history.replaceState(null, "", "#/lobby");
        await this.enter();
      } catch (e) {
        err.textContent =
          e instanceof ApiError && e.status === 401
            ? t("login.wrong")
            : e instanceof ApiError && e.status === 409
              ? t("login.taken")
              : e instanceof ApiError && e.status === 429
                ? t("login.too_many")
                : e instanceof ApiError && (e.status === 422 || e.status === 400)
                  ? t("login.choose", { rules: accountRules() })
                  : explain(e);
      }
    };
    const form = h(
      "form.panel.login",
      { "data-testid": "login", onsubmit: (e) => (e.preventDefault(), submit("login")) },
      h("h1", {}, t("login.welcome", { brand: "slotlab" })),
      h("p", {}, t("login.intro")),
      h("label", { for: "username" }, t("login.username")),
      user,
      h("label", { for: "password" }, t("login.password")),
      pass,
      h("p.note", { "data-testid": "account-rules" }, t("login.new_account", { rules: accountRules() })),
      err,
      h(
        "div.login-actions",
        {},
        h("button.primary", { type: "submit", "data-testid": "login-submit" }, t("login.submit")),
        h("button", { type: "button", "data-testid": "register-submit", onclick: () => submit("register") }, t("login.register")),
      ),
      h("p.note", {}, t("login.responsibly")),
    );
    this.root.replaceChildren(form);
    user.focus();
    this.offerDemo(form);
  }

  /** "Play demo" under the login form, when the server offers demo play (not in every market). */
  async offerDemo(form) {
    const offer = await demoOffer(this.api);
    if (!offer.enabled || !form.isConnected) return;
    const err = form.querySelector("[data-testid=login-error]");
    form.append(demoPanel(async () => {
      try {
        const s = await this.api.call("POST", "/api/demo", undefined, { retries: 1 });
        this.api.setToken(s.token);
        if (!location.hash || location.hash === "#/login") history.replaceState(null, "", "#/lobby");
        await this.enter();
      } catch (e) {
        err.textContent = e instanceof ApiError && e.status === 429 ? dt("demo.refused.rate") : explain(e);
      }
    }));
  }

  async logout(expired = false, err = null) {
    this.routeToken = (this.routeToken || 0) + 1; // a navigation under way is abandoned
    if (this.view?.unmount) this.view.unmount();
    this.view = null;
    closeAll();
    if (!expired) await this.api.del("/api/sessions/current").catch(() => {});
    this.api.setToken(null);
    this.demo = false;
    showDemo(false);
    this.balanceEl.textContent = "";
    this.showLogin(expired ? explain(err ?? new ApiError(401, "session_expired", "")) : "");
  }
}

const app = new App();
window.slotlab = app; // handy for debugging in the console
app.start();
