// The game's fight on the Play tab: an initiative tracker (the order, the round, whose
// turn it is, each combatant's health, temporary points, conditions with the rounds left,
// down, dying, stable and the death saves, the defeated crossed out, signature points)
// and the menu of the combatant on turn, for a seat that may choose for it: each option
// with its cost, its chance to hit as a percentage (the exact fraction on hover), its
// damage as a bar chart and its chance to drop the target, the targets limited to the
// legal ones. Everything shown is the service's (`GET /games/{game}/fight`); a choice is
// sent as `POST /games/{game}/fight`, and the tracker is read again on every `fight`
// event and after every text the page resolves. While a window is open (a reaction to
// a hit, a signature action between turns) the menu is the window's: its question,
// the asked combatant's answers and Pass.

import { api, gamePath, state } from "./api.js";
import { $, el, say, trying } from "./dom.js";
import { alsoOn } from "./live.js";
import { cardOf, placeCard, whenGameChosen, whenPartyLoaded, whenReloaded, whenResolved } from "./play.js";

let shown = null; // the game whose fight is drawn, the revision drawn, and the view

// a fraction "a/b" as a number
function value(fraction) {
  const [top, bottom] = String(fraction).split("/").map(Number);
  return bottom ? top / bottom : top;
}

// "75%" (whole percents; below one, one decimal), the exact fraction kept for the hover
function percent(fraction) {
  const p = value(fraction) * 100;
  const written = p > 0 && p < 1 ? p.toFixed(1) : String(Math.round(p));
  return el("span", { class: "chance", title: `exactly ${fraction}` }, `${written}%`);
}

export async function loadFight() {
  const game = state.game;
  const section = $("fight");
  if (!game) {
    section.hidden = true;
    shown = null;
    return;
  }
  const view = await api("GET", gamePath("fight"));
  if (state.game !== game) return; // another game was picked meanwhile
  if (shown && shown.game === game.id && shown.revision > view.revision) return; // an older read
  shown = { game: game.id, revision: view.revision, view };
  section.hidden = view.fight === null;
  if (view.fight === null) return;
  drawRound(view);
  drawTracker(view);
  drawMenu(view);
}

function actorOf(fight) {
  return fight.outcome === "ongoing" ? fight.order[fight.turn] : null;
}

function drawRound(view) {
  const fight = view.fight;
  const current = fight.combatants.find((c) => c.id === actorOf(fight));
  $("fight-round").textContent =
    fight.outcome === "ongoing"
      ? `Round ${fight.round}: ${current ? current.name : "?"}'s turn.`
      : `The fight is over: ${fight.outcome}.`;
}

// what the summary says of a combatant (a party member's live health and conditions)
function summarised(view, combatant) {
  const summary = view.summary || { party: [], enemies: [] };
  return [...summary.party, ...summary.enemies].find((c) => c.id === combatant.id) || {};
}

function drawTracker(view) {
  const fight = view.fight;
  const actor = actorOf(fight);
  const byId = new Map(fight.combatants.map((c) => [c.id, c]));
  $("tracker").replaceChildren(...fight.order.map((id) => trackerLine(view, byId.get(id), id === actor)));
}

function trackerLine(view, combatant, current) {
  const said = summarised(view, combatant);
  const health = combatant.health || { value: said.health, max: said.maxHealth, temp: said.temp || 0 };
  const out = combatant.defeated;
  const name = el("span", { class: "name" }, out ? el("s", { text: combatant.name }) : combatant.name);
  const side = combatant.side === "party" ? "party" : "opponent";
  const parts = [
    name,
    el("span", { class: "side", text: ` (${side}, initiative ${combatant.initiative})` }),
    current ? el("strong", { class: "on-turn", text: " on turn" }) : null,
  ];
  const line = el("li", { class: `combatant side-${side}${out ? " defeated" : ""}`, "data-id": combatant.id, "aria-current": current ? "true" : null }, ...parts);
  if (Number.isInteger(health.value) && Number.isInteger(health.max)) {
    const label = `${combatant.name}'s health`;
    line.append(
      el("span", { class: "health" },
        el("meter", { min: "0", max: String(health.max), value: String(Math.max(0, health.value)), low: String(Math.ceil(health.max / 4)), high: String(Math.ceil(health.max / 2)), optimum: String(health.max), "aria-label": label }),
        ` ${health.value} / ${health.max}`,
        health.temp ? ` (+${health.temp} temporary)` : ""),
    );
  }
  const marks = [];
  if (out) marks.push("defeated");
  if (combatant.dying || said.dying) marks.push("dying");
  else if (combatant.stable || said.stable) marks.push("stable");
  else if (combatant.down || said.down) marks.push("down");
  if (combatant.concentrating) marks.push(`concentrating on ${combatant.concentrating.label}`);
  if (combatant.signature) marks.push(`signature points ${combatant.signature.points} / ${combatant.signature.max}`);
  const saves = deathSaves(combatant);
  if (saves) marks.push(saves);
  const conditions = conditionsOf(combatant, said);
  if (conditions.length) marks.push(conditions.join(", "));
  if (marks.length) line.append(el("span", { class: "marks", text: marks.join("; ") }));
  return line;
}

