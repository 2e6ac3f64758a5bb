// Drawing on the page: elements by id, new elements, the status line, and a labelled
// field; every handler goes through `trying`, which shows the action busy while it
// runs and says what went wrong, beside what caused it.

import { Refused, state } from "./api.js";

export const $ = (id) => document.getElementById(id);

// ── the status line ─────────────────────────────────────────────────────────
// It says what the tab shown did: each tab keeps its own last sentence, shown again when
// the tab is, and the page's own (the sign-in, the game row, live updates) stand beside
// them; the newer of the tab's and the page's is shown. A warning said with `holds` is
// dropped once `holds()` is false (a game picked, a token known), wherever it was said.
// On a phone the bar is one line; "More" opens the whole sentence.

const told = new Map(); // where ("page", or a tab panel's id) → {text, at, holds}
let toldAt = 0;

// the id of the tab panel shown
function shownPanel() {
  const tab = document.querySelector('[role="tab"][aria-selected="true"]');
  return tab ? tab.getAttribute("aria-controls") : "page";
}

// where an element is: its tab panel's id, or "page" (the header and the game row)
function placeOf(node) {
  const panel = node && node.closest ? node.closest('[role="tabpanel"]') : null;
  return panel ? panel.id : node ? "page" : shownPanel();
}

export function say(text, where = shownPanel(), holds = null) {
  told.set(where, { text, at: ++toldAt, holds });
  drawStatus();
}

// the status line for the tab shown, once every warning that no longer holds is dropped
export function drawStatus() {
  for (const [where, said] of told) if (said.holds && !said.holds()) told.delete(where);
  const newest = [told.get(shownPanel()), told.get("page")].filter(Boolean).sort((a, b) => b.at - a.at)[0];
  const text = newest ? newest.text : "";
  const status = $("status");
  if (status.textContent !== text) {
    status.textContent = text;
    foldStatus(true);
  }
  // "More" only where the bar cuts the sentence short (a phone's one line), measured
  // with the room the button would take back
  const more = $("status-more");
  if (more.getAttribute("aria-expanded") !== "true") {
    more.hidden = true;
    more.hidden = status.scrollWidth <= status.clientWidth + 1 && status.scrollHeight <= status.clientHeight + 1;
  }
  // a sentence longer than the bar scrolls inside it: the keyboard can reach it then
  const scrolls = getComputedStyle(status).overflowY !== "hidden" && status.scrollHeight > status.clientHeight + 1;
  if (scrolls) status.tabIndex = 0;
  else status.removeAttribute("tabindex");
}

function foldStatus(folded) {
  $("status-bar").classList.toggle("open", !folded);
  $("status-more").setAttribute("aria-expanded", String(!folded));
  $("status-more").textContent = folded ? "More" : "Less";
}

export function setUpStatus() {
  $("status-more").addEventListener("click", () => {
    foldStatus($("status-more").getAttribute("aria-expanded") === "true");
    drawStatus();
  });
  window.addEventListener("resize", drawStatus);
}

// `tell` says the sentence: the status line, and a line beside what caused it (the
// form, or the row of the control), unless a control says it beside itself. While the
// work runs, the form or control is busy (a second press does nothing) and its button
// disabled (aria-disabled: a disabled button would lose the keyboard's focus), and the
// status line shows a spinner.
export function trying(work, tell = null) {
  return async (event) => {
    if (event) event.preventDefault();
    const { place, button } = actor(event);
    const where = placeOf(place); // the tab (or the page) the status line says it for
    // a press while the same form or button is at work sends nothing (a change of a
    // select is still followed: the newest choice wins)
    if (button && place.getAttribute("aria-busy") === "true") return;
    const beside = tell ? null : besideOf(place);
    if (beside) refusals.get(beside)?.remove();
    const undo = busy(place, button);
    try {
      await work(event);
    } catch (error) {
      const sentence = error instanceof Refused ? refusal(error) : `Something went wrong: ${error.message}`;
      if (tell) tell(sentence);
      else say(sentence, where, error instanceof Refused ? error.holds : null);
      if (beside) showBeside(beside, sentence);
      if (!(error instanceof Refused)) console.error(error);
    } finally {
      undo();
    }
  };
}

