// dicebound's page: play, author, balance and sheets over the service's own API.
// No framework and no build step: the browser runs this file as it ships. Every
// number on the page comes from the engine; this script only asks and draws.

const $ = (id) => document.getElementById(id);
const state = {
  token: sessionStorage.getItem("dicebound-token") || "",
  game: null,
  party: [],
  rulesetFile: null,
  report: null,
  next: null,
};

// ── talking to the service ──────────────────────────────────────────────────

class Refused extends Error {
  constructor(status, problem) {
    super((problem && (problem.detail || problem.title)) || `HTTP ${status}`);
    this.status = status;
    this.problem = problem || {};
  }
}

async function api(method, path, body, { raw = false, text = false } = {}) {
  const headers = {};
  if (state.token) headers.Authorization = `Bearer ${state.token}`;
  let payload;
  if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    payload = raw ? body : JSON.stringify(body);
  }
  const answer = await fetch(path, { method, headers, body: payload });
  const type = answer.headers.get("content-type") || "";
  const data = type.includes("json") && !(text && answer.ok) ? await answer.json() : await answer.text();
  if (!answer.ok) throw new Refused(answer.status, typeof data === "object" ? data : { detail: data });
  return data;
}

function say(text) {
  $("status").textContent = text;
}

function trying(work) {
  return async (event) => {
    if (event) event.preventDefault();
    try {
      await work(event);
    } catch (error) {
      say(error instanceof Refused ? error.message : `Something went wrong: ${error.message}`);
      if (!(error instanceof Refused)) console.error(error);
    }
  };
}

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat(Infinity)) {
    if (child !== null && child !== undefined) node.append(child);
  }
  return node;
}

const gamePath = (...parts) => [`/games/${encodeURIComponent(state.game.id)}`, ...parts].join("/");
const who = (name) => encodeURIComponent(name);

// ── tabs (WAI-ARIA tabs: arrows move between them) ──────────────────────────

function showTab(tab, focus = false) {
  for (const other of document.querySelectorAll('[role="tab"]')) {
    const chosen = other === tab;
    other.setAttribute("aria-selected", String(chosen));
    other.tabIndex = chosen ? 0 : -1;
    $(other.getAttribute("aria-controls")).hidden = !chosen;
  }
  if (focus) tab.focus();
  history.replaceState(null, "", `#${tab.getAttribute("aria-controls")}`);
}

function setUpTabs() {
  const tabs = [...document.querySelectorAll('[role="tab"]')];
  for (const tab of tabs) {
    tab.addEventListener("click", () => showTab(tab));
    tab.addEventListener("keydown", (event) => {
      const at = tabs.indexOf(tab);
      const step = { ArrowRight: 1, ArrowLeft: -1 }[event.key];
      if (step) showTab(tabs[(at + step + tabs.length) % tabs.length], true);
      if (event.key === "Home") showTab(tabs[0], true);
      if (event.key === "End") showTab(tabs[tabs.length - 1], true);
    });
  }
  const wanted = tabs.find((t) => `#${t.getAttribute("aria-controls")}` === location.hash);
  if (wanted) showTab(wanted);
}

// ── games and the party ─────────────────────────────────────────────────────

async function loadGames(pick) {
  const select = $("game");
  if (!state.token) return;
  let games;
  try {
    games = await api("GET", "/games");
  } catch (error) {
    // a token the service does not know (401): no game of another token stays listed
    if (error instanceof Refused && error.status === 401) {
      select.replaceChildren(el("option", { value: "", text: "(no game: the token was refused)" }));
      select._games = [];
      state.party = [];
      $("party").replaceChildren();
      $("history").replaceChildren();
      await chooseGame("");
    }
    throw error;
  }
  select.replaceChildren(
    el("option", { value: "", text: games.length ? "(pick a game)" : "(no game yet: make one)" }),
    ...games.map((g) => el("option", { value: g.id, text: `${g.name} (${g.ruleset} v${g.version})` })),
  );
  select._games = games;
  const chosen = pick || (state.game && state.game.id) || (games.length === 1 ? games[0].id : "");
  if (chosen) {
    select.value = chosen;
    await chooseGame(chosen);
  }
}

