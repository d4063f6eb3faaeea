import * as Merge from "@acx/claude-code/ClaudeSettingsMerge"
import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"

const EVENTS = ["SessionStart", "UserPromptSubmit", "PostToolUse", "PostToolUseFailure", "Stop", "SessionEnd"]
const ours: ReadonlyArray<Merge.HookEntry> = EVENTS.map((event) => ({
  event,
  command: `acx hook ${event}`,
  timeout: event === "SessionStart" ? 15 : 10
}))
const ourCommands = ours.map((entry) => entry.command)
const server: Merge.McpServer = { command: "acx", args: ["memory", "mcp"] }
const runs = { numRuns: 500 }

const mergedValue = <A>(result: Merge.MergeResult<A>): A => {
  if (!result.ok) throw new Error(`refused: ${result.problem}`)
  return result.value
}

const problemOf = <A>(result: Merge.MergeResult<A>): string => {
  if (result.ok) throw new Error("expected a refusal")
  return result.problem
}

// Byte-level comparison: equal values with the same key order.
const sameJson = (a: unknown, b: unknown) => expect(JSON.stringify(a)).toBe(JSON.stringify(b))

// -- generators --------------------------------------------------------------------------------
// The user's commands never collide with acx's (a user hook with acx's exact command is acx's to
// the merge: "already present"). Hook containers are non-empty: an empty `hooks` object or event
// list that acx's add fills and its remove empties again is removed with acx's entries (see the
// unit test below), so the round trip is exact for every other file.

const key = fc.string({ maxLength: 8 })
const json = fc.jsonValue({ maxDepth: 2 })
const userCommand = fc.string({ maxLength: 12 }).map((text) => `user ${text}`)
const userHook = fc.oneof(
  fc.record(
    { type: fc.constant("command"), command: userCommand, timeout: fc.nat(600), extra: json },
    { requiredKeys: ["type", "command"] }
  ),
  fc.record({ type: fc.constant("prompt"), prompt: fc.string() }),
  fc.record({ type: fc.constant("http"), url: fc.webUrl() })
)
const matcherGroup = fc.record(
  { matcher: fc.string({ maxLength: 6 }), hooks: fc.array(userHook, { maxLength: 3 }), note: json },
  { requiredKeys: ["hooks"] }
)
const eventName = fc.oneof(fc.constantFrom(...EVENTS, "PreToolUse", "Notification"), key)
const userHooks = fc.dictionary(eventName, fc.array(matcherGroup, { minLength: 1, maxLength: 3 }), {
  minKeys: 1,
  maxKeys: 4
})
const userServer = fc.oneof(
  fc.record({ command: fc.string(), args: fc.array(fc.string(), { maxLength: 3 }) }),
  fc.record({ type: fc.constant("http"), url: fc.webUrl() }),
  json
)
const userServers = fc.dictionary(key.filter((name) => name !== "acx-memory"), userServer, { minKeys: 1, maxKeys: 3 })

const otherKeys = fc.dictionary(key.filter((name) => name !== "hooks" && name !== "mcpServers"), json, { maxKeys: 5 })
const settingsFile = fc.tuple(otherKeys, fc.option(userHooks, { nil: undefined }), fc.nat(5)).map(
  ([others, hooks, position]) => {
    if (hooks === undefined) return others
    const entries = Object.entries(others)
    entries.splice(Math.min(position, entries.length), 0, ["hooks", hooks])
    return Object.fromEntries(entries)
  }
)
const mcpFile = fc.tuple(otherKeys, fc.option(userServers, { nil: undefined })).map(([others, servers]) =>
  servers === undefined ? others : { ...others, mcpServers: servers }
)
// `undefined` is a missing file, which the round trip gives back as `{}` (MemoryInstall deletes a
// file it created once it is empty again).
const maybeMissing = <A>(arbitrary: fc.Arbitrary<A>) => fc.oneof({ weight: 5, arbitrary }, fc.constant(undefined))

