/**
 * `ObserverReply`: a memory observer's XML read tolerantly (fences, prose, case, whitespace,
 * entities, CDATA, missing fields, unclosed blocks), total over any input, and `parse(render(x))`
 * giving `x` back.
 */
import { ObserverReply } from "@acx/convert"
import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"

const trimmed = fc.string({ minLength: 1, maxLength: 40 }).map((text) => text.trim()).filter((text) => text !== "")
const items = fc.array(trimmed.filter((text) => !text.includes("\n")), { maxLength: 4 })

const observation = fc.record({
  type: fc.constantFrom(...ObserverReply.OBSERVATION_TYPES, "other" as const),
  title: trimmed,
  subtitle: fc.option(trimmed, { nil: undefined }),
  facts: items,
  narrative: trimmed,
  concepts: items,
  filesRead: items,
  filesModified: items
})

const summary = fc.record({
  request: trimmed,
  investigated: fc.oneof(trimmed, fc.constant("")),
  learned: fc.oneof(trimmed, fc.constant("")),
  completed: fc.oneof(trimmed, fc.constant("")),
  nextSteps: fc.oneof(trimmed, fc.constant("")),
  filesRead: items,
  filesEdited: items,
  notes: fc.oneof(trimmed, fc.constant(""))
})

describe("ObserverReply", () => {
  it("reads a reply with prose, a fence, odd case and whitespace, entities and CDATA", () => {
    const reply = ObserverReply.parse(`Here is what I saw:

\`\`\`xml
<Observation>
  <type> BugFix </type>
  <title>total() &amp; the  zero</title>
  <facts>
    <fact>total() multiplied the sum by 0</fact>
    <fact><![CDATA[a < b && c]]></fact>
  </facts>
  <narrative>
    The cart total was always 0. Removing the factor fixed it.
  </narrative>
  <concepts>- arithmetic
  - carts</concepts>
  <files_read><file>src/cart.mjs</file></files_read>
  <files_modified><file>src/cart.mjs</file></files_modified>
</Observation>
\`\`\`
<summary><request>Fix the cart</request><completed>Fixed total()</completed><next_steps>Add tests</next_steps></summary>
Thanks!`)
    expect(reply.observations).toEqual([{
      type: "bugfix",
      title: "total() & the  zero",
      subtitle: undefined,
      facts: ["total() multiplied the sum by 0", "a < b && c"],
      narrative: "The cart total was always 0. Removing the factor fixed it.",
      concepts: ["arithmetic", "carts"],
      filesRead: ["src/cart.mjs"],
      filesModified: ["src/cart.mjs"]
    }])
    expect(reply.summary).toEqual({
      request: "Fix the cart",
      investigated: "",
      learned: "",
      completed: "Fixed total()",
      nextSteps: "Add tests",
      filesRead: [],
      filesEdited: [],
      notes: ""
    })
    expect(reply.skipSummary).toBe(false)
  })

  it("takes a missing title from the narrative, drops empty observations, reads an unclosed last block", () => {
    const reply = ObserverReply.parse(
      "<observation><type>decision</type><narrative>Use SQLite for the queue. It survives crashes.</narrative></observation>" +
        "<observation><type>change</type></observation>" +
        "<observation><type>weird</type><title>Unclosed"
    )
    expect(reply.observations.map((o) => [o.type, o.title])).toEqual([
      ["decision", "Use SQLite for the queue."],
      ["other", "Unclosed"]
    ])
  })

  it("says when the model skipped the summary, and when nothing parsed", () => {
    expect(ObserverReply.parse("Nothing notable. <skip_summary/>").skipSummary).toBe(true)
    const nothing = ObserverReply.parse("Routine reads only.\n<no_observations />")
    expect([nothing.noObservations, ObserverReply.isEmpty(nothing)]).toEqual([true, false])
    expect(ObserverReply.isEmpty(ObserverReply.parse("I cannot help with that."))).toBe(true)
    expect(ObserverReply.isEmpty(ObserverReply.parse(undefined))).toBe(true)
  })

  it("property: parse(render(reply)) is the reply", () => {
    fc.assert(
      fc.property(
        fc.record({
          observations: fc.array(observation, { maxLength: 4 }),
          summary: fc.option(summary, { nil: undefined }),
          skipSummary: fc.boolean(),
          noObservations: fc.boolean()
        }),
        (reply) => {
          expect(ObserverReply.parse(ObserverReply.render(reply))).toEqual(reply)
          // wrapped in prose and a fence, the same
          expect(ObserverReply.parse(`Sure.\n\`\`\`xml\n${ObserverReply.render(reply)}\n\`\`\`\nDone.`)).toEqual(reply)
        }
      ),
      { numRuns: 300 }
    )
  })

  it("property: total over any text and any value", () => {
    const tagged = fc.array(
      fc.oneof(
        fc.string(),
        fc.constantFrom(
          "<observation>",
          "</observation>",
          "<summary>",
          "</summary>",
          "<title>",
          "</title>",
          "<facts><fact>",
          "&#xD800;",
          "&#99999999;",
          "<![CDATA[",
          "]]>",
          "<skip_summary/>"
        )
      ),
      { maxLength: 30 }
    ).map((parts) => parts.join(""))
    fc.assert(
      fc.property(fc.oneof(tagged, fc.anything()), (input) => {
        const reply = ObserverReply.parse(input)
        expect(Array.isArray(reply.observations)).toBe(true)
        for (const o of reply.observations) expect(o.title !== "" || o.narrative !== "").toBe(true)
      }),
      { numRuns: 500 }
    )
  })
})
