/**
 * `pnpm bench` for `ClaudeImport.importClaudeDir`: a Claude config dir built from
 * packages/fixtures/data (`buildClaudeConfigDir`, each project copied COPIES times under new session
 * ids so a round is long enough to time) imported into a fresh SQLite file per round, in
 * entries/s, against a baseline measured in the same run over the same files: read each
 * transcript, split lines + JSON.parse, one direct `append` per file into a fresh
 * SqliteSessionStore. Rounds alternate which goes first; medians are printed with the ratio.
 * Temporary files are removed at the end.
 */
import { importClaudeDir } from "@acx/claude-code/ClaudeImport"
import * as Fixtures from "@acx/fixtures"
import type * as SessionStore from "@acx/session-store/SessionStore"
import * as SqliteSessionStore from "@acx/session-store/SqliteSessionStore"
import { generateBigConfigDir } from "@acx/testing/BigConfigDir"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as Effect from "effect/Effect"
import * as crypto from "node:crypto"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

const COPIES = 10
const ROUNDS = 9

const root = fs.mkdtempSync(path.join(os.tmpdir(), "acx-import-bench-"))
process.on("exit", () => fs.rmSync(root, { recursive: true, force: true }))

interface FileToLoad {
  readonly key: SessionStore.SessionKey
  readonly file: string
  readonly meta?: Record<string, unknown>
}

