/**
 * The session page's live updates, shared: one watcher and one reader per transcript (and
 * masking), the folded view state kept once, each update folded once, masked and serialised
 * once (when a stream first needs it) and fanned out to every open event stream of that
 * transcript. A stream still resumes from its own cursor (a byte offset in a file, an entry index
 * in a store: `transcriptSource.ts`): the updates read since the reader opened are kept (up to a
 * cap) and replayed from the one that starts there; a cursor that is not such a start (the
 * transcript grew while the page read it) is caught up on privately, once, up to where the shared
 * reader is, and the stream then joins it. The reader closes when its last stream goes; a
 * truncated or replaced transcript sends every stream `reload` and closes it; a stream whose
 * client stopped reading is sent `reload` past a backlog of updates. What to look at and when
 * (`fs.watch`, the store clock) is the source's.
 */
import type * as ClaudeProjects from "@acx/claude-code/ClaudeProjects"
import type * as Pricing from "@acx/convert/Pricing"
import * as SessionFold from "@acx/convert/SessionFold"
import type * as SessionItem from "@acx/convert/SessionItem"
import * as Effect from "effect/Effect"
import * as ExecutionStrategy from "effect/ExecutionStrategy"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as SecretMask from "../SecretMask.js"
import type * as SessionView from "../SessionView.js"
import type * as UiApi from "../UiApi.js"
import { subagentRows } from "./subagentRows.js"
import type { ReadOptions } from "./transcriptLines.js"
import type { Transcript, TranscriptSource } from "./transcriptSource.js"

/** One event of the stream (`data: …`), the line masked as the stream asked. */
const event = (line: SessionView.SessionLine): string => `data: ${JSON.stringify(line)}\n\n`

const encoder = new TextEncoder()

// compared by identity: the stream ends after it
const RELOAD = encoder.encode(event({ type: "reload" }))
const NOTHING = new Uint8Array(0)

/**
 * How many bytes of the transcript a reader keeps the updates of, for streams that resume from
 * an older offset (the items of a range are at most about as large as the range).
 */
export const REPLAY_CAP = 64 * 1024 * 1024

/** How many updates may wait for one stream's client before it is told to reload instead. */
export const BACKLOG = 1024

/** Options of {@link make}. */
export interface LiveOptions {
  /** Default {@link BACKLOG}. */
  readonly backlog?: number | undefined
  /**
   * The session's figure (the header's tokens and dollars, subagents included), sent as a `usage`
   * line when it changed: after the transcript gained a prompt or an assistant message's usage,
   * or a subagent's transcript changed. None: no `usage` lines.
   */
  readonly figure?:
    | ((
      session: ClaudeProjects.SessionFile,
      pricing: Pricing.PricingTable
    ) => Effect.Effect<UiApi.SessionFigure, unknown>)
    | undefined
}

// The fold masks each text before cutting it (a secret is never cut in half first).
const masker = (mask: boolean): (text: string) => string => mask ? SecretMask.maskText : (text) => text

/**
 * One update: the lines read from `start` to `end`, as the lines the streams get; serialised
 * (masked, JSON, UTF-8) once, when a stream first needs it: a reader opened for a page that
 * already has the whole file sends nothing and pays for no serialisation.
 */
interface Update {
  readonly start: number
  readonly end: number
  readonly lines: ReadonlyArray<SessionView.SessionLine>
  bytes: Uint8Array | undefined
}

/** The shared reader of one transcript (with one masking). */
interface Reader {
  readonly key: string
  readonly transcript: Transcript
  readonly mask: boolean
  readonly pricing: Pricing.PricingTable
  readonly lock: Effect.Semaphore
  readonly scope: Scope.CloseableScope
  readonly streams: Set<Queue.Queue<Uint8Array>>
  state: SessionFold.State
  offset: number
  lines: number
  identity: number | undefined
  updates: Array<Update>
  kept: number
  lastSubagents: string
  /** The last figure sent (JSON), and what each counted item looked like then. */
  lastUsage: string
  readonly counted: Map<string, string>
  closed: boolean
  holders: number
}

