/**
 * The session page's live updates, shared: one watcher and one reader per transcript (and
 * masking), the folded view state kept once, each update folded once, masked and serialised
 * once (when a stream first needs it) and fanned out to every open event stream of that
 * transcript. A stream still resumes from its own cursor (a byte offset in a file, an entry index
 * in a store: `transcriptSource.ts`): the updates read since the reader opened are kept (up to a
 * cap) and replayed from the one that starts there; a cursor that is not such a start (the
 * transcript grew while the page read it) is caught up on privately, once, up to where the shared
 * reader is, and the stream then joins it. The readers are an `RcMap`: the reader closes when
 * its last stream goes; a
 * truncated or replaced transcript sends every stream `reload` and closes it; a stream whose
 * client stopped reading is sent `reload` past a backlog of updates. What to look at and when
 * (`fs.watch`, the store clock) is the source's.
 */
import type * as ClaudeProjects from "@acx/claude-code/ClaudeProjects"
import type * as Pricing from "@acx/convert/Pricing"
import * as SessionFold from "@acx/convert/SessionFold"
import type * as SessionItem from "@acx/convert/SessionItem"
import * as Effect from "effect/Effect"
import * as Equal from "effect/Equal"
import * as Hash from "effect/Hash"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as RcMap from "effect/RcMap"
import type * as Scope from "effect/Scope"
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
  readonly key: ReaderKey
  readonly transcript: Transcript
  readonly mask: boolean
  readonly pricing: Pricing.PricingTable
  readonly lock: Effect.Semaphore
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
}

/**
 * A reader's key in the `RcMap`: the transcript, its masking and the reader's generation (a
 * closed reader's successor is a new entry); equal by those alone, it carries what the first
 * stream opens the reader with.
 */
class ReaderKey implements Equal.Equal {
  constructor(
    readonly id: string,
    readonly session: ClaudeProjects.SessionFile,
    readonly transcript: Transcript,
    readonly mask: boolean,
    readonly pricing: Pricing.PricingTable
  ) {}
  [Equal.symbol](that: Equal.Equal): boolean {
    return that instanceof ReaderKey && that.id === this.id
  }
  [Hash.symbol](): number {
    return Hash.string(this.id)
  }
}

