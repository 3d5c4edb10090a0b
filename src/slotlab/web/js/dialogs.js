// Modal dialogs (native <dialog>: focus trap and Escape for free) and toasts.
import { t } from "./i18n.js";
import { h } from "./util.js";

let stack = [];

/** Open a modal; returns {el, close, done}. done resolves with the close value. */
export function openDialog(title, content, { testid = "dialog", wide = false, actions = [], onClose } = {}) {
  const dlg = h("dialog.modal" + (wide ? ".wide" : ""), { "data-testid": testid, "aria-labelledby": `${testid}-title` });
  let resolve;
  const done = new Promise((r) => (resolve = r));
  const close = (value) => {
    if (!dlg.open) return;
    dlg.close();
    dlg.remove();
    stack = stack.filter((d) => d !== dlg);
    onClose?.(value);
    resolve(value);
  };
  const head = h(
    "header.modal-head",
    {},
    h("h2", { id: `${testid}-title` }, title),
    h("button.icon-btn", { "aria-label": t("dialog.close"), "data-testid": "dialog-close", onclick: () => close(null) }, "✕"),
  );
  const body = h("div.modal-body", {}, content);
  const foot = actions.length
    ? h(
        "footer.modal-foot",
        {},
        actions.map((a) =>
          h(
            "button" + (a.primary ? ".primary" : ""),
            { "data-testid": a.testid, onclick: () => (a.onclick ? a.onclick(close) : close(a.value)) },
            a.label,
          ),
        ),
      )
    : null;
  dlg.append(head, body, foot || "");
  dlg.addEventListener("cancel", (e) => {
    e.preventDefault();
    close(null);
  });
  dlg.addEventListener("click", (e) => {
    if (e.target === dlg) close(null); // backdrop
  });
  document.body.append(dlg);
  dlg.showModal();
  stack.push(dlg);
  const first = dlg.querySelector(".modal-body [autofocus], .modal-foot button.primary, .modal-foot button, .modal-body button, .modal-body input");
  (first || head.querySelector("button")).focus();
  return { el: dlg, body, close, done };
}

export function dialogOpen() {
  return stack.length > 0;
}

export function closeAll() {
  for (const d of [...stack]) d.dispatchEvent(new Event("cancel"));
}

/** A message box; resolves when dismissed. */
export function alertBox(title, text, { testid = "notice", button = t("dialog.ok") } = {}) {
  const content = Array.isArray(text) ? text.map((t) => (t instanceof Node ? t : h("p", {}, t))) : h("p", {}, text);
  return openDialog(title, content, { testid, actions: [{ label: button, primary: true, value: true, testid: `${testid}-ok` }] }).done;
}

let toastTimer = null;
/** A short message in the live region (read by screen readers), at the foot of the screen where
 * it covers neither the title nor the jackpot meters; a new round clears it (clearToast). */
export function toast(text, kind = "info", ms = 5000) {
  const el = document.getElementById("toast");
  if (!el) return;
  el.textContent = text;
  el.className = `toast show ${kind}`;
  el.dataset.kind = kind;
  clearTimeout(toastTimer);
  if (ms) toastTimer = setTimeout(() => el.classList.remove("show"), ms);
}

/** The toast is gone at once (a new round starts: what it said belongs to the last one). */
export function clearToast() {
  clearTimeout(toastTimer);
  document.getElementById("toast")?.classList.remove("show");
}
