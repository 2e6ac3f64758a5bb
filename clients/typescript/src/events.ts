/**
 * A game's event stream (`GET /games/{game}/events`, Server-Sent Events) as an async
 * iterator that reconnects by itself: after a dropped connection, a stream ended by a
 * restarting service, or one silent for three keep-alives, it opens the stream again
 * with the last id it yielded as `Last-Event-ID`, so nothing is missed or read twice.
 */

import type { components } from "./openapi.js";
import {
  DiceboundError,
  errorFromAnswer,
  errorFromFailure,
  pathOf,
  retryAfterSeconds,
} from "./errors.js";
import { backoff, sleep, type Fetch } from "./retry.js";

type Schemas = components["schemas"];

interface EventBase<K extends string, D> {
  /** The event's id: per game, growing in commit order. */
  readonly id: number;
  readonly event: K;
  readonly data: D;
}

/** A check thrown, or a `[sheet:]` command applied or refused: the record. */
export type RecordEvent = EventBase<
  "record",
  Schemas["RecordOut"] | Schemas["SheetRecordOut"] | Schemas["FightRecordOut"]
>;
/** An after-roll answer accepted: the record as it reads after it. */
export type AnswerEvent = EventBase<"answer", Schemas["RecordOut"]>;
/** A character put, patched, or changed by a check, a command or an answer. */
export type CharacterEvent = EventBase<"character", Schemas["PartyMember"]>;
/** A player's seat made (`made: true`) or revoked. */
export type SeatEvent = EventBase<"seat", { readonly character: string; readonly made: boolean }>;
/** The events after the last one read are no longer kept: read the party and the
 * records again. The stream goes on from the game's newest event (`id`). */
export type ReloadEvent = EventBase<"reload", { readonly reason: string }>;

export type GameEvent = RecordEvent | AnswerEvent | CharacterEvent | SeatEvent | ReloadEvent;

/** What `onReconnect` is told before the stream is opened again. */
export interface ReconnectInfo {
  /** The last id yielded, sent as `Last-Event-ID`; null before the first. */
  readonly lastEventId: number | null;
  /** Why: the stream ended, failed, fell silent, or was refused for now (429, 503). */
  readonly reason: "ended" | "failed" | "silent" | "refused";
  /** How long the client waits first, in milliseconds. */
  readonly waitMs: number;
}

export interface EventsOptions {
  /** Resume after this id (the last one read), as the stream's `Last-Event-ID`. */
  readonly lastEventId?: number | string | null;
  /** Ends the iteration (the loop then ends without an error). */
  readonly signal?: AbortSignal;
  /** A stream silent this long counts as dropped (default 45,000 ms: three of the
   * service's keep-alives). */
  readonly idleTimeoutMs?: number;
  /** The first wait before reconnecting (default 500 ms); it doubles at each failure
   * in a row, up to `maxReconnectDelayMs` (default 15,000 ms). */
  readonly reconnectDelayMs?: number;
  readonly maxReconnectDelayMs?: number;
  readonly onReconnect?: (info: ReconnectInfo) => void;
  /** Called each time the stream is open (the service answered 200): from then on,
   * every change is delivered. */
  readonly onOpen?: (info: { readonly lastEventId: number | null }) => void;
}

/** One event as the SSE format delivers it, before its data is read as JSON. */
export interface RawEvent {
  readonly id: string | null;
  readonly event: string;
  readonly data: string;
}

/**
 * The events of a `text/event-stream` body, parsed as the HTML standard says (lines
 * ending in CR, LF or CRLF; `data` lines joined; comments skipped). `onActivity` is
 * called for every chunk read, keep-alive comments included.
 */