async function chooseGame(id) {
  const game = ($("game")._games || []).find((g) => g.id === id) || null;
  state.game = game;
  state.next = null;
  $("cards").replaceChildren();
  $("rewritten").textContent = "";
  $("tag-errors").replaceChildren();
  if (!game) return;
  state.rulesetFile = await api("GET", `/rulesets/${encodeURIComponent(game.ruleset)}?version=${game.version}`);
  await Promise.all([loadParty(), loadHistory(true)]);
  buildSheetForm();
  say(`Playing ${game.name}.`);
}

async function loadParty() {
  const answer = await api("GET", gamePath("party"));
  state.party = answer.characters;
  $("party").replaceChildren(
    ...state.party.map((member) =>
      el(
        "li",
        { "data-character": member.name },
        el("span", { class: "name", text: member.name }),
        member.state.pools.map((pool) =>
          el(
            "span",
            { class: "pool", "data-pool": pool.key },
            `${pool.label} `,
            el("b", { class: "value", text: String(pool.value) }),
            `/${pool.max}`,
          ),
        ),
        member.state.tracks.map((track) =>
          el("span", { class: "track", "data-track": track.id }, `${track.label} `, el("b", { class: "value", text: String(track.value) }), ` (${track.min}-${track.max})`),
        ),
        member.state.wounds.map((track) =>
          el("span", { class: "track", "data-track": track.id }, `${track.label}: `, el("b", { class: "value", text: track.marks.filter(Boolean).join(", ") || "unmarked" }), track.penalty ? ` (penalty ${track.penalty})` : ""),
        ),
        member.state.conditions.length
          ? el("span", { class: "conditions", text: `Conditions: ${member.state.conditions.join(", ")}` })
          : null,
      ),
    ),
  );
  const names = state.party.map((m) => el("option", { value: m.name, text: m.name }));
  $("balance-character").replaceChildren(...names.map((n) => n.cloneNode(true)));
  $("sheet-character").replaceChildren(el("option", { value: "", text: "(a new character)" }), ...names);
}

async function makeGame() {
  const name = $("new-game-name").value.trim();
  let [ruleset, version] = $("new-game-ruleset").value.split("@");
  const pasted = $("new-game-pasted").value.trim();
  if (pasted) {
    const stored = await api("POST", "/rulesets", pasted, { raw: true });
    [ruleset, version] = [stored.id, String(stored.version)];
  }
  const made = await api("POST", "/games", { name, ruleset, version: Number(version) });
  await loadGames(made.id);
  say(`Made "${name}". Its token (shown once): ${made.token}`);
}

async function loadRulesets() {
  const rulesets = await api("GET", "/rulesets");
  const newest = new Map();
  for (const r of rulesets) newest.set(r.id, r);
  const options = [...newest.values()].map((r) =>
    el("option", { value: `${r.id}@${r.version}`, text: `${r.name} (${r.id} v${r.version})` }),
  );
  $("new-game-ruleset").replaceChildren(...options);
  $("author-start").replaceChildren(...options.map((o) => o.cloneNode(true)));
}

// ── checks, cards, history ──────────────────────────────────────────────────

async function resolveText() {
  if (!state.game) throw new Refused(0, { detail: "Pick a game first." });
  const body = { text: $("gm-text").value };
  const seed = $("seed").value.trim();
  if (seed) body.seed = seed;
  const answer = await api("POST", gamePath("checks"), body);
  $("rewritten").textContent = answer.text;
  $("tag-errors").replaceChildren(...answer.errors.map((e) => el("li", { text: `${e.tag}: ${e.error}` })));
  const cards = await Promise.all(answer.results.map((r) => cardFor(r)));
  $("cards").replaceChildren(...cards);
  await Promise.all([loadParty(), loadHistory(true)]);
  say(`${answer.results.length} check(s) resolved, ${answer.errors.length} refused.`);
}

async function cardFor(result) {
  const card = await api("GET", gamePath("records", result.id, "card"));
  // an open choice is still the player's, even after a raise that opened it
  const open = result.choice === "open";
  const node = el(
    "article",
    {
      class: `card ${open ? "open" : result.success ? "success" : "failure"}`,
      "data-record": String(result.id),
      "aria-labelledby": `card-${result.id}`,
    },
    el("h3", { id: `card-${result.id}`, text: card.title }),
    el("p", { class: "outcome", text: `${result.outcome}${result.critical ? ` (critical ${result.critical})` : ""}` }),
    el(
      "ul",
      { class: "dice", "aria-label": "Dice thrown" },
      card.dice.map((die) =>
        el(
          "li",
          {
            class: ["die", ...die.marks].join(" "),
            "data-face": die.face,
            "aria-label": dieWords(die),
            title: dieWords(die),
          },
          die.die ? el("small", { text: die.die }) : null,
          die.face,
        ),
      ),
    ),
    markKey(card.dice),
    el("dl", {}, card.lines.map(([term, text]) => [el("dt", { text: term }), el("dd", { text })])),
  );
  const verdict = el("p", { class: "verdict", role: "status" });
  node.append(
    el(
      "div",
      { class: "row" },
      el("button", { type: "button", class: "quiet", onclick: trying(() => verify(result.id, verdict)) }, "Verify"),
    ),
    verdict,
  );
  // the card names the offer's pools: only those the roller can pay from
  if (card.offer && card.offer.pools.length) node.append(raiseForm(result, node, card.offer));
  if (open) node.append(choiceButtons(result, node));
  return node;
}

