// What the page says where there is nothing yet, so a new table always reads what to do
// next: an empty party or history of the picked game gets a sentence in its place, and
// the Resolve box's example tag names a skill the picked game's ruleset has.

import { state } from "./api.js";
import { $ } from "./dom.js";

const FALLBACK = 'The door is locked. [skill_check: skill="Stealth" dc="15"]';

// a check of the ruleset's first skill (else ability) at the middle step of its
// difficulty ladder: an example that resolves as written in this game
export function exampleText(ruleset) {
  const sheet = (ruleset && ruleset.sheet) || {};
  const named = (sheet.skills || [])[0] || (sheet.abilities || [])[0];
  if (!named) return FALLBACK;
  const ladder = (ruleset.resolution && ruleset.resolution.difficultyLadder) || [];
  const step = ladder[Math.floor((ladder.length - 1) / 2)];
  const difficulty = step ? ` difficulty="${step.label}"` : "";
  return `Narrate, then call for a check: [skill_check: skill="${named.label}"${difficulty}]`;
}

// the sentences in place of the picked game's empty party and history (none before a
// game is picked: the game row says to pick one)
export function drawEmpty() {
  const picked = state.game !== null;
  $("party-empty").hidden = !picked || state.party.length > 0;
  $("history-empty").hidden = !picked || $("history").children.length > 0;
}