/** The shared readers of a running server. */
export interface LiveTranscripts {
  /**
   * The events (`data: …\n\n`, the first a `retry:` hint, then a `: ping` now and then) of the
   * lines appended to `session`'s transcript after cursor `from`, while the stream is consumed.
   */
  readonly events: (
    session: ClaudeProjects.SessionFile,
    from: number,
    mask: boolean,
    pricing: Pricing.PricingTable
  ) => Stream.Stream<Uint8Array, unknown>
  /** How many readers and streams are open, and how many times a transcript was read (from any offset). */
  readonly counts: () => { readonly readers: number; readonly streams: number; readonly reads: number }
}

/** How often an open event stream gets a comment (proxies and browsers keep it open). */
export const HEARTBEAT = "25 seconds"
/** The first event of a stream: how long a browser waits before it reconnects. */
export const RETRY = encoder.encode("retry: 2000\n\n")
/** The heartbeat's comment. */
export const PING = encoder.encode(": ping\n\n")

/** The shared readers; every one closes with `scope` (the server's). */
export const make = (
  source: TranscriptSource,
  options: LiveOptions = {}
): Effect.Effect<LiveTranscripts, never, Scope.Scope> =>
  Effect.gen(function*() {
    const backlog = options.backlog ?? BACKLOG
    const serverScope = yield* Effect.scope
    const readers = new Map<string, Reader>()
    const registry = yield* Effect.makeSemaphore(1)
    let reads = 0

    // A tool result changes its call's item, not the figure: only a new prompt, a new assistant
    // message or new usage on one moves it.
    const countsIn = (reader: Reader, item: SessionItem.Item): boolean => {
      if (item.kind !== "prompt" && item.kind !== "assistant") return false
      const mark = item.kind === "assistant" ? JSON.stringify(item.usage ?? null) : ""
      if (reader.counted.get(item.key) === mark) return false
      reader.counted.set(item.key, mark)
      return true
    }

    // The session's figure as a `usage` line when it changed since the last one sent; nothing
    // when no figure is asked for or its fold failed (the figure stays as it was, the stream goes on).
    const usageLine = (reader: Reader, session: ClaudeProjects.SessionFile) =>
      options.figure === undefined
        ? Effect.succeed<Array<SessionView.SessionLine>>([])
        : options.figure(session, reader.pricing).pipe(
          Effect.map((usage): Array<SessionView.SessionLine> => {
            const text = JSON.stringify(usage)
            if (text === reader.lastUsage) return []
            reader.lastUsage = text
            return [{ type: "usage", usage }]
          }),
          Effect.orElseSucceed((): Array<SessionView.SessionLine> => [])
        )

    const read = (transcript: Transcript, from: ReadOptions) => {
      reads++
      return transcript.lines(from)
    }

    const bytesOf = (reader: Reader, update: Update): Uint8Array => {
      if (update.bytes === undefined) {
        const show = SecretMask.shown(reader.mask)
        update.bytes = encoder.encode(update.lines.map((line) => event(show(line))).join(""))
      }
      return update.bytes
    }

    // A stream whose client stopped reading falls behind; past `backlog` updates it is sent `reload`
    // instead and dropped (the page reads the session afresh) rather than held in memory forever.
    const offerAll = (reader: Reader, bytes: Uint8Array) =>
      Effect.sync(() => {
        for (const queue of reader.streams) {
          const waiting = Option.getOrElse(queue.unsafeSize(), () => backlog)
          if (waiting < backlog) queue.unsafeOffer(bytes)
          else {
            reader.streams.delete(queue)
            queue.unsafeOffer(RELOAD)
          }
        }
      })

    const keep = (reader: Reader, update: Update) => {
      reader.updates.push(update)
      reader.kept += update.end - update.start
      while (reader.kept > REPLAY_CAP && reader.updates.length > 0) {
        const dropped = reader.updates.shift()!
        reader.kept -= dropped.end - dropped.start
      }
    }

    // Ends the reader: every stream gets `reload` (and ends); the next stream opens a new reader.
    // Its watcher stops when the last stream has gone (`release`): this may run on the watcher's
    // own fiber, which cannot wait for its own end.
    const close = (reader: Reader) =>
      Effect.gen(function*() {
        if (reader.closed) return
        reader.closed = true
        yield* offerAll(reader, RELOAD)
        if (readers.get(reader.key) === reader) readers.delete(reader.key)
      })

    // Reads what was appended since the reader's offset (under the reader's lock).
    const catchUp = (reader: Reader, session: ClaudeProjects.SessionFile) =>
      Effect.gen(function*() {
        if (reader.closed) return
        const now = Option.flatten(yield* Effect.option(reader.transcript.extent))
        if (Option.isNone(now)) return yield* close(reader)
        const { end: size, identity } = now.value
        if (size < reader.offset || (reader.identity !== undefined && identity !== reader.identity)) {
          return yield* close(reader)
        }
        reader.identity ??= identity
        if (size === reader.offset) return
        const start = reader.offset
        const lines: Array<SessionView.SessionLine> = []
        let moved = false
        yield* read(reader.transcript, { from: start, linesBefore: reader.lines, until: size, includeTorn: false })
          .pipe(
            Stream.runForEach((chunk) =>
              Effect.sync(() => {
                const result = SessionFold.fold(reader.state, chunk.inputs)
                reader.state = result.state
                reader.offset = chunk.end
                reader.lines = chunk.lines
                if (result.items.length > 0) lines.push({ type: "items", items: result.items })
                if (result.items.map((item) => countsIn(reader, item)).some((changed) => changed)) moved = true
              })
            )
          )
        if (reader.offset === start) return
        if (moved) lines.push(...yield* usageLine(reader, session))
        if (lines.length > 0) lines.push({ type: "end", bytes: reader.offset, lines: reader.lines })
        const update: Update = { start, end: reader.offset, lines, bytes: undefined }
        keep(reader, update)
        if (lines.length > 0 && reader.streams.size > 0) yield* offerAll(reader, bytesOf(reader, update))
      }).pipe(Effect.catchAllCause(() => close(reader)))

    const subagentsChanged = (reader: Reader, session: ClaudeProjects.SessionFile) =>
      Effect.gen(function*() {
        if (reader.closed) return
        // a subagent's transcript grew (its figure counts in the session's) or one appeared
        const usage = yield* usageLine(reader, session)
        if (usage.length > 0) yield* offerAll(reader, encoder.encode(event(SecretMask.shown(reader.mask)(usage[0]!))))
        const agents = yield* source.projects.listSubagents(session.projectKey, session.sessionId)
        const text = event(SecretMask.shown(reader.mask)({ type: "subagents", subagents: subagentRows(agents) }))
        if (text === reader.lastSubagents) return
        reader.lastSubagents = text
        yield* offerAll(reader, encoder.encode(text))
      }).pipe(Effect.catchAllCause(() => Effect.void))

    // The source's signals (`fs.watch`, the store clock): each only says "look", the reader reads
    // what is new.
    const watch = (reader: Reader, session: ClaudeProjects.SessionFile) => {
      const signals = source.watch(session, reader.transcript)
      return signals.pipe(
        Stream.runForEach((signal) =>
          reader.lock.withPermits(1)(
            signal === "transcript" ? catchUp(reader, session) : subagentsChanged(reader, session)
          )
        ),
        // the directory went away, or could not be watched: the pages reload
        Effect.catchAllCause(() => Effect.void),
        Effect.zipRight(reader.lock.withPermits(1)(close(reader))),
        // started while a stream acquires its reader (uninterruptible): the watcher itself must
        // stay interruptible, or closing the reader's scope would wait for it forever
        Effect.interruptible,
        Effect.forkIn(reader.scope)
      )
    }

    // The open reader of the transcript (a new one when none is), held until `release`.
    const hold = (
      session: ClaudeProjects.SessionFile,
      transcript: Transcript,
      mask: boolean,
      pricing: Pricing.PricingTable
    ) =>
      registry.withPermits(1)(Effect.gen(function*() {
        const key = `${mask ? "masked" : "open"}:${transcript.id}`
        const open = readers.get(key)
        if (open !== undefined && !open.closed) {
          open.holders++
          return open
        }
        const reader: Reader = {
          key,
          transcript,
          mask,
          pricing,
          lock: yield* Effect.makeSemaphore(1),
          scope: yield* Scope.fork(serverScope, ExecutionStrategy.sequential),
          streams: new Set(),
          state: SessionFold.initial(pricing, masker(mask)),
          offset: 0,
          lines: 0,
          identity: undefined,
          updates: [],
          kept: 0,
          lastSubagents: "",
          lastUsage: "",
          counted: new Map(),
          closed: false,
          holders: 1
        }
        readers.set(key, reader)
        yield* watch(reader, session)
        return reader
      }))

    const release = (reader: Reader) =>
      registry.withPermits(1)(Effect.suspend(() => {
        reader.holders--
        if (reader.holders > 0) return Effect.void
        if (readers.get(reader.key) === reader) readers.delete(reader.key)
        reader.closed = true
        return Scope.close(reader.scope, Exit.void)
      }))

    // A stream's own catch-up from an offset the reader has no update starting at: the lines up
    // to `from` folded again without a word, then those up to `until` (where the reader is) sent.
    const privateCatchUp = (reader: Reader, from: number, until: number): Effect.Effect<Uint8Array, unknown> =>
      Effect.gen(function*() {
        const show = SecretMask.shown(reader.mask)
        let state = SessionFold.initial(reader.pricing, masker(reader.mask))
        let offset = 0
        let lines = 0
        yield* read(reader.transcript, { from: 0, linesBefore: 0, until: from, includeTorn: false }).pipe(
          Stream.runForEach((chunk) =>
            Effect.sync(() => {
              state = SessionFold.fold(state, chunk.inputs).state
              offset = chunk.end
              lines = chunk.lines
            })
          )
        )
        let text = ""
        // (a `from` inside a torn last line can be past the reader: nothing to send then)
        if (offset >= until) return NOTHING
        yield* read(reader.transcript, { from: offset, linesBefore: lines, until, includeTorn: false }).pipe(
          Stream.runForEach((chunk) =>
            Effect.sync(() => {
              const result = SessionFold.fold(state, chunk.inputs)
              state = result.state
              offset = chunk.end
              lines = chunk.lines
              if (result.items.length > 0) text += event(show({ type: "items", items: result.items }))
            })
          )
        )
        return text === "" ? NOTHING : encoder.encode(text + event({ type: "end", bytes: offset, lines }))
      })

    // Joins `reader` at `from`: what the stream is owed before the reader's next update, and the
    // queue the next updates arrive on (registered under the reader's lock: none is missed).
    const join = (reader: Reader, session: ClaudeProjects.SessionFile, from: number) =>
      reader.lock.withPermits(1)(Effect.gen(function*() {
        if (from > reader.offset) yield* catchUp(reader, session)
        // one place more than the backlog: for the `reload` that ends a stream left behind
        const queue = yield* Queue.bounded<Uint8Array>(backlog + 1)
        if (reader.closed) {
          yield* Queue.offer(queue, RELOAD)
          return { queue, owed: Stream.empty }
        }
        reader.streams.add(queue)
        if (from === reader.offset) return { queue, owed: Stream.empty }
        const first = reader.updates.findIndex((update) => update.start === from)
        if (first >= 0) {
          const owed = reader.updates.slice(first).filter((update) => update.lines.length > 0)
          return { queue, owed: Stream.fromIterable(owed.map((update) => bytesOf(reader, update))) }
        }
        // an offset inside an update or before the kept ones: caught up on alone, up to here
        return { queue, owed: Stream.fromEffect(privateCatchUp(reader, from, reader.offset)) }
      }))

    const leave = (reader: Reader, queue: Queue.Queue<Uint8Array>) =>
      Effect.zipRight(Effect.sync(() => reader.streams.delete(queue)), Queue.shutdown(queue))

    const events: LiveTranscripts["events"] = (session, from, mask, pricing) =>
      Stream.unwrapScoped(Effect.gen(function*() {
        const found = yield* source.transcript(session, null)
        if (Option.isNone(found)) return Stream.make(RETRY, RELOAD)
        const transcript = found.value
        const first = yield* transcript.extent
        // a cursor past the end (a file replaced since the page read it): the page reads afresh
        if (Option.isNone(first) || from > first.value.end) return Stream.make(RETRY, RELOAD)
        const reader = yield* Effect.acquireRelease(hold(session, transcript, mask, pricing), release)
        const { owed, queue } = yield* Effect.acquireRelease(
          join(reader, session, from),
          ({ queue }) => leave(reader, queue)
        )
        const data = owed.pipe(
          Stream.filter((bytes) => bytes.length > 0),
          Stream.concat(Stream.fromQueue(queue)),
          Stream.takeUntil((bytes) => bytes === RELOAD)
        )
        return Stream.make(RETRY).pipe(
          Stream.concat(data),
          Stream.merge(Stream.tick(HEARTBEAT).pipe(Stream.as(PING)), { haltStrategy: "left" })
        )
      }))

    const counts = () => ({
      readers: readers.size,
      streams: [...readers.values()].reduce((sum, reader) => sum + reader.streams.size, 0),
      reads
    })
    return { events, counts }
  })