function dieWords(die) {
  return [die.die, die.face, ...die.marks.map((m) => m.replace("-", " "))].filter(Boolean).join(", ");
}

function markKey(dice) {
  const seen = [...new Set(dice.flatMap((d) => d.marks))];
  return seen.length ? el("p", { class: "die-key", text: `Marks: ${seen.map((m) => m.replace("-", " ")).join(", ")}` }) : null;
}

async function verify(id, verdict) {
  const answer = await api("GET", gamePath("records", id, "verify"));
  verdict.textContent = answer.verified
    ? "Verified: replaying the seed gives this record."
    : `Not verified: ${answer.differences.map((d) => d.field).join(", ")} differ.`;
}

function raiseForm(result, card, offer) {
  const member = state.party.find((m) => m.name === result.who);
  const held = new Map(member ? member.state.pools.map((p) => [p.key, p.value]) : []);
  const poolId = `raise-pool-${result.id}`;
  const pointsId = `raise-points-${result.id}`;
  const costs = new Map(offer.pools.map((p) => [p.pool, p.points]));
  const options = offer.pools.map((p) => {
    const now = held.has(p.pool) ? ` (${held.get(p.pool)})` : "";
    return el("option", { value: p.pool, text: `${p.label}${now}: ${p.points} for ${offer.band}` });
  });
  const points = el("input", { id: pointsId, type: "number", min: "1", value: String(offer.pools[0].points), inputmode: "numeric" });
  const select = el("select", { id: poolId }, options);
  select.addEventListener("change", () => {
    points.value = String(costs.get(select.value));
  });
  const form = el(
    "form",
    { class: "row raise" },
    el("span", { text: `Offer: ${result.attrs.offer}` }),
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
      await answerAfter(result, card, body);
    }),
  );
  return form;
}

function choiceButtons(result, card) {
  return el(
    "div",
    { class: "row choice", role: "group", "aria-label": "The player's choice" },
    el("button", { type: "button", onclick: trying(() => answerAfter(result, card, { choose: "fail" })) }, "Fail"),
    el("button", { type: "button", onclick: trying(() => answerAfter(result, card, { choose: "succeed" })) }, "Succeed at a cost"),
  );
}

async function answerAfter(result, card, body) {
  const record = await api("POST", gamePath("records", result.id, "after"), body);
  card.replaceWith(await cardFor(record));
  await Promise.all([loadParty(), loadHistory(true)]);
  const paid = record.paid.map((c) => `${c.who}'s ${c.pool} ${c.from} → ${c.to}`).join("; ");
  const still = record.choice === "open" ? "; the choice is open: fail, or succeed at a cost" : "";
  say(`${record.outcome}${paid ? `: paid ${paid}` : ""}${still}.`);
}

async function loadHistory(fresh) {
  const before = fresh ? "" : `&before=${state.next}`;
  const page = await api("GET", gamePath(`records?limit=10${before}`));
  const items = page.records.map((r) =>
    el(
      "li",
      { "data-record": String(r.id) },
      `#${r.id} ${r.who}: ${r.attrs.skill || "check"}, ${r.outcome} `,
      el("button", { type: "button", class: "quiet", onclick: trying(async () => $("cards").replaceChildren(await cardFor(r))) }, `Show card #${r.id}`),
    ),
  );
  if (fresh) $("history").replaceChildren(...items);
  else $("history").append(...items);
  state.next = page.next;
  $("older").hidden = page.next === null;
}

// ── authoring ───────────────────────────────────────────────────────────────

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

// ── balance ─────────────────────────────────────────────────────────────────

