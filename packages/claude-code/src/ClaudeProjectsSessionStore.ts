/**
 * The Claude Code on-disk layout as a {@link SessionStore.SessionStore}: the SDK can mirror its
 * transcripts into a second Claude-format config directory (a shared volume, a backup), which
 * Claude Code and the SDK's `dir`-based functions read directly.
 *
 * Layout under `<configDir>/projects`:
 * - main key → `<projectKey>/<sessionId>.jsonl`; subkey → `<projectKey>/<sessionId>/<subpath>.jsonl`;
 *   one JSON object per `\n`-terminated line, each batch written in one append-mode write;
 *   store-only entries (e.g. `agent_metadata` for a subagent subpath) are written as lines too;
 * - `<projectKey>/<sessionId>.acx.json`: a sidecar holding the session's store-clock mtimes (main
 *   and per subkey) and its summary, folded with the SDK's `foldSessionSummary` over the entries
 *   actually appended; written atomically (temp file + rename);
 * - `.acx-clock`: the store clock, `max(now, last + 1)`, read and advanced on every append, so
 *   mtimes are integers, strictly increasing across every instance on the directory (file
 *   mtimes are not used: they are neither integer nor monotonic). A session without sidecar
 *   (written by Claude Code itself) lists with its file mtime.
 *
 * `uuid` idempotency re-reads the key's file on every append, so it holds across instances and
 * processes. Every write (append, delete, retention) holds `.acx-lock`, a lock file created
 * exclusively, so writers in several processes, or on several machines sharing the volume, take
 * turns (`ClaudeProjects.appendEntries` takes it too); a crashed holder's lock is broken when its
 * pid is gone (same host) or it is older than 30 seconds, by a rename that two waiters cannot
 * both do (docs/design.md, "Breaking a dead holder's directory lock"). `projectKey` and
 * `sessionId` must be single safe
 * path segments, subpath segments must not be empty, `.` or hold NUL: anything else fails with
 * `InvalidKey`. Torn trailing lines (a crash mid-write) are skipped by `load` and terminated
 * before the next append.
 *
 * @since 0.1.0
 */
import * as SessionStore from "@acx/session-store/SessionStore"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as DirectoryLock from "./internal/directoryLock.js"
import { readEntryLines } from "./internal/jsonl.js"
import { expandHome, isSafeSegment } from "./internal/paths.js"
import * as TranscriptReader from "./TranscriptReader.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface ClaudeProjectsSessionStoreOptions {
  /** The Claude config directory; transcripts go to `<configDir>/projects`. A leading `~` is expanded. */
  readonly configDir: string
  /**
   * How long a write waits for another process's directory lock before failing with a
   * `Storage` error; default 10 seconds.
   */
  readonly lockTimeout?: Duration.DurationInput | undefined
}

interface Sidecar {
  mtime?: number
  summary?: SessionStore.SessionSummaryEntry
  subkeys: Record<string, number>
}

const SIDECAR = ".acx.json"
const CLOCK = ".acx-clock"

// The largest sidecar read (it holds a session's clocks and summary: a few KiB).
const SIDECAR_BYTES = 16 * 1024 * 1024

const storageError = (operation: string, description: string) => (cause: unknown) =>
  new SessionStore.SessionStoreError({ reason: "Storage", operation, description, cause })

