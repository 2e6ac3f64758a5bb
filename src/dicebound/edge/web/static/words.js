// What a sheet change or a sheet command says, in the ruleset's own labels: the party
// panel's "what changed" lines, the history's sheet rows and the refusal sentences.
// Labels come from the game's ruleset file and the party's live state; an id the page
// cannot name (a layer's, a list row's) shows as itself.

import { state } from "./api.js";

// why the engine refuses a sheet command (sheet_commands/reasons.py), in a few words
const REASONS = {
  "too-many": "more than 40 sheet commands in one text",
  malformed: "the command cannot be read",
  "unknown-character": "no such character",
  "ambiguous-character": "two characters answer to that name",
  "unknown-pool": "no such pool on this sheet",
  "ambiguous-pool": "two pools answer to that name",
  "bad-amount": "the amount is out of range",
  insufficient: "not enough left",
  "no-temp": "the pool takes no temporary points",
  "unknown-track": "no such track on this sheet",
  "wrong-track": "that op does not fit that track",
  "unknown-kind": "the track has no such kind of harm",
  "no-box": "the track has no room for every mark",
  "unknown-condition": "no such condition",
  "unknown-state": "no such state on this sheet",
  "unknown-value": "the state has no such value",
  "unknown-field": "no such note field",
  "unknown-rest": "the ruleset has no such rest",
  "unknown-entry": "no such entry on this sheet",
  "ambiguous-entry": "two entries answer to that name",
  "bad-pool": "that pool cannot pay for this entry",
};

export function reasonWords(reason) {
  const words = REASONS[reason];
  return words ? `${reason} (${words})` : String(reason);
}

// the same for a card a player reads: the words alone; a `who` that named nobody of the
// party (or two of it) is told the party's full names to write instead (a first name
// alone names nobody: names are matched whole)
export function reasonSentence(reason, who = null, party = state.party.map((m) => m.name)) {
  const words = REASONS[reason] || String(reason);
  if (reason !== "unknown-character" && reason !== "ambiguous-character") return words;
  if (!party.length) return `${words}: the game has no characters yet`;
  const named =
    reason === "ambiguous-character"
      ? `two characters answer to "${who}"`
      : who
        ? `nobody in the party is called "${who}"`
        : "the command names nobody";
  return `${named}. Write who= with a full name: ${orList(party.map((name) => `"${name}"`))}, or "party"`;
}

// "a", "a or b", "a, b or c"
function orList(items) {
  return items.length < 2 ? items.join("") : `${items.slice(0, -1).join(", ")} or ${items[items.length - 1]}`;
}

// a pool's label as a count of points: "Luck points", but "Willpower points" stays as
// it is (a label that says points already takes no second one)
export function inPoints(label) {
  return /\bpoints?$/i.test(label.trim()) ? label : `${label} points`;
}

// a count and its noun, one or many ("1 point", "3 points", "0.5 points")
export function counted(n, one, many = `${one}s`) {
  return `${n} ${Math.abs(n) === 1 ? one : many}`;
}

function live() {
  return (state.ruleset && state.ruleset.sheet && state.ruleset.sheet.live) || {};
}

export function declared(part, id) {
  return (live()[part] || []).find((item) => item.id === id) || null;
}

function poolLabel(who, key) {
  const member = state.party.find((m) => m.name === who);
  const pool = member && member.state.pools.find((p) => p.key === key);
  if (pool) return pool.label;
  const found = declared("pools", key);
  return found ? found.label : key;
}

function marksWords(track, wounds) {
  const kinds = new Map(((track && track.kinds) || []).map((k) => [k.id, k.label]));
  const marks = ((wounds && wounds.marks) || []).filter(Boolean).map((m) => kinds.get(m) || m);
  const over = wounds && wounds.overflow ? ` +${wounds.overflow} over` : "";
  return `${marks.length ? marks.join(", ") : "unmarked"}${over}`;
}

function stateValue(declaredState, value) {
  if (value === null || value === undefined) return "none";
  const labels = (declaredState && declaredState.valueLabels) || {};
  return labels[value] || String(value);
}

function textWords(text) {
  return text ? `“${text}”` : "empty";
}

