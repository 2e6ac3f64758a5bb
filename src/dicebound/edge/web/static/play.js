// The Play tab and the game row above the tabs: the games a token may see, making one,
// the party's live state and what the last text changed on it, resolving the Game
// Master's text into dice cards, answering an offer or a choice after the roll, and the
// records' history (checks, sheet commands and fight steps; fight.js draws the fight).

import { Refused, api, gamePath, state, who } from "./api.js";
import { showToken } from "./dialog.js";
import { $, el, listProblems, placeInOrder, say, trying } from "./dom.js";
import { drawEmpty, exampleText, writeExample } from "./empty.js";
import { follow } from "./live.js";
import { drawSeat, tokenNotKnown } from "./signin.js";
import { changeLine, counted, paidChange, reasonWords, sheetAsk } from "./words.js";
import { drawCheckCard, drawFightCard, drawSheetCard } from "./cards.js";
import { History } from "./history.js";
import { writeRoller } from "./roller.js";

let listed = new History(); // the picked game's records the History lists
const PICKED = "dicebound-game"; // the game picked, kept in the tab's session for a reload
const whenChosen = []; // what the other tabs read for a game once it is picked
const whenDrawn = []; // what redraws itself from the party once it is read
const whenRead = []; // what reads itself again when the service says to reload the game
const whenSent = []; // what follows each text this page resolves, given the answer

// `hook(game)` runs, awaited, each time a game is picked, before the page says so
export function whenGameChosen(hook) {
  whenChosen.push(hook);
}

// `hook()` runs, awaited, each time the game is read again (a `reload` event)
export function whenReloaded(hook) {
  whenRead.push(hook);
}

// `hook(answer)` runs, awaited, after each text this page resolves, with its answer
export function whenResolved(hook) {
  whenSent.push(hook);
}

// `hook()` runs each time the party is read and drawn
export function whenPartyLoaded(hook) {
  whenDrawn.push(hook);
}

// ── games and the party ─────────────────────────────────────────────────────

export async function loadGames(pick) {
  const select = $("game");
  // no token, or one the service does not know (401): no game is listed, none stays on
  // screen (nor is picked again after a reload), and nothing reads as signed in
  const signedOut = async (text) => {
    state.holder = null;
    select.replaceChildren(el("option", { value: "", text }));
    select._games = [];
    sessionStorage.removeItem(PICKED);
    await chooseGame("");
  };
  if (!state.token) return signedOut("(use a token, then pick a game)");
  let games;
  try {
    games = await api("GET", "/games");
  } catch (error) {
    if (!(error instanceof Refused && error.status === 401)) throw error;
    const told = tokenNotKnown();
    await signedOut("(not signed in: the token is not known)");
    throw told;
  }
  // every entry says whose the token is; the admin's alone may list none
  state.holder = games.length ? games[0].seat.kind : "admin";
  drawSeat();
  select.replaceChildren(
    el("option", { value: "", text: games.length ? "(pick a game)" : "(no game yet: make one)" }),
    ...games.map((g) => el("option", { value: g.id, text: `${g.name} (${g.ruleset} v${g.version})` })),
  );
  select._games = games;
  $("no-games").hidden = games.length > 0;
  // the game asked for, else the one shown, else the one picked before a reload
  const known = (id) => (games.some((g) => g.id === id) ? id : "");
  const chosen = pick || known(state.game && state.game.id) || known(sessionStorage.getItem(PICKED)) || (games.length === 1 ? games[0].id : "");
  if (chosen) {
    select.value = chosen;
    await chooseGame(chosen);
  }
}

