/**
 * The event stream as an async iterator, against a real `dicebound serve` on SQLite:
 * a second seat watching, the resume after the service is restarted (nothing missed,
 * nothing twice), `reload`, a refused stream, and the parser on its own.
 */

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import {
  DiceboundError,
  parseEventStream,
  type DiceboundClient,
  type EventsOptions,
  type GameEvent,
  type ReconnectInfo,
} from "../src/index.js";
import { DiceboundServer, waitFor } from "../harness/server.js";
import { BOTCH, SPEND_MIND, makeTable, type Table } from "../harness/table.js";

/** Follows a game's events in the background, keeping each one. */
class Watcher {
  readonly events: GameEvent[] = [];
  readonly reconnects: ReconnectInfo[] = [];
  opened = 0;
  failure: unknown;
  private readonly stop = new AbortController();
  private readonly done: Promise<void>;

  constructor(client: DiceboundClient, game: string, options: EventsOptions = {}) {
    this.done = (async () => {
      try {
        for await (const event of client.events(game, {
          reconnectDelayMs: 100,
          maxReconnectDelayMs: 400,
          ...options,
          signal: this.stop.signal,
          onOpen: () => (this.opened += 1),
          onReconnect: (info) => this.reconnects.push(info),
        })) {
          this.events.push(event);
        }
      } catch (error) {
        this.failure = error;
      }
    })();
  }

  /** The ids of the records seen (record events only). */
  get records(): number[] {
    return this.events.flatMap((e) => (e.event === "record" ? [e.data.id] : []));
  }

  async open(times = 1): Promise<void> {
    await waitFor(() => this.opened >= times, `the stream to be open ${times} time(s)`);
  }

  async sees(ready: (events: GameEvent[]) => boolean, what: string): Promise<void> {
    await waitFor(() => ready(this.events) || this.failure !== undefined, what, 20_000, 10);
    if (this.failure !== undefined) throw this.failure;
  }

  async close(): Promise<void> {
    this.stop.abort();
    await this.within(this.done, "the stream to close");
  }

  async ended(): Promise<void> {
    await this.within(this.done, "the stream to end");
  }

  /** `promise`, or a failure naming `what` after 20 s: a test never waits for ever. */
  private async within(promise: Promise<void>, what: string): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, fail) => {
      timer = setTimeout(() => fail(new Error(`waited 20000 ms for ${what}`)), 20_000);
    });
    try {
      await Promise.race([promise, late]);
    } finally {
      clearTimeout(timer);
    }
  }
}

