/**
 * The writers' lock of a Claude config directory's `projects/`: `.acx-lock`, a file created
 * exclusively (`wx`) whose content is the holder's token, `pid:host:random:start` (`start`: the
 * holder's start time, `ProcessLiveness.startTime`), fresh for every acquisition.
 * `ClaudeProjectsSessionStore` and `ClaudeProjects.appendEntries` take it, so writers in several
 * processes (or on several machines sharing the volume) take turns.
 *
 * A dead holder's lock (on this host, its process exited, is a zombie or its pid was reused, by
 * `ProcessLiveness`'s rule; or the lock is older than {@link STALE_MILLIS}) is broken by a
 * rename, never by a plain remove, so that two waiters that judged the same lock stale cannot both
 * break it. The argument is in docs/design.md
 * ("Breaking a dead holder's directory lock"); in short:
 * 1. a waiter reads the lock's token T and judges it stale;
 * 2. it renames `.acx-lock` to a unique marker `.acx-lock.breaking-<ms>-<pid>-<random>`: the
 *    rename moves one directory entry atomically, so of several waiters at most one moves the
 *    file holding T; the others fail (no such file) or move a later lock;
 * 3. it reads the marker: T means it broke exactly the stale lock it judged (the marker is
 *    removed); another token means it moved a live lock taken after T was broken: it puts it
 *    back with `link` (which never replaces an existing file) and then removes the marker;
 * 4. while a marker exists, a waiter that has just created `.acx-lock` gives it up again before
 *    doing anything: the lock may be a moved live one's place. So the live holder never shares
 *    the lock, even with a waiter that came in while its lock was moved aside.
 * A holder releases by writing a tombstone (`released:<token>`) into its lock through the handle
 * it kept open since creating it (rename and link keep a file's identity, so the tombstone
 * reaches its lock wherever a breaker has it), then breaking its own lock as a breaker would
 * (steps 2–3 with the tombstone as the token seen). A lock or marker holding a tombstone is stale
 * at once and never put back, so a breaker that moved the lock aside while it was released puts
 * back nothing anyone waits on; and no holder removes a path it has only read, which could be a
 * new holder's lock by then.
 */
import * as ProcessLiveness from "@acx/environment/ProcessLiveness"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import { randomUUID } from "node:crypto"
import * as os from "node:os"
import * as path from "node:path"

/** The lock file's name in the locked directory. */
export const LOCK = ".acx-lock"

/** A lock (or a breaker's marker) older than this is stale whoever holds it. */
export const STALE_MILLIS = 30_000

const MARKER_PREFIX = `${LOCK}.breaking-`

/** What a holder writes into its lock when it releases it: stale at once, never put back. */
const RELEASED_PREFIX = "released:"

const isReleased = (content: string) => content.startsWith(RELEASED_PREFIX)

/** Why the lock could not be taken: another writer held it too long, or the file system failed. */
export class DirectoryLockError extends Schema.TaggedError<DirectoryLockError>(
  "@acx/claude-code/internal/directoryLock/DirectoryLockError"
)("DirectoryLockError", {
  reason: Schema.Literal("Timeout", "Io"),
  file: Schema.String,
  description: Schema.String,
  cause: Schema.optionalWith(Schema.Defect, { exact: true })
}) {
  override get message(): string {
    return this.description
  }
}

export interface DirectoryLock {
  /** The lock file. */
  readonly file: string
  /** Runs `effect` holding the lock: one fiber of this instance at a time, then across processes. */
  readonly withLock: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | DirectoryLockError, R>
  /**
   * Steps 2–3 of the module doc for a waiter that judged the lock holding `seen` stale: moves
   * the lock aside, and removes it if it is that one, else puts it back. (`withLock` calls it;
   * exposed so that tests can replay a waiter that judged a lock which was replaced since.)
   */
  readonly breakStale: (seen: string) => Effect.Effect<void, DirectoryLockError>
}

/** A lock taken by this process: its token, and its file's handle, open until the release. */
interface Held {
  readonly token: string
  readonly handle: FileSystem.File
  readonly scope: Scope.CloseableScope
}

export interface DirectoryLockOptions {
  /** The directory to lock (created when missing). */
  readonly dir: string
  /** How long to wait for another writer before failing with `Timeout`. */
  readonly timeout: Duration.DurationInput
}

const isNotFound = (error: unknown) =>
  typeof error === "object" && error !== null && (error as { readonly reason?: unknown }).reason === "NotFound"
const isAlreadyExists = (error: unknown) =>
  typeof error === "object" && error !== null && (error as { readonly reason?: unknown }).reason === "AlreadyExists"

/**
 * A fresh token for a lock taken by process `pid` on `host`: `pid:host:random:start`, `start`
 * being the process's start time (`ProcessLiveness.startTime`; left out where there is none), so
 * that a waiter tells the holder from an unrelated process given its pid since.
 */