async function chooseGame(id) {
  const game = ($("game")._games || []).find((g) => g.id === id) || null;
  state.game = game;
  state.ruleset = null;
  state.changes = null;
  state.party = [];
  // a player's token holds one character's seat: the page shows what that seat may do
  state.seat = game && game.seat && game.seat.kind === "player" ? { character: game.seat.character } : null;
  drawSeat();
  listed = new History();
  clearResult();
  drawEmpty();
  // what the other tabs drew for the game shown before goes with it
  for (const id of ["charts", "legend", "whatif-chart", "sheet-form", "sheet-problems", "import-problems"]) $(id).replaceChildren();
  if (game) sessionStorage.setItem(PICKED, game.id);
  follow(game, { record: showRecord, answer: showRecord, character: updateMember, reload: reloadGame });
  if (!game) {
    drawParty();
    drawHistory();
    return;
  }
  // the file the game plays, at its version: the labels, rests and kinds of harm
  state.ruleset = await api("GET", `/rulesets/${encodeURIComponent(game.ruleset)}?version=${game.version}`);
  $("gm-text").placeholder = exampleText(state.ruleset);
  for (const hook of whenChosen) await hook(game);
  await Promise.all([loadParty(), loadHistory(true)]);
  say(`Playing ${game.name}.`, "page");
}

export async function loadParty() {
  const game = state.game;
  const answer = await api("GET", gamePath("party"));
  if (state.game !== game) return; // another game was picked meanwhile
  // a member an event drew at a newer revision than this read stays as the event drew it
  const drawn = new Map(state.party.map((m) => [m.name, m]));
  state.party = answer.characters.map((m) => {
    const seen = drawn.get(m.name);
    return seen && seen.revision > m.revision ? seen : m;
  });
  drawParty();
}

// one member as an event gives it (a `character` event: an entry of the party), its
// values that moved marked
export function updateMember(member) {
  const at = state.party.findIndex((m) => m.name === member.name);
  const before = at < 0 ? null : state.party[at];
  if (before && before.revision >= member.revision) return;
  if (at < 0) state.party = [...state.party, member];
  else state.party = state.party.map((m, i) => (i === at ? member : m));
  drawParty(before ? moved(before, member) : []);
}

// what differs between two readings of a member, each as the `what` of a change
function moved(before, after) {
  const whats = [];
  const compare = (list, key, what, value) => {
    const old = new Map(before.state[list].map((x) => [x[key], JSON.stringify(value(x))]));
    for (const x of after.state[list]) if (old.get(x[key]) !== JSON.stringify(value(x))) whats.push(`${what} ${x[key]}`);
  };
  compare("pools", "key", "pool", (p) => [p.value, p.max]);
  compare("tracks", "id", "track", (t) => t.value);
  compare("wounds", "id", "wounds", (t) => [t.marks, t.penalty]);
  const [was, now] = [new Set(before.state.conditions), new Set(after.state.conditions)];
  for (const c of [...was, ...now]) if (was.has(c) !== now.has(c)) whats.push(`condition ${c}`);
  return whats.map((what) => ({ who: after.name, what }));
}

// the party panel from `state.party`; `fresh`: changes an event brought, marked as the
// last text's are
function drawParty(fresh = []) {
  // a value the last text (or the event) changed is marked (`picks` says which changes are about it)
  const mark = (base, who, picks) => ([...(state.changes || []), ...fresh].some((c) => c.who === who && picks(c.what)) ? `${base} changed` : base);
  $("party").replaceChildren(
    ...state.party.map((member) =>
      el(
        "li",
        { "data-character": member.name },
        el("span", { class: "name", text: member.name }),
        member.state.pools.map((pool) =>
          el(
            "span",
            { class: mark("pool", member.name, (w) => w === `pool ${pool.key}` || w === `temp ${pool.key}`), "data-pool": pool.key },
            `${pool.label} `,
            el("b", { class: "value", text: String(pool.value) }),
            `/${pool.max}`,
          ),
        ),
        member.state.tracks.map((track) =>
          el("span", { class: mark("track", member.name, (w) => w === `track ${track.id}`), "data-track": track.id }, `${track.label} `, el("b", { class: "value", text: String(track.value) }), ` (${track.min}-${track.max})`),
        ),
        member.state.wounds.map((track) =>
          el("span", { class: mark("track", member.name, (w) => w === `wounds ${track.id}`), "data-track": track.id }, `${track.label}: `, el("b", { class: "value", text: track.marks.filter(Boolean).join(", ") || "unmarked" }), track.penalty ? ` (penalty ${track.penalty})` : ""),
        ),
        member.state.conditions.length
          ? el("span", { class: mark("conditions", member.name, (w) => w.startsWith("condition ")), text: `Conditions: ${member.state.conditions.join(", ")}` })
          : null,
      ),
    ),
  );
  drawChanges();
  drawEmpty();
  // the party is drawn again whenever it changes: a select keeps who was picked in it
  const names = () => state.party.map((m) => el("option", { value: m.name, text: m.name }));
  const refill = (select, ...options) => {
    const kept = select.value;
    select.replaceChildren(...options);
    if ([...select.options].some((o) => o.value === kept)) select.value = kept;
  };
  refill($("balance-character"), ...names());
  refill($("sheet-character"), el("option", { value: "", text: "(a new character)" }), ...names());
  for (const hook of whenDrawn) hook();
}

