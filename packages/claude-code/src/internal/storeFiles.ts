/**
 * The files of a `ClaudeProjectsSessionStore` under `<configDir>/projects`: where a key's lines,
 * a session's sidecar and the store clock are, and how each is read and written (transcripts and
 * sidecars through `TranscriptReader`: regular files only; sidecars and the clock atomically).
 * Every failure is the store's `Storage` error naming the file.
 */
import * as SessionStore from "@acx/session-store/SessionStore"
import type * as FileSystem from "@effect/platform/FileSystem"
import type * as Path from "@effect/platform/Path"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as TranscriptReader from "../TranscriptReader.js"
import { readEntryLines } from "./jsonl.js"

/** A session's sidecar: its store-clock mtimes (main and per subkey) and its summary. */
export interface Sidecar {
  mtime?: number
  summary?: SessionStore.SessionSummaryEntry
  subkeys: Record<string, number>
}

/** What every step of the store works on. */
export interface StoreFiles {
  readonly fs: FileSystem.FileSystem
  readonly path: Path.Path
  readonly projectsDir: string
}

/** The sidecar's suffix after the session id. */
export const SIDECAR = ".acx.json"
const CLOCK = ".acx-clock"

// The largest sidecar read (it holds a session's clocks and summary: a few KiB).
const SIDECAR_BYTES = 16 * 1024 * 1024

/** A failure of `operation` on a file, as the store's `Storage` error. */
export const storageError = (operation: string, description: string) => (cause: unknown) =>
  new SessionStore.SessionStoreError({ reason: "Storage", operation, description, cause })

/** `<projectsDir>/<projectKey>`. */
export const projectDir = (files: StoreFiles, projectKey: string): string =>
  files.path.join(files.projectsDir, projectKey)

/** A key's lines: `<projectKey>/<sessionId>.jsonl`, or `<projectKey>/<sessionId>/<subpath>.jsonl`. */
export const fileOf = (files: StoreFiles, key: SessionStore.SessionKey): string =>
  key.subpath === undefined
    ? files.path.join(projectDir(files, key.projectKey), `${key.sessionId}.jsonl`)
    : files.path.join(projectDir(files, key.projectKey), key.sessionId, `${key.subpath}.jsonl`)

/** `<projectKey>/<sessionId>.acx.json`. */
export const sidecarOf = (files: StoreFiles, projectKey: string, sessionId: string): string =>
  files.path.join(projectDir(files, projectKey), `${sessionId}${SIDECAR}`)

// A sidecar or the clock: a regular file only (a FIFO in its place is never waited on), at most
// 16 MiB; one that does not exist is `None`.
const readOptional = (operation: string, file: string) =>
  TranscriptReader.readText(file, SIDECAR_BYTES).pipe(
    Effect.map(Option.some),
    Effect.catchIf(
      (error) => error.reason === "NotFound",
      () => Effect.succeed(Option.none<string>())
    ),
    Effect.mapError(storageError(operation, `cannot read ${file}`))
  )

/** A key's entries as read by `TranscriptReader` (regular files only, any size); NotFound is `None`. */
export const readEntriesOptional = (operation: string, file: string) =>
  readEntryLines(file).pipe(
    Effect.map(Option.some),
    Effect.catchIf(
      (error) => error.reason === "NotFound",
      () =>
        Effect.succeed(
          Option.none<{ readonly entries: Array<SessionStore.SessionStoreEntry>; readonly endsWithNewline: boolean }>()
        )
    ),
    Effect.mapError(storageError(operation, `cannot read ${file}`))
  )

// A temp file beside `file`, then a rename over it.
const writeAtomic = (files: StoreFiles, operation: string, file: string, text: string) =>
  Effect.gen(function*() {
    const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`
    yield* files.fs.makeDirectory(files.path.dirname(file), { recursive: true })
    yield* files.fs.writeFileString(tmp, text)
    yield* files.fs.rename(tmp, file)
  }).pipe(Effect.mapError(storageError(operation, `cannot write ${file}`)))

/** A session's sidecar; absent or not JSON is `undefined`. */
export const readSidecar = (files: StoreFiles, operation: string, projectKey: string, sessionId: string) =>
  Effect.map(readOptional(operation, sidecarOf(files, projectKey, sessionId)), (text): Sidecar | undefined => {
    if (Option.isNone(text)) return undefined
    try {
      const value = JSON.parse(text.value) as Sidecar
      return { ...value, subkeys: value.subkeys ?? {} }
    } catch {
      return undefined
    }
  })

/** Writes a session's sidecar atomically. */
export const writeSidecar = (
  files: StoreFiles,
  operation: string,
  projectKey: string,
  sessionId: string,
  sidecar: Sidecar
) => writeAtomic(files, operation, sidecarOf(files, projectKey, sessionId), JSON.stringify(sidecar))

/** Advances the store clock to `max(now, last + 1)` and returns it. */
export const nextMtime = (files: StoreFiles) =>
  Effect.gen(function*() {
    const clockFile = files.path.join(files.projectsDir, CLOCK)
    const text = yield* readOptional("append", clockFile)
    const last = Option.match(text, { onNone: () => 0, onSome: (t) => Number(t.trim()) || 0 })
    const now = yield* Clock.currentTimeMillis
    const next = Math.max(now, last + 1)
    yield* writeAtomic(files, "append", clockFile, String(next))
    return next
  })

/** A directory's names (unsorted); one that does not exist is empty. */
export const listDir = (files: StoreFiles, operation: string, dir: string) =>
  files.fs.readDirectory(dir).pipe(
    Effect.catchIf(
      (error) => error._tag === "SystemError" && error.reason === "NotFound",
      () => Effect.succeed<Array<string>>([])
    ),
    Effect.mapError(storageError(operation, `cannot list ${dir}`))
  )

/** A file's mtime in whole milliseconds; 0 when it cannot be read. */
export const fileMtime = (files: StoreFiles, file: string) =>
  files.fs.stat(file).pipe(
    Effect.map((info) => Option.match(info.mtime, { onNone: () => 0, onSome: (d) => Math.floor(d.getTime()) })),
    Effect.orElseSucceed(() => 0)
  )

/** The ids of a project's main transcripts (`<id>.jsonl`). */
export const mainSessions = (files: StoreFiles, operation: string, projectKey: string) =>
  Effect.map(
    listDir(files, operation, projectDir(files, projectKey)),
    (names) => names.filter((name) => name.endsWith(".jsonl")).map((name) => name.slice(0, -".jsonl".length))
  )

/** Removes a session: its transcript, its subkeys' directory and its sidecar. */
export const removeSession = (files: StoreFiles, operation: string, projectKey: string, sessionId: string) =>
  Effect.all([
    files.fs.remove(fileOf(files, { projectKey, sessionId }), { force: true }),
    files.fs.remove(files.path.join(projectDir(files, projectKey), sessionId), { recursive: true, force: true }),
    files.fs.remove(sidecarOf(files, projectKey, sessionId), { force: true })
  ], { discard: true }).pipe(Effect.mapError(storageError(operation, `cannot delete session ${sessionId}`)))