export const tokenFor = (pid: number, host: string): string => {
  const start = ProcessLiveness.startTime(pid)
  return `${pid}:${host}:${randomUUID()}${start === undefined ? "" : `:${start}`}`
}

/**
 * Whether a lock with `token`, `ageMillis` old, is a dead holder's: released, older than
 * {@link STALE_MILLIS}, or taken on this host by a process that is no longer that process by
 * `ProcessLiveness`'s rule (exited, a zombie, or its pid reused: the start time in the token
 * differs). A token without a start time (an older acx's) is judged by the process's state alone.
 */
export const isStale = (token: string, ageMillis: number, host: string = os.hostname()): boolean => {
  if (ageMillis > STALE_MILLIS || isReleased(token)) return true
  const [pidText, lockHost, , startText] = token.split(":")
  const pid = Number(pidText)
  if (lockHost !== host || !Number.isInteger(pid) || pid <= 0) return false
  const start = startText !== undefined && /^\d+$/.test(startText) ? Number(startText) : undefined
  return !ProcessLiveness.isAlive(pid, start)
}

/** What the lock's steps share: the file system and the locked directory's paths. */
interface LockDir {
  readonly fs: FileSystem.FileSystem
  readonly dir: string
  readonly file: string
  readonly host: string
}

const ioError = (lock: LockDir, description: string) => (cause: unknown) =>
  new DirectoryLockError({ reason: "Io", file: lock.file, description, cause })

const readOptional = (lock: LockDir, target: string) =>
  lock.fs.readFileString(target).pipe(
    Effect.map(Option.some),
    Effect.catchIf(isNotFound, () => Effect.succeed(Option.none<string>())),
    Effect.mapError(ioError(lock, `cannot read ${target}`))
  )

/** Removes `target`; false when it was not there. */
const removeIgnoringMissing = (lock: LockDir, target: string) =>
  lock.fs.remove(target).pipe(
    Effect.as(true),
    Effect.catchIf(isNotFound, () => Effect.succeed(false)),
    Effect.mapError(ioError(lock, `cannot remove ${target}`))
  )

/** The breakers' markers in the directory; stale ones (a crashed breaker's) are removed. */
const liveMarkers = (lock: LockDir) =>
  Effect.gen(function*() {
    const names = yield* lock.fs.readDirectory(lock.dir).pipe(Effect.mapError(ioError(lock, `cannot list ${lock.dir}`)))
    const now = Date.now()
    const live: Array<string> = []
    for (const name of names) {
      if (!name.startsWith(MARKER_PREFIX)) continue
      const made = Number(name.slice(MARKER_PREFIX.length).split("-")[0])
      if (Number.isFinite(made) && now - made <= STALE_MILLIS) live.push(path.join(lock.dir, name))
      else yield* Effect.ignore(lock.fs.remove(path.join(lock.dir, name)))
    }
    return live
  })

/**
 * Takes the lock if it is free and no break is under way. The lock's handle stays open until the
 * release, which writes the tombstone through it.
 */
const tryAcquire = (lock: LockDir) =>
  Effect.gen(function*() {
    const token = tokenFor(process.pid, lock.host)
    const scope = yield* Scope.make()
    const created = yield* lock.fs.open(lock.file, { flag: "wx", mode: 0o644 }).pipe(
      Effect.tap((handle) => handle.writeAll(new TextEncoder().encode(token))),
      Effect.map((handle) => Option.some<Held>({ token, handle, scope })),
      Effect.catchIf(isAlreadyExists, () => Effect.succeed(Option.none<Held>())),
      Effect.mapError(ioError(lock, `cannot create ${lock.file}`)),
      Scope.extend(scope),
      Effect.onExit((exit) =>
        Exit.isSuccess(exit) && Option.isSome(exit.value) ? Effect.void : Scope.close(scope, exit)
      )
    )
    if (Option.isNone(created)) return created
    // A marker may hold a live lock moved aside by a breaker (step 4 of the module doc): give
    // the lock back before doing anything under it.
    if ((yield* liveMarkers(lock)).length > 0) {
      yield* release(lock, created.value)
      return Option.none<Held>()
    }
    return created
  })

/** Breaks the lock if it is a dead holder's (steps 1–3 of the module doc). */
const breakIfStale = (lock: LockDir) =>
  Effect.gen(function*() {
    const seen = yield* readOptional(lock, lock.file)
    if (Option.isNone(seen)) return
    const info = yield* Effect.option(lock.fs.stat(lock.file))
    if (Option.isNone(info)) return
    const mtime = Option.match(info.value.mtime, { onNone: () => 0, onSome: (date) => date.getTime() })
    if (isStale(seen.value, Date.now() - mtime, lock.host)) yield* breakStale(lock, seen.value)
  })

