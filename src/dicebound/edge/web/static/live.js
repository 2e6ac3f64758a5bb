// Following the picked game's events (`GET /games/{game}/events`), so the page changes
// by itself when anyone at the table acts. The stream is read with fetch, because
// EventSource cannot send the Authorization header; sse.js parses it. A dropped stream
// is opened again after a wait that doubles (half a second to 15 s, give or take a
// quarter) with the last event's id as Last-Event-ID, so the service sends what was
// missed; a stream silent for 45 s (three keep-alives) is taken for dropped.

import { Refused, state } from "./api.js";
import { $, drawStatus, say } from "./dom.js";
import { EventStream } from "./sse.js";

const FIRST_WAIT = 500; // ms before the first reconnection (the stream's `retry` overrides it)
const LONGEST_WAIT = 15000;
const SILENT = 45000; // ms without a byte before a stream is taken for dropped
const SETTLED = 5000; // ms a stream must stay open for the next drop to start the waits over

let running = null; // the game followed now
const also = {}; // kinds other modules follow besides those play.js names (seats.js: `seat`)

// `work(data)` handles each event of `kind` in every game followed from now on
export function alsoOn(kind, work) {
  also[kind] = work;
}

// follow `game`'s events (null: none), each kind handled by `on[kind](data)`; the game
// followed before is let go
export function follow(game, on) {
  if (running) running.stop();
  running = game && state.token ? new Following(game.id, state.token, { ...also, ...on }) : null;
  if (!running) tell("off", "Live updates: off");
}

function tell(mode, text) {
  const shown = $("live");
  shown.dataset.mode = mode;
  shown.textContent = text;
  drawStatus(); // a "stopped" warning goes once the updates are on again
}

class Following {
  constructor(game, token, on) {
    this.path = `/games/${encodeURIComponent(game)}/events`;
    this.token = token;
    this.on = on;
    this.lastId = null; // the last event handled, sent as Last-Event-ID
    this.retry = FIRST_WAIT;
    this.failures = 0;
    this.connection = null;
    this.stopped = false;
    this.loop();
  }

  stop() {
    this.stopped = true;
    if (this.connection) this.connection.abort();
    if (this.wake) this.wake();
  }

  async loop() {
    while (!this.stopped) {
      const began = Date.now();
      try {
        await this.read();
      } catch (error) {
        if (this.stopped) return;
        if (error instanceof Refused) {
          // the token or the game is gone, or the seat may not follow: opening it again
          // would be refused the same way
          tell("off", "Live updates: off");
          // a player's token that no longer reads its game: its seat was revoked or replaced
          const seat = state.seat && [401, 404].includes(error.status) ? state.seat.character : null;
          // said for the page while the updates stay off (a new token's game follows again)
          const off = () => $("live").dataset.mode === "off";
          say(seat ? `Live updates stopped: this page's token no longer holds ${seat}'s seat (revoked or replaced); ask the Game Master for a new one.` : `Live updates stopped: ${error.message}`, "page", off);
          return;
        }
      }
      if (this.stopped) return;
      this.failures = Date.now() - began >= SETTLED ? 0 : this.failures + 1;
      const wait = Math.min(LONGEST_WAIT, this.retry * 2 ** Math.max(this.failures - 1, 0));
      const jittered = Math.round(wait * (0.75 + Math.random() / 2));
      tell("waiting", `Live updates: reconnecting in ${Math.ceil(jittered / 1000)} s`);
      await new Promise((resolve) => {
        this.wake = resolve;
        setTimeout(resolve, jittered);
      });
    }
  }

  // one connection, until it ends; a refusal that will not pass is thrown as Refused
  async read() {
    const connection = new AbortController();
    this.connection = connection;
    const headers = { Authorization: `Bearer ${this.token}`, Accept: "text/event-stream" };
    if (this.lastId !== null) headers["Last-Event-ID"] = this.lastId;
    const answer = await fetch(this.path, { headers, signal: connection.signal, cache: "no-store" });
    if (!answer.ok) {
      const problem = await answer.json().catch(() => ({}));
      if ([401, 403, 404].includes(answer.status)) throw new Refused(answer.status, problem);
      return; // busy, limited or failing: try again later
    }
    tell("on", "Live updates: on");
    // the first stream starts from now: what was committed before it opened is read again
    if (this.lastId === null) await this.handle({ kind: "reload", data: "{}" });
    const stream = new EventStream();
    const reader = answer.body.pipeThrough(new TextDecoderStream()).getReader();
    let silence = setTimeout(() => connection.abort(), SILENT);
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        clearTimeout(silence);
        silence = setTimeout(() => connection.abort(), SILENT);
        for (const event of stream.push(value)) {
          if (this.stopped) return;
          await this.handle(event);
          if (event.id !== null) this.lastId = event.id;
        }
        if (stream.retry !== null) this.retry = stream.retry;
      }
    } finally {
      clearTimeout(silence);
    }
  }

  // an event that cannot be drawn is said and passed over: the stream goes on
  async handle(event) {
    const work = this.on[event.kind];
    if (!work) return;
    try {
      await work(JSON.parse(event.data));
    } catch (error) {
      say(`An update could not be shown (${event.kind}): ${error.message}`, "page");
      if (!(error instanceof Refused)) console.error(error);
    }
  }
}
