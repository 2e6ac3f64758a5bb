// Signing in, and what the token's holder is shown. A token is the admin's, a game
// master's (a game's own) or a player's (one character's seat); `GET /games` says whose,
// and answers 401 to a token it does not know, which the page says in its own words and
// forgets, so a mistyped token never reads as a sign-in with no games. Each holder sees
// the controls it may use: the others are hidden, or disabled with the reason beside.

import { Refused, state } from "./api.js";
import { $, say, trying } from "./dom.js";

const KEPT = "dicebound-token"; // the tab's session storage, never a cookie
const whenDrawn = []; // what draws itself again for the holder and the game

// `hook()` runs each time the page is drawn for the token's holder (a game picked, or none)
export function whenSeatDrawn(hook) {
  whenDrawn.push(hook);
}

const NOT_KNOWN =
  "This token is not known here: it is not the admin token, a game's token or a player's seat (mistyped, or replaced or revoked since). Nothing is signed in; only the rulesets can be read.";

function besides(text, refused = false) {
  const said = $("signin-said");
  said.textContent = text;
  said.className = `said ${refused ? "refused" : "ok"}`;
  if (refused) $("token").setAttribute("aria-invalid", "true");
  else $("token").removeAttribute("aria-invalid");
}

// the service answered 401 to the token: forget it, say so beside it, and give the
// sentence to throw (play.js's loadGames has cleared the games and the game)
export function tokenNotKnown() {
  state.token = "";
  state.holder = null;
  sessionStorage.removeItem(KEPT);
  besides(NOT_KNOWN, true);
  return new Refused(401, { detail: NOT_KNOWN }, () => state.holder === null);
}

// whose the token is, in a few words ("the admin token", "Maud Harrowgate's seat")
function whose() {
  if (state.holder === "admin") return "the admin token";
  if (state.holder === "game-master") return state.game ? `the game master's token for ${state.game.name}` : "a game master's token";
  if (state.holder === "player") return state.seat ? `${state.seat.character}'s seat` : "a player's seat";
  return "";
}

// the page as the holder may use it; play.js calls it each time a game is picked (or none)
export function drawSeat() {
  const player = state.seat !== null;
  const admin = state.holder === "admin";
  // no token (or one not known) uses none of the Game Master's controls either
  for (const part of document.querySelectorAll(".gm-only")) part.hidden = player || !state.holder;
  // a player's seat cannot save a ruleset: Author is not shown to it
  $("tab-author").hidden = player;
  // making a game is the admin's alone: no one else is shown the form
  for (const part of document.querySelectorAll(".admin-only")) part.hidden = !admin;
  const save = $("author-save");
  save.disabled = !admin;
  const why = $("author-save-why");
  why.hidden = admin;
  why.textContent = admin
    ? ""
    : `Saving a ruleset takes the admin token, and ${state.holder ? `this page holds ${whose()}` : "no token is in use"}. Check works with any token, or none.`;

  // where a token comes from, until one is in use
  $("token-hint").hidden = state.holder !== null;
  const seat = $("seat");
  seat.hidden = !state.holder || (!state.game && !admin);
  seat.textContent = player
    ? `Seat: ${state.seat.character}'s player`
    : state.holder === "game-master"
      ? "Seat: the game master"
      : admin
        ? "Seat: the admin"
        : "";
  const says = $("seat-says");
  says.hidden = !player;
  says.textContent = player
    ? `You hold ${state.seat.character}'s seat: you follow the table as it plays, answer ${state.seat.character}'s raises and choices, and edit ${state.seat.character}'s notes. Resolving checks, rests and damage, the odds and the sheets are the Game Master's, so they are not shown here.`
    : "";
  const tab = document.querySelector('[role="tab"][aria-selected="true"]');
  if (tab && tab.hidden) $("tab-play").click();
  for (const hook of whenDrawn) hook();
}

// use the token typed (blank: none), reading the games it may see; `load` is play.js's
// loadGames, which throws `tokenNotKnown()` for a token the service does not know
async function useToken(load) {
  const token = $("token").value.trim();
  state.token = token;
  besides("");
  await load();
  if (!token) {
    sessionStorage.removeItem(KEPT);
    say("No token: only the rulesets can be read.", "page", () => !state.token);
    return;
  }
  sessionStorage.setItem(KEPT, token);
  besides(`Signed in with ${whose()}.`);
  say(`Token in use: ${whose()}.`, "page");
}

export function setUpSignIn(load) {
  $("token").value = state.token;
  $("signin").addEventListener("submit", trying(() => useToken(load)));
}
