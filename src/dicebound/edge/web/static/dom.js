// Drawing on the page: elements by id, new elements, the status line, and a labelled
// field; every handler goes through `trying`, which says what went wrong.

import { Refused, state } from "./api.js";

export const $ = (id) => document.getElementById(id);

export function say(text) {
  $("status").textContent = text;
}

// `tell` says the sentence: the status line, unless a control says it beside itself
export function trying(work, tell = say) {
  return async (event) => {
    if (event) event.preventDefault();
    try {
      await work(event);
    } catch (error) {
      tell(error instanceof Refused ? refusal(error) : `Something went wrong: ${error.message}`);
      if (!(error instanceof Refused)) console.error(error);
    }
  };
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

export function field(id, labelText, control) {
  control.id = id;
  return el("div", { class: "field" }, el("label", { for: id, text: labelText }), control);
}

export function numberInput(path, min, max, value) {
  return el("input", { type: "number", inputmode: "numeric", "data-path": path, min: Number.isInteger(min) ? String(min) : null, max: Number.isInteger(max) ? String(max) : null, value: value === undefined || value === null ? "" : String(value) });
}

// `work()` with `button` marked busy until it settles; a click on a busy button does
// nothing, so a second click cannot send it twice. The button is not disabled: a
// disabled button loses the keyboard's focus.
export async function whileBusy(button, work) {
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
