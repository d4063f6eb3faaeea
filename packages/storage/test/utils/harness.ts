/**
 * Shared wiring for the tests that talk to the Acontext emulator over real HTTP: layers for the
 * emulator, acx's `AcontextClient` (fast retries) and `ClaudeAgentStorage`, the request log read
 * back as `create(...)` / `store(...)` calls in the shape of the upstream test vectors, and a
 * log-capturing logger.
 */
import * as AcontextClient from "@acx/storage/AcontextClient"
import type { AcontextError } from "@acx/storage/AcontextError"
import * as ClaudeAgentStorage from "@acx/storage/ClaudeAgentStorage"
import {
  AcontextEmulator,
  type AcontextEmulatorOptions,
  type AcontextRequestLogEntry,
  layer as emulatorLayer
} from "@acx/testing/AcontextEmulator"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import type * as HttpClient from "@effect/platform/HttpClient"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as HashMap from "effect/HashMap"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Schedule from "effect/Schedule"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

/** Retries fast: 5, 10, 20 ms (at most 3 retries, 4 attempts). */
export const fastRetry: Schedule.Schedule<unknown, AcontextError> = Schedule.exponential("5 millis").pipe(
  Schedule.intersect(Schedule.recurs(3))
)

/** Attempts made by {@link fastRetry} on a permanently transient failure. */
export const FAST_RETRY_ATTEMPTS = 4

export type ClientOptions = Omit<AcontextClient.AcontextClientOptions, "apiKey" | "baseUrl"> & {
  /** Use the other project's key. */
  readonly otherProject?: boolean
}

/** A fresh emulator (memory storage by default). */
export const emulator = (options?: AcontextEmulatorOptions): Layer.Layer<AcontextEmulator> =>
  Layer.orDie(emulatorLayer(options))

/** acx's client on the emulator in context, over undici. */
export const client = (
  options: ClientOptions = {}
): Layer.Layer<AcontextClient.AcontextClient | HttpClient.HttpClient, never, AcontextEmulator> =>
  Layer.unwrapEffect(
    Effect.map(AcontextEmulator, (e) => {
      const { otherProject, ...rest } = options
      return AcontextClient.layer({
        retry: fastRetry,
        ...rest,
        apiKey: AcontextClient.apiKey(otherProject === true ? e.otherProjectApiKey : e.apiKey),
        baseUrl: e.url
      })
    })
  ).pipe(Layer.provideMerge(NodeHttpClient.layerUndici))

/** Emulator + client + storage, all in the context (a fresh emulator each time it is built). */
export const storageStack = (
  options: ClaudeAgentStorage.ClaudeAgentStorageOptions = {},
  clientOptions: ClientOptions = {},
  emulatorOptions?: AcontextEmulatorOptions
): Layer.Layer<
  ClaudeAgentStorage.ClaudeAgentStorage | AcontextClient.AcontextClient | HttpClient.HttpClient | AcontextEmulator
> =>
  Layer.orDie(ClaudeAgentStorage.layer(options)).pipe(
    Layer.provideMerge(client(clientOptions)),
    Layer.provideMerge(emulator(emulatorOptions))
  )

/**
 * The call shapes of the upstream test vectors (as `@acx/fixtures/acontextVectors`'s `create` /
 * `store` build them).
 */
export type WireCall =
  | { readonly call: "create"; readonly use_uuid: string | null; readonly user: string | null }
  | {
    readonly call: "store"
    readonly sessionId: string
    readonly blob: unknown
    readonly format: unknown
    readonly meta: unknown
  }

const MESSAGES_PATH = /^\/api\/v1\/session\/([^/]+)\/messages$/

/**
 * The create / store requests of a request log, as upstream-shaped calls (`meta: null` when the
 * body had none; the wire omits it). Only requests with the given statuses (default: all
 * answered with a 2xx) are kept: a retried request appears once per attempt otherwise.
 */
export const wireCalls = (
  log: ReadonlyArray<AcontextRequestLogEntry>,
  keep: (entry: AcontextRequestLogEntry) => boolean = (entry) =>
    typeof entry.status === "number" && entry.status >= 200 && entry.status < 300
): Array<WireCall> =>
  log.filter(keep).flatMap((entry): Array<WireCall> => {
    const body = (entry.body ?? {}) as Record<string, unknown>
    if (entry.route === "createSession") {
      return [{
        call: "create",
        use_uuid: (body["use_uuid"] as string | undefined) ?? null,
        user: (body["user"] as string | undefined) ?? null
      }]
    }
    if (entry.route === "storeMessage") {
      const sessionId = MESSAGES_PATH.exec(entry.path)?.[1] ?? "?"
      return [{ call: "store", sessionId, blob: body["blob"], format: body["format"], meta: body["meta"] ?? null }]
    }
    return []
  })

/** The create / store requests of the emulator in context, as upstream-shaped calls. */
export const wire = Effect.map(Effect.flatMap(AcontextEmulator, (e) => e.requests), (log) => wireCalls(log))

/** One captured log line. */
export interface LogLine {
  readonly level: string
  readonly message: string
  readonly annotations: Readonly<Record<string, unknown>>
  readonly cause: string
}

/** A logger replacing the default one, collecting lines into `lines`. */
export const captureLogs = () => {
  const lines: Array<LogLine> = []
  const logger = Logger.make<unknown, void>(({ annotations, cause, logLevel, message }) => {
    const parts = Array.isArray(message) ? message : [message]
    lines.push({
      level: logLevel.label,
      message: parts.map((p) => (typeof p === "string" ? p : JSON.stringify(p))).join(" "),
      annotations: Object.fromEntries(HashMap.toEntries(annotations)),
      cause: Cause.isEmpty(cause) ? "" : Cause.pretty(cause)
    })
  })
  return { lines, layer: Logger.replace(Logger.defaultLogger, logger) }
}

/** A temporary directory, removed by the returned `cleanup`. */
export const tempDir = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), `acx-${prefix}-`))
  return { dir, file: (name: string) => join(dir, name), cleanup: () => rmSync(dir, { recursive: true, force: true }) }
}
