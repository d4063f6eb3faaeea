/**
 * `store.bench.ts`'s parts 2 and 3 on one synced store: the first catalog read (which derives
 * everything the sync stored), then `catalog.search` for 10 varied queries, in process, beside an
 * unranked FTS5 match of the same words on SQLite; `acx search` end to end when the tree has the
 * command. Also the harness the bench shares (interleaved rounds, percentiles).
 */
import * as SearchQuery from "@acx/session-store/SearchQuery"
import type * as StoreCatalog from "@acx/session-store/StoreCatalog"
import Database from "better-sqlite3"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { processIo } from "../src/CommandIo.js"
import { CurrentIo } from "../src/internal/currentIo.js"
import { openStore } from "../src/internal/storeSource.js"

/** A synced store the later parts read. */
export interface StoreUnderTest {
  readonly name: "SQLite" | "Postgres"
  readonly spec: string
}

/** One thing timed per round. */
export interface Candidate {
  readonly name: string
  readonly run: () => unknown
}

/** The value at `p` (0..1) of the sorted samples. */
export const percentile = (values: ReadonlyArray<number>, p: number): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!
}

/** `rounds` rounds of every candidate, the order reversed every other round; the samples per candidate. */
export const interleaved = (candidates: ReadonlyArray<Candidate>, rounds: number): Array<Array<number>> => {
  const samples = candidates.map((): Array<number> => [])
  for (let round = 0; round < rounds; round++) {
    const order = candidates.map((_, i) => i)
    if (round % 2 === 1) order.reverse()
    for (const i of order) {
      const started = performance.now()
      candidates[i]!.run()
      samples[i]!.push(performance.now() - started)
    }
  }
  return samples
}

const SEARCH_ROUNDS = Number(process.env["ACX_BENCH_SEARCH_ROUNDS"] ?? 5)

interface Query {
  readonly label: string
  readonly text: string
  readonly options: StoreCatalog.SearchOptions
}

/**
 * The 10 queries, from the generated dir itself (deterministic): a number a tool output holds
 * (a handful of texts have it), common words, phrases, an exclusion, and the filters.
 */
const queriesOf = (configDir: string): Array<Query> => {
  const projects = path.join(configDir, "projects")
  const project = fs.readdirSync(projects).sort()[0]!
  const file = path.join(
    projects,
    project,
    fs.readdirSync(path.join(projects, project)).find((f) => f.endsWith(".jsonl"))!
  )
  const head = fs.readFileSync(file, "utf8").slice(0, 4_000_000)
  const numbers = [...head.matchAll(/ (\d{6})\\n/g)].map((match) => match[1]!)
  const [rare, rareInProject] = [numbers[0]!, numbers[Math.floor(numbers.length / 2)]!]
  // the newest week of the dir (it ends on 2026-11-01)
  const since = Date.parse("2026-10-25T00:00:00.000Z")
  return [
    { label: "rare word (a number in a tool output)", text: rare, options: {} },
    { label: "common word", text: "cache", options: {} },
    { label: "two common words", text: "token cost", options: {} },
    { label: "phrase", text: "\"parse line\"", options: {} },
    { label: "phrase and word", text: "\"retry timeout\" ledger", options: {} },
    { label: "word, exclusion", text: "worker -thread", options: {} },
    { label: "common word, --project", text: "schema", options: { projectKey: project } },
    { label: "word, role user", text: "review", options: { role: "user" } },
    { label: "two words, since a week", text: "commit branch", options: { since } },
    { label: "rare word, --project", text: rareInProject, options: { projectKey: project } }
  ]
}

const fts5Of = (text: string): string => Either.getOrThrow(Either.map(SearchQuery.parse(text), SearchQuery.toFts5))

