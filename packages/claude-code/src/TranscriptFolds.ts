/**
 * The statistics of many transcript files without Effect: what `TranscriptStats` runs, and what
 * the CLI's `acx stats` over a config directory runs without loading Effect (the same function,
 * so both print the same figures). Files are folded ({@link StatsFold}) on every core
 * (worker threads, as many as `os.availableParallelism()`), and each file's fold is cached under
 * `$ACX_HOME/cache` (never in the Claude Code directory), keyed by path, size and mtime. A file
 * that only grew is folded on from where its cached fold stopped (the bytes before that point
 * must be unchanged); anything else is folded again. The cache also records the pricing table's
 * fingerprint and the time zone (folds hold dollars and local days): a change of either refolds
 * everything. A cache that cannot be read or is damaged is ignored and rewritten, never an error.
 *
 * @since 0.4.0
 */
import * as Pricing from "@acx/convert/Pricing"
import * as StatsFold from "@acx/convert/StatsFold"
import type * as StatsReport from "@acx/convert/StatsReport"
import { paths } from "@acx/environment/AcxHome"
import * as fs from "node:fs"
import * as os from "node:os"
import { fileURLToPath } from "node:url"
import { Worker } from "node:worker_threads"
import * as FoldCache from "./internal/foldCache.js"
import { timeZone } from "./internal/statsCache.js"
import { type FoldDone, type FoldJob, markStill, runFoldJob, tailAt } from "./internal/statsFile.js"

/**
 * A transcript file to fold, and the session it belongs to.
 *
 * @since 0.4.0
 * @category models
 */
export interface TranscriptFile {
  readonly projectKey: string
  readonly sessionId: string
  readonly file: string
  readonly kind: "main" | "subagent"
}

/**
 * What a run did: the folds, files skipped (not regular files, or gone), and how each file was
 * read.
 *
 * @since 0.4.0
 * @category models
 */
export interface StatsRun {
  readonly folds: Array<StatsReport.FileFold>
  readonly skipped: Array<{ readonly file: string; readonly reason: string }>
  readonly files: { readonly cached: number; readonly appended: number; readonly folded: number }
  /** Bytes read from transcripts. */
  readonly bytesRead: number
  /** Worker threads used (0: folded in this thread). */
  readonly workers: number
  /** Why the cache could not be written, when it could not. */
  readonly cacheWarning: string | undefined
  /** Per file with malformed lines: the byte offset of the first. */
  readonly malformedAt: { readonly [file: string]: number }
}

/**
 * @since 0.4.0
 * @category models
 */
export interface FoldOptions {
  readonly pricing: Pricing.PricingTable
  /** Where the cache lives; default `$ACX_HOME/cache`; `null`: no cache. */
  readonly cacheDir?: string | null | undefined
  /** Worker threads; default `os.availableParallelism()`; 0 folds in the calling thread. */
  readonly workers?: number | undefined
}

/**
 * The set `files` come from: `scope` names it (the projects directory: one cache file each);
 * with `complete`, `files` is all of it, and cache entries of files no longer there are dropped.
 *
 * @since 0.4.0
 * @category models
 */
export interface FoldScope {
  readonly scope: string
  readonly complete: boolean
}

/**
 * Why a run failed: a transcript could not be read, or a worker thread failed (`workers` says
 * how many were running; `cause` is what was thrown).
 *
 * @since 0.4.0
 * @category errors
 */
export class FoldFailure extends Error {
  constructor(readonly workers: number, override readonly cause: unknown) {
    super(`cannot read transcripts: ${cause instanceof Error ? cause.message : String(cause)}`)
  }
}

// below this many bytes to fold, starting workers costs more than it saves
const INLINE_BYTES = 8 * 1024 * 1024

// The worker script: beside this module when built (`internal/…js`), or the CLI bundle's own.
const workerScript = (): URL | undefined => {
  for (const candidate of ["./internal/transcriptStatsWorker.js", "./acx-stats-worker.mjs"]) {
    const url = new URL(candidate, import.meta.url)
    if (url.protocol === "file:" && fs.existsSync(fileURLToPath(url))) return url
  }
  return undefined
}