// one change `{who, what, from, to}`; `what` is "pool hp", "temp hp", "track coin",
// "wounds harm", "text concentration", "condition poisoned" or "state stance"
export function changeLine({ who, what, from, to }) {
  const cut = what.indexOf(" ");
  const [part, id] = cut < 0 ? [what, ""] : [what.slice(0, cut), what.slice(cut + 1)];
  const label = (partName) => {
    const found = declared(partName, id);
    return found ? found.label : id;
  };
  const was = from === null || from === undefined ? "none" : from; // not on the sheet before
  let words;
  if (part === "pool") words = `${poolLabel(who, id)} ${was} → ${to}`;
  else if (part === "temp") words = `${poolLabel(who, id)} temporary points ${was} → ${to}`;
  else if (part === "track") words = `${label("tracks")} ${was} → ${to}`;
  else if (part === "wounds") {
    const track = declared("tracks", id);
    words = `${label("tracks")} ${marksWords(track, from)} → ${marksWords(track, to)}`;
  } else if (part === "condition") words = `${label("conditions")} ${to ? "on" : "off"}`;
  else if (part === "state") {
    const found = declared("states", id);
    words = `${label("states")} ${stateValue(found, from)} → ${stateValue(found, to)}`;
  } else if (part === "text") words = `${label("text")} ${textWords(from)} → ${textWords(to)}`;
  else words = `${what} ${JSON.stringify(from)} → ${JSON.stringify(to)}`;
  return `${who}: ${words}`;
}

// a check's paid change `{who, pool, from, to}` as a sheet change
export function paidChange({ who, pool, from, to }) {
  return { who, what: `pool ${pool}`, from, to };
}

// the attributes of a tag as the engine writes it back: `key="value"`, no quote inside
export function tagAttrs(tag) {
  const attrs = {};
  for (const [, key, value] of String(tag).matchAll(/(\w+)="([^"]*)"/g)) attrs[key] = value;
  return attrs;
}

// a written name by its label when it is a declared id, else as written
function labelOf(part, written) {
  if (written === undefined) return "";
  const found = part === "rests" ? ((state.ruleset && state.ruleset.rests) || []).find((r) => r.id === written) : declared(part, written);
  return (found && found.label) || written;
}

// a sheet command in a few words: its op and what it names ("damage Hit points 7")
export function sheetAsk(tag) {
  const a = tagAttrs(tag);
  if (!a.op) return "an unreadable sheet command";
  const target =
    a.name ||
    labelOf("pools", a.pool) ||
    labelOf("tracks", a.track) ||
    labelOf("conditions", a.condition) ||
    (a.op === "state" ? labelOf("states", a.state) : "") ||
    labelOf("text", a.field) ||
    labelOf("rests", a.rest);
  const amount = a.amount !== undefined ? a.amount : a.to !== undefined ? `to ${a.to}` : a.by !== undefined ? `by ${a.by}` : "";
  // a wound track heals by a negative damage
  if (a.op === "damage" && a.track && amount.startsWith("-")) return ["heal", target, a.kind, amount.slice(1)].filter(Boolean).join(" ");
  return [a.op, target, a.kind, amount].filter(Boolean).join(" ");
}

// What a die on a card may show, by the `mark` of each of its `says` (the card route's
// `shown`): a glyph, so a die reads without its colour, and the word the card's key gives
// it. A die's full words (`says[].words`) are its label and tooltip.
export const DIE_MARKS = {
  counted: { glyph: "✓", word: "counted" },
  "counted-twice": { glyph: "✓✓", word: "counts twice" },
  "not-counted": { glyph: "–", word: "not counted" },
  cancels: { glyph: "✗", word: "cancels a success" },
  cancelled: { glyph: "⊘", word: "cancelled" },
  exploded: { glyph: "✹", word: "exploded: one more die" },
  added: { glyph: "+", word: "added by an exploding die" },
  rethrown: { glyph: "↷", word: "thrown again: old face" },
  "thrown-again": { glyph: "↻", word: "thrown again: new face" },
  exact: { glyph: "◎", word: "exactly on the target" },
  kept: { glyph: "✓", word: "kept" },
  dropped: { glyph: "✗", word: "dropped" },
  dark: { glyph: "◐", word: "dark die" },
  reached: { glyph: "✓", word: "reached the target" },
  below: { glyph: "–", word: "below the target" },
  raised: { glyph: "↑", word: "raised from → to" },
};

// a die in words, for its label: its name, its final face (a symbol die's symbols
// instead of a number) and what happened to it
export function dieWords(die) {
  const face = die.symbols ? null : die.was ? `${die.was} → ${die.face}` : die.face;
  return [die.die, face, ...die.says.map((s) => s.words)].filter(Boolean).join(", ");
}