/**
 * Builds the store over `FileSystem` and `Path`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  options: ClaudeProjectsSessionStoreOptions
): Effect.Effect<SessionStore.SessionStore, never, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const projectsDir = path.join(path.resolve(expandHome(options.configDir)), "projects")
    const clockFile = path.join(projectsDir, CLOCK)

    const checkKey = (operation: string, raw: unknown) =>
      Effect.flatMap(SessionStore.validateKey(operation, raw), (key) => {
        const badSub = key.subpath !== undefined &&
          key.subpath.split("/").some((segment) => segment === "" || segment === "." || segment.includes("\0"))
        return isSafeSegment(key.projectKey) && isSafeSegment(key.sessionId) && !badSub
          ? Effect.succeed(key)
          : Effect.fail(
            new SessionStore.SessionStoreError({
              reason: "InvalidKey",
              operation,
              description: `not representable as Claude project files: ${JSON.stringify(key)}`
            })
          )
      })

    const projectDir = (projectKey: string) => path.join(projectsDir, projectKey)
    const fileOf = (key: SessionStore.SessionKey) =>
      key.subpath === undefined
        ? path.join(projectDir(key.projectKey), `${key.sessionId}.jsonl`)
        : path.join(projectDir(key.projectKey), key.sessionId, `${key.subpath}.jsonl`)
    const sidecarOf = (projectKey: string, sessionId: string) =>
      path.join(projectDir(projectKey), `${sessionId}${SIDECAR}`)

    // A sidecar: a regular file only (a FIFO in its place is never waited on), at most 16 MiB.
    const readOptional = (operation: string, file: string) =>
      TranscriptReader.readText(file, SIDECAR_BYTES).pipe(
        Effect.map(Option.some),
        Effect.catchIf(
          (error) => error.reason === "NotFound",
          () => Effect.succeed(Option.none<string>())
        ),
        Effect.mapError(storageError(operation, `cannot read ${file}`))
      )

    // Transcripts are read by TranscriptReader (regular files only, any size); NotFound is `None`.
    const readEntriesOptional = (operation: string, file: string) =>
      readEntryLines(file).pipe(
        Effect.map(Option.some),
        Effect.catchIf(
          (error) => error.reason === "NotFound",
          () =>
            Effect.succeed(
              Option.none<
                { readonly entries: Array<SessionStore.SessionStoreEntry>; readonly endsWithNewline: boolean }
              >()
            )
        ),
        Effect.mapError(storageError(operation, `cannot read ${file}`))
      )

    const writeAtomic = (operation: string, file: string, text: string) =>
      Effect.gen(function*() {
        const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`
        yield* fs.makeDirectory(path.dirname(file), { recursive: true })
        yield* fs.writeFileString(tmp, text)
        yield* fs.rename(tmp, file)
      }).pipe(Effect.mapError(storageError(operation, `cannot write ${file}`)))

    const readSidecar = (operation: string, projectKey: string, sessionId: string) =>
      Effect.map(readOptional(operation, sidecarOf(projectKey, sessionId)), (text): Sidecar | undefined => {
        if (Option.isNone(text)) return undefined
        try {
          const value = JSON.parse(text.value) as Sidecar
          return { ...value, subkeys: value.subkeys ?? {} }
        } catch {
          return undefined
        }
      })

    const writeSidecar = (operation: string, projectKey: string, sessionId: string, sidecar: Sidecar) =>
      writeAtomic(operation, sidecarOf(projectKey, sessionId), JSON.stringify(sidecar))

    const nextMtime = Effect.gen(function*() {
      const text = yield* readOptional("append", clockFile)
      const last = Option.match(text, { onNone: () => 0, onSome: (t) => Number(t.trim()) || 0 })
      const now = yield* Clock.currentTimeMillis
      const next = Math.max(now, last + 1)
      yield* writeAtomic("append", clockFile, String(next))
      return next
    })

    // Writers in other processes (or on other machines sharing the volume), and
    // `ClaudeProjects.appendEntries`, take the same lock file (internal/directoryLock: a dead
    // holder's lock is broken by a rename, see docs/design.md).
    const directoryLock = yield* DirectoryLock.make({
      dir: projectsDir,
      timeout: options.lockTimeout ?? Duration.seconds(10)
    })

    // One writer at a time: in this instance, then across processes.
    const serialized = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      directoryLock.withLock(effect).pipe(
        Effect.catchIf(
          (error): error is DirectoryLock.DirectoryLockError => error instanceof DirectoryLock.DirectoryLockError,
          (error) =>
            Effect.fail(
              new SessionStore.SessionStoreError({
                reason: "Storage",
                operation: "lock",
                description: error.description,
                ...(error.cause === undefined ? {} : { cause: error.cause })
              })
            )
        )
      )

    const loadKey = (operation: string, key: SessionStore.SessionKey) =>
      Effect.map(readEntriesOptional(operation, fileOf(key)), Option.map((read) => read.entries))

    const append = (
      rawKey: SessionStore.SessionKey,
      rawEntries: ReadonlyArray<SessionStore.SessionStoreEntry>
    ): Effect.Effect<void, SessionStore.SessionStoreError> =>
      Effect.gen(function*() {
        const key = yield* checkKey("append", rawKey)
        const validated = yield* SessionStore.validateEntries("append", rawEntries)
        if (validated.length === 0) return
        yield* serialized(Effect.gen(function*() {
          const file = fileOf(key)
          const existing = yield* readEntriesOptional("append", file)
          const seen = new Set<string>()
          if (Option.isSome(existing)) {
            for (const entry of existing.value.entries) {
              if (typeof entry.uuid === "string") seen.add(entry.uuid)
            }
          }
          const stored: Array<SessionStore.SessionStoreEntry> = []
          let text = ""
          for (const entry of validated) {
            if (typeof entry.uuid === "string") {
              if (seen.has(entry.uuid)) continue
              seen.add(entry.uuid)
            }
            const line = JSON.stringify(entry)
            if (typeof line !== "string") {
              return yield* Effect.fail(
                new SessionStore.SessionStoreError({
                  reason: "InvalidEntry",
                  operation: "append",
                  description: "an entry is not JSON-serialisable"
                })
              )
            }
            stored.push(JSON.parse(line) as SessionStore.SessionStoreEntry)
            text += line + "\n"
          }
          if (stored.length === 0) return
          const mtime = yield* nextMtime
          const sidecar = (yield* readSidecar("append", key.projectKey, key.sessionId)) ?? { subkeys: {} }
          if (key.subpath === undefined) {
            sidecar.summary = yield* SessionStore.foldSummary(sidecar.summary, key, stored, mtime)
            sidecar.mtime = mtime
          } else {
            sidecar.subkeys[key.subpath] = mtime
          }
          const torn = Option.isSome(existing) && !existing.value.endsWithNewline
          yield* fs.makeDirectory(path.dirname(file), { recursive: true }).pipe(
            Effect.zipRight(fs.writeFileString(file, (torn ? "\n" : "") + text, { flag: "a" })),
            Effect.mapError(storageError("append", `cannot append to ${file}`))
          )
          yield* writeSidecar("append", key.projectKey, key.sessionId, sidecar)
        }))
      })

    const load = (
      rawKey: SessionStore.SessionKey
    ): Effect.Effect<Array<SessionStore.SessionStoreEntry> | null, SessionStore.SessionStoreError> =>
      Effect.flatMap(checkKey("load", rawKey), (key) => Effect.map(loadKey("load", key), Option.getOrNull))

    const listDir = (operation: string, dir: string) =>
      fs.readDirectory(dir).pipe(
        Effect.catchIf(
          (error) => error._tag === "SystemError" && error.reason === "NotFound",
          () => Effect.succeed<Array<string>>([])
        ),
        Effect.mapError(storageError(operation, `cannot list ${dir}`))
      )

    const fileMtime = (file: string) =>
      fs.stat(file).pipe(
        Effect.map((info) => Option.match(info.mtime, { onNone: () => 0, onSome: (d) => Math.floor(d.getTime()) })),
        Effect.orElseSucceed(() => 0)
      )

    const mainSessions = (operation: string, projectKey: string) =>
      Effect.map(
        listDir(operation, projectDir(projectKey)),
        (names) => names.filter((name) => name.endsWith(".jsonl")).map((name) => name.slice(0, -".jsonl".length))
      )

    const listSessions = (
      projectKey: string
    ): Effect.Effect<Array<SessionStore.SessionListing>, SessionStore.SessionStoreError> =>
      isSafeSegment(projectKey)
        ? Effect.flatMap(mainSessions("listSessions", projectKey), (ids) =>
          Effect.forEach(ids, (sessionId) =>
            Effect.flatMap(readSidecar("listSessions", projectKey, sessionId), (sidecar) =>
              sidecar?.mtime !== undefined
                ? Effect.succeed({ sessionId, mtime: sidecar.mtime })
                : Effect.map(
                  fileMtime(fileOf({ projectKey, sessionId })),
                  (mtime): SessionStore.SessionListing => ({ sessionId, mtime })
                ))))
        : Effect.succeed([])

    const listSessionSummaries = (
      projectKey: string
    ): Effect.Effect<Array<SessionStore.SessionSummaryEntry>, SessionStore.SessionStoreError> =>
      isSafeSegment(projectKey)
        ? Effect.flatMap(mainSessions("listSessionSummaries", projectKey), (ids) =>
          Effect.map(
            Effect.forEach(ids, (sessionId) => readSidecar("listSessionSummaries", projectKey, sessionId)),
            (sidecars) => sidecars.flatMap((sidecar) => sidecar?.summary !== undefined ? [sidecar.summary] : [])
          ))
        : Effect.succeed([])

    const removeSession = (operation: string, projectKey: string, sessionId: string) =>
      Effect.all([
        fs.remove(fileOf({ projectKey, sessionId }), { force: true }),
        fs.remove(path.join(projectDir(projectKey), sessionId), { recursive: true, force: true }),
        fs.remove(sidecarOf(projectKey, sessionId), { force: true })
      ], { discard: true }).pipe(Effect.mapError(storageError(operation, `cannot delete session ${sessionId}`)))

    const remove = (rawKey: SessionStore.SessionKey): Effect.Effect<void, SessionStore.SessionStoreError> =>
      Effect.flatMap(checkKey("delete", rawKey), (key) =>
        serialized(
          key.subpath === undefined
            ? removeSession("delete", key.projectKey, key.sessionId)
            : Effect.gen(function*() {
              const subpath = key.subpath as string
              yield* fs.remove(fileOf(key), { force: true }).pipe(
                Effect.mapError(storageError("delete", `cannot delete ${fileOf(key)}`))
              )
              const sidecar = yield* readSidecar("delete", key.projectKey, key.sessionId)
              if (sidecar !== undefined && subpath in sidecar.subkeys) {
                delete sidecar.subkeys[subpath]
                yield* writeSidecar("delete", key.projectKey, key.sessionId, sidecar)
              }
            })
        ))

    const walk = (dir: string, prefix: string): Effect.Effect<Array<string>, SessionStore.SessionStoreError> =>
      Effect.flatMap(listDir("listSubkeys", dir), (names) =>
        Effect.map(
          Effect.forEach(names, (name) => {
            const full = path.join(dir, name)
            return fs.stat(full).pipe(
              Effect.map((info) => info.type),
              Effect.orElseSucceed(() => "Unknown" as const),
              Effect.flatMap((type): Effect.Effect<Array<string>, SessionStore.SessionStoreError> =>
                type === "Directory"
                  ? walk(full, `${prefix}${name}/`)
                  : Effect.succeed(
                    type === "File" && name.endsWith(".jsonl") ? [`${prefix}${name.slice(0, -".jsonl".length)}`] : []
                  )
              )
            )
          }),
          (lists) => lists.flat()
        ))

    const listSubkeys = (
      rawKey: SessionStore.MainSessionKey
    ): Effect.Effect<Array<string>, SessionStore.SessionStoreError> =>
      Effect.flatMap(
        checkKey("listSubkeys", rawKey),
        (key) => Effect.map(walk(path.join(projectDir(key.projectKey), key.sessionId), ""), (subkeys) => subkeys.sort())
      )

    const sessionIdsIn = (projectKey: string) =>
      Effect.map(listDir("deleteOlderThan", projectDir(projectKey)), (names) => {
        const ids = new Set<string>()
        for (const name of names) {
          if (name.endsWith(".jsonl")) {
            ids.add(name.slice(0, -".jsonl".length))
          } else if (name.endsWith(SIDECAR)) {
            ids.add(name.slice(0, -SIDECAR.length))
          }
        }
        return Array.from(ids)
      })

    const newestMtime = (projectKey: string, sessionId: string) =>
      Effect.gen(function*() {
        const sidecar = yield* readSidecar("deleteOlderThan", projectKey, sessionId)
        if (sidecar === undefined) {
          return yield* fileMtime(fileOf({ projectKey, sessionId }))
        }
        let mtime = sidecar.mtime ?? Number.NEGATIVE_INFINITY
        for (const value of Object.values(sidecar.subkeys)) {
          mtime = Math.max(mtime, value)
        }
        return mtime
      })

    const deleteOlderThan = (
      cutoff: number,
      options?: { readonly projectKey?: string | undefined }
    ): Effect.Effect<number, SessionStore.SessionStoreError> =>
      serialized(Effect.gen(function*() {
        const projectKeys = options?.projectKey !== undefined
          ? (isSafeSegment(options.projectKey) ? [options.projectKey] : [])
          : yield* Effect.filter(
            (yield* listDir("deleteOlderThan", projectsDir)).filter(isSafeSegment),
            (name) =>
              fs.stat(path.join(projectsDir, name)).pipe(
                Effect.map((info) => info.type === "Directory"),
                Effect.orElseSucceed(() => false)
              )
          )
        let deleted = 0
        for (const projectKey of projectKeys) {
          for (const sessionId of yield* sessionIdsIn(projectKey)) {
            if ((yield* newestMtime(projectKey, sessionId)) < cutoff) {
              yield* removeSession("deleteOlderThan", projectKey, sessionId)
              deleted++
            }
          }
        }
        return deleted
      }))

    return {
      append,
      load,
      listSessions,
      listSessionSummaries,
      delete: remove,
      listSubkeys,
      deleteOlderThan
    } satisfies SessionStore.SessionStore
  })

/**
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options: ClaudeProjectsSessionStoreOptions
): Layer.Layer<SessionStore.SessionStore, never, FileSystem.FileSystem | Path.Path> =>
  Layer.effect(SessionStore.SessionStore, make(options))

/**
 * {@link layer} on Node's file system and path.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerNode = (options: ClaudeProjectsSessionStoreOptions): Layer.Layer<SessionStore.SessionStore> =>
  layer(options).pipe(Layer.provide(Layer.mergeAll(NodeFileSystem.layer, NodePath.layer)))

/**
 * The store for `query({ options: { sessionStore } })` and the SDK's session functions.
 *
 * @since 0.1.0
 * @category constructors
 */
export const createClaudeProjectsSessionStore = (
  options: ClaudeProjectsSessionStoreOptions
): SessionStore.SdkSessionStore => SessionStore.toSdk(layerNode(options))