// A deterministic UUID per copy, so every run imports the same directory.
const copyId = (sessionId: string, copy: number): string => {
  const h = createHash("sha256").update(`${sessionId}/${copy}`).digest("hex")
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`
}

const built = Fixtures.buildClaudeConfigDir(path.join(root, "config"))
const files: Array<FileToLoad> = []
for (const session of built.sessions) {
  for (let copy = 0; copy < COPIES; copy++) {
    const projectKey = copy === 0 ? session.projectKey : `${session.projectKey}-copy${copy}`
    const sessionId = copy === 0 ? session.sessionId : copyId(session.sessionId, copy)
    const dir = path.join(built.configDir, "projects", projectKey)
    const file = path.join(dir, `${sessionId}.jsonl`)
    if (copy > 0) {
      fs.mkdirSync(dir, { recursive: true })
      fs.copyFileSync(session.file, file)
    }
    files.push({ key: { projectKey, sessionId }, file })
    for (const agent of session.subagents) {
      const target = path.join(dir, sessionId, "subagents", `agent-${agent.agentId}.jsonl`)
      if (copy > 0) {
        fs.mkdirSync(path.dirname(target), { recursive: true })
        fs.copyFileSync(agent.file, target)
        fs.writeFileSync(target.slice(0, -".jsonl".length) + ".meta.json", JSON.stringify(agent.meta))
      }
      files.push({
        key: { projectKey, sessionId, subpath: `subagents/agent-${agent.agentId}` },
        file: target,
        meta: agent.meta
      })
    }
  }
}
const bytes = files.reduce((n, f) => n + fs.statSync(f.file).size, 0)

const parseLines = (text: string): Array<SessionStore.SessionStoreEntry> => {
  const out: Array<SessionStore.SessionStoreEntry> = []
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue
    try {
      const value = JSON.parse(line) as SessionStore.SessionStoreEntry
      if (typeof value === "object" && value !== null && typeof value.type === "string") out.push(value)
    } catch {
      // unparseable: skipped, as the importer does
    }
  }
  return out
}

let round = 0
const freshStore = Effect.suspend(() =>
  SqliteSessionStore.make({ filename: path.join(root, `round-${round++}.sqlite`) })
)

const candidate = Effect.scoped(Effect.gen(function*() {
  const store = yield* freshStore
  const result = yield* importClaudeDir({ from: { configDir: built.configDir }, to: store })
  return result.entries
})).pipe(Effect.provide(NodeContext.layer))

const baseline = Effect.scoped(Effect.gen(function*() {
  const store = yield* freshStore
  let entries = 0
  for (const f of files) {
    const parsed = parseLines(fs.readFileSync(f.file, "utf8"))
    const all = f.meta === undefined ? parsed : [...parsed, { ...f.meta, type: "agent_metadata" }]
    yield* store.append(f.key, all)
    entries += all.length
  }
  return entries
}))

const timed = async (effect: Effect.Effect<number, unknown>) => {
  const start = performance.now()
  const entries = await Effect.runPromise(effect)
  return { entries, ms: performance.now() - start }
}

const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const perSecond = (entries: number, ms: number) => entries / (ms / 1000)
const fmt = (rate: number) => `${Math.round(rate).toLocaleString("en")} entries/s`

const main = async () => {
  // warm-up of both paths (module loading, JIT, SQLite page cache)
  const warm = [await timed(candidate), await timed(baseline)]
  // both must load the same entries, or the ratio compares different work
  if (warm[0]!.entries !== warm[1]!.entries) {
    throw new Error(`entry counts differ: import ${warm[0]!.entries}, baseline ${warm[1]!.entries}`)
  }
  const importRates: Array<number> = []
  const baseRates: Array<number> = []
  let counted = 0
  for (let i = 0; i < ROUNDS; i++) {
    const steps = [
      async () => {
        const r = await timed(candidate)
        counted = r.entries
        importRates.push(perSecond(r.entries, r.ms))
      },
      async () => {
        const r = await timed(baseline)
        baseRates.push(perSecond(r.entries, r.ms))
      }
    ]
    if (i % 2 === 1) steps.reverse()
    for (const step of steps) await step()
    // each round's SQLite files are removed once measured
    for (const name of fs.readdirSync(root)) {
      if (name.endsWith(".sqlite") || name.includes(".sqlite-")) fs.rmSync(path.join(root, name))
    }
  }
  const imp = median(importRates)
  const base = median(baseRates)
  console.log(
    `import: ${files.length} transcripts (${built.sessions.length} fixture sessions × ${COPIES}), ${counted} entries, ${
      (bytes / 1e6).toFixed(2)
    } MB, ${ROUNDS} rounds, fresh SQLite file per round`
  )
  console.log(
    `  importClaudeDir → SqliteSessionStore: ${fmt(imp)} (median; min ${fmt(Math.min(...importRates))}, max ${
      fmt(Math.max(...importRates))
    })`
  )
  console.log(
    `  baseline (read + split + JSON.parse + one append per file): ${fmt(base)} (median; min ${
      fmt(Math.min(...baseRates))
    }, max ${fmt(Math.max(...baseRates))})`
  )
  console.log(`  ratio: ${(imp / base).toFixed(2)}× the baseline`)
  await big()
}

const BIG_MB = Number(process.env["ACX_BENCH_BIG_MB"] ?? "552")

const listJsonl = (dir: string): Array<string> =>
  fs.readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".jsonl"))
    .map((entry) => path.join(entry.parentPath, entry.name))
    .sort()

const big = async () => {
  const generated = generateBigConfigDir({
    dir: path.join(os.tmpdir(), `acx-bench-big-${BIG_MB}mb`),
    sessions: 200,
    bytes: BIG_MB * 1e6
  })
  const projectsDir = path.join(generated.configDir, "projects")
  const bigFiles: Array<FileToLoad> = listJsonl(projectsDir).map((file) => {
    const [projectKey, sessionId, ...rest] = path.relative(projectsDir, file).split(path.sep)
    const key: SessionStore.SessionKey = rest.length === 0
      ? { projectKey: projectKey!, sessionId: sessionId!.slice(0, -".jsonl".length) }
      : { projectKey: projectKey!, sessionId: sessionId!, subpath: rest.join("/").slice(0, -".jsonl".length) }
    const metaFile = file.slice(0, -".jsonl".length) + ".meta.json"
    return fs.existsSync(metaFile)
      ? { key, file, meta: JSON.parse(fs.readFileSync(metaFile, "utf8")) as Record<string, unknown> }
      : { key, file }
  })
  const file = path.join(root, "big.sqlite")
  const importInto = (filename: string) =>
    Effect.scoped(Effect.gen(function*() {
      const store = yield* SqliteSessionStore.make({ filename })
      return yield* importClaudeDir({ from: { configDir: generated.configDir }, to: store })
    })).pipe(Effect.provide(NodeContext.layer))
  const baselineBig = Effect.scoped(Effect.gen(function*() {
    const store = yield* SqliteSessionStore.make({ filename: path.join(root, "big-baseline.sqlite") })
    let entries = 0
    for (const f of bigFiles) {
      const parsed = parseLines(fs.readFileSync(f.file, "utf8"))
      const all = f.meta === undefined ? parsed : [...parsed, { ...f.meta, type: "agent_metadata" }]
      for (let i = 0; i < all.length; i += 500) yield* store.append(f.key, all.slice(i, i + 500))
      entries += all.length
    }
    return entries
  }))
  const time = async <A>(run: () => Promise<A>) => {
    const start = performance.now()
    const value = await run()
    return { value, ms: performance.now() - start }
  }
  const baseRun = await time(() => Effect.runPromise(baselineBig))
  const first = await time(() => Effect.runPromise(importInto(file)))
  if (first.value.entries !== baseRun.value) {
    throw new Error(`entry counts differ: import ${first.value.entries}, baseline ${baseRun.value}`)
  }
  const unchanged = await time(() => Effect.runPromise(importInto(file)))
  // a tenth of the transcripts grow by a few lines, as sessions in use do
  const grown = bigFiles.filter((_, i) => i % 10 === 0)
  const sizes = grown.map((f) => fs.statSync(f.file).size)
  for (const f of grown) {
    const lines = fs.readFileSync(f.file, "utf8").trimEnd().split("\n").slice(-3)
    fs.appendFileSync(
      f.file,
      lines.map((line) => line.replace(/"uuid":"[^"]+"/, `"uuid":"${crypto.randomUUID()}"`)).join("\n") + "\n"
    )
  }
  const incremental = await time(() => Effect.runPromise(importInto(file)))
  const mb = generated.bytes / 1e6
  console.log(
    `import at scale: generated dir, ${generated.sessions} sessions + ${generated.subagents} subagents, ${
      generated.lines.toLocaleString("en")
    } lines, ${mb.toFixed(0)} MB`
  )
  console.log(
    `  first import: ${(first.ms / 1000).toFixed(1)} s (${
      (mb / (first.ms / 1000)).toFixed(1)
    } MB/s); baseline (read + parse + append in 500s): ${(baseRun.ms / 1000).toFixed(1)} s; ratio ${
      (baseRun.ms / first.ms).toFixed(2)
    }× the baseline's throughput`
  )
  console.log(
    `  re-import, nothing changed: ${
      (unchanged.ms / 1000).toFixed(2)
    } s (${unchanged.value.filesUnchanged} files not opened, ${unchanged.value.bytesRead} B read)`
  )
  console.log(
    `  re-import after ${grown.length} transcripts grew: ${
      (incremental.ms / 1000).toFixed(2)
    } s (${incremental.value.entries} entries, ${(incremental.value.bytesRead / 1e3).toFixed(0)} kB read)`
  )
  // the generated dir is reused by later runs: put it back as generated
  grown.forEach((f, i) => fs.truncateSync(f.file, sizes[i]))
}

main().catch((error) => {
  console.error(error)
  process.exitCode = 1
})
