/**
 * The memory's pure modules, property-tested: capture is total and never lets a private part
 * or a planted secret through, a duplicate delivery keeps its key, the same payload on another
 * turn gets another; cutting bounds every
 * string; the context never exceeds its budget and keeps entries newest first; local
 * observations are total; settings decode any JSON; exclusion globs; search's match
 * expression and ids.
 */
import { FastCheck as fc } from "effect"
import { describe, expect, it } from "vitest"
import * as HookCapture from "../src/HookCapture.js"
import * as LocalObservations from "../src/LocalObservations.js"
import * as MemoryConfig from "../src/MemoryConfig.js"
import * as MemoryContext from "../src/MemoryContext.js"
import * as MemorySearch from "../src/MemorySearch.js"

const config = MemoryConfig.defaults
const SECRET = "sk-ant-api03-" + "Zq9".repeat(10)

describe("HookCapture.capture", () => {
  it("property: any JSON in, a capture or a skip out", () => {
    fc.assert(
      fc.property(fc.constantFrom(...HookCapture.MEMORY_HOOK_EVENTS, "Other"), fc.jsonValue(), (event, input) => {
        const result = HookCapture.capture(event, input, JSON.stringify(input), config)
        expect(["Capture", "Skip"]).toContain(result._tag)
      })
    )
  })

  it("property: a planted secret or private part never survives into what is stored", () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.jsonValue(), (before, after, extra) => {
        const planted = `${before}<private>${SECRET}</private> ${SECRET} ${after}`
        const prompt = HookCapture.capture(
          "UserPromptSubmit",
          { session_id: "s", cwd: "/p", hook_event_name: "UserPromptSubmit", prompt: planted },
          "raw",
          config
        )
        const tool = HookCapture.capture(
          "PostToolUse",
          {
            session_id: "s",
            cwd: "/p",
            hook_event_name: "PostToolUse",
            tool_name: "Bash",
            tool_use_id: "t",
            tool_input: { command: planted, extra },
            tool_response: { [SECRET]: planted }
          },
          "raw",
          config
        )
        for (const result of [prompt, tool]) {
          if (result._tag === "Capture") expect(JSON.stringify(result)).not.toContain(SECRET)
        }
      }),
      { numRuns: 200 }
    )
  })

  it("property: two deliveries of one tool call share the idempotency key", () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.jsonValue(), fc.jsonValue(), (id, first, second) => {
        const call = (response: unknown) =>
          HookCapture.capture(
            "PostToolUse",
            {
              session_id: "s",
              cwd: "/p",
              hook_event_name: "PostToolUse",
              tool_name: "Read",
              tool_use_id: id,
              tool_input: {},
              tool_response: response
            },
            "raw",
            config
          )
        const a = call(first)
        const b = call(second)
        expect(a._tag === "Capture" && b._tag === "Capture" && a.queued?.idempotencyKey === b.queued?.idempotencyKey)
          .toBe(true)
      })
    )
  })

  it("property: a prompt, Stop or end is keyed by its turn: the same call once, another turn anew", () => {
    const turn = fc.oneof(
      fc.record({ promptId: fc.uuid(), position: fc.constant(undefined) }),
      fc.record({ promptId: fc.constant(undefined), position: fc.nat() })
    )
    fc.assert(
      fc.property(
        fc.constantFrom("UserPromptSubmit", "Stop", "SessionEnd"),
        fc.string({ minLength: 1 }),
        turn,
        turn,
        (event, words, one, other) => {
          const key = (at: { readonly promptId: string | undefined; readonly position: number | undefined }) => {
            const input = {
              session_id: "s",
              cwd: "/p",
              hook_event_name: event,
              prompt: `${words}.`,
              last_assistant_message: words,
              reason: "other",
              ...(at.promptId === undefined ? {} : { prompt_id: at.promptId })
            }
            const raw = JSON.stringify(input)
            const position = HookCapture.needsPosition(input) ? at.position : undefined
            const result = HookCapture.capture(event, input, raw, config, position)
            return result._tag === "Capture" ? result.queued?.idempotencyKey : undefined
          }
          expect(key(one)).toBeDefined()
          // a re-delivery of the same call
          expect(key(one)).toBe(key(one))
          // the same words on another turn
          const sameTurn = one.promptId === other.promptId && one.position === other.position
          expect(key(one) === key(other)).toBe(sameTurn)
        }
      )
    )
  })

  it("property: cut bounds every string and array", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.integer({ min: 1, max: 50 }), (value, max) => {
        const walk = (item: unknown): void => {
          if (typeof item === "string") {
            expect(item.length).toBeLessThanOrEqual(max + 60)
          } else if (Array.isArray(item)) {
            expect(item.length).toBeLessThanOrEqual(HookCapture.MAX_ARRAY_ITEMS + 1)
            item.forEach(walk)
          } else if (typeof item === "object" && item !== null) Object.values(item).forEach(walk)
        }
        walk(HookCapture.cut(value, max))
      })
    )
  })
})