describe("addHooks / removeHooks (properties)", () => {
  it("add then remove gives back the original, key order included", () => {
    fc.assert(
      fc.property(maybeMissing(settingsFile), (original) => {
        const added = mergedValue(Merge.addHooks(original, ours))
        sameJson(mergedValue(Merge.removeHooks(added, ourCommands)), original ?? {})
      }),
      runs
    )
  })

  it("adding twice is adding once", () => {
    fc.assert(
      fc.property(maybeMissing(settingsFile), (original) => {
        const once = mergedValue(Merge.addHooks(original, ours))
        const twice = Merge.addHooks(once, ours)
        expect(twice).toMatchObject({ ok: true, changes: [] })
        expect(mergedValue(twice)).toBe(once)
      }),
      runs
    )
  })

  it("every other key, event and matcher group stays as it was, in order", () => {
    fc.assert(
      fc.property(settingsFile, (original) => {
        const added = mergedValue(Merge.addHooks(original, ours))
        const before = original as Merge.JsonObject
        for (const [name, value] of Object.entries(before)) {
          if (name !== "hooks") expect(added[name]).toBe(value)
        }
        const beforeHooks = (before["hooks"] ?? {}) as Merge.JsonObject
        const afterHooks = added["hooks"] as Merge.JsonObject
        expect(Object.keys(afterHooks).slice(0, Object.keys(beforeHooks).length)).toEqual(Object.keys(beforeHooks))
        for (const [event, groups] of Object.entries(beforeHooks)) {
          const after = afterHooks[event] as ReadonlyArray<unknown>
          expect(after.slice(0, (groups as ReadonlyArray<unknown>).length)).toEqual(groups)
        }
      }),
      runs
    )
  })

  it("removing commands that are not there returns the file itself", () => {
    fc.assert(
      fc.property(maybeMissing(settingsFile), (original) => {
        const result = Merge.removeHooks(original, ourCommands)
        expect(result).toMatchObject({ ok: true, changes: [] })
        expect(mergedValue(result)).toBe(original)
      }),
      runs
    )
  })

  it("is total: any JSON value gives a value or a refusal, never a throw", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), (value) => {
        for (const result of [Merge.addHooks(value, ours), Merge.removeHooks(value, ourCommands)]) {
          expect(typeof result.ok).toBe("boolean")
        }
      }),
      runs
    )
  })
})

describe("addHooks / removeHooks (examples)", () => {
  it("appends one matcher group per event, with the timeout", () => {
    const result = Merge.addHooks(undefined, ours.slice(0, 2))
    expect(result).toEqual({
      ok: true,
      value: {
        hooks: {
          SessionStart: [{ hooks: [{ type: "command", command: "acx hook SessionStart", timeout: 15 }] }],
          UserPromptSubmit: [{ hooks: [{ type: "command", command: "acx hook UserPromptSubmit", timeout: 10 }] }]
        }
      },
      changes: [
        { kind: "hook", event: "SessionStart", command: "acx hook SessionStart" },
        { kind: "hook", event: "UserPromptSubmit", command: "acx hook UserPromptSubmit" }
      ],
      notes: []
    })
  })

  it("finds its command in any matcher group of the event, not in other events", () => {
    const settings = {
      hooks: {
        Stop: [{
          matcher: "",
          hooks: [{ type: "prompt", prompt: "x" }, { type: "command", command: "acx hook Stop" }]
        }],
        SessionEnd: [{ hooks: [{ type: "command", command: "acx hook Stop" }] }]
      }
    }
    const result = Merge.addHooks(settings, [
      { event: "Stop", command: "acx hook Stop" },
      { event: "SessionEnd", command: "acx hook SessionEnd" }
    ])
    expect(result).toMatchObject({
      ok: true,
      changes: [{ kind: "hook", event: "SessionEnd", command: "acx hook SessionEnd" }],
      notes: ["Stop hook already present: acx hook Stop"]
    })
  })

  it("refuses shapes it cannot read, saying where", () => {
    expect(problemOf(Merge.addHooks([], ours))).toBe("the settings file is not a JSON object")
    expect(problemOf(Merge.addHooks({ hooks: [] }, ours))).toBe("\"hooks\" is not an object of events")
    expect(problemOf(Merge.addHooks({ hooks: { Stop: {} } }, ours))).toBe("hooks.Stop is not a list of matcher groups")
    expect(problemOf(Merge.addHooks({ hooks: { Stop: [{ hooks: [] }, "x"] } }, ours))).toBe(
      "hooks.Stop[1] is not a matcher group with a \"hooks\" list"
    )
    expect(problemOf(Merge.removeHooks(null, ourCommands))).toBe("the settings file is not a JSON object")
    expect(problemOf(Merge.removeHooks({ hooks: "x" }, ourCommands))).toBe("\"hooks\" is not an object of events")
  })

  it("a settings object with an `ok` key is still a settings object", () => {
    expect(mergedValue(Merge.addHooks({ ok: false, problem: "mine" }, ours))).toMatchObject({
      ok: false,
      problem: "mine"
    })
  })

  it("keeps `__proto__` and `constructor` keys as plain data", () => {
    const settings = JSON.parse("{\"__proto__\":{\"polluted\":1},\"hooks\":{\"constructor\":[{\"hooks\":[]}]}}")
    const added = mergedValue(Merge.addHooks(settings, [{ event: "constructor", command: "acx hook X" }]))
    expect(Object.getPrototypeOf(added)).toBe(Object.prototype)
    expect(JSON.stringify(added)).toBe(
      "{\"__proto__\":{\"polluted\":1},\"hooks\":{\"constructor\":[{\"hooks\":[]},{\"hooks\":[{\"type\":\"command\",\"command\":\"acx hook X\"}]}]}}"
    )
    sameJson(mergedValue(Merge.removeHooks(added, ["acx hook X"])), settings)
  })

  it("removes only acx's hooks from a shared group, and keeps groups that were empty already", () => {
    const settings = {
      hooks: {
        Stop: [
          { hooks: [] },
          { matcher: "*", hooks: [{ type: "command", command: "mine" }, { type: "command", command: "acx hook Stop" }] }
        ],
        Broken: "left alone"
      }
    }
    const result = Merge.removeHooks(settings, ["acx hook Stop"])
    expect(result).toEqual({
      ok: true,
      value: {
        hooks: {
          Stop: [{ hooks: [] }, { matcher: "*", hooks: [{ type: "command", command: "mine" }] }],
          Broken: "left alone"
        }
      },
      changes: [{ kind: "hook", event: "Stop", command: "acx hook Stop" }],
      notes: []
    })
  })

  it("removes containers it emptied, even ones that were empty before the add", () => {
    // An empty `hooks` object or event list has no effect in Claude Code, so losing it loses nothing.
    const added = mergedValue(Merge.addHooks({ hooks: { Stop: [] } }, [{ event: "Stop", command: "acx hook Stop" }]))
    expect(mergedValue(Merge.removeHooks(added, ["acx hook Stop"]))).toEqual({})
  })
})

