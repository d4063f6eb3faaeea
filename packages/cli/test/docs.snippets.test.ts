/**
 * Every code block of README.md and docs/*.md on the Node `engines` allows at its lowest
 * (20.19.0, fetched from the npm registry by scripts/node-floor.sh):
 * - each ts/js block, its types stripped and its syntax kept as written, parses there (an
 *   `await using` does not: Node 20 has no explicit resource management); each bash block
 *   parses (`bash -n`);
 * - each ts/js block not marked otherwise RUNS there, as written, in an empty directory with a private
 *   HOME: Acontext is the emulator (ACONTEXT_API_KEY, ACONTEXT_BASE_URL), the model is the model
 *   double, and the SDK's query() finds the real Claude Code CLI (test/snippets/sdkHooks.mjs);
 * - blocks that are not programs carry a marker with a reason (test/utils/docSnippets.ts); the
 *   list stays short.
 */
import { type AcontextEmulatorHandle, startAcontextEmulator, startModelDouble } from "@acx/testing"
import type { ModelDoubleHandle } from "@acx/testing"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { execFile, execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import ts from "typescript"
import { extractSnippets, type Snippet } from "./utils/docSnippets.js"

const here = path.dirname(fileURLToPath(import.meta.url))
const repo = path.resolve(here, "../../..")
const hooks = path.join(here, "snippets/sdkHooks.mjs")

const markdown = [
  "README.md",
  ...fs.readdirSync(path.join(repo, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)
]
const snippets = markdown.flatMap((file) => extractSnippets(file, fs.readFileSync(path.join(repo, file), "utf8")))
const code = snippets.filter((s) => s.lang === "ts" || s.lang === "js")
const shell = snippets.filter((s) => s.lang === "bash" || s.lang === "sh")
const name = (s: Snippet) => `${s.file}:${s.line}`

// fetched once (npm registry), then cached in node_modules/.cache
const nodeFloor = path.join(
  execFileSync("bash", [path.join(repo, "scripts/node-floor.sh")], { encoding: "utf8", timeout: 300_000 }).trim(),
  "node"
)

/** Runs a file, resolving with its exit status and output (never rejects). */
const run = (file: string, args: ReadonlyArray<string>, options: { cwd: string; env?: NodeJS.ProcessEnv }) =>
  new Promise<{ status: number | null; output: string }>((resolve) => {
    execFile(
      file,
      [...args],
      { ...options, encoding: "utf8", timeout: 180_000 },
      (error, stdout, stderr) =>
        resolve({ status: error === null ? 0 : (error.code as number | null) ?? 1, output: stdout + stderr })
    )
  })

// Inside packages/cli, so a snippet's imports resolve as an app's would (every acx package, the
// SDK, Effect); under node_modules/.cache, so nothing is left beside the sources.
const scratch = fs.mkdtempSync(path.join(repo, "packages/cli/node_modules/.cache-snippets-"))
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }))

/** The block as Node would see it after a type stripper that keeps the syntax (target ESNext). */
const stripTypes = (snippet: Snippet) =>
  ts.transpileModule(snippet.code, {
    compilerOptions: { target: ts.ScriptTarget.ESNext, module: ts.ModuleKind.ESNext },
    fileName: "snippet.ts"
  }).outputText

describe("extractSnippets", () => {
  it("reads ts/js/bash/sh blocks with their line and marker, and passes over other fences whole", () => {
    const text = [
      "# Title",
      "```ts",
      "const a = 1",
      "```",
      "<!-- snippet: fragment — continues the block above -->",
      "```bash",
      "acx show <id>",
      "```",
      "```json",
      "```ts",
      "```",
      "<!-- snippet: parse-only -->",
      "```js",
      "go()",
      "```"
    ].join("\n")
    expect(extractSnippets("x.md", text)).toEqual([
      { file: "x.md", line: 2, lang: "ts", code: "const a = 1\n", use: "run", why: "" },
      {
        file: "x.md",
        line: 6,
        lang: "bash",
        code: "acx show <id>\n",
        use: "fragment",
        why: "continues the block above"
      },
      { file: "x.md", line: 13, lang: "js", code: "go()\n", use: "parse-only", why: "" }
    ])
  })
})

