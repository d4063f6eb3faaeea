/**
 * Warm `acx stats` in one small read: the reports the fast path printed after runs that folded
 * nothing, kept in one file per config directory (`$ACX_HOME/cache/stats-summary-<hash>.json`)
 * under `TranscriptFolds.stateDigest` (every transcript's size and mtime, the statistics cache's,
 * the prices, the time zone). A report is kept only when the digest was the same before and after
 * its run, and printed again only while the digest is: any transcript appended to, touched,
 * added, removed or renamed, or the statistics cache rewritten, changes it (never stale). A
 * summary that cannot be read, or is of another digest, is none; one that cannot be written is
 * left alone (the run's answer stands).
 */
import * as AcxHome from "@acx/environment/AcxHome"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"

const VERSION = 1

interface Summary {
  readonly version: number
  readonly digest: string
  readonly outputs: { readonly [request: string]: string }
}

/** The summary file of the `projects` directory `projectsDir` in `cacheDir`. */
export const summaryFileOf = (cacheDir: string, projectsDir: string): string =>
  path.join(cacheDir, `stats-summary-${createHash("sha256").update(projectsDir).digest("hex").slice(0, 16)}.json`)

const read = (file: string, digest: string): { [request: string]: string } => {
  try {
    const summary = JSON.parse(fs.readFileSync(file, "utf8")) as Partial<Summary>
    if (summary.version !== VERSION || summary.digest !== digest) return {}
    const outputs = summary.outputs
    if (typeof outputs !== "object" || outputs === null) return {}
    const out: { [request: string]: string } = {}
    for (const [request, output] of Object.entries(outputs)) if (typeof output === "string") out[request] = output
    return out
  } catch {
    return {}
  }
}

/** The report kept for `request` under `digest`, if any. */
export const keptOutput = (file: string, digest: string, request: string): string | undefined => {
  const outputs = read(file, digest)
  return Object.hasOwn(outputs, request) ? outputs[request] : undefined
}

/** Keeps `output` for `request` under `digest` (beside the other requests' of that digest). */
export const keepOutput = (file: string, digest: string, request: string, output: string): void => {
  try {
    const outputs = { ...read(file, digest), [request]: output }
    AcxHome.writePrivateFile(file, JSON.stringify({ version: VERSION, digest, outputs } satisfies Summary))
  } catch {
    // not kept: the next run computes it again
  }
}
