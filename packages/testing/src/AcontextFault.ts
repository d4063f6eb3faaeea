/**
 * The faults the Acontext emulator injects, and the routes they are named by. Its own module so
 * that the emulator and its fault box (`internal/emulator/faults.ts`) read these types without
 * importing each other; `AcontextEmulator` re-exports both names.
 *
 * @since 0.1.0
 */
/**
 * The emulated routes, as named in faults and in the request log:
 * - `createSession`: `POST /api/v1/session`
 * - `listSessions`: `GET /api/v1/session`
 * - `deleteSession`: `DELETE /api/v1/session/{id}`
 * - `storeMessage`: `POST /api/v1/session/{id}/messages`
 * - `getMessages`: `GET /api/v1/session/{id}/messages`
 *
 * @since 0.1.0
 * @category models
 */
export type AcontextRoute = "createSession" | "listSessions" | "deleteSession" | "storeMessage" | "getMessages"

/**
 * A fault injected into the requests of a route (`"*"`: all five routes; `GET /ping` and
 * unknown paths are never faulted).
 *
 * Each fault counts the requests of its route and **fires** on every one of them, or on every
 * `everyNth`-th (N, 2N, …), or at random with probability `rate` (seeded: reproducible), at most
 * `times` times in all (then the route behaves again). When it fires:
 * - `latencyMs` delays the request (the latencies of all faults firing together add up);
 * - `status` answers with that status and `body` (default: an envelope such as
 *   `{"code":503,"msg":"service unavailable","error":"fault injected by the acx emulator"}`;
 *   a string body is sent as text) and `headers` (e.g. `Retry-After`);
 * - `drop` destroys the connection without any response (the client sees a socket error).
 *
 * A fault with `status` or `drop` **replaces** the request: its side effect (session created,
 * message stored, session deleted) is not applied — unless `afterEffect: true`, which applies
 * it, then waits `latencyMs`, then answers with the fault (how tests provoke the at-least-once
 * duplicate window). `afterEffect` on a latency-only fault applies the side effect before the
 * delay, then answers normally (a client timing out during the delay retries a request that
 * was already applied). When several faults fire on one request, the first one (in list order)
 * with a status or a drop decides the answer and whether the side effect is applied.
 *
 * @since 0.1.0
 * @category models
 */
export interface AcontextFault {
  readonly route: AcontextRoute | "*"
  /** Answer with this HTTP status (100–599) instead of handling the request. */
  readonly status?: number | undefined
  /** The body sent with `status` (JSON, or text when a string). */
  readonly body?: unknown
  /** Headers sent with `status`. */
  readonly headers?: Readonly<Record<string, string>> | undefined
  /** Delay, in milliseconds, before the request is handled (or faulted). */
  readonly latencyMs?: number | undefined
  /** Destroy the connection without responding. Exclusive with `status`. */
  readonly drop?: boolean | undefined
  /** Fire on every Nth matching request only (N ≥ 1; default: every request). */
  readonly everyNth?: number | undefined
  /**
   * Fire on each matching request with this probability (0–1), drawn from a generator seeded
   * with `seed`: the same faults hit the same requests on every run. Combines with `everyNth`
   * (drawn on every Nth request only) and `times`.
   */
  readonly rate?: number | undefined
  /** Seed of the `rate` draws (an integer; default 1). */
  readonly seed?: number | undefined
  /** Fire at most this many times (default: no limit). */
  readonly times?: number | undefined
  /** Apply the request's side effect first, then the latency and the answer (or drop). */
  readonly afterEffect?: boolean | undefined
}
