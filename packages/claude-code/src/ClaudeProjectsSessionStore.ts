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
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as DirectoryLock from "./internal/directoryLock.js"
import { expandHome, isSafeSegment } from "./internal/paths.js"
import * as StoreFiles from "./internal/storeFiles.js"

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

type Serialized = <A, E, R>(
  effect: Effect.Effect<A, E, R>
) => Effect.Effect<A, E | SessionStore.SessionStoreError, R>

// A key the store can hold: the SDK's rules, and every segment a safe file name.
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

// One writer at a time: in this instance, then across processes. Writers in other processes (or
// on other machines sharing the volume), and `ClaudeProjects.appendEntries`, take the same lock
// file (internal/directoryLock: a dead holder's lock is broken by a rename, see docs/design.md).
const serializedBy = (directoryLock: DirectoryLock.DirectoryLock): Serialized => (effect) =>
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

// The lines of `entries` not stored yet (by `uuid`, against `seen`), each as it reads back.
const newLines = (entries: ReadonlyArray<SessionStore.SessionStoreEntry>, seen: Set<string>) =>
  Effect.gen(function*() {
    const stored: Array<SessionStore.SessionStoreEntry> = []
    let text = ""
    for (const entry of entries) {
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
    return { stored, text }
  })

// Under the lock: the entries not stored yet appended in one write, the sidecar's clocks and
// summary advanced.
const appendLocked = (
  files: StoreFiles.StoreFiles,
  key: SessionStore.SessionKey,
  entries: ReadonlyArray<SessionStore.SessionStoreEntry>
) =>
  Effect.gen(function*() {
    const file = StoreFiles.fileOf(files, key)
    const existing = yield* StoreFiles.readEntriesOptional("append", file)
    const seen = new Set<string>()
    if (Option.isSome(existing)) {
      for (const entry of existing.value.entries) {
        if (typeof entry.uuid === "string") seen.add(entry.uuid)
      }
    }
    const { stored, text } = yield* newLines(entries, seen)
    if (stored.length === 0) return
    const mtime = yield* StoreFiles.nextMtime(files)
    const sidecar = (yield* StoreFiles.readSidecar(files, "append", key.projectKey, key.sessionId)) ?? { subkeys: {} }
    if (key.subpath === undefined) {
      sidecar.summary = yield* SessionStore.foldSummary(sidecar.summary, key, stored, mtime)
      sidecar.mtime = mtime
    } else {
      sidecar.subkeys[key.subpath] = mtime
    }
    const torn = Option.isSome(existing) && !existing.value.endsWithNewline
    yield* files.fs.makeDirectory(files.path.dirname(file), { recursive: true }).pipe(
      Effect.zipRight(files.fs.writeFileString(file, (torn ? "\n" : "") + text, { flag: "a" })),
      Effect.mapError(StoreFiles.storageError("append", `cannot append to ${file}`))
    )
    yield* StoreFiles.writeSidecar(files, "append", key.projectKey, key.sessionId, sidecar)
  })

const appendWith = (files: StoreFiles.StoreFiles, serialized: Serialized) =>
(
  rawKey: SessionStore.SessionKey,
  rawEntries: ReadonlyArray<SessionStore.SessionStoreEntry>
): Effect.Effect<void, SessionStore.SessionStoreError> =>
  Effect.gen(function*() {
    const key = yield* checkKey("append", rawKey)
    const validated = yield* SessionStore.validateEntries("append", rawEntries)
    if (validated.length === 0) return
    yield* serialized(appendLocked(files, key, validated))
  })

const loadFrom = (files: StoreFiles.StoreFiles) =>
(
  rawKey: SessionStore.SessionKey
): Effect.Effect<Array<SessionStore.SessionStoreEntry> | null, SessionStore.SessionStoreError> =>
  Effect.flatMap(checkKey("load", rawKey), (key) =>
    Effect.map(
      StoreFiles.readEntriesOptional("load", StoreFiles.fileOf(files, key)),
      (read) => Option.getOrNull(Option.map(read, (value) => value.entries))
    ))

// A session's mtime: its sidecar's store clock, else its transcript's file mtime.
const listSessionsIn = (files: StoreFiles.StoreFiles) =>
(
  projectKey: string
): Effect.Effect<Array<SessionStore.SessionListing>, SessionStore.SessionStoreError> =>
  isSafeSegment(projectKey)
    ? Effect.flatMap(StoreFiles.mainSessions(files, "listSessions", projectKey), (ids) =>
      Effect.forEach(ids, (sessionId) =>
        Effect.flatMap(StoreFiles.readSidecar(files, "listSessions", projectKey, sessionId), (sidecar) =>
          sidecar?.mtime !== undefined
            ? Effect.succeed({ sessionId, mtime: sidecar.mtime })
            : Effect.map(
              StoreFiles.fileMtime(files, StoreFiles.fileOf(files, { projectKey, sessionId })),
              (mtime): SessionStore.SessionListing => ({ sessionId, mtime })
            ))))
    : Effect.succeed([])

const listSummariesIn = (files: StoreFiles.StoreFiles) =>
(
  projectKey: string
): Effect.Effect<Array<SessionStore.SessionSummaryEntry>, SessionStore.SessionStoreError> =>
  isSafeSegment(projectKey)
    ? Effect.flatMap(StoreFiles.mainSessions(files, "listSessionSummaries", projectKey), (ids) =>
      Effect.map(
        Effect.forEach(
          ids,
          (sessionId) => StoreFiles.readSidecar(files, "listSessionSummaries", projectKey, sessionId)
        ),
        (sidecars) => sidecars.flatMap((sidecar) => sidecar?.summary !== undefined ? [sidecar.summary] : [])
      ))
    : Effect.succeed([])

// A subkey's file removed, and its clock from the sidecar.
const removeSubkey = (files: StoreFiles.StoreFiles, key: SessionStore.SessionKey, subpath: string) =>
  Effect.gen(function*() {
    const file = StoreFiles.fileOf(files, key)
    yield* files.fs.remove(file, { force: true }).pipe(
      Effect.mapError(StoreFiles.storageError("delete", `cannot delete ${file}`))
    )
    const sidecar = yield* StoreFiles.readSidecar(files, "delete", key.projectKey, key.sessionId)
    if (sidecar !== undefined && subpath in sidecar.subkeys) {
      delete sidecar.subkeys[subpath]
      yield* StoreFiles.writeSidecar(files, "delete", key.projectKey, key.sessionId, sidecar)
    }
  })

const removeFrom = (files: StoreFiles.StoreFiles, serialized: Serialized) =>
(
  rawKey: SessionStore.SessionKey
): Effect.Effect<void, SessionStore.SessionStoreError> =>
  Effect.flatMap(checkKey("delete", rawKey), (key) =>
    serialized(
      key.subpath === undefined
        ? StoreFiles.removeSession(files, "delete", key.projectKey, key.sessionId)
        : removeSubkey(files, key, key.subpath)
    ))

// The subkeys under a session's directory: every `.jsonl` file's path without the extension.
const walkSubkeys = (
  files: StoreFiles.StoreFiles,
  dir: string,
  prefix: string
): Effect.Effect<Array<string>, SessionStore.SessionStoreError> =>
  Effect.flatMap(StoreFiles.listDir(files, "listSubkeys", dir), (names) =>
    Effect.map(
      Effect.forEach(names, (name) => {
        const full = files.path.join(dir, name)
        return files.fs.stat(full).pipe(
          Effect.map((info) => info.type),
          Effect.orElseSucceed(() => "Unknown" as const),
          Effect.flatMap((type): Effect.Effect<Array<string>, SessionStore.SessionStoreError> =>
            type === "Directory"
              ? walkSubkeys(files, full, `${prefix}${name}/`)
              : Effect.succeed(
                type === "File" && name.endsWith(".jsonl") ? [`${prefix}${name.slice(0, -".jsonl".length)}`] : []
              )
          )
        )
      }),
      (lists) => lists.flat()
    ))

const listSubkeysOf = (files: StoreFiles.StoreFiles) =>
(
  rawKey: SessionStore.MainSessionKey
): Effect.Effect<Array<string>, SessionStore.SessionStoreError> =>
  Effect.flatMap(
    checkKey("listSubkeys", rawKey),
    (key) =>
      Effect.map(
        walkSubkeys(files, files.path.join(StoreFiles.projectDir(files, key.projectKey), key.sessionId), ""),
        (subkeys) => subkeys.sort()
      )
  )

// The sessions of a project for retention: a transcript or a sidecar names one.
const sessionIdsIn = (files: StoreFiles.StoreFiles, projectKey: string) =>
  Effect.map(StoreFiles.listDir(files, "deleteOlderThan", StoreFiles.projectDir(files, projectKey)), (names) => {
    const ids = new Set<string>()
    for (const name of names) {
      if (name.endsWith(".jsonl")) {
        ids.add(name.slice(0, -".jsonl".length))
      } else if (name.endsWith(StoreFiles.SIDECAR)) {
        ids.add(name.slice(0, -StoreFiles.SIDECAR.length))
      }
    }
    return Array.from(ids)
  })

// A session's newest store clock (main and subkeys), else its transcript's file mtime.
const newestMtime = (files: StoreFiles.StoreFiles, projectKey: string, sessionId: string) =>
  Effect.gen(function*() {
    const sidecar = yield* StoreFiles.readSidecar(files, "deleteOlderThan", projectKey, sessionId)
    if (sidecar === undefined) {
      return yield* StoreFiles.fileMtime(files, StoreFiles.fileOf(files, { projectKey, sessionId }))
    }
    let mtime = sidecar.mtime ?? Number.NEGATIVE_INFINITY
    for (const value of Object.values(sidecar.subkeys)) {
      mtime = Math.max(mtime, value)
    }
    return mtime
  })

// The project directories retention goes over: the one named (if safe), else every directory.
const retentionProjects = (files: StoreFiles.StoreFiles, projectKey: string | undefined) =>
  projectKey !== undefined
    ? Effect.succeed(isSafeSegment(projectKey) ? [projectKey] : [])
    : Effect.flatMap(StoreFiles.listDir(files, "deleteOlderThan", files.projectsDir), (names) =>
      Effect.filter(
        names.filter(isSafeSegment),
        (name) =>
          files.fs.stat(files.path.join(files.projectsDir, name)).pipe(
            Effect.map((info) => info.type === "Directory"),
            Effect.orElseSucceed(() => false)
          )
      ))

const deleteOlderThanIn = (files: StoreFiles.StoreFiles, serialized: Serialized) =>
(
  cutoff: number,
  options?: { readonly projectKey?: string | undefined }
): Effect.Effect<number, SessionStore.SessionStoreError> =>
  serialized(Effect.gen(function*() {
    let deleted = 0
    for (const projectKey of yield* retentionProjects(files, options?.projectKey)) {
      for (const sessionId of yield* sessionIdsIn(files, projectKey)) {
        if ((yield* newestMtime(files, projectKey, sessionId)) < cutoff) {
          yield* StoreFiles.removeSession(files, "deleteOlderThan", projectKey, sessionId)
          deleted++
        }
      }
    }
    return deleted
  }))

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
    const files: StoreFiles.StoreFiles = {
      fs,
      path,
      projectsDir: path.join(path.resolve(expandHome(options.configDir)), "projects")
    }
    const directoryLock = yield* DirectoryLock.make({
      dir: files.projectsDir,
      timeout: options.lockTimeout ?? Duration.seconds(10)
    })
    const serialized = serializedBy(directoryLock)
    return {
      append: appendWith(files, serialized),
      load: loadFrom(files),
      listSessions: listSessionsIn(files),
      listSessionSummaries: listSummariesIn(files),
      delete: removeFrom(files, serialized),
      listSubkeys: listSubkeysOf(files),
      deleteOlderThan: deleteOlderThanIn(files, serialized)
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
