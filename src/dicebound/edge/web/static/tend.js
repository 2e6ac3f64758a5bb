// The Play tab's rests, damage and heal: each control writes the `[sheet: ...]` command
// a Game Master would, sends it as a text through the checks route like any other, and
// says beside itself what the engine did (done, with what the sheet now reads, or
// refused, with why). The engine decides; the page only writes the command.

import { Refused, state } from "./api.js";
import { $, el, trying } from "./dom.js";
import { sendText, whenGameChosen, whenPartyLoaded } from "./play.js";
import { declared, reasonWords } from "./words.js";

const PARTY = ""; // the who option that means the whole party

// a refusal of the page's own, said beside the control
const unwritable = (detail) => new Refused(0, { detail });

// A value sits between double quotes and the tag ends at the first `]`: a value holding
// either (or `[`, which could open another tag) cannot be written, so it is refused here.
function attr(key, value) {
  const text = String(value);
  if (/["[\]]/.test(text)) {
    throw unwritable(`"${text}" holds a double quote or a square bracket, which a [sheet:] tag cannot carry: rename it to act on it from here.`);
  }
  return `${key}="${text}"`;
}

// the character key (docs/design/sheet-commands.md "Targets"): a name whose key is
// "party" would mean everyone in a tag
function characterKey(name) {
  return name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}]+/gu, " ")
    .trim();
}

function whoAttr(name) {
  if (name === PARTY) return attr("who", "party");
  if (characterKey(name) === "party") {
    throw unwritable(`"${name}" reads as the whole party in a [sheet:] tag: rename the character to act on them alone.`);
  }
  return attr("who", name);
}

function tag(...attrs) {
  return `[sheet: ${attrs.join(" ")}]`;
}

// send one command and say beside the control what became of it
async function command(text, outcome) {
  outcome.textContent = "Sending…";
  outcome.className = "said";
  const answer = await sendText({ text });
  const [done] = answer.sheet || [];
  if (!done) throw unwritable("The service did not read the command.");
  outcome.className = `said ${done.ok ? "ok" : "refused"}`;
  outcome.textContent = done.ok
    ? `Done: ${done.who}, ${done.now}.`
    : `Refused: ${reasonWords(done.reason)}. Nothing changed.`;
}

// dom.js's `trying`, with the sentence beside the control it is about
function besides(outcome, work) {
  return trying(work, (sentence) => {
    outcome.className = "said refused";
    outcome.textContent = sentence;
  });
}

// ── who ─────────────────────────────────────────────────────────────────────

// A select remembers what the person picked (`dataset.picked`) while the party is drawn
// again; `first`: who is picked before anyone was (the party for a rest, else the first
// character)
function fillWho(select, first) {
  const kept = select.dataset.picked ?? first();
  select.replaceChildren(
    el("option", { value: PARTY, text: "The whole party" }),
    ...state.party.map((m) => el("option", { value: m.name, text: m.name })),
  );
  if ([...select.options].some((o) => o.value === kept)) select.value = kept;
}

// ── rests ───────────────────────────────────────────────────────────────────

function drawRests() {
  const rests = (state.ruleset && state.ruleset.rests) || [];
  const outcome = $("rest-outcome");
  $("rest-buttons").replaceChildren(
    ...(rests.length
      ? rests.map((rest) =>
          el(
            "button",
            {
              type: "button",
              "data-rest": rest.id,
              onclick: besides(outcome, () => command(tag(attr("op", "rest"), attr("rest", rest.id), whoAttr($("rest-who").value)), outcome)),
            },
            rest.label || rest.id,
          ),
        )
      : [el("span", { class: "none", text: "This ruleset declares no rests." })]),
  );
  outcome.textContent = "";
}

// ── damage and heal ─────────────────────────────────────────────────────────

