/**
 * The listing metadata fold and the prompt display: slash-command tags read as the command,
 * the fold gives the same result however the entries are split (what a head/tail reader and a
 * resumed cache rely on), and a fork is titled as the listing shows the original.
 */
import { forkTranscript } from "@acx/convert/Fork"
import * as SessionMetadata from "@acx/convert/SessionMetadata"
import { commandLine, displayPrompt, isCommandOutput } from "@acx/convert/SessionTitle"
import { parseTranscript } from "@acx/convert/TranscriptParse"
import * as Fixtures from "@acx/fixtures"
import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import * as fs from "node:fs"

const runs = { numRuns: 1_000 }

const slash = (name: string, args: string) =>
  `<command-message>${name} is running…</command-message>\n<command-name>/${name}</command-name>\n<command-args>${args}</command-args>`

const user = (content: unknown, extra: Record<string, unknown> = {}) => ({
  type: "user",
  message: { role: "user", content },
  ...extra
})

describe("SessionTitle", () => {
  it("shows a slash command as typed", () => {
    expect(
      displayPrompt(
        "<command-name>/clear</command-name>\n<command-message>clear</command-message>\n<command-args></command-args>"
      )
    )
      .toBe("/clear")
    expect(displayPrompt(slash("review", "  src/a.ts\n  --fast "))).toBe("/review src/a.ts --fast")
    expect(displayPrompt("<command-name>compact</command-name>")).toBe("/compact")
    expect(displayPrompt("<bash-input>ls -la</bash-input>")).toBe("!ls -la")
    expect(displayPrompt("<local-command-stdout>Cleared</local-command-stdout>")).toBeUndefined()
    expect(displayPrompt("   ")).toBeUndefined()
    expect(displayPrompt("  why does <command-name>/x</command-name> fail?  ")).toBe(
      "why does <command-name>/x</command-name> fail?"
    )
  })

  it("property: a command's tags read as /name args", () => {
    const name = fc.stringMatching(/^[a-z][a-z0-9:_-]{0,20}$/)
    const args = fc.string().filter((text) => !text.includes("<"))
    fc.assert(
      fc.property(name, args, (n, a) => {
        const shown = displayPrompt(slash(n, a))
        const expected = a.replace(/\s+/g, " ").trim()
        expect(shown).toBe(expected === "" ? `/${n}` : `/${n} ${expected}`)
      }),
      runs
    )
  })

  it("property: total, idempotent, and plain text is only trimmed", () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const shown = displayPrompt(text)
        if (shown !== undefined) {
          expect(shown).toBe(shown.trim())
          expect(displayPrompt(shown)).toBe(shown)
        }
        if (!text.includes("<")) expect(shown).toBe(text.trim() === "" ? undefined : text.trim())
        expect(typeof isCommandOutput(text)).toBe("boolean")
        const command = commandLine(text)
        if (command !== undefined) expect(command).toMatch(/^[/!]/)
      }),
      runs
    )
  })
})