// what an event acts on: a submitted form and its button, or the control itself
function actor(event) {
  if (!event) return { place: null, button: null };
  if (event.type === "submit") {
    const form = event.target;
    return { place: form, button: event.submitter || form.querySelector('[type="submit"]') };
  }
  const control = event.currentTarget instanceof HTMLElement ? event.currentTarget : null;
  return { place: control, button: control instanceof HTMLButtonElement ? control : null };
}

let working = 0; // actions in flight, across the page
const pressing = new WeakSet(); // the buttons `trying` is at work for

function busy(place, button) {
  working += 1;
  $("status").setAttribute("aria-busy", "true");
  if (place) place.setAttribute("aria-busy", "true");
  if (button) {
    pressing.add(button);
    button.setAttribute("aria-disabled", "true");
  }
  return () => {
    working -= 1;
    if (!working) $("status").removeAttribute("aria-busy");
    if (place) place.removeAttribute("aria-busy");
    if (button) {
      pressing.delete(button);
      button.removeAttribute("aria-disabled");
    }
  };
}

const refusals = new WeakMap(); // where a refusal is said → its line

// the form a control is in, else its row, else the control
function besideOf(place) {
  if (!place || !place.isConnected) return null;
  return place.closest("form, .row, fieldset") || place;
}

function showBeside(anchor, sentence) {
  if (!anchor.isConnected) return;
  const line = el("p", { class: "refusal", text: sentence });
  refusals.get(anchor)?.remove();
  refusals.set(anchor, line);
  anchor.after(line);
}

// a refusal in the service's words; a player's seat refused is told whose seat it is
// (the service's sentence says what a seat may do)
function refusal(error) {
  if (error.status !== 403 || !state.seat) return error.message;
  return `Not for ${state.seat.character}'s seat: ${error.message}`;
}

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat(Infinity)) {
    if (child !== null && child !== undefined) node.append(child);
  }
  return node;
}

// `list`'s children made `nodes`, in order: a node already in it is moved only when out
// of place (so focus inside it stays), the rest removed
export function placeInOrder(list, nodes) {
  nodes.forEach((node, at) => {
    if (list.children[at] !== node) list.insertBefore(node, list.children[at] || null);
  });
  while (list.children.length > nodes.length) list.lastElementChild.remove();
}

export function field(id, labelText, control) {
  control.id = id;
  return el("div", { class: "field" }, el("label", { for: id, text: labelText }), control);
}

export function numberInput(path, min, max, value) {
  return el("input", { type: "number", inputmode: "numeric", "data-path": path, min: Number.isInteger(min) ? String(min) : null, max: Number.isInteger(max) ? String(max) : null, value: value === undefined || value === null ? "" : String(value) });
}

// `work()` with `button` marked busy until it settles; a click on a busy button does
// nothing, so a second click cannot send it twice. The button is not disabled: a
// disabled button loses the keyboard's focus. A button `trying` is at work for is
// marked already, and `trying` ignores its second press: the work just runs.
export async function whileBusy(button, work) {
  if (pressing.has(button)) return work();
  if (button.getAttribute("aria-busy") === "true") return undefined;
  button.setAttribute("aria-busy", "true");
  button.setAttribute("aria-disabled", "true");
  try {
    return await work();
  } finally {
    button.removeAttribute("aria-busy");
    button.removeAttribute("aria-disabled");
  }
}

// put the cursor of `textarea` at a line and column, scrolled into view
export function putCursor(textarea, line, column) {
  const lines = textarea.value.split("\n");
  let offset = 0;
  for (let i = 0; i < line - 1 && i < lines.length; i += 1) offset += lines[i].length + 1;
  offset += Math.max(column - 1, 0);
  textarea.focus();
  textarea.setSelectionRange(offset, offset);
  const lineHeight = textarea.scrollHeight / Math.max(lines.length, 1);
  textarea.scrollTop = Math.max((line - 3) * lineHeight, 0);
}

// a file's problems as the service placed them, each a button that puts the cursor of
// `textarea` on its line; `omitted`: how many more the service did not list
export function listProblems(list, textarea, problems, omitted = 0) {
  list.replaceChildren(
    ...problems.map((p) =>
      el(
        "li",
        {},
        el(
          "button",
          { type: "button", "data-line": String(p.line), onclick: () => putCursor(textarea, p.line, p.column) },
          `Line ${p.line}: ${p.path || "(the file)"}: ${p.message}`,
        ),
      ),
    ),
    ...(omitted ? [el("li", { class: "none", text: `${omitted} more problem(s) not listed: fix these first.` })] : []),
  );
}
