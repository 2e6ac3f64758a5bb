// Talking to the service: the page's one fetch of an answer (live.js reads the event
// stream), the token it sends, and what is shared between the tabs (the token, the
// game picked, the seat the token holds in it, its party, its ruleset file, and what
// the last text sent changed on the sheets).

export const state = {
  token: sessionStorage.getItem("dicebound-token") || "",
  game: null,
  holder: null, // whose token it is: "admin", "game-master" or "player"; null: none, or not known
  seat: null, // {character} when the token is a player's seat in the picked game
  party: [],
  ruleset: null, // the picked game's ruleset file, at the game's version
  changes: null, // [{who, what, from, to}] of the last text, in text order; null before one
};

// a refusal; `holds` (the page's own refusals): whether what it says still holds, so the
// status line drops it once fixed (a game picked, a character added)
export class Refused extends Error {
  constructor(status, problem, holds = null) {
    super((problem && (problem.detail || problem.title)) || `HTTP ${status}`);
    this.status = status;
    this.problem = problem || {};
    this.holds = holds;
  }
}

export async function api(method, path, body, { raw = false, text = false, headers: extra = {} } = {}) {
  const headers = { ...extra };
  if (state.token) headers.Authorization = `Bearer ${state.token}`;
  let payload;
  if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    payload = raw ? body : JSON.stringify(body);
  }
  let answer;
  try {
    answer = await fetch(path, { method, headers, body: payload });
  } catch (error) {
    // no answer at all (status 0): the request may or may not have been done
    throw new Refused(0, { detail: `No answer from the service (${error.message}). Try again.` });
  }
  const type = answer.headers.get("content-type") || "";
  const data = type.includes("json") && !(text && answer.ok) ? await answer.json() : await answer.text();
  if (!answer.ok) throw new Refused(answer.status, typeof data === "object" ? data : { detail: data });
  return data;
}

// a path under the picked game; with none picked, the page's own refusal (not a crash)
export function gamePath(...parts) {
  if (!state.game) throw new Refused(0, { detail: "Pick a game first (the Game list above the tabs)." }, () => !state.game);
  return [`/games/${encodeURIComponent(state.game.id)}`, ...parts].join("/");
}
export const who = (name) => encodeURIComponent(name);