describe("the event stream", () => {
  let server: DiceboundServer;
  let table: Table;

  before(async () => {
    server = await DiceboundServer.start();
    table = await makeTable(server);
  });
  after(async () => {
    await server?.close();
  });

  test("a player's seat sees the Game Master's checks and sheet commands as they happen", async () => {
    const player = table.gm.withToken(await table.gm.makeSeat(table.game, "Sneeky Peet"));
    const watcher = new Watcher(player, table.game);
    await watcher.open();
    const answer = await table.gm.resolveChecks(table.game, {
      text: `${BOTCH.text} ${SPEND_MIND.text}`,
      faces: BOTCH.faces,
    });
    const ids = [...answer.results.map((r) => r.id), ...(answer.sheet ?? []).map((c) => c.id ?? 0)];
    await watcher.sees(
      (events) => events.some((e) => e.event === "character" && e.data.name === "Sneeky Peet"),
      "Peet's character event",
    );
    await watcher.close();
    assert.deepEqual(watcher.records, ids);
    const kinds = watcher.events.map((e) => e.event);
    assert.deepEqual(kinds, ["record", "record", "character"]);
    const ordered = watcher.events.map((e) => e.id);
    assert.deepEqual(ordered, [...ordered].sort((a, b) => a - b));
    const [check] = watcher.events;
    assert.ok(check?.event === "record" && check.data.kind === "check");
    assert.equal(check.data.outcome, "Botch");
  });

  test("after the service restarts, the stream resumes with Last-Event-ID: nothing missed, nothing twice", async () => {
    const watcher = new Watcher(table.gm, table.game);
    await watcher.open();
    const first = await table.gm.resolveChecks(table.game, BOTCH);
    await watcher.sees((events) => events.length >= 1, "the first record");
    const seenBefore = watcher.events.at(-1)?.id ?? 0;

    await server.stop();
    await server.restart();
    // written while the watcher is (probably) still waiting to reconnect
    const second = await table.gm.resolveChecks(table.game, BOTCH);
    await watcher.open(2);
    const third = await table.gm.resolveChecks(table.game, BOTCH);
    const wanted = [first, second, third].map((a) => a.results[0]?.id);
    await watcher.sees(
      () => wanted.every((id) => id !== undefined && watcher.records.includes(id)),
      "the three records",
    );
    await watcher.close();

    assert.deepEqual(watcher.records, wanted);
    assert.ok(watcher.reconnects.length >= 1);
    assert.equal(watcher.reconnects[0]?.lastEventId, seenBefore);
    const ids = watcher.events.map((e) => e.id);
    assert.equal(new Set(ids).size, ids.length, `an event came twice: ${ids.join(", ")}`);
    // a game master's stream is sent every event: its ids follow each other
    assert.deepEqual(
      ids,
      ids.map((_, i) => (ids[0] ?? 0) + i),
    );
  });

  test("resuming from an id the service does not keep yields reload, then goes on live", async () => {
    const watcher = new Watcher(table.gm, table.game, { lastEventId: 1_000_000 });
    await watcher.sees((events) => events.length >= 1, "the reload event");
    const [reload] = watcher.events;
    assert.ok(reload?.event === "reload");
    assert.match(reload.data.reason, /reload/);
    const answer = await table.gm.resolveChecks(table.game, BOTCH);
    const id = answer.results[0]?.id ?? 0;
    await watcher.sees(() => watcher.records.includes(id), "the record after the reload");
    await watcher.close();
    assert.ok((watcher.events[1]?.id ?? 0) > reload.id);
  });

  test("a stream refused for good throws a DiceboundError and does not reconnect", async () => {
    const token = await table.gm.makeSeat(table.game, "Maud Harrowgate");
    const player = table.gm.withToken(token);
    const watcher = new Watcher(player, table.game);
    await watcher.open();
    await table.gm.revokeSeat(table.game, "Maud Harrowgate");
    await watcher.ended();
    assert.ok(watcher.failure instanceof DiceboundError);
    assert.equal(watcher.failure.status, 404);
    assert.ok(!watcher.failure.message.includes(token));
  });

  test("breaking out of the loop closes the stream: a token opens more than its four in turn", async () => {
    const player = table.gm.withToken(await table.gm.makeSeat(table.game, "Sneeky Peet"));
    for (let i = 0; i < 6; i += 1) {
      for await (const event of player.events(table.game, { lastEventId: 0 })) {
        assert.ok(event.id > 0);
        break;
      }
    }
  });
});

describe("parseEventStream", () => {
  function body(...chunks: string[]): ReadableStream<Uint8Array> {
    const encoder = new TextEncoder();
    return new ReadableStream({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
        controller.close();
      },
    });
  }

  test("reads events split anywhere, CR, LF and CRLF, comments and joined data lines", async () => {
    const read = [];
    for await (const event of parseEventStream(
      body(": keep-alive\n\nid: 1\nevent: rec", "ord\ndata: {\"a\":\r\ndata: 1}\r", "\n\r\nid:2\rdata:x\r\r", "data: no end"),
    )) {
      read.push(event);
    }
    assert.deepEqual(read, [
      { id: "1", event: "record", data: '{"a":\n1}' },
      { id: "2", event: "message", data: "x" },
    ]);
  });
});
