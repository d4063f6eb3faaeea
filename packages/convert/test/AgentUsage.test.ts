/**
 * `AgentUsage`: tokens counted once per response (its last report), dollars read from the
 * cumulative totals and never summed, a turn's cost the rise of the total, a process that did
 * not carry the saved total added on top; total over any events.
 */
import { AgentEvent, AgentUsage } from "@acx/convert"
import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"

const { AgentEvent: E } = AgentEvent
const MODELS = ["claude-sonnet-4-5", "claude-haiku-4-5", "claude-opus-5-5"]

const zero = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }

/** A successful turn's result with the session's cumulative cost (nothing else matters here). */
const result = (
  totalCostUsd: number,
  tokensByModel: { readonly [model: string]: typeof zero } = {}
) =>
  E.TurnComplete({
    sessionId: "s",
    subtype: "success",
    isError: false,
    result: undefined,
    errors: [],
    totalCostUsd,
    tokens: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    costByModel: {},
    tokensByModel,
    numTurns: 1,
    durationMs: 0
  })

const tokens = fc.record({
  input: fc.nat({ max: 50_000 }),
  output: fc.nat({ max: 5_000 }),
  cacheRead: fc.nat({ max: 100_000 }),
  cacheWrite: fc.nat({ max: 10_000 })
})

/** A response: its model and the reports of its lines, the figures growing to the last. */
const response = fc.record({ model: fc.constantFrom(...MODELS), final: tokens, lines: fc.integer({ min: 1, max: 4 }) })
/** A turn: its responses, what it cost, and whether its process restarted without the saved total. */
const turn = fc.record({
  responses: fc.array(response, { maxLength: 4 }),
  cost: fc.double({ min: 0, max: 2, noNaN: true }),
  fresh: fc.boolean()
})

