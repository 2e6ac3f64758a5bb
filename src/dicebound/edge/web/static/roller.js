// Who rolls: the Play tab's picker of the roller among the party's members. A name
// picked is written into the Game Master text as `who="Full Name"` on every
// [skill_check: ...] tag (an existing who= replaced), at once and again before Resolve,
// so the text sent is the text shown. The tags are read as the engine's lexer reads
// them (a key, then = and a value, quoted or bare, commas tolerated); a tag that
// cannot be read so is left as written, for the engine to say what is wrong with it.

import { state } from "./api.js";
import { $, el } from "./dom.js";
import { whenPartyLoaded } from "./play.js";

const OPENER = /\[skill_check:/gi;
// one attribute: separators, a key, and maybe = and a value (quoted, bare or empty)
const ATTRIBUTE = /[\s,]*([A-Za-z_][A-Za-z0-9_-]*)\s*(?:=\s*("[^"]*"|'[^']*'|“[^”“]*[”“]|[^\s\]",'“][^\s\],]*|))?/y;

// each tag's attributes, [{key, from, to}] (offsets in the text), and where its "]" is;
// a tag the reading stops short in is left out
function tags(text) {
  const found = [];
  for (const opener of text.matchAll(OPENER)) {
    const attributes = [];
    let at = opener.index + opener[0].length;
    for (;;) {
      const rest = /[\s,]*/y;
      rest.lastIndex = at;
      rest.exec(text);
      if (text[rest.lastIndex] === "]") {
        found.push({ attributes, end: rest.lastIndex });
        break;
      }
      ATTRIBUTE.lastIndex = at;
      const match = ATTRIBUTE.exec(text);
      if (!match || match[0].trim() === "") break;
      attributes.push({ key: match[1].toLowerCase(), from: at, to: ATTRIBUTE.lastIndex });
      at = ATTRIBUTE.lastIndex;
    }
  }
  return found;
}

// `text` with `who` written into each check tag (replacing a who= there)
export function withRoller(text, who) {
  if (!who) return text;
  const quoted = who.includes('"') ? `'${who}'` : `"${who}"`;
  let written = text;
  // from the last tag back, so the offsets of those before stay right
  for (const tag of tags(text).reverse()) {
    const had = tag.attributes.find((a) => a.key === "who");
    written = had
      ? `${written.slice(0, had.from)} who=${quoted}${written.slice(had.to)}`
      : `${written.slice(0, tag.end).trimEnd()} who=${quoted}${written.slice(tag.end)}`;
  }
  return written;
}

// the Game Master text with the picked roller written in (nothing picked: as it is)
export function writeRoller() {
  const box = $("gm-text");
  const written = withRoller(box.value, $("roller").value);
  if (written !== box.value) box.value = written;
  return written;
}

function drawChoices() {
  const select = $("roller");
  const kept = select.value;
  select.replaceChildren(
    el("option", { value: "", text: "as the text says (else the party's first)" }),
    ...state.party.map((m) => el("option", { value: m.name, text: m.name })),
  );
  if ([...select.options].some((o) => o.value === kept)) select.value = kept;
}

export function setUpRoller() {
  whenPartyLoaded(drawChoices);
  $("roller").addEventListener("change", writeRoller);
}