// what the last text changed, one line each, until the next text
function drawChanges() {
  const changes = state.changes;
  $("changes").hidden = changes === null;
  $("change-list").replaceChildren(
    ...(changes && changes.length
      ? changes.map((c) => el("li", { text: changeLine(c) }))
      : [el("li", { class: "none", text: "Nothing on the sheets changed." })]),
  );
}

async function makeGame() {
  const name = $("new-game-name").value.trim();
  let [ruleset, version] = $("new-game-ruleset").value.split("@");
  const pasted = $("new-game-pasted").value.trim();
  $("new-game-problems").replaceChildren();
  if (pasted) {
    // checked first, so each of its problems is listed at its line, not only counted
    const checked = await api("POST", "/rulesets/check", pasted, { raw: true });
    if (!checked.ok) {
      listProblems($("new-game-problems"), $("new-game-pasted"), checked.problems, checked.omitted);
      const found = checked.problems.length + (checked.omitted || 0);
      throw new Refused(0, { detail: `The pasted ruleset has ${found} problem(s), listed below the form: no game was made.` });
    }
    const stored = await api("POST", "/rulesets", pasted, { raw: true });
    [ruleset, version] = [stored.id, String(stored.version)];
  }
  const made = await api("POST", "/games", { name, ruleset, version: Number(version) });
  // the packaged characters ticked join the party (a pasted ruleset takes none of them)
  const ticked = pasted ? [] : [...$("new-game-choices").querySelectorAll("input:checked")];
  const files = new Map(($("new-game-choices")._offered || []).map((c) => [c.key, c.file]));
  const path = (character) => `/games/${encodeURIComponent(made.id)}/characters/${who(character)}`;
  for (const box of ticked) {
    const file = files.get(box.value);
    await api("PUT", path(file.name), file);
  }
  // the form is done with: closed and cleared for the next game (the dialog gives focus
  // back to its summary)
  $("new-game").querySelector("summary").focus();
  $("new-game").open = false;
  $("new-game-form").reset();
  $("new-game-characters").hidden = false;
  await loadRulesets();
  await loadGames(made.id);
  say(`Made "${name}": its game master's token is in the dialog, shown once.`, "play");
  showToken({
    title: `"${name}" is made`,
    about: "Its game master's token: it does everything in this game (the checks, the sheets, the players' seats) and nothing outside it. Give it to whoever runs the game, a person or a model.",
    token: made.token,
    lost: "If it is lost, the admin token can make the game a new one.",
  });
}

export async function loadRulesets() {
  const rulesets = await api("GET", "/rulesets");
  const newest = new Map();
  for (const r of rulesets) newest.set(r.id, r);
  const options = [...newest.values()].map((r) =>
    el("option", { value: `${r.id}@${r.version}`, text: `${r.name} (${r.id} v${r.version})` }),
  );
  const kept = $("new-game-ruleset").value;
  $("new-game-ruleset").replaceChildren(...options);
  if ([...$("new-game-ruleset").options].some((o) => o.value === kept)) $("new-game-ruleset").value = kept;
  $("author-start").replaceChildren(...options.map((o) => o.cloneNode(true)));
  trying(offerCharacters)(); // not awaited: the games are read meanwhile
}

