/**
 * Claude Code's command markup read as what it means: a slash or `!` command as typed, a local
 * command's output as text with every terminal escape gone, the caveat as words; any other text
 * is no markup. Total over any string (property-tested), and the fixtures' commands read so.
 */
import * as CommandMarkup from "@acx/convert/CommandMarkup"
import * as Fixtures from "@acx/fixtures"
import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"

const runs = { numRuns: 1_000 }
const ESC = "\u001b"

// text mixed with escape sequences of every kind, cut ones too
const escape = fc.oneof(
  fc.tuple(fc.stringMatching(/^[0-9;?]{0,6}$/), fc.constantFrom("m", "K", "H", "J", "h", "l")).map(([p, f]) =>
    `${ESC}[${p}${f}`
  ),
  fc.string({ maxLength: 8 }).map((title) => `${ESC}]0;${title.replace(/[\u0007\u001b]/g, "")}\u0007`),
  fc.constantFrom(`${ESC}`, `${ESC}[`, `${ESC}[3`, `${ESC}(B`, `${ESC}7`, "\u009b31m", `${ESC}]8;;`)
)
const terminalText = fc.array(fc.oneof(fc.string({ maxLength: 10 }), escape), { maxLength: 12 }).map((parts) =>
  parts.join("")
)

describe("CommandMarkup", () => {
  it("reads a slash command, a ! command, an output with escapes, a caveat", () => {
    expect(CommandMarkup.parse(
      "<command-name>/compact</command-name>\n            <command-message>compact</command-message>\n            <command-args></command-args>"
    )).toEqual({ _tag: "Command", command: "/compact" })
    expect(CommandMarkup.parse(
      "<command-message>review is running…</command-message>\n<command-name>/review</command-name>\n<command-args>src  lib</command-args>"
    )).toEqual({ _tag: "Command", command: "/review src lib" })
    expect(CommandMarkup.parse("<bash-input>ls -la</bash-input>")).toEqual({ _tag: "Command", command: "!ls -la" })
    expect(
      CommandMarkup.parse(
        `<local-command-stdout>${ESC}[2mCompacted (ctrl+o to see full summary)${ESC}[22m</local-command-stdout>`
      )
    ).toEqual({ _tag: "Output", stdout: "Compacted (ctrl+o to see full summary)", stderr: "" })
    expect(CommandMarkup.parse("<bash-stdout></bash-stdout><bash-stderr>ls: x: No such file</bash-stderr>"))
      .toEqual({ _tag: "Output", stdout: "", stderr: "ls: x: No such file" })
    expect(CommandMarkup.parse("<local-command-caveat>Caveat: local</local-command-caveat>"))
      .toEqual({ _tag: "Caveat", text: "Caveat: local" })
    // cut off: what is there
    expect(CommandMarkup.parse("<local-command-stdout>half")).toEqual({ _tag: "Output", stdout: "half", stderr: "" })
    // a prompt that quotes a tag further in, or plain text, is no markup
    expect(CommandMarkup.parse("what does <command-name>/x</command-name> mean?")).toBeUndefined()
    expect(CommandMarkup.parse("<div>html</div>")).toBeUndefined()
    expect(CommandMarkup.readable("plain")).toBe("plain")
  })

  it("property: stripAnsi leaves no escape, keeps text without one as it is, and is idempotent", () => {
    fc.assert(
      fc.property(terminalText, (text) => {
        const stripped = CommandMarkup.stripAnsi(text)
        expect(stripped).not.toMatch(/[\u001b\u009b]/)
        expect(CommandMarkup.stripAnsi(stripped)).toBe(stripped)
        expect(stripped.length).toBeLessThanOrEqual(text.length)
      }),
      runs
    )
    fc.assert(
      fc.property(fc.string().filter((text) => !/[\u001b\u009b]/.test(text)), (text) => {
        expect(CommandMarkup.stripAnsi(text)).toBe(text)
      }),
      runs
    )
    expect(CommandMarkup.stripAnsi(`${ESC}[1;31mred${ESC}[0m and ${ESC}]0;title\u0007plain`)).toBe("red and plain")
  })

  it("property: total over any string; an output's text holds no escape and no tag it came in", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.tuple(
            fc.constantFrom("local-command-stdout", "local-command-stderr", "bash-stdout", "bash-stderr"),
            terminalText,
            fc.boolean()
          ).map(([tag, body, closed]) => `<${tag}>${body.replace(/</g, "")}${closed ? `</${tag}>` : ""}`),
          fc.tuple(fc.string(), fc.string()).map(([name, args]) =>
            `<command-name>${name}</command-name><command-args>${args}</command-args>`
          )
        ),
        (text) => {
          const markup = CommandMarkup.parse(text)
          const readable = CommandMarkup.readable(text)
          expect(typeof readable).toBe("string")
          expect(readable).not.toMatch(/[\u001b\u009b]/)
          if (markup?._tag === "Output") {
            expect(readable).not.toMatch(/<\/?(local-command|bash)-std(out|err)>/)
          }
          if (markup?._tag === "Command") expect(markup.command).toMatch(/^[/!]/)
        }
      ),
      runs
    )
  })

  it("every command markup of the fixtures reads without tags or escapes", () => {
    let seen = 0
    for (const file of Fixtures.transcriptFiles()) {
      for (const { value } of Fixtures.readJsonLines(file)) {
        const entry = value as { message?: { content?: unknown }; content?: unknown }
        const content = entry?.message?.content ?? entry?.content
        if (typeof content !== "string" || CommandMarkup.parse(content) === undefined) continue
        seen++
        expect(CommandMarkup.readable(content)).not.toMatch(/<\/?(command|local-command|bash)-|[\u001b\u009b]/)
      }
    }
    expect(seen).toBeGreaterThan(5)
  })
})
