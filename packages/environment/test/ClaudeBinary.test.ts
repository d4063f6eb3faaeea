/**
 * The one lookup of the Claude Code binary: ACX_CLAUDE_PATH first (a wrong value is an error),
 * then the installed @anthropic-ai/claude-code platform binary, then `claude` on PATH; nothing
 * found lists every place tried.
 */
import { ClaudeBinaryError, find, findClaudeBinary, findSync } from "@acx/environment/ClaudeBinary"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll } from "vitest"

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "acx-claude-binary-"))
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

const executable = (name: string) => {
  const file = path.join(dir, name)
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.writeFileSync(file, "#!/bin/sh\necho 2.1.330\n", { mode: 0o755 })
  return file
}

describe("ClaudeBinary", () => {
  it("ACX_CLAUDE_PATH wins, relative to the working directory", () => {
    executable("custom/claude-custom")
    expect(findSync({ env: { ACX_CLAUDE_PATH: "custom/claude-custom", PATH: "" }, cwd: dir })).toEqual({
      path: path.join(dir, "custom/claude-custom"),
      source: "env"
    })
  })

  it("an ACX_CLAUDE_PATH that is not an executable file is an error, not a reason to look elsewhere", () => {
    fs.writeFileSync(path.join(dir, "not-executable"), "", { mode: 0o644 })
    for (const value of [path.join(dir, "not-executable"), path.join(dir, "missing"), dir]) {
      const found = findSync({ env: { ACX_CLAUDE_PATH: value, PATH: "" } })
      expect(found).toBeInstanceOf(ClaudeBinaryError)
      expect((found as ClaudeBinaryError).reason).toBe("NotExecutable")
      expect((found as ClaudeBinaryError).message).toContain("ACX_CLAUDE_PATH")
    }
  })

  it("the installed @anthropic-ai/claude-code platform binary comes next (the repository pins it)", async () => {
    const found = await findClaudeBinary({ env: { PATH: "" } })
    expect(found.source).toBe("package")
    expect(found.path).toMatch(/@anthropic-ai[/\\]claude-code-[a-z0-9-]+[/\\]claude(\.exe)?$/)
  })

  it("then claude on PATH; nothing found lists every place tried", async () => {
    const bin = path.dirname(executable("bin/claude"))
    // a platform with no package installed here
    const onPath = findSync({ env: { PATH: `/nonexistent${path.delimiter}${bin}` }, platform: "aix", arch: "ppc64" })
    expect(onPath).toEqual({ path: path.join(bin, "claude"), source: "path" })
    const exit = await Effect.runPromiseExit(find({ env: { PATH: "/nonexistent" }, platform: "aix", arch: "ppc64" }))
    expect(Exit.isFailure(exit)).toBe(true)
    const error = findSync({ env: {}, platform: "aix", arch: "ppc64" }) as ClaudeBinaryError
    expect(error.reason).toBe("NotFound")
    expect(error.tried[0]).toBe("ACX_CLAUDE_PATH (unset)")
    expect(error.tried.some((place) => place.includes("@anthropic-ai/claude-code-aix-ppc64"))).toBe(true)
    expect(error.tried.at(-1)).toContain("claude on PATH")
    expect(error.message).toContain("npm install @anthropic-ai/claude-code")
  })
})