// the picked ruleset's packaged characters, each a box to tick
async function offerCharacters() {
  const [id] = $("new-game-ruleset").value.split("@");
  const choices = $("new-game-choices");
  const offered = id ? await api("GET", `/rulesets/${encodeURIComponent(id)}/characters`) : [];
  if ($("new-game-ruleset").value.split("@")[0] !== id) return; // another was picked meanwhile
  // a box ticked while the list was read again for the same ruleset stays ticked
  const ticked = choices.dataset.ruleset === id ? new Set([...choices.querySelectorAll("input:checked")].map((box) => box.value)) : new Set();
  choices._offered = offered;
  choices.dataset.ruleset = id;
  choices.replaceChildren(
    ...(offered.length
      ? offered.map((c) =>
          el("label", { class: "choice" }, el("input", { type: "checkbox", value: c.key, "data-name": c.name, checked: ticked.has(c.key) }), ` ${c.name}`),
        )
      : [el("p", { class: "none", text: "This ruleset has no packaged characters: import them in the Sheet tab once the game is made." })]),
  );
}

// ── checks, cards, history ──────────────────────────────────────────────────

// A text sent to the service (the Game Master's, or a sheet command the page wrote):
// its checks and sheet commands resolved in one go, what they changed kept for the party
// panel, the party and the history read again.
export async function sendText(body, key = null) {
  if (!state.game) throw new Refused(0, { detail: "Pick a game first." }, () => !state.game);
  const answer = await api("POST", gamePath("checks"), body, { headers: key ? { "Idempotency-Key": key } : {} });
  const sheet = answer.sheet || [];
  // a sheet command's changes are on its record; a refused one changed nothing
  const applied = await Promise.all(sheet.filter((s) => s.ok).map((s) => api("GET", gamePath("records", s.id))));
  const changed = [
    ...answer.results.map((r) => ({ id: r.id, changes: r.changes.map(paidChange) })),
    ...applied.map((r) => ({ id: r.id, changes: r.changes })),
  ];
  changed.sort((a, b) => a.id - b.id); // records are written in text order
  state.changes = changed.flatMap((r) => r.changes);
  await Promise.all([loadParty(), loadHistory(true)]);
  return answer;
}

// the Result area emptied: nothing of an earlier text stays above a new card or a refusal
function clearResult() {
  $("cards").replaceChildren();
  resolved = { text: "", records: new Set() };
  drawRecordText();
  $("tag-errors").replaceChildren();
  $("no-tag").hidden = true;
  $("no-tag").replaceChildren();
}

// The Result's record text, folded under one toggle (closed: a player reads the cards):
// the text resolved here with its tags written back, then the tag of each card shown
// that it does not hold (a card from History, or one a live event brought)
let resolved = { text: "", records: new Set() }; // the text resolved here, and its records

function drawRecordText() {
  const others = [...$("cards").children].filter((card) => !resolved.records.has(Number(card.dataset.record)));
  const text = [resolved.text, ...others.map((card) => card.dataset.tag)].filter(Boolean).join("\n");
  $("rewritten").textContent = text;
  $("record-text").hidden = text === "";
}

// One Idempotency-Key per submitted text: a text sent again before its answer came
// (a double click, a retry after a dropped connection) reuses it, so the service answers
// the first request instead of throwing again; once an answer comes, the next is new.
let pending = null; // {sent, key}: the text (with its seed) awaiting an answer

function keyFor(body) {
  const sent = JSON.stringify(body);
  if (!pending || pending.sent !== sent) pending = { sent, key: crypto.randomUUID() };
  return pending.key;
}