// the pools, plain tracks and wound tracks of one character, or of anyone in the
// party, by value (`pool:key`, `track:id`, `wounds:id`)
function targets(name) {
  const members = name === PARTY ? state.party : state.party.filter((m) => m.name === name);
  const found = new Map();
  const add = (value, text) => {
    if (!found.has(value)) found.set(value, text);
  };
  for (const member of members) {
    for (const pool of member.state.pools) add(`pool:${pool.key}`, name === PARTY ? pool.label : `${pool.label} (${pool.value}/${pool.max})`);
    for (const track of member.state.tracks) add(`track:${track.id}`, name === PARTY ? `${track.label} (track)` : `${track.label} (track, ${track.value} of ${track.min}-${track.max})`);
    for (const track of member.state.wounds) add(`wounds:${track.id}`, `${track.label} (wound track)`);
  }
  return found;
}

function picked() {
  const value = $("harm-what").value;
  const cut = value.indexOf(":");
  return cut < 0 ? null : { part: value.slice(0, cut), id: value.slice(cut + 1) };
}

function fillKinds() {
  const target = picked();
  const wound = target !== null && target.part === "wounds";
  const track = wound ? declared("tracks", target.id) : null;
  const kinds = (track && track.kinds) || [];
  const select = $("harm-kind");
  // the kind picked last, else the track's first: a damage needs one
  const kept = select.dataset.picked ?? (kinds.length ? kinds[0].id : "");
  select.replaceChildren(
    ...kinds.map((k) => el("option", { value: k.id, text: k.label === k.id ? k.label : `${k.label} (${k.id})` })),
    el("option", { value: "", text: "any kind (heal only, lightest first)" }),
  );
  if ([...select.options].some((o) => o.value === kept)) select.value = kept;
  select.hidden = !wound;
  $("harm-kind-label").hidden = !wound;
  // a track is marked or healed, never spent; a plain one moves by the amount
  $("harm-spend").hidden = target !== null && target.part !== "pool";
  $("harm-track-hint").hidden = target === null || target.part !== "track";
}

function fillTargets() {
  const select = $("harm-what");
  const kept = select.value;
  const found = targets($("harm-who").value);
  select.replaceChildren(
    ...(found.size
      ? [...found].map(([value, text]) => el("option", { value, text }))
      : [el("option", { value: "", text: "(no pool or track)" })]),
  );
  if (found.has(kept)) select.value = kept;
  fillKinds();
}

function harmText(op) {
  const target = picked();
  if (target === null) throw unwritable("Pick a pool or a track first.");
  const written = $("harm-amount").value.trim();
  if (!/^\d{1,9}$/.test(written)) throw unwritable("Amount: write a whole number, 0 or more.");
  const amount = Number(written);
  const who = whoAttr($("harm-who").value);
  if (target.part === "pool") return tag(attr("op", op), attr("pool", target.id), attr("amount", amount), who);
  // a plain track: damage adds to it, a heal takes from it (the op moves it `by`)
  if (target.part === "track") return tag(attr("op", "track"), attr("track", target.id), attr("by", op === "damage" ? amount : -amount), who);
  const kind = $("harm-kind").value;
  if (op === "damage" && !kind) throw unwritable("Pick the kind of harm to mark.");
  // a wound track heals by a negative amount
  const signed = op === "damage" ? amount : -amount;
  return tag(attr("op", "damage"), attr("track", target.id), ...(kind ? [attr("kind", kind)] : []), attr("amount", signed), who);
}

// ── wiring ──────────────────────────────────────────────────────────────────

function redraw() {
  fillWho($("rest-who"), () => PARTY);
  fillWho($("harm-who"), () => (state.party.length ? state.party[0].name : PARTY));
  fillTargets();
}

export function setUpTend() {
  whenGameChosen(async () => {
    for (const id of ["rest-who", "harm-who", "harm-kind"]) delete $(id).dataset.picked;
    $("rest-outcome").textContent = "";
    $("harm-outcome").textContent = "";
    drawRests();
  });
  whenPartyLoaded(redraw);
  for (const id of ["rest-who", "harm-who", "harm-kind"]) {
    $(id).addEventListener("change", () => {
      $(id).dataset.picked = $(id).value;
    });
  }
  $("harm-who").addEventListener("change", fillTargets);
  $("harm-what").addEventListener("change", fillKinds);
  const outcome = $("harm-outcome");
  $("harm-form").addEventListener(
    "submit",
    besides(outcome, (event) => {
      const op = (event.submitter && event.submitter.value) || "damage";
      return command(harmText(op), outcome);
    }),
  );
  drawRests();
  redraw();
}
