// The characters' notes: the ruleset's live text fields (`sheet.live.text`, each with its
// label and longest length). The game master edits anyone's; a player's seat edits its
// own character's alone, as the service's rights say, so a player is offered no one else.
// Saved by `PATCH .../characters/{name}/live` with `{text}` (the fields changed) and, as
// If-Match, the revision the fields were filled from, so a change made meanwhile is not
// overwritten unseen. A field someone is typing in is never filled again under their
// hands: a newer reading fills the others and says when it changed one of theirs.

import { Refused, api, gamePath, state, who } from "./api.js";
import { $, el, field, trying, whileBusy } from "./dom.js";
import { loadParty, whenPartyLoaded } from "./play.js";
import { whenSeatDrawn } from "./signin.js";

let filled = null; // {game, name, revision}: whose fields are shown, from which reading

function declared() {
  const live = (state.ruleset && state.ruleset.sheet && state.ruleset.sheet.live) || {};
  return live.text || [];
}

// whose notes this token may edit: a player's seat its own character's, else everyone's
function editable() {
  return state.seat ? state.party.filter((m) => m.name === state.seat.character) : state.party;
}

function tell(text, how = "") {
  const said = $("notes-said");
  said.textContent = text;
  said.className = `said ${how}`;
}

function draw() {
  $("notes").hidden = !state.game;
  if (!state.game) {
    filled = null;
    $("notes-fields").replaceChildren();
    return;
  }
  const members = editable();
  const none = !declared().length
    ? "This ruleset gives its characters no notes."
    : !members.length
      ? state.seat
        ? `${state.seat.character} is not in the party.`
        : "No character yet: the notes come with the party."
      : "";
  $("notes-none").textContent = none;
  $("notes-none").hidden = !none;
  $("notes-form").hidden = Boolean(none);
  if (none) return;
  const select = $("notes-who");
  const kept = select.value;
  select.replaceChildren(...members.map((m) => el("option", { value: m.name, text: m.name })));
  if (members.some((m) => m.name === kept)) select.value = kept;
  // a player is offered no one else, and told why
  $("notes-pick").hidden = state.seat !== null;
  $("notes-whose").hidden = state.seat === null;
  $("notes-whose").textContent = state.seat
    ? `${state.seat.character}'s notes: your seat edits these alone; the other characters' notes are the Game Master's.`
    : "";
  fill();
}

// the picked character's fields, from the party as read; fields being typed in stay
function fill() {
  const member = state.party.find((m) => m.name === $("notes-who").value);
  if (!member) return;
  const same = filled && filled.game === state.game.id && filled.name === member.name;
  if (same && member.revision <= filled.revision) return;
  const text = (member.live && member.live.text) || {};
  if (!same) {
    $("notes-fields").replaceChildren(
      ...declared().map((f) => {
        const control = el("textarea", { "data-note": f.id, rows: "3", maxlength: String(f.maxLength) });
        control.value = text[f.id] ?? "";
        control.dataset.saved = control.value;
        return field(`notes-field-${f.id}`, f.label, control);
      }),
    );
    tell("");
  } else {
    const theirs = [];
    for (const control of $("notes-fields").querySelectorAll("[data-note]")) {
      const now = text[control.dataset.note] ?? "";
      if (control.value === control.dataset.saved) control.value = now;
      else if (now !== control.dataset.saved && now !== control.value) theirs.push(control.labels[0].textContent);
      control.dataset.saved = now;
    }
    if (theirs.length) {
      tell(`${member.name}'s ${theirs.join(", ")} changed meanwhile; saving puts what you wrote in its place.`, "refused");
    }
  }
  filled = { game: state.game.id, name: member.name, revision: member.revision };
}

async function save() {
  const name = $("notes-who").value;
  if (!filled || filled.name !== name) throw new Refused(0, { detail: "Pick whose notes first." });
  const text = {};
  const controls = [...$("notes-fields").querySelectorAll("[data-note]")];
  for (const control of controls) {
    if (control.value !== control.dataset.saved) text[control.dataset.note] = control.value;
  }
  if (!Object.keys(text).length) return tell("Nothing to save: the notes read as saved.");
  let answer;
  try {
    answer = await api("PATCH", gamePath("characters", who(name), "live"), { text }, { headers: { "If-Match": `"${filled.revision}"` } });
  } catch (error) {
    if (!(error instanceof Refused) || error.status !== 412) throw error;
    await loadParty(); // the newer reading fills the fields no one typed in
    throw new Refused(412, { detail: `${name} changed just as you saved: what you wrote is still here; read it over and save again.` });
  }
  const saved = answer.live.text || {};
  for (const control of controls) {
    if (!(control.dataset.note in text)) continue;
    control.dataset.saved = saved[control.dataset.note] ?? "";
    control.value = control.dataset.saved;
  }
  filled.revision = Math.max(filled.revision, answer.revision);
  tell(`Saved ${name}'s notes.`, "ok");
}

export function setUpNotes() {
  whenSeatDrawn(draw);
  whenPartyLoaded(draw);
  $("notes-who").addEventListener("change", () => {
    filled = null;
    fill();
  });
  const refused = (sentence) => tell(sentence, "refused");
  $("notes-form").addEventListener("submit", trying(() => whileBusy($("notes-save"), save), refused));
}