/** What every step of a server's live readers shares. */
interface Shared {
  readonly source: TranscriptSource
  readonly options: LiveOptions
  readonly backlog: number
  /** The open readers (a closed one leaves at once, before its last stream goes). */
  readonly open: Set<Reader>
  /** The generation of each transcript's current reader. */
  readonly generations: Map<string, number>
  readers: RcMap.RcMap<ReaderKey, Reader> | undefined
  reads: number
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
const usageLine = (shared: Shared, reader: Reader, session: ClaudeProjects.SessionFile) =>
  shared.options.figure === undefined
    ? Effect.succeed<Array<SessionView.SessionLine>>([])
    : shared.options.figure(session, reader.pricing).pipe(
      Effect.map((usage): Array<SessionView.SessionLine> => {
        const text = JSON.stringify(usage)
        if (text === reader.lastUsage) return []
        reader.lastUsage = text
        return [{ type: "usage", usage }]
      }),
      Effect.orElseSucceed((): Array<SessionView.SessionLine> => [])
    )

const read = (shared: Shared, transcript: Transcript, from: ReadOptions) => {
  shared.reads++
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
const offerAll = (shared: Shared, reader: Reader, bytes: Uint8Array) =>
  Effect.sync(() => {
    for (const queue of reader.streams) {
      const waiting = Option.getOrElse(queue.unsafeSize(), () => shared.backlog)
      if (waiting < shared.backlog) queue.unsafeOffer(bytes)
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

// The key of the transcript's current reader.
const currentKey = (
  shared: Shared,
  session: ClaudeProjects.SessionFile,
  transcript: Transcript,
  mask: boolean,
  pricing: Pricing.PricingTable
): ReaderKey => {
  const base = `${mask ? "masked" : "open"}:${transcript.id}`
  return new ReaderKey(`${base}#${shared.generations.get(base) ?? 0}`, session, transcript, mask, pricing)
}

// Ends the reader: every stream gets `reload` (and ends); the next stream opens a new reader (the
// next generation). Its watcher stops when the last stream has gone (the `RcMap` closes its
// scope): this may run on the watcher's own fiber, which cannot wait for its own end.
const close = (shared: Shared, reader: Reader) =>
  Effect.gen(function*() {
    if (reader.closed) return
    reader.closed = true
    shared.open.delete(reader)
    yield* offerAll(shared, reader, RELOAD)
    const base = `${reader.mask ? "masked" : "open"}:${reader.transcript.id}`
    const generation = shared.generations.get(base) ?? 0
    if (reader.key.id === `${base}#${generation}`) shared.generations.set(base, generation + 1)
    if (shared.readers !== undefined) yield* RcMap.invalidate(shared.readers, reader.key)
  })

// The lines read from the reader's offset to `size`, folded into its state; `moved` when the
// session's figure may have changed.
const foldNew = (shared: Shared, reader: Reader, size: number) =>
  Effect.gen(function*() {
    const lines: Array<SessionView.SessionLine> = []
    let moved = false
    yield* read(shared, reader.transcript, {
      from: reader.offset,
      linesBefore: reader.lines,
      until: size,
      includeTorn: false
    }).pipe(
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
    return { lines, moved }
  })

// Reads what was appended since the reader's offset (under the reader's lock).
const catchUp = (shared: Shared, reader: Reader, session: ClaudeProjects.SessionFile) =>
  Effect.gen(function*() {
    if (reader.closed) return
    const now = Option.flatten(yield* Effect.option(reader.transcript.extent))
    if (Option.isNone(now)) return yield* close(shared, reader)
    const { end: size, identity } = now.value
    if (size < reader.offset || (reader.identity !== undefined && identity !== reader.identity)) {
      return yield* close(shared, reader)
    }
    reader.identity ??= identity
    if (size === reader.offset) return
    const start = reader.offset
    const { lines, moved } = yield* foldNew(shared, reader, size)
    if (reader.offset === start) return
    if (moved) lines.push(...yield* usageLine(shared, reader, session))
    if (lines.length > 0) lines.push({ type: "end", bytes: reader.offset, lines: reader.lines })
    const update: Update = { start, end: reader.offset, lines, bytes: undefined }
    keep(reader, update)
    if (lines.length > 0 && reader.streams.size > 0) yield* offerAll(shared, reader, bytesOf(reader, update))
  }).pipe(Effect.catchAllCause(() => close(shared, reader)))

const subagentsChanged = (shared: Shared, reader: Reader, session: ClaudeProjects.SessionFile) =>
  Effect.gen(function*() {
    if (reader.closed) return
    // a subagent's transcript grew (its figure counts in the session's) or one appeared
    const usage = yield* usageLine(shared, reader, session)
    if (usage.length > 0) {
      yield* offerAll(shared, reader, encoder.encode(event(SecretMask.shown(reader.mask)(usage[0]!))))
    }
    const agents = yield* shared.source.projects.listSubagents(session.projectKey, session.sessionId)
    const text = event(SecretMask.shown(reader.mask)({ type: "subagents", subagents: subagentRows(agents) }))
    if (text === reader.lastSubagents) return
    reader.lastSubagents = text
    yield* offerAll(shared, reader, encoder.encode(text))
  }).pipe(Effect.catchAllCause(() => Effect.void))

// The source's signals (`fs.watch`, the store clock): each only says "look", the reader reads
// what is new. Runs in the reader's scope (closed with the reader's `RcMap` entry).
const watch = (shared: Shared, reader: Reader, session: ClaudeProjects.SessionFile) =>
  shared.source.watch(session, reader.transcript).pipe(
    Stream.runForEach((signal) =>
      reader.lock.withPermits(1)(
        signal === "transcript" ? catchUp(shared, reader, session) : subagentsChanged(shared, reader, session)
      )
    ),
    // the directory went away, or could not be watched: the pages reload
    Effect.catchAllCause(() => Effect.void),
    Effect.zipRight(reader.lock.withPermits(1)(close(shared, reader))),
    // started while a stream acquires its reader (uninterruptible): the watcher itself must
    // stay interruptible, or closing the reader's scope would wait for it forever
    Effect.interruptible,
    Effect.forkScoped
  )

// The `RcMap`'s lookup: a new reader of the key's transcript, watching it until its scope closes.
const openReader = (shared: Shared, key: ReaderKey): Effect.Effect<Reader, never, Scope.Scope> =>
  Effect.gen(function*() {
    const reader: Reader = {
      key,
      transcript: key.transcript,
      mask: key.mask,
      pricing: key.pricing,
      lock: yield* Effect.makeSemaphore(1),
      streams: new Set(),
      state: SessionFold.initial(key.pricing, masker(key.mask)),
      offset: 0,
      lines: 0,
      identity: undefined,
      updates: [],
      kept: 0,
      lastSubagents: "",
      lastUsage: "",
      counted: new Map(),
      closed: false
    }
    shared.open.add(reader)
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        reader.closed = true
        shared.open.delete(reader)
      })
    )
    yield* watch(shared, reader, key.session)
    return reader
  })

// A stream's own catch-up from an offset the reader has no update starting at: the lines up
// to `from` folded again without a word, then those up to `until` (where the reader is) sent.
const privateCatchUp = (
  shared: Shared,
  reader: Reader,
  from: number,
  until: number
): Effect.Effect<Uint8Array, unknown> =>
  Effect.gen(function*() {
    const show = SecretMask.shown(reader.mask)
    let state = SessionFold.initial(reader.pricing, masker(reader.mask))
    let offset = 0
    let lines = 0
    yield* read(shared, reader.transcript, { from: 0, linesBefore: 0, until: from, includeTorn: false }).pipe(
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
    yield* read(shared, reader.transcript, { from: offset, linesBefore: lines, until, includeTorn: false }).pipe(
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
const join = (shared: Shared, reader: Reader, session: ClaudeProjects.SessionFile, from: number) =>
  reader.lock.withPermits(1)(Effect.gen(function*() {
    if (from > reader.offset) yield* catchUp(shared, reader, session)
    // one place more than the backlog: for the `reload` that ends a stream left behind
    const queue = yield* Queue.bounded<Uint8Array>(shared.backlog + 1)
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
    return { queue, owed: Stream.fromEffect(privateCatchUp(shared, reader, from, reader.offset)) }
  }))

const leave = (reader: Reader, queue: Queue.Queue<Uint8Array>) =>
  Effect.zipRight(Effect.sync(() => reader.streams.delete(queue)), Queue.shutdown(queue))

// One stream's events: the transcript's current reader held for the stream's scope, joined at `from`.
const eventsOf = (
  shared: Shared,
  readers: RcMap.RcMap<ReaderKey, Reader>
): LiveTranscripts["events"] =>
(session, from, mask, pricing) =>
  Stream.unwrapScoped(Effect.gen(function*() {
    const found = yield* shared.source.transcript(session, null)
    if (Option.isNone(found)) return Stream.make(RETRY, RELOAD)
    const transcript = found.value
    const first = yield* transcript.extent
    // a cursor past the end (a file replaced since the page read it): the page reads afresh
    if (Option.isNone(first) || from > first.value.end) return Stream.make(RETRY, RELOAD)
    const reader = yield* RcMap.get(readers, currentKey(shared, session, transcript, mask, pricing))
    const { owed, queue } = yield* Effect.acquireRelease(
      join(shared, reader, session, from),
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

/** The shared readers; every one closes with `scope` (the server's). */
export const make = (
  source: TranscriptSource,
  options: LiveOptions = {}
): Effect.Effect<LiveTranscripts, never, Scope.Scope> =>
  Effect.gen(function*() {
    const shared: Shared = {
      source,
      options,
      backlog: options.backlog ?? BACKLOG,
      open: new Set(),
      generations: new Map(),
      readers: undefined,
      reads: 0
    }
    const readers = yield* RcMap.make({ lookup: (key: ReaderKey) => openReader(shared, key) })
    shared.readers = readers
    const counts = () => ({
      readers: shared.open.size,
      streams: [...shared.open].reduce((sum, reader) => sum + reader.streams.size, 0),
      reads: shared.reads
    })
    return { events: eventsOf(shared, readers), counts }
  })
