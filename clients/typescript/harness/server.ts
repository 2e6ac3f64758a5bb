/**
 * A real `dicebound serve` for the tests, the type generator and the example: started on
 * a free loopback port with its own store (an SQLite file in a temporary folder, or a
 * PostgreSQL database made for it and dropped after), stopped and started again on the
 * same port and store.
 *
 * The Python command is `DICEBOUND_PYTHON`, else the repository's `.venv/bin/python`
 * (what `.ci/run` makes). While developing against a source tree, set `PYTHONPATH` to
 * its `src` as well.
 */

import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The client's package folder (this file runs from `build/harness/`). */
export const PACKAGE_ROOT = resolve(fileURLToPath(new URL(".", import.meta.url)), "../..");
/** The repository's root, two folders above the package. */
export const REPO_ROOT = resolve(PACKAGE_ROOT, "../..");

export const PYTHON = process.env["DICEBOUND_PYTHON"] ?? join(REPO_ROOT, ".venv/bin/python");

const PG_URL =
  process.env["DICEBOUND_TEST_PG"] ?? "postgresql+psycopg://postgres@127.0.0.1:5432/test";

export type StoreKind = "sqlite" | "postgresql";

export interface ServeOptions {
  /** `sqlite` (the default) or `postgresql` (see `postgresAnswers`). */
  store?: StoreKind;
  /** More `dicebound serve` flags, such as `["--rate-limit", "4"]`. */
  args?: readonly string[];
}

/** Runs `python` with a short script, returning its exit status and output. */
function python(script: string, ...argv: string[]): { status: number; out: string } {
  const done = spawnSync(PYTHON, ["-c", script, ...argv], { encoding: "utf8", timeout: 20_000 });
  if (done.error !== undefined) throw done.error;
  return { status: done.status ?? -1, out: `${done.stdout}${done.stderr}` };
}

const PG_CONNECT = `
import sys, psycopg
from sqlalchemy.engine import make_url
url = make_url(sys.argv[1])
def connect(db):
    return psycopg.connect(url.set(drivername="postgresql", database=db).render_as_string(hide_password=False), connect_timeout=3, autocommit=True)
`;

let pgAnswered: boolean | undefined;

/**
 * Whether a PostgreSQL server answers at `DICEBOUND_TEST_PG` (default
 * 127.0.0.1:5432, database `test`). With `DICEBOUND_REQUIRE_PG=1` (CI) one must.
 */
export function postgresAnswers(): boolean {
  pgAnswered ??= python(`${PG_CONNECT}connect(url.database).close()`, PG_URL).status === 0;
  if (!pgAnswered && process.env["DICEBOUND_REQUIRE_PG"] === "1") {
    throw new Error(`no PostgreSQL answers at ${PG_URL}, and DICEBOUND_REQUIRE_PG=1`);
  }
  return pgAnswered;
}

function makePgDatabase(): { url: string; drop: () => void } {
  const name = `dbclient_${randomBytes(6).toString("hex")}`;
  const made = python(
    `${PG_CONNECT}with connect(url.database) as c: c.execute('CREATE DATABASE "' + sys.argv[2] + '"')\nprint(url.set(database=sys.argv[2]).render_as_string(hide_password=False))`,
    PG_URL,
    name,
  );
  if (made.status !== 0) throw new Error(`could not make a PostgreSQL database: ${made.out}`);
  return {
    url: made.out.trim(),
    drop: () => {
      python(
        `${PG_CONNECT}with connect(url.database) as c: c.execute('DROP DATABASE IF EXISTS "' + sys.argv[2] + '" WITH (FORCE)')`,
        PG_URL,
        name,
      );
    },
  };
}

/**
 * A loopback port free now, of this client's own class: the Python tests run beside
 * these (.ci/run) and deal the ports by `(port >> 1) % 8`, leaving class 7 to this
 * harness, so a port freed here is never handed to one of their servers before ours
 * binds it.
 */
async function freePort(): Promise<number> {
  for (let tries = 0; tries < 10_000; tries++) {
    const port = await anyFreePort();
    if ((port >> 1) % 8 === 7) return port;
  }
  throw new Error("no free loopback port of the TypeScript client's class was found");
}

