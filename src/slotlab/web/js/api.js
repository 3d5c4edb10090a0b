// The HTTP API client: bearer token, idempotency keys, retries on a lost network, errors in words.
import { duration, t } from "./i18n.js";
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
  if (!(err instanceof ApiError)) return t("error.unexpected", { detail: err?.message || err });
  // the server's own words (English) are added in brackets where they say more than the status
  const server = err.message && !/^HTTP \d+$/.test(err.message) ? t("error.server_detail", { detail: err.message }) : "";
  switch (err.status) {
    case 0:
      return t("error.network");
    case 401:
      // An inactive session (R20) is told apart from one that was closed or ran out.
      if (err.code === "session_idle") {
        // the server says the timeout in English words ("after 2 seconds"): said again here
        const m = /after (\d+) (day|hour|minute|second)s? /.exec(err.message || "");
        const unit = { day: 86400, hour: 3600, minute: 60, second: 1 };
        if (m) return t("error.session_idle", { duration: duration(Number(m[1]) * unit[m[2]]) });
      }
      return t("error.session_ended");
    case 402:
      return t("error.insufficient_funds");
    case 403:
      return t("error.forbidden") + server;
    case 404:
      return t("error.not_found") + server;
    case 409:
      return t("error.round_open") + server;
    case 429:
      return t("error.too_fast");
    case 400:
    case 422:
      return server ? t("error.refused_because", { detail: server }) : t("error.refused");
    default:
      return err.status >= 500
        ? t("error.server")
        : t("error.status", { status: err.status, detail: server });
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