describe("AgentUsage", () => {
  it("property: per-response last report, per-turn and total tokens by model, dollars from cumulative totals", () => {
    fc.assert(
      fc.property(fc.array(turn, { maxLength: 8 }), (turns) => {
        const events: Array<AgentEvent.AgentEvent> = []
        let processTotal = 0
        let spent = 0
        let responseId = 0
        const expectedByModel: Record<
          string,
          { input: number; output: number; cacheRead: number; cacheWrite: number }
        > = {}
        for (const t of turns) {
          for (const r of t.responses) {
            const messageId = `msg_${responseId++}`
            for (let line = 1; line <= r.lines; line++) {
              // growing figures; the last line reports the final usage
              const scale = line / r.lines
              events.push(E.Usage({
                messageId,
                model: r.model,
                parentToolUseId: null,
                tokens: line === r.lines ? r.final : {
                  input: Math.floor(r.final.input * scale),
                  output: Math.floor(r.final.output * scale),
                  cacheRead: Math.floor(r.final.cacheRead * scale),
                  cacheWrite: Math.floor(r.final.cacheWrite * scale)
                }
              }))
            }
            const sum = expectedByModel[r.model] ?? { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }
            expectedByModel[r.model] = {
              input: sum.input + r.final.input,
              output: sum.output + r.final.output,
              cacheRead: sum.cacheRead + r.final.cacheRead,
              cacheWrite: sum.cacheWrite + r.final.cacheWrite
            }
          }
          // the process's cumulative total: restarted (fresh) or carried on
          if (t.fresh && processTotal > 0) {
            spent += processTotal
            processTotal = 0
          }
          // a fresh process whose first turn costs less than the old total shows as a reset; one
          // that costs more cannot be told from a carried total (nor can the SDK's own figure)
          processTotal += t.cost
          events.push(result(processTotal))
        }
        const usage = AgentUsage.ofEvents(events)
        expect(usage.turns).toBe(turns.length)
        expect(usage.tokensByModel).toEqual(expectedByModel)
        const total = Object.values(expectedByModel).reduce((n, t) => n + t.input, 0)
        expect(usage.tokens.input).toBe(total)
        expect(usage.pending).toEqual([])
        // dollars: never below what was reported, never summed twice
        expect(usage.costUsd).toBeGreaterThanOrEqual(processTotal - 1e-9)
        expect(usage.costUsd).toBeLessThanOrEqual(spent + processTotal + 1e-9)
        // the turns' costs add up to the conversation's
        const folded = turns.length === 0
          ? []
          : events.reduce<Array<number>>((costs, event, index) => {
            if (event._tag !== "TurnComplete") return costs
            const upTo = AgentUsage.ofEvents(events.slice(0, index + 1))
            return [...costs, upTo.lastTurn!.costUsd]
          }, [])
        expect(folded.reduce((a, b) => a + b, 0)).toBeCloseTo(usage.costUsd, 9)
      }),
      { numRuns: 300 }
    )
  })

  it("property: tokens by model read from cumulative results (a turn's the rise), a reset process added on top", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({ spent: fc.dictionary(fc.constantFrom(...MODELS), tokens), fresh: fc.boolean() }),
          { maxLength: 8 }
        ),
        (turns) => {
          const events: Array<AgentEvent.AgentEvent> = []
          let reading: Record<string, typeof zero> = {}
          const expected: Record<string, typeof zero> = {}
          const turnTotals: Array<number> = []
          for (const t of turns) {
            // a fresh process starts counting again (from nothing, so its reading drops)
            if (t.fresh && Object.keys(reading).length > 0) reading = {}
            let turnInput = 0
            for (const [model, spent] of Object.entries(t.spent)) {
              const was = reading[model] ?? zero
              reading = {
                ...reading,
                [model]: {
                  input: was.input + spent.input,
                  output: was.output + spent.output,
                  cacheRead: was.cacheRead + spent.cacheRead,
                  cacheWrite: was.cacheWrite + spent.cacheWrite
                }
              }
              const sum = expected[model] ?? zero
              expected[model] = {
                input: sum.input + spent.input,
                output: sum.output + spent.output,
                cacheRead: sum.cacheRead + spent.cacheRead,
                cacheWrite: sum.cacheWrite + spent.cacheWrite
              }
              turnInput += spent.input
            }
            // preliminary per-line reports are ignored when the result has the figures
            events.push(E.Usage({ messageId: "m", model: MODELS[0], parentToolUseId: null, tokens: zero }))
            events.push(result(0, reading))
            turnTotals.push(turnInput)
          }
          const usage = AgentUsage.ofEvents(events)
          const nonZero = Object.fromEntries(
            Object.entries(expected).filter(([, t]) => t.input + t.output + t.cacheRead + t.cacheWrite > 0)
          )
          const counted = Object.fromEntries(
            Object.entries(usage.tokensByModel).filter(([, t]) => t.input + t.output + t.cacheRead + t.cacheWrite > 0)
          )
          // a fresh process whose first reading is not below the last cannot be told from a
          // carried one (the same limit as dollars): only count what is certain
          const resets = turns.slice(1).some((t) => t.fresh)
          if (!resets) expect(counted).toEqual(nonZero)
          const perTurn = events.flatMap((event, index) =>
            event._tag === "TurnComplete"
              ? [AgentUsage.ofEvents(events.slice(0, index + 1)).lastTurn!.tokens.input]
              : []
          )
          if (!resets) expect(perTurn).toEqual(turnTotals)
          expect(perTurn.reduce((a, b) => a + b, 0)).toBe(usage.tokens.input)
        }
      ),
      { numRuns: 300 }
    )
  })

  it("a resumed process that starts from the saved total is read, not summed; a fresh one is added", () => {
    // two turns in one process (0.10 → 0.25), then a resumed process (0.25 carried → 0.40)
    const carried = AgentUsage.ofEvents([result(0.1), result(0.25), result(0.4)])
    expect(carried.costUsd).toBeCloseTo(0.4, 12)
    expect(carried.lastTurn!.costUsd).toBeCloseTo(0.15, 12)
    // then a process that did not carry the total (0.05): spent before is kept
    const fresh = AgentUsage.step(carried, result(0.05))
    expect(fresh.costUsd).toBeCloseTo(0.45, 12)
    expect(fresh.lastTurn!.costUsd).toBeCloseTo(0.05, 12)
  })

  it("property: total over any events, with any figures (NaN, negative, infinite count as 0)", () => {
    const figure = fc.oneof(fc.double(), fc.constantFrom(Number.NaN, -1, Number.POSITIVE_INFINITY))
    const event = fc.oneof(
      fc.record({
        messageId: fc.option(fc.string(), { nil: undefined }),
        model: fc.option(fc.string(), { nil: undefined })
      })
        .chain((base) =>
          fc.record({ input: figure, output: figure, cacheRead: figure, cacheWrite: figure }).map((t) =>
            E.Usage({ ...base, tokens: t, parentToolUseId: null })
          )
        ),
      figure.map(result),
      fc.constant(E.Status({ status: "idle" }))
    )
    fc.assert(
      fc.property(fc.array(event, { maxLength: 30 }), (events) => {
        const usage = AgentUsage.ofEvents(events)
        for (
          const n of [
            usage.costUsd,
            usage.tokens.input,
            usage.tokens.output,
            usage.tokens.cacheRead,
            usage.tokens.cacheWrite
          ]
        ) {
          expect(Number.isFinite(n) && n >= 0).toBe(true)
        }
      }),
      { numRuns: 500 }
    )
  })
})
