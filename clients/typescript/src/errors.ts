/**
 * One error class for everything the service refuses and for a service that does not
 * answer: `DiceboundError`, carrying the problem document's fields (RFC 9457) and the
 * status. Its message never holds a token: the client's own are cut out of whatever
 * the service said, and so is anything shaped like a dicebound token.
 */

/** One problem of a file or body refused field by field: `validate --json`'s shape. */
export interface Problem {
  readonly path: string;
  readonly code: string;
  readonly message: string;
}

/** What a refusal answered: the fields of `application/problem+json`. */
export interface ProblemDocument {
  readonly type?: string;
  readonly title?: string;
  readonly status?: number;
  readonly detail?: string;
  readonly problems?: readonly Problem[] | null;
}

// dba_ (admin), dbg_ (game master), dbp_ (player): 256 random bits in base64url
const TOKEN_SHAPE = /\bdb[agp]_[A-Za-z0-9_-]{16,}/g;

/** `text` with every token in `tokens`, and anything shaped like one, cut out. */
export function redact(text: string, tokens: readonly string[] = []): string {
  let out = text;
  for (const token of tokens) {
    if (token.length > 0) out = out.split(token).join("[token]");
  }
  return out.replace(TOKEN_SHAPE, "[token]");
}

export interface DiceboundErrorFields {
  /** The HTTP status; 0 when no answer came (the connection failed). */
  readonly status: number;
  readonly type?: string;
  readonly title: string;
  readonly detail: string;
  readonly problems?: readonly Problem[];
  readonly retryAfter?: number | null;
  readonly method: string;
  readonly path: string;
  readonly cause?: unknown;
}

/**
 * A request dicebound refused (`status` 400 to 599, with the problem document's
 * `title`, `detail`, `type` and `problems`) or that got no answer (`status` 0).
 *
 * ```ts
 * try {
 *   await client.getGame(id);
 * } catch (error) {
 *   if (error instanceof DiceboundError && error.status === 404) ...
 * }
 * ```
 */
export class DiceboundError extends Error {
  override readonly name = "DiceboundError";
  /** The HTTP status; 0 when the service did not answer. */
  readonly status: number;
  /** The problem's `type` (`about:blank` unless the service names one). */
  readonly type: string;
  /** The problem's `title`: the status in words ("Not Found"). */
  readonly title: string;
  /** The problem's `detail`: dicebound's sentence. */
  readonly detail: string;
  /** For a file or body refused field by field: each `{path, code, message}`. */
  readonly problems: readonly Problem[];
  /** `Retry-After` in seconds, on a 429 or 503 that sent one. */
  readonly retryAfter: number | null;
  /** The request's method and path (without the origin): `GET /games/abc`. */
  readonly method: string;
  readonly path: string;

  constructor(fields: DiceboundErrorFields) {
    const where = `${fields.method} ${fields.path}`;
    const what = fields.status === 0 ? fields.title : `${fields.status} ${fields.title}`;
    super(`${where}: ${what}: ${fields.detail}`, fields.cause === undefined ? undefined : { cause: fields.cause });
    this.status = fields.status;
    this.type = fields.type ?? "about:blank";
    this.title = fields.title;
    this.detail = fields.detail;
    this.problems = fields.problems ?? [];
    this.retryAfter = fields.retryAfter ?? null;
    this.method = fields.method;
    this.path = fields.path;
  }

  /** Whether the same request may succeed later unchanged (429, 503 or no answer). */
  get isRetryable(): boolean {
    return this.status === 0 || this.status === 429 || this.status === 503;
  }
}

/** Seconds to wait from a `Retry-After` header (seconds or an HTTP date), or null. */
export function retryAfterSeconds(headers: Headers, now = Date.now()): number | null {
  const value = headers.get("retry-after")?.trim();
  if (value === undefined || value === "") return null;
  if (/^\d+$/.test(value)) return Number(value);
  const when = Date.parse(value);
  return Number.isNaN(when) ? null : Math.max(0, Math.ceil((when - now) / 1000));
}

function isProblem(value: unknown): value is ProblemDocument {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function problemsOf(value: unknown, tokens: readonly string[]): Problem[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((item: unknown) => {
    if (!isProblem(item)) return [];
    const { path, code, message } = item as Record<string, unknown>;
    return [
      {
        path: typeof path === "string" ? path : "",
        code: typeof code === "string" ? code : "",
        message: redact(typeof message === "string" ? message : "", tokens),
      },
    ];
  });
}

/** Where a request went, without the origin (nor anything else of the request);
 * `fallback` when `url` is none (a response made by hand has no URL). */
export function pathOf(url: string, fallback = ""): string {
  if (!URL.canParse(url)) return fallback;
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
}

/** The error for an answer that is not a success, from its body as already read. */
export function errorFromAnswer(
  response: Response,
  body: unknown,
  method: string,
  tokens: readonly string[],
  path = "",
): DiceboundError {
  const problem = isProblem(body) ? body : {};
  const text = typeof body === "string" ? body.trim().slice(0, 500) : "";
  return new DiceboundError({
    status: response.status,
    ...(typeof problem.type === "string" ? { type: problem.type } : {}),
    title: redact(
      typeof problem.title === "string" ? problem.title : response.statusText || "Error",
      tokens,
    ),
    detail: redact(
      typeof problem.detail === "string" ? problem.detail : text || `the service answered ${response.status}.`,
      tokens,
    ),
    problems: problemsOf(problem.problems, tokens),
    retryAfter: retryAfterSeconds(response.headers),
    method,
    path: redact(pathOf(response.url, path), tokens),
  });
}

/** The error for a request that got no answer (after its retries). */
export function errorFromFailure(
  failure: unknown,
  method: string,
  url: string,
  tokens: readonly string[],
): DiceboundError {
  const reason = failure instanceof Error ? failure : new Error(String(failure));
  const below = reason.cause instanceof Error ? `: ${reason.cause.message}` : "";
  return new DiceboundError({
    status: 0,
    title: "No answer",
    detail: redact(`the service did not answer (${reason.message}${below}).`, tokens),
    method,
    path: redact(pathOf(url), tokens),
  });
}
