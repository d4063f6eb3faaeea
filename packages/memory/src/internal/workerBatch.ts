/**
 * One unit of a session's queue, done: a batch of events becomes observations, a checkpoint
 * (Stop / SessionEnd) a summary. Each is stored with its events marked done in one transaction
 * (`MemoryStore.completeBatch`). Without a model (local mode, no credentials, the budget spent,
 * replies that never parse) the unit is recorded locally (`LocalObservations`); an error fails
 * its events, which are retried on the backoff schedule.
 */
import type * as ObserverReply from "@acx/convert/ObserverReply"
import type * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as LocalObservations from "../LocalObservations.js"
import type { MemoryError } from "../MemoryError.js"
import * as MemoryStore from "../MemoryStore.js"
import * as ObserverPrompts from "../ObserverPrompts.js"
import { spentReason } from "./dailyBudget.js"
import type { ObserverAnswer } from "./observer.js"
import type { WorkerContext } from "./workerContext.js"
import { askParsed, closeObserver } from "./workerObservers.js"
import { payloadField } from "./workerParse.js"

/**
 * Batches in a row whose replies could not be read (twice each: the question and the reminder)
 * after which a session is recorded locally from then on.
 */
export const UNREADABLE_BATCHES_BEFORE_LOCAL = 2

type Done = Effect.Effect<void, MemoryError | SqlError, SqlClient.SqlClient>

/** Why the session is recorded without the model now, or `undefined` when the model may be asked. */
const localReason = (w: WorkerContext, session: MemoryStore.SessionRow) =>
  Effect.gen(function*() {
    const config = w.config
    if (config.mode === "local") return "mode is local"
    if (!w.credentials.ok) return w.credentials.reason
    if (session.observerLocalReason !== null) return session.observerLocalReason
    return spentReason(config, yield* MemoryStore.spendOn(yield* Clock.currentTimeMillis))
  })

const facts = (session: MemoryStore.SessionRow, now: number): ObserverPrompts.SessionFacts => ({
  project: session.project,
  sessionId: session.id,
  now
})

/** The events failed with `error` (retried later, `failed` after `maxAttempts`). */
const fail = (
  w: WorkerContext,
  session: MemoryStore.SessionRow,
  events: ReadonlyArray<MemoryStore.EventRow>,
  error: string,
  extra: { readonly reply?: string | undefined; readonly ledger?: ReadonlyArray<MemoryStore.LedgerEntry> }
) =>
  Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    if (extra.ledger !== undefined && extra.ledger.length > 0) yield* MemoryStore.recordLedger(extra.ledger, now)
    const failed = yield* MemoryStore.failBatch(events.map((event) => event.id), error, {
      reply: extra.reply,
      maxAttempts: w.config.maxAttempts,
      now
    })
    w.log(`session ${session.id}: events ${events.map((event) => event.id).join(",")} failed: ${error}`)
    if (failed > 0) yield* MemoryStore.setSessionStatus(session.id, "failed", error)
  })

/** The session is recorded locally from now on (`why`: what the log adds to the reason). */
const goLocal = (w: WorkerContext, session: MemoryStore.SessionRow, reason: string, why: string) =>
  Effect.gen(function*() {
    yield* MemoryStore.setObserverLocal(session.id, reason)
    yield* closeObserver(w, session.id)
    w.log(`session ${session.id}: ${reason} (${why}); recording locally from now on`)
    return { ...session, observerLocalReason: reason }
  })

/**
 * Nothing readable in the answer nor in the answer to the reminder: asking again would cost
 * the same for the same end, so the batch is recorded locally at once (never retried on the
 * model); after {@link UNREADABLE_BATCHES_BEFORE_LOCAL} such batches in a row the session
 * is recorded locally from then on. What the observer can cost a session whose replies never
 * parse is bounded by that, whatever the number of events.
 */
const unreadable = (w: WorkerContext, session: MemoryStore.SessionRow, reply: string) =>
  Effect.gen(function*() {
    const count = (w.unreadableInARow.get(session.id) ?? 0) + 1
    w.unreadableInARow.set(session.id, count)
    const shown = JSON.stringify(reply.slice(0, 200))
    if (count >= UNREADABLE_BATCHES_BEFORE_LOCAL) {
      return yield* goLocal(
        w,
        session,
        `the observer's replies had no readable XML for ${count} batches in a row`,
        `last reply ${shown}`
      )
    }
    const reason = "the observer's reply had no readable XML, twice"
    w.log(`session ${session.id}: ${reason} (${shown}); this batch is recorded locally`)
    return { ...session, observerLocalReason: reason }
  })

const isBudgetError = (answer: ObserverAnswer) => answer.error?.subtype === "error_max_budget_usd"

/**
 * What an error result said. An API error the CLI gave up on comes as subtype `success`
 * with no errors and the cause in the result's text (`API Error: Connection refused …`,
 * `API Error: 500 …`): that text is the error. Other results name their subtype and errors.
 */
const answerError = (answer: ObserverAnswer) => {
  const error = answer.error!
  const detail = (error.messages.length > 0 ? error.messages.join("; ") : answer.text).trim()
  return error.subtype === "success"
    ? `the observer's model call failed: ${detail === "" ? "no reason given" : detail}`
    : `the observer's turn ended with ${error.subtype}${detail === "" ? "" : `: ${detail}`}`
}

/**
 * Asks the observer about some events: a readable reply goes to `onReply`; a spent query
 * budget sends the session local and runs `again` on it; anything else fails the events.
 */
