/**
 * What one memory worker's steps share: where it works, the settings in force (re-read when
 * `config.json` changes), its warm observers and its log. `MemoryWorker.run` builds it once,
 * after the lock is won; its loop and the steps in `workerObservers.ts` and `workerBatch.ts`
 * read and update it.
 */
import type * as Duration from "effect/Duration"
import type * as MemoryConfig from "../MemoryConfig.js"
import { MemoryError } from "../MemoryError.js"
import type * as ObserverPrompts from "../ObserverPrompts.js"
import type { Observer, ObserverFactory } from "./observer.js"
import { prepareCredentials } from "./observer.js"
import { describe } from "./workerParse.js"

/** The environment the observer's Claude Code inherits. */
export type Env = { readonly [name: string]: string | undefined }

/** A running observer conversation of one Claude Code session. */
export interface Warm {
  readonly observer: Observer
  /** The instructions were given in this conversation (now or before a restart). */
  instructed: boolean
  lastUsed: number
}

/** Whether the observer may call the model: yes, or the reason it may not. */
export type Credentials = ReturnType<typeof prepareCredentials>

/** Where a worker works and the settings in force (known before its lock is taken). */
export interface WorkerSettings {
  readonly env: Env
  readonly home: string
  readonly files: MemoryConfig.MemoryPaths
  readonly pid: number
  readonly log: (line: string) => void
  readonly templates: ObserverPrompts.Templates
  readonly maxObservers: number
  readonly pollInterval: Duration.Duration
  /** The settings came from the caller: config.json is never re-read. */
  readonly configGiven: boolean
  /** The idle timeout the caller gave, else `workerIdleMinutes` of the settings in force. */
  readonly idleTimeoutOf: (settings: MemoryConfig.MemoryConfig) => number
  config: MemoryConfig.MemoryConfig
  configStamp: string
  idleTimeout: number
  credentials: Credentials
}

/** One worker's shared state, once its lock is won. */
export interface WorkerContext extends WorkerSettings {
  /** Starts an observer with the settings of the moment. */
  readonly startObserver: ObserverFactory
  /** The warm observers, by Claude Code session id (at most `maxObservers`). */
  readonly warm: Map<string, Warm>
  /** Per session, how many batches in a row the observer answered with nothing readable. */
  readonly unreadableInARow: Map<string, number>
}

/** The credentials the settings call for: none needed in `local` mode. */
export const credentialsFor = (
  files: MemoryConfig.MemoryPaths,
  env: Env,
  settings: MemoryConfig.MemoryConfig
): Credentials => settings.mode === "local" ? { ok: true as const } : prepareCredentials(files, env)

/** A failure while doing `what`, as a `Database` `MemoryError` (one already typed is kept). */
export const databaseError = (what: string) => (cause: unknown): MemoryError =>
  cause instanceof MemoryError
    ? cause
    : new MemoryError({ reason: "Database", description: `${what}: ${describe(cause)}`, cause })