// `onDone` takes each result as it arrives: the calling thread is idle meanwhile, and what it does
// with a result then is off the run's critical path.
const runInWorkers = (
  script: URL,
  size: number,
  jobs: ReadonlyArray<FoldJob>,
  pricing: Pricing.PricingTable,
  onDone: (id: number, done: FoldDone) => void
): Promise<Array<FoldDone>> =>
  new Promise((resolve, reject) => {
    const results = new Array<FoldDone>(jobs.length)
    const workers: Array<Worker> = []
    let next = 0
    let finished = 0
    let failed = false
    const stop = () => Promise.all(workers.map((worker) => worker.terminate()))
    const fail = (error: Error) => {
      if (failed) return
      failed = true
      void stop().finally(() => reject(error))
    }
    const feed = (worker: Worker) => {
      if (next >= jobs.length) return
      const id = next++
      worker.postMessage({ id, job: jobs[id] })
    }
    for (let i = 0; i < size; i++) {
      const worker = new Worker(script, { workerData: { pricing } })
      workers.push(worker)
      worker.on("message", (message: { readonly id: number; readonly done?: FoldDone; readonly error?: string }) => {
        if (message.done === undefined) return fail(new Error(message.error ?? "worker failed"))
        results[message.id] = message.done
        finished++
        // the next job first: the worker folds while this thread takes the result
        if (finished < jobs.length) feed(worker)
        try {
          onDone(message.id, message.done)
        } catch (cause) {
          return fail(cause instanceof Error ? cause : new Error(String(cause)))
        }
        if (finished === jobs.length) void stop().then(() => resolve(results), reject)
      })
      worker.on("error", fail)
      feed(worker)
    }
  })

interface Planned {
  readonly job: FoldJob
  readonly index: number
  readonly mtimeMs: number
  readonly bytes: number
}

// What each file needs: its cached fold as it is, a fold on from the cached offset, or a fold from
// the start; and the files to skip.
const plan = (files: ReadonlyArray<TranscriptFile>, cached: { readonly [file: string]: FoldCache.CacheEntry }) => {
  const skipped: Array<{ readonly file: string; readonly reason: string }> = []
  const jobs: Array<Planned> = []
  const entries = new Array<FoldCache.CacheEntry | undefined>(files.length)
  const tails = new Array<string | undefined>(files.length)
  const states = new Array<StatsFold.FoldState | undefined>(files.length)
  let appended = 0
  let bytesToRead = 0
  for (const [index, item] of files.entries()) {
    let stat: fs.Stats
    try {
      stat = fs.statSync(item.file)
    } catch (cause) {
      skipped.push({ file: item.file, reason: (cause as NodeJS.ErrnoException).code ?? "unreadable" })
      continue
    }
    if (!stat.isFile()) {
      skipped.push({ file: item.file, reason: "not a regular file" })
      continue
    }
    const hit = Object.hasOwn(cached, item.file) ? cached[item.file] : undefined
    const state = hit === undefined ? undefined : StatsFold.restore(hit.state)
    if (hit !== undefined && state !== undefined && hit.size === stat.size && hit.mtimeMs === stat.mtimeMs) {
      entries[index] = hit
      states[index] = state
      // the unfinished last line is not in the cached fold: folded again, as on the cold run
      tails[index] = tailAt(item.file, hit.offset, hit.size)
      continue
    }
    // a damaged fold is folded again from the start
    const resumable = state !== undefined && hit !== undefined && hit.offset > 0 && hit.offset <= stat.size &&
      hit.size <= stat.size && markStill(item.file, hit.offset, hit.mark)
    if (resumable) appended++
    const bytes = stat.size - (resumable ? hit.offset : 0)
    bytesToRead += bytes
    jobs.push({
      index,
      bytes,
      mtimeMs: stat.mtimeMs,
      job: { file: item.file, kind: item.kind, offset: resumable ? hit.offset : 0, state: resumable ? hit.state : null }
    })
  }
  // biggest first, so no worker is left with one large file at the end
  jobs.sort((a, b) => b.bytes - a.bytes)
  return { skipped, jobs, entries, tails, states, appended, bytesToRead }
}

/**
 * Folds `files` (see the module doc), with `options.pricing`. Rejects with a {@link FoldFailure}
 * when a transcript cannot be read or a worker fails; a file that is gone or not a regular file
 * is skipped, never an error.
 *
 * @since 0.4.0
 * @category folding
 */