// a party member's death saves, read from its sheet's tracks (the ruleset's `dying` names them)
function deathSaves(combatant) {
  const dying = state.ruleset && state.ruleset.combat && state.ruleset.combat.dying;
  if (!dying || combatant.side !== "party" || !(combatant.dying || combatant.stable)) return "";
  const member = state.party.find((m) => m.name === combatant.character);
  const tracks = (member && member.state && member.state.tracks) || [];
  const at = (id) => (tracks.find((t) => t.id === id) || {}).value ?? 0;
  return `death saves: ${at(dying.successes)} succeeded, ${at(dying.failures)} failed`;
}

// the conditions on a combatant: the ones the fight keeps time on, with what is left,
// and a party member's other live conditions
function conditionsOf(combatant, said) {
  const timed = (combatant.tracked || []).map((t) =>
    t.rounds === null || t.rounds === undefined ? t.condition : `${t.condition} (${t.rounds} round${t.rounds === 1 ? "" : "s"} left)`,
  );
  const kept = new Set((combatant.tracked || []).map((t) => t.condition));
  const live = (said.conditions || []).map((c) => (typeof c === "string" ? c : c.id || c.label)).filter((c) => c && !kept.has(c));
  return [...timed, ...live];
}

// whether this page's seat chooses for `name`: the game master and the admin for anyone,
// a player's seat for its own character only
function choosesFor(name) {
  return !state.seat || state.seat.character === name;
}

// the open window's question: whom it asks, and for a seat that answers for them, the
// window's options (a reaction aims where the service says; a signature action at a
// target picked) and Pass
function drawWindow(view, menu) {
  const window = view.window;
  const asked = view.fight.combatants.find((c) => c.name === window.asking);
  const what = window.kind === "signature" ? "a signature action between turns" : "a reaction to a hit";
  const banner = el("p", { class: "window-banner", role: "status", text: `Window ${window.id}: ${window.asking} may answer with ${what}, or pass.` });
  if (!asked || !choosesFor(asked.character || asked.name)) {
    menu.replaceChildren(el("h3", { id: "fight-menu-heading", text: `Window ${window.id}` }), banner);
    return;
  }
  const answers = window.options.filter((o) => o.kind !== "pass");
  const pass = el("button", { type: "button", class: "quiet", onclick: trying((event) => send(event, { op: "pass", who: window.asking, window: window.id })) }, "Pass");
  menu.replaceChildren(
    el("h3", { id: "fight-menu-heading", text: `${window.asking}: answer window ${window.id}` }),
    banner,
    el("ul", { class: "options" }, ...answers.map((o) => optionItem(view, asked, o, window.id))),
    el("div", { class: "row" }, pass),
  );
}

function drawMenu(view) {
  const menu = $("fight-menu");
  if (view.window) {
    menu.hidden = false;
    drawWindow(view, menu);
    return;
  }
  const current = view.current;
  const actor = current && view.fight.combatants.find((c) => c.name === current.who);
  if (!current || !actor || !choosesFor(actor.character || actor.name)) {
    menu.hidden = true;
    menu.replaceChildren();
    return;
  }
  menu.hidden = false;
  const options = current.options.filter((o) => o.kind !== "end-turn");
  const end = el("button", { type: "button", class: "quiet", onclick: trying((event) => send(event, { op: "end-turn", who: current.who })) }, "End turn");
  menu.replaceChildren(
    el("h3", { id: "fight-menu-heading", text: `${current.who}: choose` }),
    options.length
      ? el("ul", { class: "options" }, ...options.map((o) => optionItem(view, actor, o)))
      : el("p", { class: "empty", text: `Nothing left for ${current.who} to do this turn but end it.` }),
    el("div", { class: "row" }, end),
  );
}

// the combatants an option may aim at: its odds name them where it has any, else the
// living combatants of the side it aims at
function legalTargets(view, actor, option) {
  const fight = view.fight;
  const alive = fight.combatants.filter((c) => !c.defeated);
  if (option.odds) return Object.keys(option.odds).map((id) => fight.combatants.find((c) => c.id === id)).filter(Boolean);
  const side = option.targets && option.targets.side;
  if (side === "enemy") return alive.filter((c) => c.side !== actor.side);
  if (side === "ally") return alive.filter((c) => c.side === actor.side && c.id !== actor.id);
  if (side === "any") return alive;
  return [];
}

