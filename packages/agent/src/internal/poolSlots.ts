/**
 * The agent pool's admission: at most `maxWarm` slots, taken first come first served. When every
 * slot is taken, the first send in line takes the slot of a conversation no send holds (the pool
 * picks it, and it closes before the newcomer's process starts); otherwise the send waits until
 * its deadline, then fails with `Timeout`. A taken slot is freed with the scope that took it.
 * What the pool changes alongside (which conversations are warm, who holds them) changes under
 * the same `lock`.
 */
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import type * as Scope from "effect/Scope"
import { AgentError } from "../AgentError.js"

/** A taken slot; `handedOver` once its conversation was picked to make room for another. */
export interface Slot {
  handedOver: boolean
}

/** A conversation closed to make room: its slot, and how to close it (done when its process ended). */
export interface Victim {
  readonly slot: Slot
  readonly close: Effect.Effect<void>
}

export interface PoolSlots {
  readonly maxWarm: number
  readonly acquireTimeout: Duration.Duration
  readonly lock: Effect.Semaphore
  taken: number
  // a newcomer never takes a slot or a victim ahead of a send already waiting (it would run
  // first, being already scheduled)
  readonly queue: Array<object>
  /** Done (and replaced) when a slot may have come free. */
  readonly changed: Ref.Ref<Deferred.Deferred<void>>
}

export const make = (maxWarm: number, acquireTimeout: Duration.Duration): Effect.Effect<PoolSlots> =>
  Effect.gen(function*() {
    return {
      maxWarm,
      acquireTimeout,
      lock: yield* Effect.makeSemaphore(1),
      taken: 0,
      queue: [],
      changed: yield* Ref.make(yield* Deferred.make<void>())
    }
  })

/** Runs `f` under the lock. */
export const locked = <A>(slots: PoolSlots, f: () => A): Effect.Effect<A> => slots.lock.withPermits(1)(Effect.sync(f))

/** Wakes every send waiting for a slot. */
export const signal = (slots: PoolSlots): Effect.Effect<void> =>
  Effect.flatMap(
    Deferred.make<void>(),
    (next) => Effect.flatMap(Ref.getAndSet(slots.changed, next), (previous) => Deferred.succeed(previous, undefined))
  )

const leaveQueue = (slots: PoolSlots, ticket: object) => {
  const index = slots.queue.indexOf(ticket)
  if (index !== -1) slots.queue.splice(index, 1)
  return index === 0
}

type Admission =
  | { readonly _tag: "Free" }
  | { readonly _tag: "Victim"; readonly victim: Victim }
  | { readonly _tag: "Wait"; readonly changed: Deferred.Deferred<void> }

/** One look (under the lock) at whether the send of `ticket` may take a slot now. */
const admission = (
  slots: PoolSlots,
  ticket: object,
  changed: Deferred.Deferred<void>,
  pickVictim: () => Victim | undefined
): Admission => {
  const first = slots.queue.length === 0 || slots.queue[0] === ticket
  if (first && slots.taken < slots.maxWarm) {
    slots.taken += 1
    leaveQueue(slots, ticket)
    return { _tag: "Free" }
  }
  const victim = first ? pickVictim() : undefined
  if (victim !== undefined) {
    // its slot passes to this send: no newcomer takes it while the victim closes
    victim.slot.handedOver = true
    leaveQueue(slots, ticket)
    return { _tag: "Victim", victim }
  }
  if (!slots.queue.includes(ticket)) slots.queue.push(ticket)
  return { _tag: "Wait", changed }
}

/** Waits for a slot to come free until `deadline`: false when it did not in time. */
const waitForSlot = (changed: Deferred.Deferred<void>, deadline: number): Effect.Effect<boolean> =>
  Effect.gen(function*() {
    const left = deadline - (yield* Clock.currentTimeMillis)
    return left > 0 && Option.isSome(yield* Deferred.await(changed).pipe(Effect.timeoutOption(Duration.millis(left))))
  })

/** Frees the slot with the scope (unless it was handed over) and wakes the waiting sends. */
const holdSlot = (slots: PoolSlots): Effect.Effect<Slot, never, Scope.Scope> => {
  const slot: Slot = { handedOver: false }
  return Effect.as(
    Effect.addFinalizer(() =>
      locked(slots, () => {
        if (!slot.handedOver) slots.taken -= 1
      }).pipe(Effect.zipRight(signal(slots)))
    ),
    slot
  )
}

/**
 * Takes a slot for the send of `ticket` (waiting until `deadline`), for the current scope;
 * `pickVictim` runs under the lock when every slot is taken.
 */
export const take = (
  slots: PoolSlots,
  ticket: object,
  deadline: number,
  pickVictim: () => Victim | undefined
): Effect.Effect<Slot, AgentError, Scope.Scope> =>
  Effect.uninterruptibleMask((restore) =>
    Effect.gen(function*() {
      while (true) {
        const changed = yield* Ref.get(slots.changed)
        const next = yield* locked(slots, () => admission(slots, ticket, changed, pickVictim))
        // the victim's process ends before this one starts: never maxWarm + 1 processes
        if (next._tag === "Victim") yield* next.victim.close
        if (next._tag !== "Wait") return yield* holdSlot(slots)
        if (yield* restore(waitForSlot(next.changed, deadline))) continue
        return yield* new AgentError({
          reason: "Timeout",
          description: `every one of the ${slots.maxWarm} warm conversations is busy (waited ${
            Duration.format(slots.acquireTimeout)
          } for a slot)`
        })
      }
    }).pipe(
      // a send that stops waiting (timeout, interruption) leaves the queue; the next one looks again
      Effect.ensuring(
        locked(slots, () => leaveQueue(slots, ticket)).pipe(
          Effect.flatMap((wasFirst) => (wasFirst ? signal(slots) : Effect.void))
        )
      )
    )
  )
