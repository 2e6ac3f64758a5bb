// The Sheet tab's import: a character file uploaded or pasted, checked against the
// game's ruleset version (`POST /rulesets/{id}/characters/check`: each problem at its
// line, a button that puts the cursor there, as the Author tab lists a ruleset's), then
// put into the game under the name it writes and opened in the form.

import { Refused, api, gamePath, state, who } from "./api.js";
import { $, listProblems, say, trying } from "./dom.js";
import { loadParty } from "./play.js";

async function importCharacter() {
  if (!state.game) throw new Refused(0, { detail: "Pick a game first (the Game list above the tabs)." });
  const text = $("sheet-pasted").value;
  $("import-problems").replaceChildren();
  if (!text.trim()) throw new Refused(0, { detail: "Paste a character file, or upload one, first." });
  const { ruleset, version } = state.game;
  const checked = await api("POST", `/rulesets/${encodeURIComponent(ruleset)}/characters/check?version=${version}`, text, { raw: true });
  if (!checked.ok) {
    listProblems($("import-problems"), $("sheet-pasted"), checked.problems, checked.omitted);
    const found = checked.problems.length + (checked.omitted || 0);
    throw new Refused(0, { detail: `The character file has ${found} problem(s), each listed at its line: nothing was imported.` });
  }
  const replaced = state.party.some((m) => m.name === checked.name);
  const saved = await api("PUT", gamePath("characters", who(checked.name)), text, { raw: true });
  await loadParty();
  const select = $("sheet-character");
  select.value = saved.name;
  select.dispatchEvent(new Event("change")); // the form opens on the character imported
  say(`${replaced ? "Replaced" : "Imported"} ${saved.name} (revision ${saved.revision}).`, "sheet");
}

export function setUpSheetFile() {
  $("sheet-import-button").addEventListener("click", trying(importCharacter));
  $("sheet-file").addEventListener("change", trying(async () => {
    const [file] = $("sheet-file").files;
    if (!file) return;
    $("sheet-pasted").value = await file.text();
    await importCharacter();
  }));
}
