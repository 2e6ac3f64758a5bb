// The Author tab: a ruleset file loaded, uploaded or typed, checked by the service
// (each problem a button that puts the cursor on its line), and saved as a version.

import { api } from "./api.js";
import { $, listProblems, say, trying } from "./dom.js";
import { loadRulesets } from "./play.js";

async function checkRuleset() {
  const text = $("ruleset-text").value;
  $("problems").replaceChildren(); // nothing of the last check stays if this one is refused
  $("taught").textContent = "";
  const answer = await api("POST", "/rulesets/check", text, { raw: true });
  listProblems($("problems"), $("ruleset-text"), answer.problems);
  $("problems-none").hidden = !answer.ok || answer.problems.length > 0;
  $("taught").textContent = answer.gm || "";
  const found = answer.problems.length + (answer.omitted || 0);
  const listed = answer.omitted ? `; the first ${answer.problems.length} are listed` : "";
  say(answer.ok ? `${answer.name} (${answer.id} v${answer.version}) is valid.` : `${found} problem(s)${listed}.`, "author");
  return answer;
}

async function saveRuleset() {
  const checked = await checkRuleset();
  if (!checked.ok) return;
  const stored = await api("POST", "/rulesets", $("ruleset-text").value, { raw: true });
  await loadRulesets();
  say(`Saved ${stored.id} version ${stored.version}.`, "author");
}

async function loadStart() {
  const [id, version] = $("author-start").value.split("@");
  $("ruleset-text").value = await api("GET", `/rulesets/${encodeURIComponent(id)}?version=${version}`, undefined, { text: true });
  say(`Loaded ${id} v${version}.`, "author");
}

export function setUpAuthor() {
  $("author-load").addEventListener("click", trying(loadStart));
  $("author-file").addEventListener("change", trying(async () => {
    const [file] = $("author-file").files;
    if (file) $("ruleset-text").value = await file.text();
    await checkRuleset();
  }));
  $("author-check").addEventListener("click", trying(checkRuleset));
  $("author-save").addEventListener("click", trying(saveRuleset));
}
