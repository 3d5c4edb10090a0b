// The HTTP API client: bearer token, idempotency keys, retries on a lost network, errors in words.
import { newId, sleep, store } from "./util.js";

export class ApiError extends Error {
  constructor(status, code, message, body) {
    super(message);
    this.status = status;
    this.code = code;
    this.body = body;
  }
}

/** A sentence a player understands, for any failure. */
export function explain(err) {
  if (!(err instanceof ApiError)) return `Something went wrong: ${err?.message || err}`;
  const server = err.message && !/^HTTP \d+$/.test(err.message) ? ` (${err.message})` : "";
  switch (err.status) {
    case 0:
      return "Connection lost: the server cannot be reached. Check your network; your money and any round in play are safe on the server.";
    case 401:
      // An inactive session (R20) is told apart from one that was closed or ran out.
      if (err.code === "session_idle" && err.message)
        return `${err.message[0].toUpperCase()}${err.message.slice(1)}. Please log in again.`;
      return "Your session has ended. Please log in again.";
    case 402:
      return "Insufficient funds: your balance is too low for this bet. Lower the bet or add funds.";
    case 403:
      return "That is not allowed for your account." + server;
    case 404:
      return "Not found: the game or round does not exist." + server;
    case 409:
      return "A round is already in play; it has been restored so you can finish it." + server;
    case 429:
      return "Too fast: please wait a moment before starting the next round.";
    case 400:
    case 422:
      return "The request was refused" + (server || ".");
    default:
      return err.status >= 500
        ? "The game server had a problem. Please try again in a moment; nothing has been lost."
        : `Error ${err.status}${server}`;
  }
}

export class Api {
  constructor(base = "") {
    this.base = base;
    this.token = store("token") || null;
    this.onUnauthorized = () => {};
    this.onNetwork = () => {}; // (lost: boolean) => void
  }

  setToken(token) {
    this.token = token;
    store("token", token || null);
  }

  /**
   * One call. Mutating calls carry an Idempotency-Key so that a retry after a lost answer
   * returns the first answer and moves no money; network failures are retried a few times.
   */
  async call(method, path, body, { idempotent = false, retries = 3, key } = {}) {
    const headers = { Accept: "application/json" };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    if (this.token) headers.Authorization = `Bearer ${this.token}`;
    if (idempotent) headers["Idempotency-Key"] = key || newId();
    let attempt = 0;
    for (;;) {
      let res;
      try {
        res = await fetch(this.base + path, {
          method,
          headers,
          body: body === undefined ? undefined : JSON.stringify(body),
          cache: "no-store",
        });
      } catch (e) {
        if (attempt < retries) {
          this.offline = true;
          this.onNetwork(true);
          await sleep(400 * 2 ** attempt);
          attempt += 1;
          continue;
        }
        this.offline = true;
        this.onNetwork(true);
        throw new ApiError(0, "network", "network unreachable");
      }
      if (this.offline) {
        this.offline = false;
        this.onNetwork(false);
      }
      if (res.status === 204) return null;
      let data = null;
      const text = await res.text();
      try {
        data = text ? JSON.parse(text) : null;
      } catch {
        data = { raw: text };
      }
      if (res.ok) return data;
      const e = data?.error || (typeof data?.detail === "object" ? data.detail?.error : null) || {};
      const msg = e.message || (typeof data?.detail === "string" ? data.detail : "") || `HTTP ${res.status}`;
      const err = new ApiError(res.status, e.code || String(res.status), msg, data);
      if (res.status === 401 && this.token && !path.startsWith("/api/sessions")) this.onUnauthorized(err);
      throw err;
    }
  }

  get(path, opts) {
    return this.call("GET", path, undefined, opts);
  }
  post(path, body, opts) {
    return this.call("POST", path, body, { idempotent: true, ...opts });
  }
  del(path) {
    return this.call("DELETE", path, undefined, { retries: 0 });
  }
}
