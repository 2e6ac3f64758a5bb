/**
 * Retries: a 429 from a real `dicebound serve` (its rate limit set to 2 requests a
 * second) waited out after `Retry-After`; and, with a stand-in `fetch`, what is sent
 * again after a 503 or a lost connection and what is not.
 */

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { DiceboundClient, DiceboundError, type RetryInfo } from "../src/index.js";
import { DiceboundServer } from "../harness/server.js";
import { makeTable, type Table } from "../harness/table.js";

describe("a 429 from the service", () => {
  let server: DiceboundServer;
  let table: Table;

  before(async () => {
    server = await DiceboundServer.start({ args: ["--rate-limit", "2"] });
    table = await makeTable(server, "pbta-2d6");
  });
  after(async () => {
    await server?.close();
  });

  test("is waited out for Retry-After, and every call is answered", async () => {
    const retries: RetryInfo[] = [];
    const gm = new DiceboundClient({
      baseUrl: server.url,
      token: table.gmToken,
      onRetry: (info) => retries.push(info),
    });
    const started = Date.now();
    const names = [];
    for (let i = 0; i < 5; i += 1) names.push((await gm.getGame(table.game)).name);
    assert.deepEqual(names, Array(5).fill("client test pbta-2d6"));
    assert.ok(retries.length >= 1, "no 429 was met");
    assert.ok(retries.every((r) => r.status === 429 && r.waitMs >= 1000 && r.method === "GET"));
    assert.ok(Date.now() - started >= 1000);
  });

  test("is thrown with its Retry-After when retries are off", async () => {
    const gm = new DiceboundClient({ baseUrl: server.url, token: table.gmToken, retries: 0 });
    let refused: DiceboundError | undefined;
    for (let i = 0; i < 10 && refused === undefined; i += 1) {
      await gm.getGame(table.game).catch((error: unknown) => {
        if (!(error instanceof DiceboundError)) throw error;
        refused = error;
      });
    }
    assert.ok(refused !== undefined, "no 429 in ten requests");
    assert.equal(refused.status, 429);
    assert.ok((refused.retryAfter ?? 0) >= 1);
    assert.equal(refused.isRetryable, true);
  });
});

describe("what is sent again (a stand-in fetch)", () => {
  const problem = (status: number, headers: Record<string, string> = {}): Response =>
    new Response(JSON.stringify({ title: "Busy", status, detail: "the store is busy or unreachable; retry shortly." }), {
      status,
      headers: { "content-type": "application/problem+json", ...headers },
    });
  const health = (): Response =>
    new Response(JSON.stringify({ ok: true, store: "sqlite", version: "0" }), {
      headers: { "content-type": "application/json" },
    });

  test("a 503 with Retry-After is waited out, for any method", async () => {
    const sent: string[] = [];
    const client = new DiceboundClient({
      baseUrl: "http://127.0.0.1:1",
      fetch: async (request) => {
        sent.push(`${request.method} ${await request.text()}`);
        return sent.length === 1 ? problem(503, { "retry-after": "0" }) : health();
      },
    });
    await client.roll({ ruleset: "genesys", dice: "1 ability" });
    assert.deepEqual(sent, Array(2).fill('POST {"ruleset":"genesys","dice":"1 ability"}'));
  });

  test("a Retry-After longer than the client waits is thrown at once", async () => {
    let sent = 0;
    const client = new DiceboundClient({
      baseUrl: "http://127.0.0.1:1",
      maxRetryWaitSeconds: 5,
      fetch: async () => {
        sent += 1;
        return problem(503, { "retry-after": "30" });
      },
    });
    const refused = await client.health().catch((error: unknown) => error);
    assert.ok(refused instanceof DiceboundError);
    assert.equal(refused.status, 503);
    assert.equal(refused.retryAfter, 30);
    assert.equal(sent, 1);
  });

  test("a lost connection: a GET and a keyed check are sent again, an answer after the roll is not", async () => {
    const sent: string[] = [];
    const client = new DiceboundClient({
      baseUrl: "http://127.0.0.1:1",
      token: "dbg_x",
      retries: 2,
      fetch: async (request) => {
        sent.push(`${request.method} ${new URL(request.url).pathname}`);
        throw new TypeError("fetch failed", { cause: new Error("connect ECONNREFUSED") });
      },
    });
    const failures = await Promise.all([
      client.getGame("g").catch((error: unknown) => error),
      client.resolveChecks("g", { text: "x" }).catch((error: unknown) => error),
      client.answerAfter("g", 1, { choose: "fail" }).catch((error: unknown) => error),
    ]);
    for (const failure of failures) {
      assert.ok(failure instanceof DiceboundError);
      assert.equal(failure.status, 0);
      assert.match(failure.detail, /ECONNREFUSED/);
    }
    const count = (what: string): number => sent.filter((s) => s === what).length;
    assert.equal(count("GET /games/g"), 3);
    assert.equal(count("POST /games/g/checks"), 3);
    assert.equal(count("POST /games/g/records/1/after"), 1);
  });
});
