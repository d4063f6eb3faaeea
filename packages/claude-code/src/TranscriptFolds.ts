/**
 * The statistics of many transcript files without Effect: what `TranscriptStats` runs, and what
 * the CLI's `acx stats` over a config directory runs without loading Effect (the same function,
 * so both print the same figures). Files are folded ({@link StatsFold}) on every core
 * (worker threads, as many as `os.availableParallelism()`, each taking its next file from a
 * counter they share: files over 1 MB first, biggest first, then the others in their order), and
 * each file's fold is cached under `$ACX_HOME/cache` (never in the Claude Code directory), keyed
 * by path, size and mtime. The folds come back as JSON text, written to the cache as they arrive;
 * a caller may take each fold as it comes, in the files' order, instead of all at the end
 * ({@link FoldOptions.onFold}: `acx stats` reduces its report so and never holds them all). A file
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
import { type FoldJob, type FoldResult, markStill, runFoldJob, tailAt } from "./internal/statsFile.js"
import type { PoolData, PoolMessage } from "./internal/transcriptStatsWorker.js"

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
  /**
   * Takes each file's fold as soon as it and every file before it in `files` are folded (in the
   * order of `files`, as `StatsReport.reportReducer` needs them), and says whether
   * `StatsRun.folds` keeps it: a caller that reduces the folds as they come (`acx stats`) never
   * holds them all. Without it, `folds` keeps every fold.
   */
  readonly onFold?: ((fold: StatsReport.FileFold) => boolean) | undefined
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
// a file this large is folded before the others
const LARGE_FILE = 1024 * 1024

// The worker script: beside this module when built (`internal/…js`), or the CLI bundle's own.
const workerScript = (): URL | undefined => {
  for (const candidate of ["./internal/transcriptStatsWorker.js", "./acx-stats-worker.mjs"]) {
    const url = new URL(candidate, import.meta.url)
    if (url.protocol === "file:" && fs.existsSync(fileURLToPath(url))) return url
  }
  return undefined
}