async function resolveText() {
  const body = { text: writeRoller() };
  const seed = $("seed").value.trim();
  if (seed) body.seed = seed;
  clearResult();
  const key = keyFor(body);
  let answer;
  try {
    answer = await sendText(body, key);
  } catch (error) {
    // refused by the service: the next send is new; unanswered (status 0): the same key
    if (error instanceof Refused && error.status !== 0) pending = null;
    throw error;
  }
  pending = null;
  $("seed").value = ""; // used once: the next Resolve throws new dice
  $("tag-errors").replaceChildren(...answer.errors.map((e) => el("li", { text: `${e.tag}: ${e.error}` })));
  const sheet = answer.sheet || [];
  // every record's card in text order (ids grow in text order): checks and sheet commands
  // (a command past the text's 40th is refused and has no record, so no card)
  const recorded = sheet.filter((c) => c.id !== null);
  const fought = ((answer.fight && answer.fight.steps) || []).filter((f) => f.id !== null);
  const steps = [
    ...answer.results.map((r) => [r.id, () => cardFor(r)]),
    ...recorded.map((c) => [c.id, () => sheetCardFor(c)]),
    ...fought.map((f) => [f.id, () => fightCardFor(f)]),
  ];
  steps.sort((a, b) => a[0] - b[0]);
  $("cards").replaceChildren(...(await Promise.all(steps.map(([, draw]) => draw()))));
  resolved = { text: answer.text, records: new Set(steps.map(([id]) => id)) };
  drawRecordText();
  for (const hook of whenSent) await hook(answer);
  const done = sheet.filter((s) => s.ok).length;
  const commands = sheet.length ? ` ${done} sheet command(s) applied, ${sheet.length - done} refused.` : "";
  const played = fought.filter((f) => f.ok).length;
  const fights = fought.length ? ` ${played} fight step(s) played, ${fought.length - played} refused.` : "";
  if (!answer.results.length && !answer.errors.length && !sheet.length && !fought.length) {
    await showTagGrammar();
    say("No tag was found in the text: nothing was thrown. How a tag is written is shown under Result.", "play");
    return;
  }
  say(`${answer.results.length} check(s) resolved, ${answer.errors.length} refused.${commands}${fights}`, "play");
}

// a text without a tag the engine reads: how one is written, with the game's own
// example and attributes (from what the Game Master is taught)
async function showTagGrammar() {
  const lesson = await api("GET", gamePath("gm")).catch(() => ({ text: "" }));
  const lines = lesson.text.split("\n");
  const example = lines.find((line) => /^\[skill_check: .*\]$/.test(line.trim()));
  const from = lines.findIndex((line) => line.startsWith("Attributes you may write"));
  const attributes = [];
  for (const line of from < 0 ? [] : lines.slice(from + 1)) {
    if (!line.startsWith("- ")) break;
    attributes.push(line.slice(2));
  }
  $("no-tag").replaceChildren(
    el("p", { class: "outcome", text: "No tag was found in the text, so no dice were thrown." }),
    el("p", { text: 'A check is one tag in square brackets: skill_check, a colon, then attributes written name="value", separated by spaces. A sheet command is written [sheet: op="..." ...] the same way.' }),
    el("pre", { class: "grammar", text: '[skill_check: name="value" name="value" ...]' }),
    example ? el("p", {}, "For example: ", el("code", { text: example.trim() })) : null,
    attributes.length ? el("details", {}, el("summary", { text: "The attributes this game's checks take" }), el("ul", {}, attributes.map((a) => el("li", { text: a })))) : null,
  );
  $("no-tag").hidden = false;
}

async function cardFor(result) {
  const card = await api("GET", gamePath("records", result.id, "card"));
  const node = drawCheckCard(card, result);
  node.dataset.answered = answeredMark(result);
  node.dataset.tag = result.tag;
  node.append(...verifying(result.id));
  // the card names the offer's pools: only those the roller can pay from; a player's
  // seat answers only its own character's roll
  const mine = !state.seat || state.seat.character === result.who;
  if (mine && card.offer && card.offer.pools.length) node.append(raiseForm(result, card.offer));
  if (mine && result.choice === "open") node.append(choiceButtons(result));
  return node;
}

// which answer a drawn card or line shows (a check's `answered`; none before one)
const answeredMark = (record) => JSON.stringify(record.answered ?? null);

// a record's card, a check's or a sheet command's
export function cardOf(record) {
  if (record.kind === "fight") return fightCardFor(record);
  return record.kind === "sheet" ? sheetCardFor(record) : cardFor(record);
}

// a fight step's card: drawn from the card route (fight.js draws the fight itself)
async function fightCardFor(record) {
  const card = await api("GET", gamePath("records", record.id, "card"));
  const node = drawFightCard(card, record);
  node.dataset.answered = answeredMark(record);
  node.append(...verifying(record.id, "playing the step again on the fight it found gives this record"));
  return node;
}

const CARDS_KEPT = 20; // cards the live updates leave on the page, the newest

