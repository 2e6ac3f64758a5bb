// The players' seats, on the game master's side (the Sheet tab): for each character,
// make a seat (its player's token, shown once in the dialog; made again, a new token
// replaces the old) or revoke it, once asked again. No route says which characters hold
// a seat, so the page says only what it saw: seats made or revoked here, or anywhere
// while it follows the game (the `seat` events of its stream); Revoke is offered only
// for a seat it saw made (one made before: make it again, then revoke it).

import { api, gamePath, state, who } from "./api.js";
import { showToken } from "./dialog.js";
import { $, el, placeInOrder, trying, whileBusy } from "./dom.js";
import { alsoOn } from "./live.js";
import { whenPartyLoaded } from "./play.js";
import { whenSeatDrawn } from "./signin.js";

let seen = { game: null, made: new Map() }; // character → a seat made (true) or revoked (false)

function seenNow() {
  const game = state.game && state.game.id;
  if (seen.game !== game) seen = { game, made: new Map() };
  return seen.made;
}

function tell(said, text, how) {
  said.textContent = text;
  said.className = `said ${how}`;
}

function stateWords(name) {
  const made = seenNow().get(name);
  if (made === undefined) return "";
  return made ? "Seat made." : "No seat: revoked.";
}

async function makeSeat(name, said) {
  const { token } = await api("POST", gamePath("characters", who(name), "seat"));
  mark(name, true);
  tell(said, `Seat made: give the token to ${name}'s player.`, "ok");
  showToken({
    title: `${name}'s seat`,
    about: `For ${name}'s player: entered under Token at the top of this page, it plays ${name} from their own screen (their raises, their notes) and nothing else. Any token ${name}'s player held before has stopped.`,
    token,
    lost: "If it is lost, make the seat again: a new token replaces it.",
  });
}

async function revokeSeat(name, said) {
  await api("DELETE", gamePath("characters", who(name), "seat"));
  mark(name, false);
  tell(said, `Revoked: ${name}'s player's token stopped working.`, "ok");
}

function row(name) {
  const said = el("p", { class: "said", role: "status" });
  const beside = (work) => trying(work, (sentence) => tell(said, sentence, "refused"));
  const make = el("button", { type: "button", "aria-label": `Make a seat for ${name}` }, "Make a seat");
  const revoke = el("button", { type: "button", class: "quiet revoke", "aria-label": `Revoke ${name}'s seat` }, "Revoke the seat");
  // revoking stops a player at once: it is asked again before it is done
  const yes = el("button", { type: "button" }, "Yes, revoke it");
  const no = el("button", { type: "button", class: "quiet" }, "Keep the seat");
  const question = `Revoke ${name}'s seat? Their player is stopped at once.`;
  const asking = el("span", { class: "row confirm", role: "group", "aria-label": question, hidden: true }, el("span", { text: question }), yes, no);
  const ask = (shown) => {
    asking.hidden = !shown;
    revoke.hidden = shown || seenNow().get(name) !== true;
    (shown ? no : revoke).focus();
  };
  make.addEventListener("click", beside(() => whileBusy(make, () => makeSeat(name, said))));
  revoke.addEventListener("click", () => ask(true));
  no.addEventListener("click", () => ask(false));
  const revoked = async () => {
    await revokeSeat(name, said);
    asking.hidden = true;
    make.focus();
  };
  yes.addEventListener("click", beside(() => whileBusy(yes, revoked)));
  revoke.hidden = seenNow().get(name) !== true;
  return el(
    "li",
    { "data-seat": name },
    el("span", { class: "name", text: name }),
    el("span", { class: "seat-state", text: stateWords(name) }),
    el("span", { class: "row" }, make, revoke),
    asking,
    said,
  );
}

// a seat made or revoked, here or by an event: its words, and its Revoke button only
// where a seat is known to stand
function mark(name, made) {
  seenNow().set(name, made);
  const shown = [...$("seat-list").children].find((li) => li.dataset.seat === name);
  if (!shown) return;
  shown.querySelector(".seat-state").textContent = stateWords(name);
  shown.querySelector(".revoke").hidden = !made || !shown.querySelector(".confirm").hidden;
}

// one row a character, in the party's order; a row already drawn stays (with its focus)
function draw() {
  const list = $("seat-list");
  if (!state.game) {
    list.replaceChildren();
    $("seats-none").hidden = true;
    return;
  }
  seenNow();
  if (list.dataset.game !== state.game.id) {
    list.replaceChildren(); // another game's rows say what was seen there
    list.dataset.game = state.game.id;
  }
  const drawn = new Map([...list.children].map((li) => [li.dataset.seat, li]));
  const rows = state.party.map((m) => drawn.get(m.name) || row(m.name));
  placeInOrder(list, rows);
  $("seats-none").hidden = rows.length > 0;
}

export function setUpSeats() {
  whenSeatDrawn(draw);
  whenPartyLoaded(draw);
  alsoOn("seat", ({ character, made }) => mark(character, made));
}
