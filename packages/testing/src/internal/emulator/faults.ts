/**
 * Fault injection state: which faults apply to a request, counted per fault.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import { STATUS_CODES } from "node:http"
import type { AcontextFault, AcontextRoute } from "../../AcontextFault.js"

/** @internal */
export const routes: ReadonlyArray<AcontextRoute> = [
  "createSession",
  "listSessions",
  "deleteSession",
  "storeMessage",
  "getMessages"
]

/** @internal */
export type FaultOutcome =
  | {
    readonly _tag: "Status"
    readonly status: number
    readonly body: unknown
    readonly headers: Readonly<Record<string, string>>
  }
  | { readonly _tag: "Drop" }

/** @internal */
export interface FaultDecision {
  /** Whether any fault fired for this request. */
  readonly faulted: boolean
  /** Total latency added by the faults that fired. */
  readonly latencyMs: number
  /** The response replacement, from the first fired fault that has one. */
  readonly outcome: FaultOutcome | undefined
  /**
   * Handle the request (side effect applied) before the latency and `outcome`: set by the
   * deciding fault, or, when none decides, by any fired latency-only fault.
   */
  readonly afterEffect: boolean
}

interface Armed {
  readonly fault: AcontextFault
  readonly seen: number
  readonly fired: number
  /** The state of the fault's pseudo-random draws (for `rate`). */
  readonly draw: number
}

/**
 * One draw of mulberry32: a float in [0, 1) and the next state. Deterministic per seed, so a
 * test with `rate` faults is reproducible.
 *
 * @internal
 */
export const nextDraw = (state: number): readonly [number, number] => {
  const next = (state + 0x6d2b79f5) | 0
  let t = next
  t = Math.imul(t ^ (t >>> 15), t | 1)
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
  return [((t ^ (t >>> 14)) >>> 0) / 4294967296, next]
}

const isNonNegativeInt = (n: number) => Number.isInteger(n) && n >= 0

/**
 * Checks a list of faults; returns the first problem found.
 *
 * @internal
 */
export const validate = (faults: ReadonlyArray<AcontextFault>): string | undefined => {
  for (const [i, f] of faults.entries()) {
    const at = `faults[${i}]`
    if (f.route !== "*" && !routes.includes(f.route)) {
      return `${at}.route must be one of ${[...routes, "*"].join(", ")}, got ${JSON.stringify(f.route)}`
    }
    if (f.status !== undefined && !(Number.isInteger(f.status) && f.status >= 100 && f.status <= 599)) {
      return `${at}.status must be an HTTP status code (100-599), got ${f.status}`
    }
    if (f.latencyMs !== undefined && !(Number.isFinite(f.latencyMs) && f.latencyMs >= 0)) {
      return `${at}.latencyMs must be a non-negative number, got ${f.latencyMs}`
    }
    if (f.everyNth !== undefined && !(Number.isInteger(f.everyNth) && f.everyNth >= 1)) {
      return `${at}.everyNth must be an integer >= 1, got ${f.everyNth}`
    }
    if (f.rate !== undefined && !(Number.isFinite(f.rate) && f.rate >= 0 && f.rate <= 1)) {
      return `${at}.rate must be a probability (0-1), got ${f.rate}`
    }
    if (f.seed !== undefined && !Number.isInteger(f.seed)) {
      return `${at}.seed must be an integer, got ${f.seed}`
    }
    if (f.times !== undefined && !isNonNegativeInt(f.times)) {
      return `${at}.times must be an integer >= 0, got ${f.times}`
    }
    if (f.drop === true && f.status !== undefined) return `${at}: drop and status are exclusive`
    if (f.drop !== true && f.status === undefined && f.latencyMs === undefined) {
      return `${at} does nothing: give status, drop or latencyMs`
    }
    if (f.status === undefined && (f.body !== undefined || f.headers !== undefined)) {
      return `${at}: body and headers need a status`
    }
  }
  return undefined
}

/**
 * The envelope a fault answers with when it gives no body: `{code: status, msg, error}`.
 *
 * @internal
 */
export const defaultBody = (status: number): unknown => {
  switch (status) {
    case 400:
      return { code: 400, msg: "parameter error", error: "fault injected by the acx emulator" }
    case 401:
      return { code: 401, msg: "Unauthorized" }
    case 500:
      return { code: 500, msg: "database error", error: "fault injected by the acx emulator" }
    default:
      return {
        code: status,
        msg: (STATUS_CODES[status] ?? "error").toLowerCase(),
        error: "fault injected by the acx emulator"
      }
  }
}

/** @internal */
export interface FaultBox {
  readonly set: (faults: ReadonlyArray<AcontextFault>) => Effect.Effect<void>
  readonly decide: (route: AcontextRoute) => Effect.Effect<FaultDecision>
}

const arm = (faults: ReadonlyArray<AcontextFault>): ReadonlyArray<Armed> =>
  faults.map((fault) => ({ fault, seen: 0, fired: 0, draw: fault.seed ?? 1 }))

/**
 * Fault state, replaced atomically by `set` (counters restart). Each fault counts the requests
 * of its route; it fires on every `everyNth`-th of them (every one by default), with probability
 * `rate` (a seeded draw), at most `times` times. Latencies of the fired faults add up; the first fired fault with a status or a drop
 * decides the response.
 *
 * @internal
 */
export const make = (initial: ReadonlyArray<AcontextFault>): Effect.Effect<FaultBox> =>
  Effect.map(Ref.make(arm(initial)), (ref) => ({
    set: (faults) => Ref.set(ref, arm(faults)),
    decide: (route) =>
      Ref.modify(ref, (armed) => {
        let faulted = false
        let latencyMs = 0
        let outcome: FaultOutcome | undefined
        let afterEffect = false
        const next = armed.map((a): Armed => {
          const f = a.fault
          if (f.route !== "*" && f.route !== route) return a
          const seen = a.seen + 1
          const due = (f.everyNth === undefined || seen % f.everyNth === 0) &&
            (f.times === undefined || a.fired < f.times)
          // A rate fault draws once per due request, so its sequence depends only on the seed.
          const [roll, draw] = due && f.rate !== undefined ? nextDraw(a.draw) : [0, a.draw]
          const fires = due && (f.rate === undefined || roll < f.rate)
          if (!fires) return { ...a, seen, draw }
          faulted = true
          latencyMs += f.latencyMs ?? 0
          if (outcome === undefined && f.afterEffect === true) afterEffect = true
          if (outcome === undefined && (f.drop === true || f.status !== undefined)) {
            outcome = f.drop === true ? { _tag: "Drop" } : {
              _tag: "Status",
              status: f.status!,
              body: f.body === undefined ? defaultBody(f.status!) : f.body,
              headers: f.headers ?? {}
            }
            afterEffect = f.afterEffect === true
          }
          return { ...a, seen, fired: a.fired + 1, draw }
        })
        const decision: FaultDecision = { faulted, latencyMs, outcome, afterEffect }
        return [decision, next]
      })
  }))