export async function* parseEventStream(
  body: ReadableStream<Uint8Array>,
  onActivity: () => void = () => {},
): AsyncGenerator<RawEvent> {
  const decoder = new TextDecoder("utf-8");
  const reader = body.getReader();
  let buffer = "";
  let data: string[] = [];
  let event = "";
  let id: string | null = null;
  let sawId = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      onActivity();
      buffer += decoder.decode(value, { stream: true });
      for (;;) {
        const end = buffer.search(/\r\n|\r|\n/);
        // a lone CR at the end may be the first half of a CRLF: wait for more
        if (end < 0 || (end === buffer.length - 1 && buffer.endsWith("\r"))) break;
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + (buffer.startsWith("\r\n", end) ? 2 : 1));
        if (line === "") {
          if (data.length > 0) {
            yield { id: sawId ? id : null, event: event || "message", data: data.join("\n") };
          }
          data = [];
          event = "";
          sawId = false;
          continue;
        }
        if (line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        let value = colon < 0 ? "" : line.slice(colon + 1);
        if (value.startsWith(" ")) value = value.slice(1);
        if (field === "data") data.push(value);
        else if (field === "event") event = value;
        else if (field === "id" && !value.includes("\0")) {
          id = value;
          sawId = true;
        }
      }
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

const KINDS = new Set(["record", "answer", "character", "seat", "reload"]);

/** An event's data, read as JSON; an event that is not is thrown as a DiceboundError
 * (reading the stream again would only meet it again). */
function readData(raw: RawEvent, response: Response): unknown {
  try {
    return JSON.parse(raw.data);
  } catch {
    throw new DiceboundError({
      status: response.status,
      title: "Unreadable event",
      detail: `the ${raw.event} event ${raw.id ?? ""} is not JSON.`,
      method: "GET",
      path: pathOf(response.url),
    });
  }
}

/** The parts of the client the stream needs. */
export interface StreamContext {
  readonly url: string;
  readonly fetch: Fetch;
  readonly headers: Headers;
  readonly tokens: readonly string[];
}

/** Opens a game's stream and yields its events, reconnecting until `signal` aborts or
 * the service refuses the stream for good (401, 403, 404, 422: a `DiceboundError`). */
export async function* gameEvents(
  context: StreamContext,
  options: EventsOptions = {},
): AsyncGenerator<GameEvent, void, undefined> {
  const signal = options.signal;
  const idleMs = options.idleTimeoutMs ?? 45_000;
  const firstDelay = options.reconnectDelayMs ?? 500;
  const maxDelay = options.maxReconnectDelayMs ?? 15_000;
  let last: number | null =
    options.lastEventId === undefined || options.lastEventId === null
      ? null
      : Number(options.lastEventId);
  let failures = 0;

  const pause = async (reason: ReconnectInfo["reason"], named: number | null): Promise<void> => {
    const waitMs = named !== null ? named * 1000 : backoff(firstDelay, failures, maxDelay);
    failures += 1;
    options.onReconnect?.({ lastEventId: last, reason, waitMs });
    await sleep(waitMs, signal);
  };

  try {
    while (!signal?.aborted) {
      const connection = new AbortController();
      const stop = (): void => connection.abort(signal?.reason);
      signal?.addEventListener("abort", stop, { once: true });
      let silent = false;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const quiet = (): void => {
        clearTimeout(timer);
        timer = setTimeout(() => {
          silent = true;
          connection.abort();
        }, idleMs);
      };
      try {
        const headers = new Headers(context.headers);
        headers.set("accept", "text/event-stream");
        if (last !== null) headers.set("last-event-id", String(last));
        let response: Response;
        try {
          quiet();
          response = await context.fetch(
            new Request(context.url, { headers, signal: connection.signal }),
          );
        } catch {
          if (signal?.aborted) return;
          await pause(silent ? "silent" : "failed", null);
          continue;
        }
        if (!response.ok || response.body === null) {
          const body: unknown = await response.json().catch(() => null);
          const refusal = errorFromAnswer(response, body, "GET", context.tokens, pathOf(context.url));
          if (response.status === 429 || response.status >= 500) {
            await pause("refused", retryAfterSeconds(response.headers));
            continue;
          }
          throw refusal;
        }
        failures = 0;
        options.onOpen?.({ lastEventId: last });
        try {
          for await (const raw of parseEventStream(response.body, quiet)) {
            if (!KINDS.has(raw.event)) continue;
            const id = raw.id === null ? last : Number(raw.id);
            const event = { id: id ?? 0, event: raw.event, data: readData(raw, response) } as GameEvent;
            if (id !== null) last = id;
            clearTimeout(timer);
            yield event;
            quiet();
          }
        } catch (failure) {
          if (signal?.aborted) return;
          if (failure instanceof DiceboundError) throw failure;
          await pause(silent ? "silent" : "failed", null);
          continue;
        }
        await pause("ended", null);
      } finally {
        clearTimeout(timer);
        signal?.removeEventListener("abort", stop);
        connection.abort();
      }
    }
  } catch (failure) {
    if (signal?.aborted) return;
    if (failure instanceof DiceboundError) throw failure;
    throw errorFromFailure(failure, "GET", context.url, context.tokens);
  }
}