describe(`the docs' code blocks (${snippets.length}: ${code.length} ts/js, ${shell.length} shell)`, () => {
  it("every marker gives its reason, and few blocks are not programs", () => {
    const marked = snippets.filter((s) => s.use !== "run")
    for (const s of marked) expect(s.why, name(s)).not.toBe("")
    expect(marked.length).toBeLessThanOrEqual(Math.ceil(snippets.length / 2))
  })

  describe("each ts/js block parses on the engines floor (Node 20.19.0)", () => {
    for (const snippet of code.filter((s) => s.use !== "fragment")) {
      it(name(snippet), async () => {
        const file = path.join(scratch, `parse-${snippet.file.replace(/\W/g, "_")}-${snippet.line}.mjs`)
        fs.writeFileSync(file, stripTypes(snippet))
        const result = await run(nodeFloor, ["--check", file], { cwd: scratch })
        expect(result.output).toBe("")
        expect(result.status).toBe(0)
      })
    }
  })

  describe("each shell block parses", () => {
    for (const snippet of shell.filter((s) => s.use !== "fragment")) {
      it(name(snippet), async () => {
        const file = path.join(scratch, `parse-${snippet.file.replace(/\W/g, "_")}-${snippet.line}.sh`)
        fs.writeFileSync(file, snippet.code)
        const result = await run("bash", ["-n", file], { cwd: scratch })
        expect(result.output).toBe("")
        expect(result.status).toBe(0)
      })
    }
  })

  describe("each program runs, as written, on Node 20.19.0", () => {
    let emulator: AcontextEmulatorHandle
    let model: ModelDoubleHandle
    beforeAll(async () => {
      emulator = await startAcontextEmulator()
      model = await startModelDouble({ script: () => ({ content: "Done." }) })
    })
    afterAll(async () => {
      await model?.close()
      await emulator?.close()
    })

    for (const snippet of code.filter((s) => s.use === "run")) {
      it(name(snippet), { timeout: 200_000 }, async () => {
        const dir = fs.mkdtempSync(path.join(scratch, "run-"))
        const home = path.join(dir, "home")
        fs.mkdirSync(path.join(home, ".claude"), { recursive: true })
        // an app's package.json: ESM, so top-level await works as in the docs
        fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ type: "module", private: true }))
        const file = path.join(dir, `snippet.${snippet.lang === "ts" ? "ts" : "mjs"}`)
        fs.writeFileSync(file, snippet.code)
        const before = (await emulator.requests()).length
        const result = await run(
          nodeFloor,
          ["--conditions=@acx/source", "--import", "tsx", "--import", hooks, file],
          {
            cwd: dir,
            env: {
              PATH: `${path.dirname(nodeFloor)}:${process.env["PATH"]}`,
              HOME: home,
              ACONTEXT_API_KEY: emulator.apiKey,
              ACONTEXT_BASE_URL: emulator.url,
              ACX_SNIPPET_MODEL_URL: model.url,
              ...(process.env["ACX_CLAUDE_PATH"] === undefined
                ? {}
                : { ACX_CLAUDE_PATH: process.env["ACX_CLAUDE_PATH"] })
            }
          }
        )
        expect(result.output, result.output).not.toMatch(/Failed to store|SyntaxError|ERR_/)
        expect(result.status, result.output).toBe(0)
        // a block that stores into Acontext without naming a server reached the emulator: the
        // library honours ACONTEXT_BASE_URL (it once went to the public host)
        if (/new ClaudeAgentStorage\(/.test(snippet.code) && !/baseUrl/.test(snippet.code)) {
          expect((await emulator.requests()).length).toBeGreaterThan(before)
        }
      })
    }
  })
})