// a card in the Result area: in the place of the same record's card, else last; focus
// inside the card it replaces moves to the new one
export function placeCard(card) {
  const old = $("cards").querySelector(`:scope > [data-record="${card.dataset.record}"]`);
  if (!old) {
    $("cards").append(card);
    const shown = $("cards").children;
    while (shown.length > CARDS_KEPT) shown[0].remove();
  } else {
    const focused = old.contains(document.activeElement);
    old.replaceWith(card);
    if (focused) {
      card.tabIndex = -1;
      card.focus();
    }
  }
  drawRecordText();
}

// a sheet command's card: no dice, what it asked, its outcome and changes in words (a
// record from a text's answer carries no changes: the record is read for them)
async function sheetCardFor(record) {
  const [card, full] = await Promise.all([
    api("GET", gamePath("records", record.id, "card")),
    record.changes ? record : api("GET", gamePath("records", record.id)),
  ]);
  const node = drawSheetCard(card, { ...record, ...full });
  node.dataset.answered = answeredMark(record);
  node.dataset.tag = full.tag || record.tag || "";
  node.append(...verifying(record.id, "applying the command again to the party as it stood gives this record"));
  return node;
}

function verifying(id, how = "replaying the seed gives this record") {
  const verdict = el("p", { class: "verdict", role: "status" });
  const button = el("button", { type: "button", class: "quiet", onclick: trying(() => verify(id, verdict, how)) }, "Verify");
  return [el("div", { class: "row" }, button), verdict];
}

async function verify(id, verdict, how) {
  const answer = await api("GET", gamePath("records", id, "verify"));
  verdict.textContent = answer.verified
    ? `Verified: ${how}.`
    : `Not verified: ${answer.differences.map((d) => d.field).join(", ")} differ.`;
}

function raiseForm(result, offer) {
  const member = state.party.find((m) => m.name === result.who);
  const held = new Map(member ? member.state.pools.map((p) => [p.key, p.value]) : []);
  const poolId = `raise-pool-${result.id}`;
  const pointsId = `raise-points-${result.id}`;
  const costs = new Map(offer.pools.map((p) => [p.pool, p.points]));
  const options = offer.pools.map((p) => {
    const now = held.has(p.pool) ? ` (${held.get(p.pool)})` : "";
    return el("option", { value: p.pool, text: `${p.label}${now}: ${counted(p.points, "point")} for ${offer.band}` });
  });
  const points = el("input", { id: pointsId, type: "number", min: "1", value: String(offer.pools[0].points), inputmode: "numeric" });
  const select = el("select", { id: poolId }, options);
  select.addEventListener("change", () => {
    points.value = String(costs.get(select.value));
  });
  const form = el(
    "form",
    { class: "row raise" },
    el("span", { text: `Raise to ${offer.band} after the roll` }),
    el("label", { for: poolId, text: "Spend from" }),
    select,
    el("label", { for: pointsId, text: "points" }),
    points,
    el("button", { type: "submit" }, "Raise"),
  );
  form.addEventListener(
    "submit",
    trying(async () => {
      const body = { pool: select.value, points: Number(points.value) };
      await answerAfter(result, body);
    }),
  );
  return form;
}

function choiceButtons(result) {
  return el(
    "div",
    { class: "row choice", role: "group", "aria-label": "The player's choice" },
    el("button", { type: "button", onclick: trying(() => answerAfter(result, { choose: "fail" })) }, "Fail"),
    el("button", { type: "button", onclick: trying(() => answerAfter(result, { choose: "succeed" })) }, "Succeed at a cost"),
  );
}

async function answerAfter(result, body) {
  const record = await api("POST", gamePath("records", result.id, "after"), body);
  placeCard(await cardFor(record));
  // what the answer paid belongs with what its text changed
  state.changes = [...(state.changes || []), ...record.paid.map(paidChange)];
  await Promise.all([loadParty(), loadHistory(true)]);
  const paid = record.paid.map((c) => `${c.who}'s ${c.pool} ${c.from} → ${c.to}`).join("; ");
  const still = record.choice === "open" ? "; the choice is open: fail, or succeed at a cost" : "";
  say(`${record.outcome}${paid ? `: paid ${paid}` : ""}${still}.`, "play");
}