/** Steps 2–3 of the module doc (see `DirectoryLock.breakStale`). */
const breakStale = (lock: LockDir, seen: string) =>
  Effect.gen(function*() {
    const marker = path.join(lock.dir, `${MARKER_PREFIX}${Date.now()}-${process.pid}-${randomUUID()}`)
    const moved = yield* lock.fs.rename(lock.file, marker).pipe(
      Effect.as(true),
      Effect.catchIf(isNotFound, () => Effect.succeed(false)),
      Effect.mapError(ioError(lock, `cannot rename ${lock.file}`))
    )
    if (!moved) return // broken by another waiter, or released
    const captured = yield* readOptional(lock, marker)
    // a released lock is nobody's: it stays broken
    if (Option.isSome(captured) && captured.value !== seen && !isReleased(captured.value)) {
      yield* putBack(lock, marker)
    }
    yield* removeIgnoringMissing(lock, marker)
  })

/**
 * A live lock, taken after the stale one was broken, moved to `marker`: put back (link never
 * replaces; a waiter that created the lock meanwhile gives it up on seeing the marker).
 */
const putBack = (lock: LockDir, marker: string) =>
  Effect.gen(function*() {
    const deadline = Date.now() + STALE_MILLIS
    for (;;) {
      const restored = yield* lock.fs.link(marker, lock.file).pipe(
        Effect.as("restored" as const),
        Effect.catchIf(isAlreadyExists, () => Effect.succeed("busy" as const)),
        // its holder released it meanwhile and removed the marker
        Effect.catchIf(isNotFound, () => Effect.succeed("released" as const)),
        Effect.mapError(ioError(lock, `cannot restore ${lock.file}`))
      )
      if (restored !== "busy" || Date.now() > deadline) return
      yield* Effect.sleep(Duration.millis(1))
    }
  })

/**
 * Releases a lock taken here: the tombstone first, through the handle (wherever a breaker has the
 * file), then the file, or the marker a breaker moved it to.
 */
const release = (lock: LockDir, held: Held): Effect.Effect<void, DirectoryLockError> =>
  Effect.gen(function*() {
    const tombstone = `${RELEASED_PREFIX}${held.token}`
    yield* Effect.ignore(Effect.zipRight(
      held.handle.truncate(0),
      Effect.zipRight(held.handle.seek(0, "start"), held.handle.writeAll(new TextEncoder().encode(tombstone)))
    ))
    yield* Scope.close(held.scope, Exit.void)
    // removed the way a breaker removes a stale lock (a rename, then a look): a plain remove
    // after reading the tombstone would race with a breaker that moved it aside meanwhile
    // and with the next holder's new lock in its place
    yield* breakStale(lock, tombstone)
    // a breaker that moved it aside removes it when it reads the tombstone; one that stopped
    // (a crash) left a marker holding it: nobody's, removed here
    for (const marker of yield* liveMarkers(lock)) {
      const content = yield* readOptional(lock, marker)
      if (Option.isSome(content) && content.value === tombstone) yield* removeIgnoringMissing(lock, marker)
    }
  })

/** Waits for the lock (breaking a dead holder's) up to `timeoutMillis`, then fails `Timeout`. */
const acquire = (lock: LockDir, timeoutMillis: number) =>
  Effect.gen(function*() {
    yield* lock.fs.makeDirectory(lock.dir, { recursive: true }).pipe(
      Effect.mapError(ioError(lock, `cannot create ${lock.dir}`))
    )
    const start = Date.now()
    for (let attempt = 0;; attempt++) {
      const held = yield* tryAcquire(lock)
      if (Option.isSome(held)) return held.value
      yield* breakIfStale(lock)
      if (Date.now() - start > timeoutMillis) {
        const holder = Option.getOrElse(
          yield* Effect.orElseSucceed(readOptional(lock, lock.file), Option.none),
          () => ""
        )
        return yield* Effect.fail(
          new DirectoryLockError({
            reason: "Timeout",
            file: lock.file,
            description: `${lock.file} is held by another writer (${holder || "unknown"}) for over ${timeoutMillis} ms`
          })
        )
      }
      yield* Effect.sleep(Duration.millis(Math.min(50, 1 + attempt) + Math.random() * 5))
    }
  })

export const make = (options: DirectoryLockOptions): Effect.Effect<DirectoryLock, never, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const lock: LockDir = {
      fs: yield* FileSystem.FileSystem,
      dir: options.dir,
      file: path.join(options.dir, LOCK),
      host: os.hostname()
    }
    const timeoutMillis = Math.max(0, Math.round(Duration.toMillis(options.timeout)))
    const semaphore = yield* Effect.makeSemaphore(1)
    const withLock = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      semaphore.withPermits(1)(
        Effect.acquireUseRelease(
          acquire(lock, timeoutMillis),
          () => effect,
          (held) => Effect.ignore(release(lock, held))
        )
      )
    return { file: lock.file, withLock, breakStale: (seen: string) => breakStale(lock, seen) }
  })
