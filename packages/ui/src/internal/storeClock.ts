/**
 * A store's clock followed: the page over a store learns that entries arrived when the clock
 * (`StoreCatalog.clock`, strictly increasing, moved by every append whoever wrote) moves.
 *
 * How it is looked at, in one place: on SQLite, `fs.watch` on the database and its WAL says when
 * to look (a few writes close together are one look), with a slow poll besides (a watch can be
 * lost); on Postgres, the store's notifications (`StoreCatalog.changes`: `LISTEN` on the schema's
 * channel, which a trigger notifies at every writer's commit, and once more after each
 * reconnection) say when, with a slow safety-net poll ({@link LISTENED_POLL}: a connection that
 * hangs without the socket noticing, a notification queue the server dropped); a Postgres store
 * that announces nothing (one on an application's own client) is polled every {@link POLL}.
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as nodeFs from "node:fs"
import * as path from "node:path"

/** How often the clock is read when nothing says when to (Postgres). */
export const POLL = Duration.millis(500)

/** How often a watched SQLite store's clock is read all the same (a lost watch costs this much). */
export const WATCHED_POLL = Duration.seconds(2)

/**
 * How often a store that announces its clock is read all the same: a safety net only, so long
 * that a page that sees an append sooner saw it through a notification.
 */
export const LISTENED_POLL = Duration.seconds(30)

// A signal whenever the SQLite file or its WAL changes; the ones that arrive while the last is
// being handled are one.
const fileChanges = (file: string): Stream.Stream<void> => {
  const names = new Set([path.basename(file), `${path.basename(file)}-wal`])
  return Stream.asyncScoped<void>((emit) =>
    Effect.acquireRelease(
      Effect.sync(() => {
        const watcher = nodeFs.watch(path.dirname(file), (_event, name) => {
          if (name !== null && names.has(name)) void emit.single(undefined)
        })
        // the poll goes on without it
        watcher.on("error", () => void emit.end())
        return watcher
      }),
      (watcher) => Effect.sync(() => watcher.close())
    )
  ).pipe(Stream.catchAll(() => Stream.empty), Stream.buffer({ capacity: 1, strategy: "sliding" }))
}

/**
 * The clock's new values while consumed: `read` at each tick (the store's `changed` signals and a
 * slow poll; the SQLite `file`'s changes and a slow poll; else a poll every {@link POLL}), a
 * value only when it differs from the last one read. The first read is where it starts from (not
 * a move). A read that fails (a server that went away) is skipped: the next tick reads again.
 */
export const clockMoves = <E>(
  read: Effect.Effect<number, E>,
  options: {
    readonly file?: string | undefined
    readonly signals?: Stream.Stream<"changed" | "lost"> | undefined
    readonly poll?: Duration.DurationInput | undefined
    /** The clock already read: where it starts (else its first read is). */
    readonly from?: number | undefined
  } = {}
): Stream.Stream<number> => {
  const ticks: Stream.Stream<unknown> = options.signals !== undefined
    ? Stream.merge(
      options.signals.pipe(Stream.filter((signal) => signal === "changed")),
      Stream.tick(options.poll ?? LISTENED_POLL)
    ).pipe(Stream.buffer({ capacity: 1, strategy: "sliding" }))
    : options.file === undefined
    ? Stream.tick(options.poll ?? POLL)
    : Stream.merge(fileChanges(options.file), Stream.tick(options.poll ?? WATCHED_POLL))
  let last = options.from
  return ticks.pipe(
    Stream.mapEffect(() => Effect.option(read)),
    Stream.filterMap(Option.flatMap((now) => {
      const moved = last !== undefined && now !== last
      last = now
      return moved ? Option.some(now) : Option.none()
    }))
  )
}