// text on a band: white on a dark colour, black on a light one
function inkOn(colour) {
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(colour.slice(i, i + 2), 16));
  return 0.299 * r + 0.587 * g + 0.114 * b < 140 ? "#fff" : "#000";
}
const SVG = "http://www.w3.org/2000/svg";

function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  for (const child of children.flat(Infinity)) if (child) node.append(child);
  return node;
}

function fraction(text) {
  if (!text.includes("/")) return Number(text);
  const [n, d] = text.split("/").map(Number);
  return n / d;
}

const percent = (p) => `${(p * 100).toFixed(p < 0.1 && p > 0 ? 1 : 0)}%`;
const letter = (label) => label.slice(0, 2);

function chart(title, steps, outcomes, cells) {
  const width = 640;
  const barHeight = 26;
  const left = 110;
  const height = steps.length * (barHeight + 8) + 8;
  const groups = steps.map((step, i) => {
    const cell = cells[i];
    const y = 8 + i * (barHeight + 8);
    const parts = [svg("text", { x: "4", y: String(y + barHeight * 0.68) }, step.label)];
    if (!cell || cell.not_rolled) {
      parts.push(svg("text", { x: String(left), y: String(y + barHeight * 0.68) }, `not rolled: ${cell ? cell.not_rolled : "?"}`));
    } else {
      let x = left;
      cell.probabilities.forEach((p, band) => {
        const share = fraction(p);
        const w = share * (width - left - 4);
        if (w <= 0) return;
        const label = `${step.label}, ${outcomes[band].label}: ${p} (${percent(share)})`;
        parts.push(
          svg(
            "rect",
            { x: String(x), y: String(y), width: String(w), height: String(barHeight), fill: outcomes[band].colour, stroke: "#fff", "data-band": outcomes[band].label, "data-probability": p },
            svg("title", {}, label),
          ),
        );
        if (w > 34) {
          parts.push(svg("text", { x: String(x + 3), y: String(y + barHeight * 0.68), fill: inkOn(outcomes[band].colour) }, `${letter(outcomes[band].label)} ${percent(share)}`));
        }
        x += w;
      });
    }
    const success = cell && cell.success ? `success ${cell.success}` : "not rolled";
    return svg("g", { class: "step", "data-step": step.label, role: "listitem", "aria-label": `${step.label}: ${success}` }, parts);
  });
  const figureId = `chart-${Math.random().toString(36).slice(2, 9)}`;
  return el(
    "figure",
    { "aria-labelledby": figureId },
    el("figcaption", { id: figureId, text: title }),
    svg("svg", { viewBox: `0 0 ${width} ${height}`, width: "100%", role: "list", "aria-label": `${title}: chance of each outcome at every step` }, groups),
  );
}

function legend(outcomes) {
  $("legend").replaceChildren(
    ...outcomes.map((o) =>
      el("span", {}, el("span", { class: "swatch", style: `background:${o.colour}` }), `${letter(o.label)} = ${o.label}`),
    ),
  );
}

async function showBalance() {
  const name = $("balance-character").value;
  const report = await api("GET", gamePath(`report?character=${who(name)}`));
  state.report = report;
  legend(report.outcomes);
  $("charts").replaceChildren(
    ...report.rows.map((row) => chart(`${row.label} (${row.group})`, report.steps, report.outcomes, row.cells)),
  );
  $("whatif-check").replaceChildren(
    ...report.rows.map((row, i) => el("option", { value: String(i), text: `${row.label} (${row.group})` })),
  );
  say(`Odds of ${report.rows.length} checks for ${report.character}.`);
}

async function showWhatIf() {
  const report = state.report;
  if (!report) throw new Refused(0, { detail: "Show a character's odds first." });
  const row = report.rows[Number($("whatif-check").value)];
  const extra = $("whatif-attrs").value.trim();
  const cells = await Promise.all(
    row.cells.map(async (cell) => {
      if (!cell.tag) return cell;
      const tag = extra ? cell.tag.replace(/\]$/, ` ${extra}]`) : cell.tag;
      const odds = await api("POST", gamePath("odds"), { tag, who: report.character });
      const used = new Set();
      const probabilities = report.outcomes.map((o) => {
        const at = odds.outcomes.findIndex((x, i) => !used.has(i) && x.label === o.label);
        if (at < 0) return "0";
        used.add(at);
        return odds.outcomes[at].probability;
      });
      return { tag, not_rolled: null, probabilities, success: odds.success };
    }),
  );
  const changes = row.cells
    .map((cell, i) => `${report.steps[i].label}: ${cell.success || "-"} → ${cells[i].success || "-"}`)
    .join("; ");
  $("whatif-chart").replaceChildren(chart(`What if ${row.label} ${extra || "(as it is)"}`, report.steps, report.outcomes, cells), el("p", { class: "whatif-change", text: `Chance of success: ${changes}` }));
  say(`What if ${row.label} ${extra}: ${changes}`);
}