/** Parts 2 and 3 on `store`. */
export const searchStore = async (
  store: StoreUnderTest,
  context: {
    readonly bin: string
    readonly env: Record<string, string | undefined>
    readonly big: { readonly configDir: string }
  }
) => {
  const queries = queriesOf(context.big.configDir)
  const sqliteFile = store.name === "SQLite" ? store.spec.slice("sqlite:".length) : undefined
  const raw = sqliteFile === undefined ? undefined : new Database(sqliteFile, { readonly: true })
  const result = await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const { store: opened } = yield* openStore(store.spec).pipe(Effect.provideService(CurrentIo, processIo()))
    const catalog = opened.catalog
    let started = performance.now()
    const derived = yield* catalog.refresh()
    const firstRead = performance.now() - started
    started = performance.now()
    const listed = yield* catalog.listSessions()
    const listMs = performance.now() - started
    const samples = queries.map((): Array<number> => [])
    const baseline = queries.map((): Array<number> => [])
    const hits = queries.map(() => 0)
    const statement = raw?.prepare("SELECT rowid FROM acx_session_text_fts WHERE acx_session_text_fts MATCH ? LIMIT 20")
    for (let round = 0; round < SEARCH_ROUNDS; round++) {
      for (const [i, query] of queries.entries()) {
        const steps: Array<() => Effect.Effect<void, unknown>> = [
          () =>
            Effect.gen(function*() {
              const at = performance.now()
              hits[i] = (yield* catalog.search(query.text, query.options)).length
              samples[i]!.push(performance.now() - at)
            })
        ]
        if (statement !== undefined) {
          steps.push(() =>
            Effect.sync(() => {
              const at = performance.now()
              statement.all(fts5Of(query.text))
              baseline[i]!.push(performance.now() - at)
            })
          )
        }
        if ((round + i) % 2 === 1) steps.reverse()
        for (const step of steps) yield* step()
      }
    }
    return { derived, firstRead, listed: listed.length, listMs, samples, baseline, hits }
  })))
  raw?.close()
  const all = result.samples.flat()
  console.log(
    `${store.name}: first catalog read (derives what the sync stored) ${
      (result.firstRead / 1000).toFixed(1)
    } s, ${result.derived} entries (${
      (result.derived / (result.firstRead / 1000)).toFixed(0)
    } entries/s); then listSessions ${result.listMs.toFixed(1)} ms (${result.listed} sessions); load average ${
      os.loadavg()[0]!.toFixed(1)
    }`
  )
  console.log(
    `  catalog.search, ${queries.length} queries × ${SEARCH_ROUNDS} rounds: p50 ${
      percentile(all, 0.5).toFixed(1)
    } ms, p95 ${percentile(all, 0.95).toFixed(1)} ms${
      result.baseline[0]!.length > 0
        ? `; unranked FTS5 MATCH LIMIT 20 p50 ${percentile(result.baseline.flat(), 0.5).toFixed(2)} ms`
        : ""
    }`
  )
  queries.forEach((query, i) => {
    console.log(
      `    ${query.label.padEnd(38)} ${JSON.stringify(query.text).padEnd(26)} p50 ${
        percentile(result.samples[i]!, 0.5).toFixed(1).padStart(7)
      } ms, ${result.hits[i]} hits${
        result.baseline[i]!.length > 0 ? ` (baseline ${percentile(result.baseline[i]!, 0.5).toFixed(2)} ms)` : ""
      }`
    )
  })
  if (process.env["ACX_BENCH_SEARCH_ONLY"] !== "1") searchCommand(store, queries, context)
}

// `acx search` end to end, when this tree has the command (another branch adds it)
const searchCommand = (
  store: StoreUnderTest,
  queries: ReadonlyArray<Query>,
  context: { readonly bin: string; readonly env: Record<string, string | undefined> }
) => {
  const command = path.join(path.dirname(context.bin), "../src/commands/search.ts")
  if (!fs.existsSync(command)) {
    console.log(`  acx search: not in this tree (measured in process only)`)
    return
  }
  const argsOf = ({ options, text }: Query) => [
    "search",
    ...(options.projectKey === undefined ? [] : ["--project", options.projectKey]),
    ...(options.role === undefined ? [] : ["--role", options.role]),
    ...(options.since === undefined ? [] : ["--since", new Date(options.since).toISOString().slice(0, 10)]),
    "--from",
    store.spec,
    text
  ]
  const run = (query: Query) =>
    spawnSync(process.execPath, [context.bin, ...argsOf(query)], {
      env: context.env,
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024
    })
  const probe = run(queries[0]!)
  if (probe.status !== 0) {
    console.log(
      `  acx search: \`acx ${argsOf(queries[0]!).join(" ")}\` failed (${probe.status}): ${probe.stderr.split("\n")[0]}`
    )
    return
  }
  const candidates = [
    { name: "node -e 0", run: () => spawnSync(process.execPath, ["-e", "0"]) },
    ...queries.map((query) => ({ name: query.text, run: () => run(query) }))
  ]
  const samples = interleaved(candidates, SEARCH_ROUNDS)
  const all = samples.slice(1).flat()
  console.log(
    `  acx search (a process each), ${queries.length} queries × ${SEARCH_ROUNDS}: p50 ${
      percentile(all, 0.5).toFixed(1)
    } ms, p95 ${percentile(all, 0.95).toFixed(1)} ms; node -e 0 p50 ${percentile(samples[0]!, 0.5).toFixed(1)} ms`
  )
}
