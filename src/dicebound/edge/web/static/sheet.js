// The Sheet tab: a character's form drawn from the service's description of it
// (`GET /rulesets/{id}/sheet-form`: what each input takes), saved whole by
// `PUT .../characters/{name}`, whose problems are listed and marked on their fields.

import { Refused, api, gamePath, state, who } from "./api.js";
import { $, el, field, numberInput, say, trying } from "./dom.js";
import { loadParty, whenGameChosen } from "./play.js";
import { readParts, sheetParts } from "./sheetparts.js";
import { inPoints } from "./words.js";

let described = null; // the picked game's sheet form, as the service describes it

function tierSelect(path, tiers, value) {
  const select = el("select", { "data-path": path }, tiers.map((t) => el("option", { value: t.id, text: t.label })));
  if (value) select.value = value;
  return select;
}

function fieldControl(f, path, value) {
  if (f.type === "number") return numberInput(path, f.min, f.max, value);
  if (f.type === "boolean") return el("input", { type: "checkbox", "data-path": path, checked: value ? true : null });
  if (f.type === "enum") {
    const control = el("select", { "data-path": path }, f.values.map((v) => el("option", { value: v.value, text: v.label })));
    if (value !== undefined && value !== null) control.value = value;
    return control;
  }
  if (f.type === "longtext") {
    const control = el("textarea", { "data-path": path, maxlength: String(f.max_length), rows: "2" });
    control.value = value ?? "";
    return control;
  }
  return el("input", { "data-path": path, maxlength: String(f.max_length), value: value ?? "" });
}

function buildSheetForm(character) {
  const form = $("sheet-form");
  $("sheet-problems").replaceChildren();
  if (!described) return form.replaceChildren();
  const build = (character && character.sheet && character.sheet.build) || {};
  const live = (character && character.live) || {};
  const sets = [];
  sets.push(el("fieldset", {}, el("legend", { text: "Who" }), field("sheet-name", "Character name", el("input", { "data-path": "name", required: true, maxlength: String(described.name_max_length), value: character ? character.name : "", readonly: character ? true : null }))));
  const abilities = described.abilities;
  if (abilities.length) {
    sets.push(el("fieldset", {}, el("legend", { text: "Abilities" }), abilities.map((a) => field(`sheet-ability-${a.id}`, `${a.label} (${a.min} to ${a.max})`, numberInput(`sheet.build.abilities.${a.id}`, a.min, a.max, (build.abilities || {})[a.id] ?? a.default)))));
  }
  for (const { key, label, tiers, items } of described.groups) {
    sets.push(el("fieldset", {}, el("legend", { text: label }), items.map((s) => field(`sheet-${key}-${s.id}`, s.label, tierSelect(`sheet.build.${key}.${s.id}`, tiers, (build[key] || {})[s.id])))));
  }
  const fields = described.fields;
  if (fields.length) {
    sets.push(el("fieldset", {}, el("legend", { text: "Fields" }), fields.map((f) => {
      const path = `sheet.build.fields.${f.id}`;
      return field(`sheet-field-${f.id}`, f.label, fieldControl(f, path, (build.fields || {})[f.id] ?? f.default));
    })));
  }
  const { pools, tracks } = described;
  if (pools.length || tracks.length) {
    // a pool left blank holds what it starts with: full, or empty (5e's Inspiration)
    sets.push(el("fieldset", {}, el("legend", { text: "Live state (blank: a pool as it starts, a track at its default)" }),
      pools.map((p) => field(`sheet-pool-${p.id}`, `${inPoints(p.label)} (blank: ${p.start === "empty" ? "empty" : "full"})`, numberInput(`live.pools.${p.id}`, 0, null, ((live.pools || {})[p.id] || {}).value))),
      tracks.map((t) => field(`sheet-track-${t.id}`, `${t.label} (${t.min} to ${t.max ?? "max"})`, numberInput(`live.tracks.${t.id}`, t.min, t.max, (live.tracks || {})[t.id]))),
    ));
  }
  sets.push(...sheetParts(described, build, live));
  sets.push(el("button", { type: "submit" }, "Save the character"));
  form.replaceChildren(...sets);
  form._character = character || null;
}

function readSheet() {
  const before = $("sheet-form")._character;
  const body = {
    name: $("sheet-name").value.trim(),
    sheet: { v: described.sheet_version, build: { ...(before ? before.sheet.build : {}), abilities: {}, skills: {}, saves: {}, fields: {} } },
    live: { ...(before ? before.live : {}), pools: {}, tracks: {} },
  };
  for (const control of $("sheet-form").querySelectorAll("[data-path]")) {
    const path = control.dataset.path.split(".");
    if (path[0] === "name" || control.dataset.part) continue; // lists and wounds: sheetparts.js
    let value;
    if (control.type === "checkbox") value = control.checked;
    else if (control.type === "number") {
      if (control.value === "") continue;
      value = Number(control.value);
    } else value = control.value;
    if (path[0] === "live" && path[1] === "pools") body.live.pools[path[2]] = { value };
    else if (path[0] === "live") body.live.tracks[path[2]] = value;
    else body.sheet.build[path[2]][path[3]] = value;
  }
  readParts($("sheet-form"), body);
  if (!Object.keys(body.live.pools).length) delete body.live.pools;
  if (!Object.keys(body.live.tracks).length) delete body.live.tracks;
  return body;
}

async function saveSheet() {
  if (!state.game) throw new Refused(0, { detail: "Pick a game first." }, () => !state.game);
  for (const bad of $("sheet-form").querySelectorAll('[aria-invalid="true"]')) bad.removeAttribute("aria-invalid");
  const body = readSheet();
  if (!body.name) throw new Refused(0, { detail: "A character needs a name." });
  try {
    const saved = await api("PUT", gamePath("characters", who(body.name)), body);
    $("sheet-problems").replaceChildren();
    await loadParty();
    $("sheet-character").value = body.name;
    say(`Saved ${saved.name} (revision ${saved.revision}).`, "sheet");
  } catch (error) {
    if (!(error instanceof Refused) || !error.problem.problems) throw error;
    const problems = error.problem.problems;
    $("sheet-problems").replaceChildren(...problems.map((p) => el("li", { text: `${p.path}: ${p.message}` })));
    for (const p of problems) {
      const control = [...$("sheet-form").querySelectorAll("[data-path]")].find((c) => p.path === c.dataset.path || p.path.startsWith(`${c.dataset.path}.`));
      if (control) control.setAttribute("aria-invalid", "true");
    }
    say(`${error.message} ${problems.map((p) => `${p.path}: ${p.message}`).join(" ")}`, "sheet");
  }
}

async function pickSheet() {
  const name = $("sheet-character").value;
  if (!name) return buildSheetForm();
  const character = await api("GET", gamePath("characters", who(name)));
  buildSheetForm(character);
}

export function setUpSheet() {
  whenGameChosen(async (game) => {
    described = await api("GET", `/rulesets/${encodeURIComponent(game.ruleset)}/sheet-form?version=${game.version}`);
    buildSheetForm();
  });
  $("sheet-character").addEventListener("change", trying(pickSheet));
  $("sheet-new").addEventListener("click", trying(async () => { $("sheet-character").value = ""; buildSheetForm(); }));
  $("sheet-form").addEventListener("submit", trying(saveSheet));
}