// ── character sheets ────────────────────────────────────────────────────────

function field(id, labelText, control) {
  control.id = id;
  return el("div", { class: "field" }, el("label", { for: id, text: labelText }), control);
}

function numberInput(path, min, max, value) {
  return el("input", { type: "number", inputmode: "numeric", "data-path": path, min: Number.isInteger(min) ? String(min) : null, max: Number.isInteger(max) ? String(max) : null, value: value === undefined || value === null ? "" : String(value) });
}

function tierSelect(path, tiers, allowed, value) {
  const shown = allowed ? tiers.filter((t) => allowed.includes(t.id)) : tiers;
  const select = el("select", { "data-path": path }, shown.map((t) => el("option", { value: t.id, text: t.label || t.id })));
  if (value) select.value = value;
  return select;
}

function buildSheetForm(character) {
  const file = state.rulesetFile;
  const form = $("sheet-form");
  $("sheet-problems").replaceChildren();
  if (!file) return form.replaceChildren();
  const sheet = file.sheet || {};
  const build = (character && character.sheet && character.sheet.build) || {};
  const live = (character && character.live) || {};
  const tiers = (file.resolution && file.resolution.proficiencyTiers) || [];
  const sets = [];
  sets.push(el("fieldset", {}, el("legend", { text: "Who" }), field("sheet-name", "Character name", el("input", { "data-path": "name", required: true, maxlength: "100", value: character ? character.name : "", readonly: character ? true : null }))));
  const abilities = sheet.abilities || [];
  if (abilities.length) {
    sets.push(el("fieldset", {}, el("legend", { text: "Abilities" }), abilities.map((a) => field(`sheet-ability-${a.id}`, `${a.label} (${a.min} to ${a.max})`, numberInput(`sheet.build.abilities.${a.id}`, a.min, a.max, (build.abilities || {})[a.id] ?? a.default)))));
  }
  for (const [group, key, allowedKey] of [["Skills", "skills", "skillTiers"], ["Saves", "saves", "saveTiers"]]) {
    const items = sheet[key] || [];
    if (items.length && tiers.length) {
      sets.push(el("fieldset", {}, el("legend", { text: group }), items.map((s) => field(`sheet-${key}-${s.id}`, s.label, tierSelect(`sheet.build.${key}.${s.id}`, tiers, sheet[allowedKey], (build[key] || {})[s.id])))));
    }
  }
  const fields = (sheet.fields || []).filter((f) => ["number", "text", "longtext", "boolean", "enum", "dice"].includes(f.type));
  if (fields.length) {
    sets.push(el("fieldset", {}, el("legend", { text: "Fields" }), fields.map((f) => {
      const path = `sheet.build.fields.${f.id}`;
      const value = (build.fields || {})[f.id] ?? f.default;
      let control;
      if (f.type === "number") control = numberInput(path, f.min, f.max, value);
      else if (f.type === "boolean") control = el("input", { type: "checkbox", "data-path": path, checked: value ? true : null });
      else if (f.type === "enum") {
        control = el("select", { "data-path": path }, (f.values || []).map((v) => el("option", { value: v, text: (f.valueLabels || {})[v] || v })));
        if (value !== undefined) control.value = value;
      } else if (f.type === "longtext") control = el("textarea", { "data-path": path, maxlength: String(f.maxLength || 4000), rows: "2" });
      else control = el("input", { "data-path": path, maxlength: String(f.maxLength || 40), value: value ?? "" });
      if (f.type === "longtext") control.value = value ?? "";
      return field(`sheet-field-${f.id}`, f.label, control);
    })));
  }
  const pools = (sheet.live && sheet.live.pools) || [];
  const tracks = ((sheet.live && sheet.live.tracks) || []).filter((t) => !t.kinds);
  if (pools.length || tracks.length) {
    sets.push(el("fieldset", {}, el("legend", { text: "Live state (blank: the pool is full, the track at its default)" }),
      pools.map((p) => field(`sheet-pool-${p.id}`, `${p.label} points`, numberInput(`live.pools.${p.id}`, 0, null, ((live.pools || {})[p.id] || {}).value))),
      tracks.map((t) => field(`sheet-track-${t.id}`, `${t.label} (${t.min} to ${typeof t.max === "number" ? t.max : "max"})`, numberInput(`live.tracks.${t.id}`, t.min, typeof t.max === "number" ? t.max : null, (live.tracks || {})[t.id]))),
    ));
  }
  sets.push(el("button", { type: "submit" }, "Save the character"));
  form.replaceChildren(...sets);
  form._character = character || null;
}