// a record's line in the history, with the button that shows its card: a record is
// named by its number in its game (#1 the game's first), its id kept for the routes
function historyItem(r) {
  const showCard = async () => {
    const card = await cardOf(r);
    clearResult(); // the card alone: no text or refusal of another one above it
    $("cards").replaceChildren(card);
    drawRecordText();
  };
  const show = el("button", { type: "button", class: "quiet", onclick: trying(showCard) }, `Show card #${r.number}`);
  if (r.kind === "fight") {
    const said = r.ok ? "done " : el("span", { class: "refused", text: `refused: ${r.reason} ` });
    return el("li", { "data-record": String(r.id), "data-kind": "fight", "data-answered": answeredMark(r) }, `#${r.number} ${r.who || "fight"}: fight, ${r.op || "step"}, `, said, show);
  }
  return r.kind === "sheet"
    ? el(
        "li",
        { "data-record": String(r.id), "data-kind": "sheet", "data-answered": answeredMark(r), class: r.ok ? "sheet-ok" : "sheet-refused" },
        `#${r.number} ${r.who}: sheet, ${sheetAsk(r.tag)}, `,
        r.ok ? `done: ${r.now} ` : el("span", { class: "refused", text: `refused: ${reasonWords(r.reason)} ` }),
        show,
      )
    : el("li", { "data-record": String(r.id), "data-kind": "check", "data-answered": answeredMark(r) }, `#${r.number} ${r.who}: ${r.attrs.skill || "check"}, ${r.outcome} `, show);
}

async function loadHistory(fresh) {
  const [game, shown] = [state.game, listed];
  const before = fresh ? "" : `&before=${shown.next}`;
  const page = await api("GET", gamePath(`records?limit=10${before}`));
  if (state.game !== game || listed !== shown) return; // another game was picked meanwhile
  shown.page(page.records, page.next, fresh);
  drawHistory();
}

// the History's lines from what it knows, newest first; a line already drawn for the
// same answer stays in place (with its focus)
function drawHistory() {
  const drawn = new Map([...$("history").children].map((li) => [Number(li.dataset.record), li]));
  const lines = listed.newestFirst().map((r) => {
    const line = drawn.get(r.id);
    return line && line.dataset.answered === answeredMark(r) ? line : historyItem(r);
  });
  placeInOrder($("history"), lines);
  $("older").hidden = listed.next === null;
  drawEmpty();
}

// ── what the game's events bring (live.js) ──────────────────────────────────

// a record made (or answered) elsewhere, or here: its line in the history (newest first)
// and its card, each in the place of the one it replaces; a line or a card already drawn
// from the same answer is left as it is, so no control under the person's hands moves
export async function showRecord(record) {
  const game = state.game;
  if (listed.record(record)) drawHistory();
  if ($("cards").querySelector(`:scope > [data-record="${record.id}"]`)?.dataset.answered === answeredMark(record)) return;
  const card = await cardOf(record);
  if (state.game === game) placeCard(card);
}

// the party and the history read again (a stream that fell too far behind)
export async function reloadGame() {
  await Promise.all([loadParty(), loadHistory(true), ...whenRead.map((hook) => hook())]);
}

export function setUpPlay() {
  $("refresh-games").addEventListener("click", trying(() => loadGames()));
  $("game").addEventListener("change", trying(() => chooseGame($("game").value)));
  $("new-game-form").addEventListener("submit", trying(makeGame));
  $("new-game-ruleset").addEventListener("change", trying(offerCharacters));
  $("new-game-pasted").addEventListener("input", () => {
    $("new-game-characters").hidden = $("new-game-pasted").value.trim() !== "";
  });
  $("check-form").addEventListener("submit", trying(resolveText));
  $("gm-text").addEventListener("keydown", (event) => {
    if (event.key !== "Enter" || !(event.ctrlKey || event.metaKey)) return;
    event.preventDefault();
    if ($("check-form").getAttribute("aria-busy") !== "true") $("check-form").requestSubmit($("resolve"));
  });
  $("older").addEventListener("click", trying(() => loadHistory(false)));
  $("write-example").addEventListener("click", trying(writeExample));
}