export const foldTranscripts = async (
  files: ReadonlyArray<TranscriptFile>,
  scope: FoldScope,
  options: FoldOptions
): Promise<StatsRun> => {
  const pricing = options.pricing
  const fingerprint = Pricing.fingerprint(pricing)
  const cacheDir = options.cacheDir === undefined ? paths().cache : options.cacheDir
  const cacheFile = cacheDir === null ? undefined : FoldCache.cacheFileOf(cacheDir, scope.scope)
  const cached = cacheFile === undefined ? {} : FoldCache.readCache(cacheFile, fingerprint)
  const { appended, bytesToRead, entries, jobs, skipped, states, tails } = plan(files, cached)
  const script = workerScript()
  const poolSize = options.workers ?? os.availableParallelism()
  const workers = script === undefined || bytesToRead < INLINE_BYTES ? 0 : Math.min(poolSize, jobs.length)
  // one job's result: its cache entry, its fold restored, its unfinished last line
  const accept = (i: number, result: FoldDone) => {
    const item = jobs[i]!
    // a file gone or swapped since it was listed: skipped below, in the jobs' order
    if (result.unread !== undefined) return
    // a resumed fold keeps the offset its earlier part found first
    const earlier = item.job.offset > 0 ? cached[item.job.file]?.malformedAt : undefined
    const malformedAt = earlier ?? result.malformedAt
    entries[item.index] = {
      size: result.size,
      mtimeMs: item.mtimeMs,
      offset: result.offset,
      mark: result.mark,
      state: result.state,
      ...(malformedAt === undefined ? {} : { malformedAt })
    }
    states[item.index] = StatsFold.restore(result.state)
    tails[item.index] = result.tail
  }
  let done: Array<FoldDone>
  try {
    if (workers > 0) {
      const running = runInWorkers(script!, workers, jobs.map((item) => item.job), pricing, accept)
      // the time zone (ICU's first use) while the workers fold: the cache and the report need it
      timeZone()
      done = await running
    } else {
      done = jobs.map((item, i) => {
        const result = runFoldJob(item.job, pricing)
        accept(i, result)
        return result
      })
    }
  } catch (cause) {
    throw new FoldFailure(workers, cause)
  }
  let unread = 0
  for (const [i, item] of jobs.entries()) {
    if (done[i]!.unread === undefined) continue
    skipped.push({ file: item.job.file, reason: done[i]!.unread! })
    unread++
  }
  const folds: Array<StatsReport.FileFold> = []
  const malformedAt: { [file: string]: number } = {}
  const dayOf = StatsFold.localDayOf()
  for (const [index, item] of files.entries()) {
    const entry = entries[index]
    if (entry === undefined) continue
    const state = states[index] ?? StatsFold.restore(entry.state) ?? StatsFold.empty()
    const tail = tails[index]
    const before = state.malformed
    if (tail !== undefined) StatsFold.foldLine(state, tail, { pricing, dayOf, kind: item.kind })
    const first = entry.malformedAt ?? (state.malformed > before ? entry.offset : undefined)
    if (first !== undefined) malformedAt[item.file] = first
    folds.push({ file: item.file, projectKey: item.projectKey, sessionId: item.sessionId, fold: state })
  }
  const cacheWarning = cacheFile === undefined
    ? undefined
    : FoldCache.saveCache(cacheFile, { files, entries, cached, fingerprint, scope, folded: jobs.length })
  return {
    folds,
    skipped,
    files: {
      cached: files.length - skipped.length - (jobs.length - unread),
      appended,
      folded: jobs.length - unread - appended
    },
    bytesRead: bytesToRead,
    workers,
    cacheWarning,
    malformedAt
  }
}

/**
 * The cache file of a scope in `cacheDir`.
 *
 * @since 0.4.0
 * @category cache
 */
export const cacheFileOf: (cacheDir: string, scope: string) => string = FoldCache.cacheFileOf

/**
 * A digest of everything a run over `files` that folds nothing reads: each file's path, size and
 * mtime, the cache file's size and mtime, the prices and the time zone; `undefined` when a file
 * or the cache cannot be `stat`ed; a file `known` holds is taken as it says (what the walk's
 * `stat` said this run: `ConfigTree.Walk.stats`). Equal digests before and after a run mean the run saw one
 * state; a later equal digest means a run now would read the same and report the same, so a
 * report kept under the digest (the CLI's warm `acx stats`) can be printed without folding.
 *
 * @since 0.4.0
 * @category cache
 */
export const stateDigest: (
  files: ReadonlyArray<TranscriptFile>,
  scope: FoldScope,
  options: FoldOptions,
  known?: ReadonlyMap<string, { readonly size: number; readonly mtimeMs: number }> | undefined
) => string | undefined = FoldCache.stateDigest
