// dicebound's page: play, author, balance and sheets over the service's own API.
// No framework and no build step: the browser runs these modules as they ship, one a
// tab (play.js with history.js for the History list, fight.js for the fight, roller.js for who rolls, tend.js
// for rests, damage and heal and notes.js for the notes; author.js, balance.js,
// sheet.js with seats.js for the players' seats) over api.js, dom.js and words.js;
// signin.js signs in and shows each token's holder what it may use, dialog.js shows a
// new token once, and live.js (with sse.js) follows the game's events; this one wires
// the tabs and starts. Every number on the page comes from the engine; the scripts
// only ask and draw.

import { state } from "./api.js";
import { setUpAuthor } from "./author.js";
import { setUpBalance } from "./balance.js";
import { setUpDialog } from "./dialog.js";
import { setUpFight } from "./fight.js";
import { $, drawStatus, setUpStatus, trying } from "./dom.js";
import { setUpNotes } from "./notes.js";
import { loadGames, loadRulesets, setUpPlay, whenPartyLoaded } from "./play.js";
import { setUpRoller } from "./roller.js";
import { setUpSeats } from "./seats.js";
import { setUpSheet } from "./sheet.js";
import { setUpSheetFile } from "./sheetfile.js";
import { setUpSignIn, whenSeatDrawn } from "./signin.js";
import { setUpTend } from "./tend.js";

// ── tabs (WAI-ARIA tabs: arrows move between them) ──────────────────────────

function showTab(tab, focus = false) {
  for (const other of document.querySelectorAll('[role="tab"]')) {
    const chosen = other === tab;
    other.setAttribute("aria-selected", String(chosen));
    other.tabIndex = chosen ? 0 : -1;
    $(other.getAttribute("aria-controls")).hidden = !chosen;
  }
  if (focus) tab.focus();
  drawStatus(); // the status line says what this tab did
  history.replaceState(null, "", `#${tab.getAttribute("aria-controls")}`);
}

function setUpTabs() {
  const all = [...document.querySelectorAll('[role="tab"]')];
  for (const tab of all) {
    tab.addEventListener("click", () => showTab(tab));
    tab.addEventListener("keydown", (event) => {
      const tabs = all.filter((t) => !t.hidden); // a player's view hides some
      const at = tabs.indexOf(tab);
      const step = { ArrowRight: 1, ArrowLeft: -1 }[event.key];
      if (step) showTab(tabs[(at + step + tabs.length) % tabs.length], true);
      if (event.key === "Home") showTab(tabs[0], true);
      if (event.key === "End") showTab(tabs[tabs.length - 1], true);
    });
  }
  const wanted = all.find((t) => `#${t.getAttribute("aria-controls")}` === location.hash);
  if (wanted) showTab(wanted);
}

// ── start ───────────────────────────────────────────────────────────────────

function start() {
  setUpTabs();
  setUpStatus();
  // a warning the status line shows goes once it no longer holds (a token known, a game
  // picked, a character added)
  whenSeatDrawn(drawStatus);
  whenPartyLoaded(drawStatus);
  setUpSignIn(loadGames);
  setUpDialog();
  setUpPlay();
  setUpFight();
  setUpRoller();
  setUpTend();
  setUpNotes();
  setUpAuthor();
  setUpBalance();
  setUpSheet();
  setUpSeats();
  setUpSheetFile();
  trying(async () => {
    const token = state.token;
    await loadRulesets();
    // a token put in use meanwhile reads the games itself (useToken): reading them here
    // too would pick the game twice, and say "Playing" over "Token in use"
    if (state.token !== token) return;
    await loadGames();
  })();
}

start();
