import * as StatuslineLine from "@acx/claude-code/StatuslineLine"
import * as StatuslinePayload from "@acx/claude-code/StatuslinePayload"
import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"

const NOW = Date.UTC(2026, 10, 28, 9, 0, 0)
const plain = { color: false, nowMs: NOW }
const noTotals: StatuslineLine.Totals = { todayCostUSD: undefined, block: undefined }

// what Claude Code 2.1.332 sent a statusline command after one turn (recorded in a pty)
const subscriberInput = {
  session_id: "2955e966-cf77-404a-9ab1-338a1fee76c6",
  transcript_path: "/home/u/.claude/projects/-p/2955e966-cf77-404a-9ab1-338a1fee76c6.jsonl",
  cwd: "/p",
  model: { id: "claude-opus-5-5", display_name: "Opus 5.5" },
  workspace: { current_dir: "/p", project_dir: "/p", added_dirs: [] },
  version: "2.1.332",
  cost: { total_cost_usd: 0.011996, total_duration_ms: 5611 },
  context_window: {
    total_input_tokens: 2934,
    total_output_tokens: 13,
    context_window_size: 1000000,
    current_usage: {
      input_tokens: 2934,
      output_tokens: 13,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0
    },
    used_percentage: 0,
    remaining_percentage: 100
  },
  rate_limits: {
    five_hour: { used_percentage: 37, resets_at: NOW / 1000 + 2 * 3600 + 14 * 60 + 30 },
    seven_day: { used_percentage: 81.6, resets_at: NOW / 1000 + 3 * 86400 + 4 * 3600 + 60 }
  }
}

describe("StatuslinePayload", () => {
  it("reads every field Claude Code sends", () => {
    const payload = StatuslinePayload.fromJson(subscriberInput)
    expect(payload).toEqual({
      sessionId: subscriberInput.session_id,
      transcriptPath: subscriberInput.transcript_path,
      cwd: "/p",
      version: "2.1.332",
      modelId: "claude-opus-5-5",
      modelName: "Opus 5.5",
      sessionCostUSD: 0.011996,
      sessionDurationMs: 5611,
      contextPercentage: 0,
      contextWindowSize: 1000000,
      fiveHour: { usedPercentage: 37, resetsAtMs: NOW + (2 * 3600 + 14 * 60 + 30) * 1000 },
      sevenDay: { usedPercentage: 81.6, resetsAtMs: NOW + (3 * 86400 + 4 * 3600 + 60) * 1000 }
    })
  })

  it("computes the context fill from current_usage when used_percentage is null", () => {
    const payload = StatuslinePayload.fromJson({
      context_window: {
        context_window_size: 200000,
        used_percentage: null,
        current_usage: { input_tokens: 1000, cache_creation_input_tokens: 9000, cache_read_input_tokens: 40000 }
      }
    })
    expect(payload.contextPercentage).toBe(25)
  })

  it("is empty for anything that is not an object, and never reads inherited keys", () => {
    for (const text of ["", "null", "[]", "42", "\"x\"", "{", "\u0000"]) {
      expect(StatuslinePayload.decode(text)).toBe(StatuslinePayload.empty)
    }
    expect(StatuslinePayload.decode("{\"model\":{},\"__proto__\":{\"session_id\":\"x\"}}").sessionId).toBeUndefined()
  })

  it("takes any JSON without throwing", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (json) => {
        const payload = StatuslinePayload.fromJson(json)
        return Object.keys(payload).length === Object.keys(StatuslinePayload.empty).length
      }),
      { numRuns: 2_000 }
    )
  })
})

describe("StatuslineLine", () => {
  it("renders the default line", () => {
    const line = StatuslineLine.render(StatuslinePayload.fromJson(subscriberInput), {
      todayCostUSD: 12.345,
      block: undefined
    }, plain)
    expect(line).toBe("Opus 5.5 │ ctx 0% │ session $0.01 │ today $12.35 │ 5h 37% ↻2h14m │ 7d 82% ↻3d4h")
  })

  it("shows the current block instead of the 5-hour window without rate_limits, and drops empty fields' separators", () => {
    const { rate_limits: _, ...apiKeyInput } = subscriberInput
    const block = { startMs: NOW - 3_600_000, endMs: NOW + 4 * 3_600_000, costUSD: 3.2, burnUSDPerHour: 1.6 }
    const line = StatuslineLine.render(
      StatuslinePayload.fromJson(apiKeyInput),
      { todayCostUSD: undefined, block },
      plain
    )
    expect(line).toBe("Opus 5.5 │ ctx 0% │ session $0.01 │ block $3.20 $1.60/h ↻4h00m")
    // an ended block is not shown
    expect(
      StatuslineLine.render(StatuslinePayload.fromJson(apiKeyInput), {
        todayCostUSD: 1,
        block: { ...block, endMs: NOW }
      }, plain)
    ).toBe("Opus 5.5 │ ctx 0% │ session $0.01 │ today $1.00")
  })

  it("fills a template, keeping unknown names as written", () => {
    const payload = StatuslinePayload.fromJson(subscriberInput)
    expect(
      StatuslineLine.render(payload, noTotals, { ...plain, template: "[{model}] {today_cost} {seven_day} {nope}" })
    )
      .toBe("[Opus 5.5] 7d 82% ↻3d4h {nope}")
  })

  it("colours with ANSI only when asked", () => {
    const payload = StatuslinePayload.fromJson(subscriberInput)
    expect(StatuslineLine.render(payload, noTotals, { color: true, nowMs: NOW })).toContain("\u001b[")
    expect(StatuslineLine.render(payload, noTotals, plain)).not.toContain("\u001b")
  })

  it("formats money and countdowns", () => {
    expect(StatuslineLine.money(0)).toBe("$0.00")
    expect(StatuslineLine.money(999.994)).toBe("$999.99")
    expect(StatuslineLine.money(2351.76)).toBe("$2,352")
    expect(StatuslineLine.money(Number.NaN)).toBe("$?")
    expect(StatuslineLine.countdown(-5)).toBe("now")
    expect(StatuslineLine.countdown(30_000)).toBe("<1m")
    expect(StatuslineLine.countdown(45 * 60_000)).toBe("45m")
    expect(StatuslineLine.countdown(2 * 3_600_000 + 5 * 60_000)).toBe("2h05m")
    expect(StatuslineLine.countdown(3 * 86_400_000 + 4 * 3_600_000)).toBe("3d4h")
  })

  it("is always one printable line, whatever the input and template", () => {
    fc.assert(
      fc.property(
        fc.jsonValue(),
        fc.option(fc.string(), { nil: undefined }),
        fc.option(fc.double(), { nil: undefined }),
        (json, template, today) => {
          const line = StatuslineLine.render(
            StatuslinePayload.fromJson(json),
            { todayCostUSD: today, block: undefined },
            { color: false, nowMs: NOW, template }
          )

          return !/[\u0000-\u001f\u007f]/.test(line)
        }
      ),
      { numRuns: 2_000 }
    )
  })

  it("renders a model name with control characters harmlessly", () => {
    const payload = StatuslinePayload.fromJson({ model: { display_name: "Evil\u001b[2J\nmodel" } })
    // one rule with every other text acx prints (`TerminalText`): each control character as `?`
    expect(StatuslineLine.render(payload, noTotals, plain)).toBe("Evil?[2J?model")
  })

  it("prints a minimal line for no input", () => {
    expect(StatuslineLine.minimal(noTotals, plain)).toBe("acx")
    expect(StatuslineLine.minimal({ todayCostUSD: 4, block: undefined }, plain)).toBe("acx │ today $4.00")
  })
})
