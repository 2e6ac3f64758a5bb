// The Author tab: a ruleset file loaded, uploaded or typed, checked by the service
// (each problem a button that puts the cursor on its line), and saved as a version.

import { api } from "./api.js";
import { $, el, say, trying } from "./dom.js";
import { loadRulesets } from "./play.js";

function putCursor(textarea, line, column) {
  const lines = textarea.value.split("\n");
  let offset = 0;
  for (let i = 0; i < line - 1 && i < lines.length; i += 1) offset += lines[i].length + 1;
  offset += Math.max(column - 1, 0);
  textarea.focus();
  textarea.setSelectionRange(offset, offset);
  const lineHeight = textarea.scrollHeight / Math.max(lines.length, 1);
  textarea.scrollTop = Math.max((line - 3) * lineHeight, 0);
}

async function checkRuleset() {
  const text = $("ruleset-text").value;
  const answer = await api("POST", "/rulesets/check", text, { raw: true });
  $("problems").replaceChildren(
    ...answer.problems.map((p) =>
      el(
        "li",
        {},
        el(
          "button",
          { type: "button", "data-line": String(p.line), onclick: () => putCursor($("ruleset-text"), p.line, p.column) },
          `Line ${p.line}: ${p.path || "(the file)"}: ${p.message}`,
        ),
      ),
    ),
  );
  $("problems-none").hidden = !answer.ok || answer.problems.length > 0;
  $("taught").textContent = answer.gm || "";
  const found = answer.problems.length + (answer.omitted || 0);
  const listed = answer.omitted ? `; the first ${answer.problems.length} are listed` : "";
  say(answer.ok ? `${answer.name} (${answer.id} v${answer.version}) is valid.` : `${found} problem(s)${listed}.`);
  return answer;
}

async function saveRuleset() {
  const checked = await checkRuleset();
  if (!checked.ok) return;
  const stored = await api("POST", "/rulesets", $("ruleset-text").value, { raw: true });
  await loadRulesets();
  say(`Saved ${stored.id} version ${stored.version}.`);
}

async function loadStart() {
  const [id, version] = $("author-start").value.split("@");
  $("ruleset-text").value = await api("GET", `/rulesets/${encodeURIComponent(id)}?version=${version}`, undefined, { text: true });
  say(`Loaded ${id} v${version}.`);
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
