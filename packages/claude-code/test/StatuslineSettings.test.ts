import * as StatuslineSettings from "@acx/claude-code/StatuslineSettings"
import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"

const ours = (previous: StatuslineSettings.Installed["previous"]) =>
  StatuslineSettings.statusLineOf("node /acx/statusline.cjs", previous)
const wrapping = (previous: StatuslineSettings.Installed["previous"]) =>
  StatuslineSettings.statusLineOf(
    `node /acx/statusline.cjs --wrap "${StatuslineSettings.commandOf(previous) ?? ""}"`,
    previous
  )

const installed = (outcome: StatuslineSettings.Outcome) => {
  if (!outcome.ok) throw new Error(outcome.problem)
  return outcome
}

describe("StatuslineSettings", () => {
  it("sets acx's statusline, keeps the one it replaces (with its padding) and puts it back", () => {
    const theirs = { type: "command", command: "~/bin/line.sh", padding: 2 }
    const settings = { model: "opus", statusLine: theirs, hooks: {} }
    const first = installed(StatuslineSettings.install(settings, ours, undefined))
    expect(first.changed).toBe(true)
    expect(first.value).toEqual({
      model: "opus",
      statusLine: { type: "command", command: "node /acx/statusline.cjs", padding: 2 },
      hooks: {}
    })
    expect(Object.keys(first.value as object)).toEqual(["model", "statusLine", "hooks"])
    expect(first.record).toEqual({ installed: ours(theirs), previous: theirs })
    // twice changes nothing
    const second = installed(StatuslineSettings.install(first.value, ours, first.record))
    expect(second.changed).toBe(false)
    expect(second.record).toEqual(first.record)
    // again with --wrap: the previous one is still the user's, not acx's own
    const wrapped = installed(StatuslineSettings.install(first.value, wrapping, first.record))
    expect((wrapped.value as { statusLine: { command: string } }).statusLine.command)
      .toBe("node /acx/statusline.cjs --wrap \"~/bin/line.sh\"")
    const back = installed(StatuslineSettings.uninstall(wrapped.value, wrapped.record))
    expect(back.value).toEqual(settings)
    expect(back.record).toBeUndefined()
  })

  it("removes the key on uninstall when there was none, and leaves a statusLine changed since", () => {
    const first = installed(StatuslineSettings.install(undefined, ours, undefined))
    expect(first.value).toEqual({ statusLine: ours(null) })
    expect(installed(StatuslineSettings.uninstall(first.value, first.record)).value).toEqual({})
    const edited = { statusLine: { type: "command", command: "mine" } }
    const left = installed(StatuslineSettings.uninstall(edited, first.record))
    expect(left.changed).toBe(false)
    expect(left.note).toMatch(/no longer the one acx installed/)
  })

  it("refuses settings it cannot edit safely", () => {
    expect(StatuslineSettings.install([], ours, undefined).ok).toBe(false)
    expect(StatuslineSettings.install({ statusLine: "x" }, ours, undefined).ok).toBe(false)
    expect(StatuslineSettings.uninstall(42, undefined).ok).toBe(false)
  })

  it("install then uninstall gives back any settings object", () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), fc.jsonValue()),
        fc.option(fc.record({ type: fc.constant("command"), command: fc.string() }), { nil: undefined }),
        (rest, statusLine) => {
          const settings = statusLine === undefined ? rest : { ...rest, statusLine }
          const first = StatuslineSettings.install(settings, wrapping, undefined)
          if (!first.ok) return typeof settings.statusLine !== "object"
          const again = StatuslineSettings.install(first.value, wrapping, first.record)
          if (!again.ok || again.changed) return false
          const back = StatuslineSettings.uninstall(again.value, again.record)
          return back.ok && JSON.stringify(back.value) === JSON.stringify(settings)
        }
      ),
      { numRuns: 1_000 }
    )
  })
})