describe("SessionMetadata", () => {
  it("folds titles, prompts, cwd, branch and times as a listing shows them", () => {
    const meta = SessionMetadata.sessionMetadata([
      { type: "queue-operation", timestamp: "2026-01-01T00:00:00Z" },
      user("hi", { isMeta: true, cwd: "/meta" }),
      user(slash("review", "x"), { cwd: "/w", gitBranch: "main", timestamp: "2026-01-01T00:00:01Z" }),
      user([{ type: "tool_result", tool_use_id: "t", content: "out" }], { timestamp: "2026-01-01T00:00:02Z" }),
      { type: "summary", summary: "S" },
      { type: "ai-title", aiTitle: "AI" },
      user([{ type: "image" }, { type: "text", text: " second " }], { gitBranch: "dev" }),
      user("<local-command-stdout>done</local-command-stdout>", { timestamp: "2026-01-01T00:00:03Z" })
    ])
    expect(meta).toEqual({
      title: "AI",
      // a slash command with arguments is what the user asked for
      firstPrompt: "/review x",
      lastPrompt: "second",
      cwd: "/meta",
      gitBranch: "main",
      startTime: "2026-01-01T00:00:00Z",
      lastTime: "2026-01-01T00:00:03Z"
    })
    expect(SessionMetadata.sessionMetadata([{ type: "last-prompt", lastPrompt: "LP" }, user("later")]).lastPrompt)
      .toBe("LP")
    expect(
      SessionMetadata.sessionMetadata([{ type: "custom-title", customTitle: "C" }, { type: "ai-title", aiTitle: "A" }])
        .title
    )
      .toBe("C")
  })

  it("names a session that starts with /clear by its first real prompt, a command-only one by its command", () => {
    const caveat = user("<local-command-caveat>Caveat: local commands below</local-command-caveat>", { isMeta: true })
    const cleared = SessionMetadata.sessionMetadata([
      caveat,
      user(slash("clear", "")),
      user("<local-command-stdout></local-command-stdout>"),
      user("<bash-input>ls</bash-input>"),
      user("<bash-stdout>a b</bash-stdout><bash-stderr></bash-stderr>"),
      user("Fix the login bug"),
      user("and the tests")
    ])
    expect(cleared.firstPrompt).toBe("Fix the login bug")
    expect(SessionMetadata.displayTitle(cleared)).toBe("Fix the login bug")
    expect(SessionMetadata.sessionMetadata([user(slash("clear", "")), user(slash("mcp", ""))]).firstPrompt)
      .toBe("/clear")
    // a command with arguments is a prompt; a subagent's inline prompt is not the user's
    expect(
      SessionMetadata.sessionMetadata([
        user(slash("clear", "")),
        user("Explore the repo", { isSidechain: true }),
        user(slash("review", "src"))
      ]).firstPrompt
    ).toBe("/review src")
    // a head read is not done while only commands were seen
    const head = SessionMetadata.foldEntries(SessionMetadata.initialState, [
      user(slash("clear", ""), { cwd: "/w", gitBranch: "main", timestamp: "t" })
    ])
    expect(SessionMetadata.headFound(head)).toBe(false)
  })

  it("the fixture that starts with /clear is named by its first real prompt", () => {
    const file = Fixtures.transcriptFiles().find((name) => name.endsWith("compact.jsonl"))!
    const { entries } = parseTranscript(fs.readFileSync(file, "utf8"))
    const title = SessionMetadata.displayTitle(SessionMetadata.sessionMetadata(entries.map((parsed) => parsed.entry)))
    expect(title).toBeDefined()
    expect(title).not.toMatch(/^[/!]/)
  })

  const entry = fc.oneof(
    fc.record({ type: fc.constant("custom-title"), customTitle: fc.string() }),
    fc.record({ type: fc.constant("ai-title"), aiTitle: fc.string() }),
    fc.record({ type: fc.constant("summary"), summary: fc.string() }),
    fc.record({ type: fc.constant("last-prompt"), lastPrompt: fc.string() }),
    fc.record({
      type: fc.constant("user"),
      message: fc.record({ content: fc.oneof(fc.string(), fc.constant(slash("clear", ""))) }),
      cwd: fc.option(fc.string(), { nil: undefined }),
      gitBranch: fc.option(fc.string(), { nil: undefined }),
      timestamp: fc.option(fc.string(), { nil: undefined }),
      isMeta: fc.boolean()
    }, { requiredKeys: ["type", "message"] }),
    fc.anything()
  )

  it("property: any split of the entries folds to the whole's state; the last entry folded twice changes nothing", () => {
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 30 }), fc.nat(), (entries, at) => {
        const whole = SessionMetadata.foldEntries(SessionMetadata.initialState, entries)
        const cut = entries.length === 0 ? 0 : at % (entries.length + 1)
        const head = SessionMetadata.foldEntries(SessionMetadata.initialState, entries.slice(0, cut))
        // a state survives a JSON round trip (the cache keeps it as JSON)
        const saved = JSON.parse(JSON.stringify(head)) as SessionMetadata.MetadataState
        expect(SessionMetadata.foldEntries(saved, entries.slice(cut))).toEqual(whole)
        if (entries.length > 0) {
          expect(SessionMetadata.foldEntries(whole, entries.slice(-1))).toEqual(whole)
        }
        expect(SessionMetadata.metadataOf(whole)).toEqual(SessionMetadata.sessionMetadata(entries))
      }),
      runs
    )
  })

  it("the fixture transcripts fold without a raw command tag in any prompt", () => {
    for (const file of Fixtures.transcriptFiles()) {
      const { entries } = parseTranscript(fs.readFileSync(file, "utf8"))
      const meta = SessionMetadata.sessionMetadata(entries.map((parsed) => parsed.entry))
      expect(meta.firstPrompt ?? "", Fixtures.relative(file)).not.toMatch(/<command-name>/)
      expect(meta.lastPrompt ?? "", Fixtures.relative(file)).not.toMatch(/<command-name>/)
    }
  })
})