function readSheet() {
  const file = state.rulesetFile;
  const before = $("sheet-form")._character;
  const body = {
    name: $("sheet-name").value.trim(),
    sheet: { v: (file.sheet && file.sheet.version) || 1, build: { ...(before ? before.sheet.build : {}), abilities: {}, skills: {}, saves: {}, fields: {} } },
    live: { ...(before ? before.live : {}), pools: {}, tracks: {} },
  };
  for (const control of $("sheet-form").querySelectorAll("[data-path]")) {
    const path = control.dataset.path.split(".");
    if (path[0] === "name") continue;
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
  if (!Object.keys(body.live.pools).length) delete body.live.pools;
  if (!Object.keys(body.live.tracks).length) delete body.live.tracks;
  return body;
}

async function saveSheet() {
  if (!state.game) throw new Refused(0, { detail: "Pick a game first." });
  for (const bad of $("sheet-form").querySelectorAll('[aria-invalid="true"]')) bad.removeAttribute("aria-invalid");
  const body = readSheet();
  if (!body.name) throw new Refused(0, { detail: "A character needs a name." });
  try {
    const saved = await api("PUT", gamePath("characters", who(body.name)), body);
    $("sheet-problems").replaceChildren();
    await loadParty();
    $("sheet-character").value = body.name;
    say(`Saved ${saved.name} (revision ${saved.revision}).`);
  } catch (error) {
    if (!(error instanceof Refused) || !error.problem.problems) throw error;
    const problems = error.problem.problems;
    $("sheet-problems").replaceChildren(...problems.map((p) => el("li", { text: `${p.path}: ${p.message}` })));
    for (const p of problems) {
      const control = [...$("sheet-form").querySelectorAll("[data-path]")].find((c) => p.path === c.dataset.path || p.path.startsWith(`${c.dataset.path}.`));
      if (control) control.setAttribute("aria-invalid", "true");
    }
    say(`${error.message} ${problems.map((p) => `${p.path}: ${p.message}`).join(" ")}`);
  }
}

async function pickSheet() {
  const name = $("sheet-character").value;
  if (!name) return buildSheetForm();
  const character = await api("GET", gamePath("characters", who(name)));
  buildSheetForm(character);
}

// ── start ───────────────────────────────────────────────────────────────────

function start() {
  setUpTabs();
  $("token").value = state.token;
  $("signin").addEventListener("submit", trying(async () => {
    state.token = $("token").value.trim();
    sessionStorage.setItem("dicebound-token", state.token);
    await loadGames();
    say(state.token ? "Token in use." : "No token: only the rulesets can be read.");
  }));
  $("refresh-games").addEventListener("click", trying(() => loadGames()));
  $("game").addEventListener("change", trying(() => chooseGame($("game").value)));
  $("new-game-form").addEventListener("submit", trying(makeGame));
  $("check-form").addEventListener("submit", trying(resolveText));
  $("older").addEventListener("click", trying(() => loadHistory(false)));
  $("author-load").addEventListener("click", trying(loadStart));
  $("author-file").addEventListener("change", trying(async () => {
    const [file] = $("author-file").files;
    if (file) $("ruleset-text").value = await file.text();
    await checkRuleset();
  }));
  $("author-check").addEventListener("click", trying(checkRuleset));
  $("author-save").addEventListener("click", trying(saveRuleset));
  $("balance-show").addEventListener("click", trying(showBalance));
  $("whatif").addEventListener("submit", trying(showWhatIf));
  $("sheet-character").addEventListener("change", trying(pickSheet));
  $("sheet-new").addEventListener("click", trying(async () => { $("sheet-character").value = ""; buildSheetForm(); }));
  $("sheet-form").addEventListener("submit", trying(saveSheet));
  trying(async () => {
    await loadRulesets();
    await loadGames();
  })();
}

start();
