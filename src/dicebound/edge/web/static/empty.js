// What the page says where there is nothing yet, so a new table always reads what to do
// next: an empty party or history of the picked game gets a sentence in its place, and
// the Resolve box's example (its placeholder, and one click away) names a skill the
// picked game's first character has.

import { api, gamePath, state, who } from "./api.js";
import { $ } from "./dom.js";

const FALLBACK = 'The door is locked. [skill_check: skill="Stealth" dc="15"]';

// a check the picked game can resolve as written: of a skill `character` (a character
// file: its first skill the ruleset has, else the ruleset's first skill or ability) at the
// middle step of the ruleset's difficulty ladder, rolled by that character when given
export function exampleText(ruleset, character = null) {
  const sheet = (ruleset && ruleset.sheet) || {};
  const skills = sheet.skills || [];
  const trained = Object.keys((character && character.sheet && character.sheet.build && character.sheet.build.skills) || {});
  const named = trained.map((id) => skills.find((s) => s.id === id)).find(Boolean) || skills[0] || (sheet.abilities || [])[0];
  if (!named) return FALLBACK;
  const ladder = (ruleset.resolution && ruleset.resolution.difficultyLadder) || [];
  const step = ladder[Math.floor((ladder.length - 1) / 2)];
  const difficulty = step ? ` difficulty="${step.label}"` : "";
  const who = character && !character.name.includes('"') ? ` who="${character.name}"` : "";
  return `Narrate, then call for a check: [skill_check: skill="${named.label}"${difficulty}${who}]`;
}

// the Game Master text made the example of the picked game, with its first character
export async function writeExample() {
  const first = state.party[0];
  const character = first ? await api("GET", gamePath("characters", who(first.name))) : null;
  $("gm-text").value = exampleText(state.ruleset, character);
  $("gm-text").focus();
}

// the sentences in place of the picked game's empty party and history (none before a
// game is picked: the game row says to pick one)
export function drawEmpty() {
  const picked = state.game !== null;
  $("party-empty").hidden = !picked || state.party.length > 0;
  $("history-empty").hidden = !picked || $("history").children.length > 0;
}