describe("MemoryContext.render", () => {
  const entry = fc.oneof(
    fc.record({
      _tag: fc.constant("Observation" as const),
      id: fc.nat(),
      type: fc.constantFrom("bugfix", "feature", "discovery"),
      title: fc.string(),
      subtitle: fc.option(fc.string(), { nil: null }),
      createdAt: fc.integer({ min: 0, max: 4_000_000_000_000 })
    }),
    fc.record({
      _tag: fc.constant("Summary" as const),
      id: fc.nat(),
      request: fc.string(),
      completed: fc.string(),
      learned: fc.string(),
      nextSteps: fc.string(),
      createdAt: fc.integer({ min: 0, max: 4_000_000_000_000 })
    })
  )

  it("property: within the budget, newest first, every shown entry with its id", () => {
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 40 }), fc.integer({ min: 1, max: 3000 }), (entries, budget) => {
        const text = MemoryContext.render("/p", entries, budget)
        if (text === "") return
        expect(MemoryContext.estimateTokens(text)).toBeLessThanOrEqual(budget)
        const lines = text.split("\n").filter((line) => line.startsWith("- "))
        const shown = lines.map((line) => /^- ([OS]\d+) /.exec(line)?.[1])
        expect(shown.every((id) => id !== undefined)).toBe(true)
        const times = lines.map((line) => Date.parse(`${/\d{4}-\d{2}-\d{2} \d{2}:\d{2}/.exec(line)![0]}Z`))
        expect([...times].sort((a, b) => b - a)).toEqual(times)
      })
    )
  })
})

describe("LocalObservations", () => {
  const event = fc.record({
    id: fc.nat(),
    kind: fc.constantFrom("prompt" as const, "tool" as const, "tool_failure" as const, "summarise" as const),
    toolName: fc.option(fc.constantFrom("Read", "Edit", "Bash", "Write", "Grep"), { nil: null }),
    payload: fc.oneof(fc.string(), fc.jsonValue().map((value) => JSON.stringify(value))),
    createdAt: fc.nat()
  })

  it("property: total on any events, and every observation has a title", () => {
    fc.assert(
      fc.property(fc.array(event, { maxLength: 30 }), (events) => {
        for (const observation of LocalObservations.observe("/p", events)) expect(observation.title).not.toBe("")
        LocalObservations.summarise("/p", events, "test")
      })
    )
  })

  it("files edited and read, commands and failures, relative to the project", () => {
    const events = [
      {
        id: 1,
        kind: "tool" as const,
        toolName: "Read",
        payload: JSON.stringify({ tool_input: { file_path: "/p/a.ts" } }),
        createdAt: 0
      },
      {
        id: 2,
        kind: "tool" as const,
        toolName: "Write",
        payload: JSON.stringify({ tool_input: { file_path: "/elsewhere/b.ts" } }),
        createdAt: 0
      },
      {
        id: 3,
        kind: "tool_failure" as const,
        toolName: "Bash",
        payload: JSON.stringify({ tool_input: { command: "make\nmore" }, error: "\nboom\nstack" }),
        createdAt: 0
      }
    ]
    expect(LocalObservations.gather("/p", events)).toEqual({
      prompts: [],
      filesRead: ["a.ts"],
      filesEdited: ["/elsewhere/b.ts"],
      commands: [{ command: "make", failed: true }],
      errors: ["Bash: boom"]
    })
  })
})

describe("MemoryConfig", () => {
  it("property: any JSON decodes to settings, with a problem line per bad key", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (json) => {
        const { config: decoded, problems } = MemoryConfig.decode({ memory: json })
        expect(Object.keys(decoded).sort()).toEqual(Object.keys(MemoryConfig.defaults).sort())
        expect(problems.every((line) => !line.includes("\n"))).toBe(true)
      })
    )
    expect(MemoryConfig.decode({ memory: { contextTokens: -1, mode: "local", colour: 1 } })).toEqual({
      config: { ...MemoryConfig.defaults, mode: "local" },
      problems: [
        "memory.contextTokens must be a positive whole number: using 1500",
        "memory.colour is not a setting (ignored)"
      ]
    })
  })

  it("excludes a project by path or glob, its subdirectories too, never by base name", () => {
    const excluded = { ...MemoryConfig.defaults, excludeProjects: ["/work/secret", "~/clients/*", "/tmp/**/private"] }
    expect(MemoryConfig.isExcluded(excluded, "/work/secret/api", "/home/me")).toBe(true)
    expect(MemoryConfig.isExcluded(excluded, "/other/secret", "/home/me")).toBe(false)
    expect(MemoryConfig.isExcluded(excluded, "/home/me/clients/acme/web", "/home/me")).toBe(true)
    expect(MemoryConfig.isExcluded(excluded, "/tmp/a/b/private", "/home/me")).toBe(true)
    expect(MemoryConfig.isExcluded(excluded, "/tmp/a/b/public", "/home/me")).toBe(false)
  })
})

describe("MemorySearch ids and queries", () => {
  it("property: formatId and parseId round-trip; any text gives a safe match expression or none", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("observation" as const, "summary" as const, "prompt" as const),
        fc.nat(),
        (kind, id) => {
          expect(MemorySearch.parseId(MemorySearch.formatId(kind, id))).toEqual({ kind, id })
        }
      )
    )
    fc.assert(
      fc.property(fc.string(), (query) => {
        const match = MemorySearch.toMatchExpression(query)
        if (match !== undefined) expect(match).toMatch(/^"[\p{L}\p{N}_]+"( "[\p{L}\p{N}_]+")*$/u)
      })
    )
    expect(MemorySearch.toMatchExpression("cart AND (tax OR \"x\")*")).toBe("\"cart\" \"AND\" \"tax\" \"OR\" \"x\"")
    expect(MemorySearch.parseId("s3")).toEqual({ kind: "summary", id: 3 })
    expect(MemorySearch.parseId("12")).toEqual({ kind: "observation", id: 12 })
    expect(MemorySearch.parseId("X1")).toBeUndefined()
  })
})