// The pool: `size` threads take the jobs in order from a shared counter (none waits for this
// thread to hand it work) and send results in batches; `onDone` takes each as it arrives, while
// the threads fold on.
const runInWorkers = (
  script: URL,
  size: number,
  jobs: ReadonlyArray<FoldJob>,
  pricing: Pricing.PricingTable,
  onDone: (result: FoldResult) => void
): Promise<void> =>
  new Promise((resolve, reject) => {
    const data: PoolData = { pricing, jobs, next: new SharedArrayBuffer(4) }
    const workers: Array<Worker> = []
    let ended = 0
    let finished = 0
    let failed = false
    const stop = () => Promise.all(workers.map((worker) => worker.terminate()))
    const fail = (error: Error) => {
      if (failed) return
      failed = true
      void stop().finally(() => reject(error))
    }
    const take = (message: PoolMessage) => {
      if (failed) return
      if (message._tag === "Failed") return fail(new Error(message.error))
      if (message._tag === "End") ended++
      else {
        for (const result of message.results) onDone(result)
        finished += message.results.length
      }
      if (ended === workers.length) {
        if (finished !== jobs.length) return fail(new Error(`${jobs.length - finished} jobs not folded`))
        void stop().then(() => resolve(), reject)
      }
    }
    for (let i = 0; i < size; i++) {
      const worker = new Worker(script, { workerData: data })
      workers.push(worker)
      worker.on("message", (message: PoolMessage) => {
        try {
          take(message)
        } catch (cause) {
          fail(cause instanceof Error ? cause : new Error(String(cause)))
        }
      })
      worker.on("error", fail)
      // a thread ends by itself once it sent its End (code 0); any other end before that is a failure
      worker.on("exit", (code) => {
        if (code !== 0 && ended < workers.length) fail(new Error(`a worker thread stopped (exit code ${code})`))
      })
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
  const slots = new Array<FoldCache.Slot | undefined>(files.length)
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
      slots[index] = { offset: hit.offset, malformedAt: hit.malformedAt, entry: hit }
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
  // large files first, biggest first, so no worker is left with one at the end; then the others in
  // the order of `files`, so folds come back nearly in that order and few wait to be handed on
  jobs.sort((a, b) =>
    a.bytes >= LARGE_FILE || b.bytes >= LARGE_FILE ? b.bytes - a.bytes || a.index - b.index : a.index - b.index
  )
  return { skipped, jobs, slots, tails, states, appended, bytesToRead }
}

// Hands each file's fold on in the order of `files`, once it and every file before it are settled
// (from the cache, folded, or skipped): its unfinished last line folded in (not in the cached
// fold), the offset of its first malformed line noted, then `onFold`'s (or kept). A fold handed
// on is let go of here.
const handover = (
  files: ReadonlyArray<TranscriptFile>,
  planned: Pick<ReturnType<typeof plan>, "jobs" | "slots" | "states" | "tails">,
  pricing: Pricing.PricingTable,
  onFold: ((fold: StatsReport.FileFold) => boolean) | undefined
) => {
  const { jobs, slots, states, tails } = planned
  const waiting = new Uint8Array(files.length)
  for (const item of jobs) waiting[item.index] = 1
  const folds: Array<StatsReport.FileFold> = []
  const malformedAt: { [file: string]: number } = {}
  const dayOf = StatsFold.localDayOf()
  let next = 0
  const handOn = (index: number) => {
    const slot = slots[index]
    if (slot === undefined) return
    const item = files[index]!
    const state = states[index] ?? StatsFold.empty()
    const tail = tails[index]
    states[index] = undefined
    tails[index] = undefined
    const before = state.malformed
    if (tail !== undefined) StatsFold.foldLine(state, tail, { pricing, dayOf, kind: item.kind })
    const first = slot.malformedAt ?? (state.malformed > before ? slot.offset : undefined)
    if (first !== undefined) malformedAt[item.file] = first
    const fold = { file: item.file, projectKey: item.projectKey, sessionId: item.sessionId, fold: state }
    if (onFold === undefined || onFold(fold)) folds.push(fold)
  }
  /** Every fold now in order is handed on. */
  const drain = () => {
    for (; next < files.length && waiting[next] === 0; next++) handOn(next)
  }
  /** The file at `index` is settled. */
  const settled = (index: number) => {
    waiting[index] = 0
    drain()
  }
  return { folds, malformedAt, settled, drain }
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
  const planned = plan(files, cached)
  const { appended, bytesToRead, jobs, skipped, slots, states, tails } = planned
  const handed = handover(files, planned, pricing, options.onFold)
  const writing = cacheFile === undefined || jobs.length === 0
    ? undefined
    : FoldCache.cacheWriting(cacheFile, fingerprint)
  const script = workerScript()
  const poolSize = options.workers ?? os.availableParallelism()
  const workers = script === undefined || bytesToRead < INLINE_BYTES ? 0 : Math.min(poolSize, jobs.length)
  const unreadOf = new Array<string | undefined>(jobs.length)
  // one job's result: its cache entry, its fold restored, its unfinished last line
  const accept = (result: FoldResult, state: StatsFold.FoldState | undefined) => {
    const item = jobs[result.id]!
    // a file gone or swapped since it was listed: skipped below, in the jobs' order
    if (result.unread !== undefined) {
      unreadOf[result.id] = result.unread
      return handed.settled(item.index)
    }
    // a resumed fold keeps the offset its earlier part found first
    const earlier = item.job.offset > 0 ? cached[item.job.file]?.malformedAt : undefined
    const malformedAt = earlier ?? result.malformedAt
    const entry = { size: result.size, mtimeMs: item.mtimeMs, offset: result.offset, mark: result.mark }
    writing?.entry(item.job.file, FoldCache.entryText(entry, malformedAt, result.state))
    slots[item.index] = { offset: result.offset, malformedAt, entry: undefined }
    states[item.index] = state
    tails[item.index] = result.tail
    handed.settled(item.index)
  }
  try {
    // the files before the first to fold (all of them, when nothing is folded)
    handed.drain()
    if (workers > 0) {
      const running = runInWorkers(
        script!,
        workers,
        jobs.map((item) => item.job),
        pricing,
        (result) => accept(result, StatsFold.restore(JSON.parse(result.state)))
      )
      // the time zone (ICU's first use) while the workers fold: the cache and the report need it
      timeZone()
      await running
    } else {
      for (const [id, item] of jobs.entries()) {
        const done = runFoldJob(item.job, pricing)
        accept({ ...done, id, state: JSON.stringify(done.state) }, StatsFold.restore(done.state))
      }
    }
  } catch (cause) {
    writing?.abort()
    throw new FoldFailure(workers, cause)
  }
  let unread = 0
  for (const [i, item] of jobs.entries()) {
    if (unreadOf[i] === undefined) continue
    skipped.push({ file: item.job.file, reason: unreadOf[i]! })
    unread++
  }
  const cacheWarning = cacheFile === undefined
    ? undefined
    : FoldCache.saveCache(cacheFile, { files, slots, cached, fingerprint, scope, writing })
  const { folds, malformedAt } = handed
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