describe("addMcpServer / removeMcpServer", () => {
  it("add then remove gives back the original, key order included", () => {
    fc.assert(
      fc.property(maybeMissing(mcpFile), (original) => {
        const added = mergedValue(Merge.addMcpServer(original, "acx-memory", server))
        sameJson(mergedValue(Merge.removeMcpServer(added, "acx-memory", server)), original ?? {})
      }),
      runs
    )
  })

  it("adding twice is adding once, and other keys and servers stay", () => {
    fc.assert(
      fc.property(mcpFile, (original) => {
        const once = mergedValue(Merge.addMcpServer(original, "acx-memory", server))
        expect(mergedValue(Merge.addMcpServer(once, "acx-memory", server))).toBe(once)
        for (const [name, value] of Object.entries(original)) {
          if (name !== "mcpServers") expect(once[name]).toBe(value)
        }
        const servers = (original as Merge.JsonObject)["mcpServers"] as Merge.JsonObject | undefined
        for (const [name, value] of Object.entries(servers ?? {})) {
          expect((once["mcpServers"] as Merge.JsonObject)[name]).toBe(value)
        }
      }),
      runs
    )
  })

  it("is total", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), (value) => {
        expect(typeof Merge.addMcpServer(value, "acx-memory", server).ok).toBe("boolean")
        expect(typeof Merge.removeMcpServer(value, "acx-memory", server).ok).toBe("boolean")
      }),
      runs
    )
  })

  it("writes a stdio definition", () => {
    expect(mergedValue(Merge.addMcpServer({ a: 1 }, "acx-memory", server))).toEqual({
      a: 1,
      mcpServers: { "acx-memory": { type: "stdio", command: "acx", args: ["memory", "mcp"] } }
    })
  })

  it("takes a server added by hand with `claude mcp add` for the same server", () => {
    const file = { mcpServers: { "acx-memory": { type: "stdio", command: "acx", args: ["memory", "mcp"], env: {} } } }
    expect(Merge.addMcpServer(file, "acx-memory", server)).toEqual({
      ok: true,
      value: file,
      changes: [],
      notes: ["MCP server acx-memory already present"]
    })
  })

  it("refuses to overwrite a different server of that name", () => {
    const file = { mcpServers: { "acx-memory": { command: "other", args: [] } } }
    expect(problemOf(Merge.addMcpServer(file, "acx-memory", server))).toBe(
      "a different MCP server named \"acx-memory\" is already configured: {\"command\":\"other\",\"args\":[]}"
    )
    expect(problemOf(Merge.addMcpServer({ mcpServers: [] }, "acx-memory", server))).toBe(
      "\"mcpServers\" is not an object of servers"
    )
  })

  it("leaves a server changed since install, with a note", () => {
    const file = { mcpServers: { "acx-memory": { command: "acx", args: ["memory", "mcp", "--verbose"] } } }
    const result = Merge.removeMcpServer(file, "acx-memory", server)
    expect(result).toEqual({
      ok: true,
      value: file,
      changes: [],
      notes: ["MCP server acx-memory was changed since it was installed: left as it is"]
    })
  })
})
