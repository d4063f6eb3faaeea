// pack-check step 3b: `acx stats` folds transcripts in worker threads, whose script must ship:
// from the installed @acx/cli (its bundle's acx-stats-worker.mjs) and from the installed
// @acx/claude-code (dist/internal/transcriptStatsWorker.js). A config dir above the size under
// which acx folds in the main thread; both must use workers and agree on the totals.
import * as TranscriptStats from "@acx/claude-code/TranscriptStats"
import * as Pricing from "@acx/convert/Pricing"
import * as StatsReport from "@acx/convert/StatsReport"
import { Effect } from "effect"
import assert from "node:assert/strict"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

const root = fs.mkdtempSync(path.join(os.tmpdir(), "acx-pack-stats-"))
try {
  const project = path.join(root, "claude", "projects", "-work")
  fs.mkdirSync(project, { recursive: true })
  const files = []
  for (let s = 0; s < 6; s++) {
    const lines = []
    for (let i = 0; i < 200; i++) {
      lines.push(
        JSON.stringify({ type: "user", timestamp: `2026-03-0${1 + (s % 5)}T10:00:00.000Z`, message: { content: "go" } })
      )
      lines.push(JSON.stringify({
        type: "assistant",
        timestamp: `2026-03-0${1 + (s % 5)}T10:00:01.000Z`,
        requestId: `r${i}`,
        message: {
          id: `m${i}`,
          model: "claude-sonnet-4-5",
          content: [{ type: "text", text: "x".repeat(8000) }],
          usage: { input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 1000 }
        }
      }))
    }
    const file = path.join(project, `00000000-0000-4000-8000-00000000000${s}.jsonl`)
    fs.writeFileSync(file, lines.join("\n") + "\n")
    files.push({ projectKey: "-work", sessionId: path.basename(file, ".jsonl"), file, kind: "main" })
  }

  const run = await Effect.runPromise(
    TranscriptStats.make({ pricing: Pricing.builtinPricing, cacheDir: null }).fold(files, {
      scope: root,
      complete: true
    })
  )
  assert.ok(run.workers >= 1, `the library folded in ${run.workers} worker threads`)
  const library = StatsReport.report(run.folds, "session", {}, Pricing.builtinPricing).total

  const cli = spawnSync("npx", ["acx", "stats", "--json"], {
    env: { ...process.env, CLAUDE_CONFIG_DIR: path.join(root, "claude"), ACX_HOME: path.join(root, "home") },
    encoding: "utf8"
  })
  assert.equal(cli.status, 0, cli.stderr)
  const out = JSON.parse(cli.stdout)
  assert.ok(out.read.workers >= 1, `acx stats folded in ${out.read.workers} worker threads`)
  assert.deepEqual(out.total.tokens, library.tokens)
  assert.equal(out.total.tokens.input, 6 * 200 * 10)
  console.log(`stats: workers from the library (${run.workers}) and from npx acx (${out.read.workers}), same totals`)
} finally {
  fs.rmSync(root, { recursive: true, force: true })
}