function optionItem(view, actor, option, window = null) {
  const targets = legalTargets(view, actor, option);
  const count = (option.targets && option.targets.count) || 0;
  const slug = `${actor.id}-${option.id}`.replace(/[^a-z0-9-]/gi, "-");
  const chosen = el("div", { class: "targets" });
  const facts = el("div", { class: "facts" });
  const pickers = [];
  if (count > 0 && targets.length) {
    for (let i = 0; i < Math.min(count, targets.length); i += 1) {
      const picker = el("select", { id: `target-${slug}-${i}`, "aria-label": `Target${count > 1 ? ` ${i + 1}` : ""} of ${option.label}` },
        count > 1 && i > 0 ? el("option", { value: "", text: "(none)" }) : null,
        ...targets.map((t, at) => el("option", { value: t.name, selected: at === i, text: t.name })));
      picker.addEventListener("change", () => drawFacts(facts, view, option, pickers));
      pickers.push(picker);
      chosen.append(picker);
    }
  }
  drawFacts(facts, view, option, pickers);
  const act = el("button", { type: "button", "aria-label": `${option.label}: act` }, "Act");
  act.addEventListener("click", trying((event) => send(event, {
    op: "act",
    who: actor.name,
    option: option.id,
    targets: pickers.length ? pickers.map((p) => p.value).filter(Boolean) : undefined,
    window: window || undefined,
  })));
  const cost = option.budget ? ` (${option.budget})` : "";
  return el("li", { class: "option" }, el("span", { class: "label", text: `${option.label}${cost}` }), chosen, facts, act);
}

// the chance to hit, to crit and to drop the first target picked, and the damage chart
function drawFacts(facts, view, option, pickers) {
  facts.replaceChildren();
  if (!option.odds) return;
  const name = pickers.length ? pickers[0].value : null;
  const target = view.fight.combatants.find((c) => c.name === name);
  const odds = target && option.odds[target.id];
  if (!odds) return;
  const line = el("p", { class: "odds" }, "Hit ", percent(odds.hit));
  if (odds.critical !== undefined) line.append(", critical ", percent(odds.critical));
  if (odds.drops !== undefined) line.append(`, drops ${target.name} `, percent(odds.drops));
  facts.append(line);
  if (odds.dealt) facts.append(damageChart(odds.dealt, target.name));
}

// the damage distribution as bars, one per amount, its exact chance on hover and in the
// chart's name for a screen reader
function damageChart(dealt, targetName) {
  const amounts = Object.keys(dealt).map(Number).sort((a, b) => a - b);
  const top = Math.max(...amounts.map((a) => value(dealt[a])));
  const said = amounts.map((a) => `${a}: ${dealt[a]}`).join(", ");
  return el("div", { class: "damage-chart", role: "img", "aria-label": `Damage to ${targetName}, each amount's chance: ${said}` },
    ...amounts.map((a) => el("span", { class: "bar", title: `${a} damage: exactly ${dealt[a]}`, style: `height: ${(0.3 + (2.2 * value(dealt[a])) / top).toFixed(3)}rem` },
      el("span", { class: "amount", text: String(a) }))));
}

async function send(event, body) {
  const step = await api("POST", gamePath("fight"), body, { headers: { "Idempotency-Key": crypto.randomUUID() } });
  const words = step.ok ? `${step.op}: done.` : `${step.op}: refused (${step.reason})${step.message ? `: ${step.message}` : ""}.`;
  say(`Fight: ${words}`, "play");
  if (step.id !== null) placeCard(await cardOf({ id: step.id, kind: "fight" }));
  await loadFight();
}

export function setUpFight() {
  // a game picked: its fight read beside the party and the history, not before them
  // (a game whose fight cannot be read shows none, and the game is still picked)
  whenGameChosen(() => {
    shown = null;
    $("fight").hidden = true;
    loadFight().catch((error) => console.warn("the fight was not read:", error.message));
  });
  // the party read again: its members' death saves and conditions redrawn
  whenPartyLoaded(() => {
    if (shown && shown.view.fight && state.game && shown.game === state.game.id) drawTracker(shown.view);
  });
  whenReloaded(loadFight);
  whenResolved((answer) => (answer.fight && answer.fight.steps.length ? loadFight() : undefined));
  alsoOn("fight", () => trying(loadFight)());
}
