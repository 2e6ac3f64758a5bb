/**
 * The transport under every call: `fetch`, sent again when the service says to wait
 * (429 and 503, after `Retry-After`) or when no answer came to a request that may be
 * repeated (GET, HEAD, PUT, DELETE, and any request with an `Idempotency-Key`).
 */

import { retryAfterSeconds } from "./errors.js";

export type Fetch = (input: Request) => Promise<Response>;

/** What the client tells `onRetry` before it waits and sends a request again. */
export interface RetryInfo {
  /** The attempt about to be made: 2 for the first retry. */
  readonly attempt: number;
  readonly method: string;
  /** The path and query, without the origin. */
  readonly path: string;
  /** 429 or 503, or 0 when the last attempt got no answer. */
  readonly status: number;
  /** How long the client waits first, in milliseconds. */
  readonly waitMs: number;
}

export interface RetryPolicy {
  /** Retries after the first attempt (default 3; 0 turns retrying off). */
  readonly retries: number;
  /** The longest wait the client accepts, in seconds (default 30): a longer
   * `Retry-After` is not waited out, and the refusal is thrown at once. */
  readonly maxWaitSeconds: number;
  /** The first wait when the service names none, in milliseconds (default 250); it
   * doubles at each retry. */
  readonly backoffMs: number;
  readonly onRetry?: ((info: RetryInfo) => void) | undefined;
}

export const DEFAULT_RETRY: RetryPolicy = { retries: 3, maxWaitSeconds: 30, backoffMs: 250 };

const REPEATABLE = new Set(["GET", "HEAD", "PUT", "DELETE", "OPTIONS"]);

/** Whether a request may be sent again when no answer came: repeating it cannot do it
 * twice. */
export function isRepeatable(request: Request): boolean {
  return REPEATABLE.has(request.method) || request.headers.has("idempotency-key");
}

/** Waits `ms`, or less when `signal` aborts (then throws its reason). */
export function sleep(ms: number, signal?: AbortSignal | null): Promise<void> {
  return new Promise((done, fail) => {
    if (signal?.aborted) {
      fail(signal.reason);
      return;
    }
    const wake = (): void => {
      signal?.removeEventListener("abort", stop);
      done();
    };
    const timer = setTimeout(wake, ms);
    const stop = (): void => {
      clearTimeout(timer);
      fail(signal?.reason);
    };
    signal?.addEventListener("abort", stop, { once: true });
  });
}

/** A backoff wait: `base` doubled `step` times, give or take a quarter. */
export function backoff(base: number, step: number, cap = 15_000): number {
  const wait = Math.min(cap, base * 2 ** step);
  return Math.round(wait * (0.75 + Math.random() * 0.5));
}

/** `fetch` that waits out 429 and 503 and repeats what may be repeated. */
export function retryingFetch(fetchOne: Fetch, policy: RetryPolicy): Fetch {
  return async (request: Request): Promise<Response> => {
    // the body is read once, so that each attempt sends the same bytes
    const body =
      request.body === null ? undefined : new Uint8Array(await request.arrayBuffer());
    const path = new URL(request.url).pathname + new URL(request.url).search;
    for (let attempt = 1; ; attempt += 1) {
      const sent = new Request(request.url, {
        method: request.method,
        headers: request.headers,
        signal: request.signal,
        ...(body === undefined ? {} : { body }),
      });
      const last = attempt > policy.retries;
      let answer: Response;
      try {
        answer = await fetchOne(sent);
      } catch (failure) {
        if (request.signal.aborted || last || !isRepeatable(request)) throw failure;
        const waitMs = backoff(policy.backoffMs, attempt - 1);
        policy.onRetry?.({ attempt: attempt + 1, method: request.method, path, status: 0, waitMs });
        await sleep(waitMs, request.signal);
        continue;
      }
      if (last || (answer.status !== 429 && answer.status !== 503)) return answer;
      const named = retryAfterSeconds(answer.headers);
      if (named !== null && named > policy.maxWaitSeconds) return answer;
      const waitMs = named !== null ? named * 1000 : backoff(policy.backoffMs, attempt - 1);
      await answer.body?.cancel();
      policy.onRetry?.({
        attempt: attempt + 1,
        method: request.method,
        path,
        status: answer.status,
        waitMs,
      });
      await sleep(waitMs, request.signal);
    }
  };
}
