/**
 * The worker's warm observers: one conversation per Claude Code session, at most
 * `maxObservers` at once (the least recently used ends first), and the question asked with a
 * reminder when nothing in the reply parses. A conversation grown past
 * `observerMaxContextTokens` is ended after its answer: the next batch starts a fresh one.
 */
import * as ObserverReply from "@acx/convert/ObserverReply"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as MemoryStore from "../MemoryStore.js"
import type { ObserverAnswer } from "./observer.js"
import type { Warm, WorkerContext } from "./workerContext.js"
import { parseUsage } from "./workerParse.js"

/** What one question (and its reminder) came to, with the ledger of every turn it took. */
export type Asked =
  | { readonly _tag: "Error"; readonly answer: ObserverAnswer; readonly ledger: ReadonlyArray<MemoryStore.LedgerEntry> }
  | {
    readonly _tag: "Reply"
    readonly reply: ObserverReply.ObserverReply
    readonly ledger: ReadonlyArray<MemoryStore.LedgerEntry>
  }
  | { readonly _tag: "Unreadable"; readonly text: string; readonly ledger: ReadonlyArray<MemoryStore.LedgerEntry> }

/** Ends the observer of `sessionId`, if one is warm. */
export const closeObserver = (w: WorkerContext, sessionId: string): Effect.Effect<void> =>
  Effect.suspend(() => {
    const entry = w.warm.get(sessionId)
    w.warm.delete(sessionId)
    return entry === undefined ? Effect.void : entry.observer.close
  })

/** Ends every warm observer (all at once when `concurrently`). */
export const closeAll = (w: WorkerContext, concurrently: boolean): Effect.Effect<void> =>
  Effect.forEach([...w.warm.keys()], (id) => closeObserver(w, id), {
    discard: true,
    concurrency: concurrently ? "unbounded" : undefined
  })

/** The session's warm observer, else a new one (resuming its conversation where one was kept). */
const observerFor = (w: WorkerContext, session: MemoryStore.SessionRow) =>
  Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    const existing = w.warm.get(session.id)
    if (existing !== undefined) {
      existing.lastUsed = now
      return existing
    }
    // a slot for it: the least recently used observer ends first
    while (w.warm.size >= w.maxObservers) {
      const oldest = [...w.warm.entries()].sort((a, b) => a[1].lastUsed - b[1].lastUsed)[0]!
      yield* closeObserver(w, oldest[0])
    }
    const observer = yield* w.startObserver({
      sessionId: session.id,
      resume: session.observerSessionId ?? undefined,
      usage: parseUsage(session.observerUsage)
    })
    const entry: Warm = { observer, instructed: session.observerSessionId !== null, lastUsed: now }
    w.warm.set(session.id, entry)
    return entry
  })

/** Asks, and once more with a reminder when nothing in the reply parses. */
const askTwice = (w: WorkerContext, session: MemoryStore.SessionRow, prompt: (instructed: boolean) => string) =>
  Effect.gen(function*() {
    const entry = yield* observerFor(w, session)
    const answers: Array<ObserverAnswer> = []
    const ask = (text: string) =>
      entry.observer.ask(text).pipe(
        Effect.tap((answer) =>
          Effect.sync(() => answers.push(answer)).pipe(
            Effect.zipRight(MemoryStore.saveObserver(session.id, answer))
          )
        )
      )
    const first = yield* ask(prompt(entry.instructed))
    entry.instructed = true
    const ledger = () => answers.flatMap((answer) => answer.ledger)
    if (first.error !== undefined) return { _tag: "Error", answer: first, ledger: ledger() } satisfies Asked
    const reply = ObserverReply.parse(first.text)
    if (!ObserverReply.isEmpty(reply)) return { _tag: "Reply", reply, ledger: ledger() } satisfies Asked
    const second = yield* ask(w.templates.reminder)
    if (second.error !== undefined) return { _tag: "Error", answer: second, ledger: ledger() } satisfies Asked
    const retried = ObserverReply.parse(second.text)
    return (ObserverReply.isEmpty(retried)
      ? { _tag: "Unreadable", text: second.text, ledger: ledger() }
      : { _tag: "Reply", reply: retried, ledger: ledger() }) satisfies Asked as Asked
  })

/**
 * {@link askTwice}, then a conversation that has grown past `observerMaxContextTokens` is
 * ended: the session's next batch starts a fresh one (with the instructions again).
 */
export const askParsed = (w: WorkerContext, session: MemoryStore.SessionRow, prompt: (instructed: boolean) => string) =>
  Effect.tap(askTwice(w, session, prompt), (result: Asked) => {
    const last = result.ledger.at(-1)
    const context = last === undefined
      ? 0
      : last.inputTokens + last.cacheReadTokens + last.cacheCreationTokens
    if (context < w.config.observerMaxContextTokens) return Effect.void
    w.log(`session ${session.id}: the observer read ${context} tokens; its next batch starts a fresh conversation`)
    return closeObserver(w, session.id).pipe(Effect.zipRight(MemoryStore.forgetObserver(session.id)))
  })
