// The dice cards a player reads: every die at its final face with what happened to it
// (a glyph and a line style for each, never colour alone, and a key under the dice), a
// symbol die's symbols as glyphs on a die of its colour, the band's own text, and the
// card's lines in plain words, as the card route gives them (`plain`, `shown`, `band`).
// play.js fetches the card and adds what a card can be answered with.

import { el } from "./dom.js";
import { DIE_MARKS, changeLine, dieWords, reasonSentence, sheetAsk, tagAttrs } from "./words.js";

// the glyphs of what happened to a die, in its own order
function badges(die) {
  const glyphs = die.says.map((s) => (DIE_MARKS[s.mark] || {}).glyph).filter(Boolean);
  return glyphs.length ? el("span", { class: "badges", "aria-hidden": "true", text: glyphs.join("") }) : null;
}

// a symbol die's face: its symbols as glyphs (a blank face says so), never its number
function symbolFace(die) {
  if (!die.symbols.length) return el("span", { class: "face blank", text: "blank" });
  return el(
    "span",
    { class: "face glyphs" },
    die.symbols.map((s) => el("span", { class: "glyph", "data-symbol": s.id, title: s.label, text: s.glyph })),
  );
}

function numberFace(die) {
  if (!die.was) return el("span", { class: "face", text: die.face });
  return el("span", { class: "face raised-face" }, el("s", { class: "was", text: die.was }), " → ", el("b", { text: die.face }));
}

function dieTile(recordFace, die) {
  const words = dieWords(die);
  const marks = die.says.map((s) => s.mark);
  const counted = die.counted === true ? "counts" : die.counted === false ? "no-count" : null;
  return el(
    "li",
    {
      class: ["die", counted, ...marks, die.role ? `role-${die.role}` : null, die.symbols ? "symbol" : null].filter(Boolean).join(" "),
      "data-face": recordFace,
      "data-shown": die.face,
      "data-marks": marks.join(" "),
      "aria-label": words,
      title: words,
    },
    die.die ? el("small", { class: "die-name", text: die.die }) : null,
    die.symbols ? symbolFace(die) : numberFace(die),
    badges(die),
  );
}

// what the glyphs on this card's dice mean (only those shown), and a symbol pool's symbols
export function markKey(shown) {
  const marks = [...new Set(shown.flatMap((d) => d.says.map((s) => s.mark)))].filter((m) => DIE_MARKS[m]);
  const symbols = new Map();
  for (const die of shown) for (const s of die.symbols || []) symbols.set(s.id, s);
  const items = [
    ...marks.map((m) => el("li", { "data-mark": m }, el("span", { class: "key-glyph", "aria-hidden": "true", text: DIE_MARKS[m].glyph }), ` ${DIE_MARKS[m].word}`)),
    ...[...symbols.values()].map((s) => el("li", { "data-symbol": s.id }, el("span", { class: "key-glyph", "aria-hidden": "true", text: s.glyph }), ` ${s.label}`)),
  ];
  return items.length ? el("ul", { class: "die-key", "aria-label": "What the dice show" }, items) : null;
}

// the card's lines, [term, text] each; the band's text stands under the outcome instead
export function cardLines(lines) {
  return el("dl", {}, lines.filter(([term]) => term !== "Means").map(([term, text]) => [el("dt", { text: term }), el("dd", { text })]));
}

// a card's heading: the record's number in its game (#1 its first), then its title
function cardHeading(card, id) {
  return el("h3", { id: `card-${id}` }, el("span", { class: "record-number", text: `#${card.number}` }), ` ${card.title}`);
}

// a check's card, from the card route's answer and the record
export function drawCheckCard(card, result) {
  const open = result.choice === "open";
  const shown = card.shown || card.dice.map((d) => ({ ...d, was: null, counted: null, says: [] }));
  const band = card.band && card.band.text ? el("p", { class: "means", text: card.band.text }) : null;
  return el(
    "article",
    {
      class: `card ${open ? "open" : result.success ? "success" : "failure"}`,
      "data-record": String(result.id),
      "data-shape": card.shape || "",
      "aria-labelledby": `card-${result.id}`,
    },
    cardHeading(card, result.id),
    el("p", { class: "outcome", text: `${result.outcome}${result.critical && !/critical/i.test(result.outcome) ? ` (critical ${result.critical})` : ""}` }),
    band,
    el("ul", { class: "dice", "aria-label": "Dice thrown" }, shown.map((die, i) => dieTile(card.dice[i] ? card.dice[i].face : die.face, die))),
    markKey(shown),
    // a value the ruleset does not know (mode="sideways") is said, not ignored
    cardLines([...(card.plain || card.lines), ...(result.notes || []).map((note) => ["Note", note])]),
  );
}

// a sheet command's card: what it asked and each change, in the ruleset's labels
// a fight step's card, from the card route's answer: its tag, result, events and changes
export function drawFightCard(card, record) {
  return el(
    "article",
    { class: `card fight ${record.ok ? "success" : "failure"}`, "data-record": String(record.id), "aria-labelledby": `card-${record.id}` },
    cardHeading(card, record.id),
    el("p", { class: "outcome", text: record.ok ? "Done" : `Refused: ${record.reason}` }),
    cardLines(card.lines),
  );
}

export function drawSheetCard(card, record) {
  const lines = [["Asked", sheetAsk(record.tag)], ...(record.changes || []).map((c) => ["Changed", changeLine(c)])];
  return el(
    "article",
    { class: `card sheet ${record.ok ? "success" : "failure"}`, "data-record": String(record.id), "aria-labelledby": `card-${record.id}` },
    cardHeading(card, record.id),
    el("p", { class: "outcome", text: record.ok ? `Done: ${record.now}` : `Refused: ${reasonSentence(record.reason, record.who || tagAttrs(record.tag).who)}` }),
    cardLines(lines),
  );
}