const consult = (
  w: WorkerContext,
  session: MemoryStore.SessionRow,
  events: ReadonlyArray<MemoryStore.EventRow>,
  prompt: (instructed: boolean) => string,
  again: (local: MemoryStore.SessionRow) => Done,
  onReply: (reply: ObserverReply.ObserverReply, ledger: ReadonlyArray<MemoryStore.LedgerEntry>) => Done
): Done =>
  Effect.gen(function*() {
    const outcome = yield* askParsed(w, session, prompt).pipe(Effect.either)
    if (outcome._tag === "Left") return yield* fail(w, session, events, outcome.left.message, {})
    const result = outcome.right
    switch (result._tag) {
      case "Error": {
        if (!isBudgetError(result.answer)) {
          return yield* fail(w, session, events, answerError(result.answer), {
            reply: result.answer.text,
            ledger: result.ledger
          })
        }
        yield* MemoryStore.recordLedger(result.ledger, yield* Clock.currentTimeMillis)
        const reason = `the observer's query budget (maxBudgetUsdPerQuery $${w.config.maxBudgetUsdPerQuery}) is spent`
        return yield* again(yield* goLocal(w, session, reason, result.answer.error?.subtype ?? "error"))
      }
      case "Unreadable":
        yield* MemoryStore.recordLedger(result.ledger, yield* Clock.currentTimeMillis)
        return yield* again(yield* unreadable(w, session, result.text))
      case "Reply":
        w.unreadableInARow.delete(session.id)
        return yield* onReply(result.reply, result.ledger)
    }
  })

/** A batch of events becomes observations (the model's, else local ones). */
const observe = (w: WorkerContext, session: MemoryStore.SessionRow, batch: ReadonlyArray<MemoryStore.EventRow>): Done =>
  Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    const complete =
      (observations: ReadonlyArray<ObserverReply.Observation>, source: "model" | "local") =>
      (ledger: ReadonlyArray<MemoryStore.LedgerEntry>) =>
        MemoryStore.completeBatch({
          sessionId: session.id,
          project: session.project,
          eventIds: batch.map((event) => event.id),
          observations,
          summary: undefined,
          source,
          ledger
        }, now)
    const reason = yield* localReason(w, session)
    if (reason !== undefined) return yield* complete(LocalObservations.observe(session.project, batch), "local")([])
    yield* consult(
      w,
      session,
      batch,
      (instructed) => ObserverPrompts.observe(w.templates, batch, { first: !instructed, session: facts(session, now) }),
      (local) => observe(w, local, batch),
      (reply, ledger) => complete(reply.observations, "model")(ledger)
    )
  })

/** A checkpoint becomes the session's summary (none when nothing happened since the last one). */
const summarise = (
  w: WorkerContext,
  session: MemoryStore.SessionRow,
  checkpoints: ReadonlyArray<MemoryStore.EventRow>
): Done =>
  Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    const covered = yield* MemoryStore.eventsSinceSummary(session.id, checkpoints[0]!.id)
    const store = (summary: ObserverReply.Summary | undefined, source: "model" | "local", extra?: {
      readonly observations: ReadonlyArray<ObserverReply.Observation>
      readonly ledger: ReadonlyArray<MemoryStore.LedgerEntry>
    }) =>
      MemoryStore.completeBatch({
        sessionId: session.id,
        project: session.project,
        eventIds: checkpoints.map((event) => event.id),
        observations: extra?.observations ?? [],
        summary,
        source,
        ledger: extra?.ledger ?? []
      }, now)
    // nothing happened since the last summary (a Stop then a SessionEnd): no model call
    if (covered.length === 0) return yield* store(undefined, "local")
    const reason = yield* localReason(w, session)
    if (reason !== undefined) {
      return yield* store(LocalObservations.summarise(session.project, covered, reason), "local")
    }
    const trigger = payloadField(checkpoints[0]!.payload, "trigger") ?? "Stop"
    // a fresh conversation (one ended for its length) has not seen them: name them
    const recorded = yield* MemoryStore.sessionObservations(session.id)
    yield* consult(
      w,
      session,
      checkpoints,
      (instructed) =>
        ObserverPrompts.summarise(w.templates, { trigger, first: !instructed, session: facts(session, now), recorded }),
      (local) => summarise(w, local, checkpoints),
      (reply, ledger) =>
        store(reply.skipSummary ? undefined : reply.summary, "model", { observations: reply.observations, ledger })
    )
  })

/** An ended session with nothing left to do is completed and its observer closed. */
const finishIfDone = (w: WorkerContext, sessionId: string) =>
  Effect.gen(function*() {
    const after = yield* MemoryStore.session(sessionId)
    const left = yield* MemoryStore.readyEvents(sessionId, Number.MAX_SAFE_INTEGER, 1)
    if (after === undefined || after.endedAt === null || left.length > 0) return
    if (after.status === "active" || after.status === "interrupted") {
      yield* MemoryStore.setSessionStatus(sessionId, "completed")
    }
    yield* closeObserver(w, sessionId)
  })

/**
 * One step for a session: a batch, a checkpoint, or nothing yet (a batch still filling).
 * Answers how many events it handled.
 */
export const step = (w: WorkerContext, sessionId: string) =>
  Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    const config = w.config
    const events = yield* MemoryStore.readyEvents(sessionId, now, config.batchSize)
    if (events.length === 0) return 0
    const session = yield* MemoryStore.session(sessionId)
    if (session === undefined) return 0
    const unit = MemoryStore.nextUnit(events)
    if (unit._tag === "Checkpoints") {
      yield* summarise(w, session, unit.events)
    } else {
      const batch = unit.events
      const filling = !unit.closed && batch.length < config.batchSize && session.endedAt === null &&
        now - batch.at(-1)!.createdAt < config.batchWaitSeconds * 1000
      if (filling) return 0
      yield* observe(w, session, batch)
    }
    yield* finishIfDone(w, sessionId)
    return unit.events.length
  })