async function anyFreePort(): Promise<number> {
  return new Promise((done, fail) => {
    const probe = createServer();
    probe.once("error", fail);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      probe.close(() => done(port));
    });
  });
}

/** Waits until `ready()` holds, asking every `every` ms, for at most `within` ms. */
export async function waitFor(
  ready: () => boolean | Promise<boolean>,
  what: string,
  within = 20_000,
  every = 25,
): Promise<void> {
  const end = Date.now() + within;
  for (;;) {
    if (await ready()) return;
    if (Date.now() > end) throw new Error(`waited ${within} ms for ${what}`);
    await new Promise((wake) => setTimeout(wake, every));
  }
}

/** Every server this process started and has not stopped: killed when the process
 * exits, so a failed test file never leaves one running (nor keeps its runner waiting). */
const LIVE = new Set<ChildProcess>();
process.once("exit", () => {
  for (const child of LIVE) child.kill("SIGKILL");
});

export class DiceboundServer {
  readonly adminToken = `dba_${randomBytes(32).toString("base64url")}`;
  readonly store: StoreKind;
  private process: ChildProcess | undefined;
  private log = "";

  private constructor(
    readonly port: number,
    private readonly db: string,
    private readonly args: readonly string[],
    store: StoreKind,
    private readonly cleanUp: () => void,
  ) {
    this.store = store;
  }

  /** Starts a server with a store of its own. */
  static async start(options: ServeOptions = {}): Promise<DiceboundServer> {
    const store = options.store ?? "sqlite";
    let db: string;
    let cleanUp: () => void;
    if (store === "postgresql") {
      const made = makePgDatabase();
      db = made.url;
      cleanUp = made.drop;
    } else {
      const folder = mkdtempSync(join(tmpdir(), "dicebound-client-"));
      db = `sqlite:///${join(folder, "dicebound.db")}`;
      cleanUp = () => rmSync(folder, { recursive: true, force: true });
    }
    // a port another process takes between the probe and the bind: try another
    for (let attempt = 0; ; attempt += 1) {
      const server = new DiceboundServer(await freePort(), db, options.args ?? [], store, cleanUp);
      try {
        await server.begin();
        return server;
      } catch (error) {
        if (attempt < 3 && /address already in use/i.test(server.log)) continue;
        cleanUp();
        throw error;
      }
    }
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** What the server wrote on standard output and error. */
  get output(): string {
    return this.log;
  }

  private async begin(): Promise<void> {
    const child = spawn(
      PYTHON,
      [
        "-m",
        "dicebound",
        "serve",
        "--db",
        this.db,
        "--host",
        "127.0.0.1",
        "--port",
        String(this.port),
        "--workers",
        "1",
        ...this.args,
      ],
      {
        env: { ...process.env, DICEBOUND_ADMIN_TOKEN: this.adminToken },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    this.process = child;
    LIVE.add(child);
    child.stdout?.on("data", (chunk: Buffer) => (this.log += chunk.toString()));
    child.stderr?.on("data", (chunk: Buffer) => (this.log += chunk.toString()));
    let exited = false;
    child.once("exit", () => (exited = true));
    await waitFor(async () => {
      if (exited) throw new Error(`dicebound serve ended before it answered:\n${this.log}`);
      try {
        return (await fetch(`${this.url}/health`)).ok;
      } catch {
        return false;
      }
    }, "dicebound serve to answer /health", 60_000);
  }

  /** Stops the server (SIGTERM, as a restart does) and waits for it to end. */
  async stop(): Promise<void> {
    const child = this.process;
    this.process = undefined;
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
    const ended = new Promise<void>((done) => child.once("exit", () => done()));
    child.kill("SIGTERM");
    // a server that has not ended well past its grace is killed: a test never waits for ever
    const kill = setTimeout(() => child.kill("SIGKILL"), 20_000);
    await ended;
    clearTimeout(kill);
    LIVE.delete(child);
  }

  /** Starts the server again on the same port and store. */
  async restart(): Promise<void> {
    await this.stop();
    await this.begin();
  }

  /** Stops the server and removes its store. */
  async close(): Promise<void> {
    await this.stop();
    this.cleanUp();
  }
}
