/**
 * `acx chat`'s `/cost` line shows dollars by the one rule (`Money.usd`): cents, thousands
 * separated, `<$0.01` for less than half a cent; never `$0.1043` beside `$12.23` (issue 32, point 9).
 */
import * as AgentUsage from "@acx/convert/AgentUsage"
import { describe, expect, it } from "vitest"
import { costLine } from "../src/internal/chatTurn.js"

const usage = (costUsd: number, lastTurnUsd: number | undefined): AgentUsage.ConversationUsage => ({
  ...AgentUsage.empty,
  costUsd,
  turns: 2,
  lastTurn: lastTurnUsd === undefined ? undefined : { ...AgentUsage.empty, costUsd: lastTurnUsd }
})

describe("/cost", () => {
  it("prints the spend and the last turn's in cents", () => {
    expect(costLine(usage(1234.5678, 0.1043))).toBe(
      "cost: $1,234.57 over 2 turns; tokens in 0, out 0, cache read 0, cache write 0; last turn $0.10"
    )
  })

  it("a spend under half a cent is <$0.01, none is $0.00", () => {
    expect(costLine(usage(0.0004, undefined))).toMatch(/^cost: <\$0\.01 over 2 turns;/)
    expect(costLine(usage(0, 0))).toMatch(/^cost: \$0\.00 over .*; last turn \$0\.00$/)
  })
})