describe("Fork title", () => {
  const sid = "00000000-0000-4000-8000-000000000009"
  const base = (n: number, content: string) => ({
    type: "user",
    uuid: `00000000-0000-4000-8000-00000000000${n}`,
    parentUuid: null,
    sessionId: sid,
    timestamp: "2026-01-01T00:00:00Z",
    message: { role: "user", content }
  })
  const fork = (entries: ReadonlyArray<unknown>) => {
    let n = 0
    const parsed = parseTranscript(entries.map((e) => JSON.stringify(e)).join("\n")).entries.map((p) => p.entry)
    const out = forkTranscript(parsed, {
      newSessionId: "00000000-0000-4000-8000-0000000000aa",
      now: "2030-01-01T00:00:00Z",
      uuid: () => `fresh-${n++}`
    })
    return (out.at(-1) as unknown as { customTitle: string }).customTitle
  }

  it("is the title a listing shows for the original, plus (fork)", () => {
    expect(fork([base(1, "fix the login bug")])).toBe("fix the login bug (fork)")
    expect(fork([base(1, slash("review", "src"))])).toBe("/review src (fork)")
    expect(fork([{ type: "summary", summary: "Login work" }, base(1, "fix it")])).toBe("Login work (fork)")
    expect(fork([base(1, "x"), { type: "custom-title", customTitle: "Mine", sessionId: sid }])).toBe("Mine (fork)")
  })
})

describe("SessionMetadata.redacted (what a cache under acx's home keeps)", () => {
  const key = "sk-ant-api03-" + "Qw3Er5Ty".repeat(5)

  it("redacts the titles and prompts, keeps cwd, branch and times, and folds on the same", () => {
    const state: SessionMetadata.MetadataState = {
      customTitle: `deploy ${key}`,
      firstPrompt: `use ${key} <private>my address</private>`,
      lastUserPrompt: "password=hunter22",
      cwd: "/home/dev/token=app",
      gitBranch: "main",
      startTime: "2026-01-01T00:00:00Z"
    }
    const redacted = SessionMetadata.redacted(state)
    expect(JSON.stringify(redacted)).not.toContain(key)
    expect(JSON.stringify(redacted)).not.toContain("hunter22")
    expect(JSON.stringify(redacted)).not.toContain("my address")
    expect(redacted).toMatchObject({ cwd: state.cwd, gitBranch: "main", startTime: state.startTime })
    expect(SessionMetadata.redacted(redacted)).toEqual(redacted)
  })

  it("property: redacting commutes with folding more entries when they hold no secret", () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (first, later) => {
        const user = (text: string) => ({ type: "user", message: { role: "user", content: text } })
        const redactedThenFolded = SessionMetadata.foldEntries(
          SessionMetadata.redacted(
            SessionMetadata.foldEntries(SessionMetadata.initialState, [user(`${first} ${key}`)])
          ),
          [user(later.replace(/[<>]/g, ""))]
        )
        expect(JSON.stringify(redactedThenFolded)).not.toContain(key)
      }),
      { numRuns: 200 }
    )
  })
})
