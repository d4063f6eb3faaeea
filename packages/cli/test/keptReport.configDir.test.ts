/**
 * The kept `acx stats` reports of a config directory (`internal/keptReport.ts`, `keptOutput` and
 * `keepOutput`) under `TranscriptFolds.stateDigest`,
 * on a real config directory and a real statistics cache: a report is printed again only while
 * nothing it was made from changed. Each staleness case changes one thing (a transcript appended
 * to, touched, deleted, renamed, the statistics cache rewritten) and the kept report must be gone;
 * a kept file of another version, request or digest, or not JSON, is none.
 */
import * as PlainListing from "@acx/claude-code/PlainListing"
import * as TranscriptFolds from "@acx/claude-code/TranscriptFolds"
import * as Pricing from "@acx/convert/Pricing"
import * as Fixtures from "@acx/fixtures"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import * as KeptReport from "../src/internal/keptReport.js"

let root: string
let configDir: string
let cacheDir: string
let sessions: ReadonlyArray<Fixtures.BuiltSession>
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "acx-stats-summary-"))
  const built = Fixtures.buildClaudeConfigDir(path.join(root, "claude"))
  configDir = built.configDir
  sessions = built.sessions
  cacheDir = path.join(root, "cache")
})
afterEach(() => fs.rmSync(root, { recursive: true, force: true }))

const options = () => ({ pricing: Pricing.builtinPricing, cacheDir, workers: 0 })
const scope = () => ({ scope: path.join(configDir, "projects"), complete: true })
const files = () => PlainListing.listTranscripts(configDir)!

/** Folds (writing the statistics cache), then the digest a warm run reads. */
const warmDigest = async () => {
  await TranscriptFolds.foldTranscripts(files(), scope(), options())
  const digest = TranscriptFolds.stateDigest(files(), scope(), options())
  expect(digest).toBeTypeOf("string")
  return digest!
}

const summaryFile = (request = "request") =>
  KeptReport.summaryFileOf(cacheDir, path.join(configDir, "projects"), request)

/** A report kept under the digest of now, then what a run after `change` finds. */
const keptAfter = async (change: () => void | Promise<void>) => {
  const before = await warmDigest()
  KeptReport.keepOutput(summaryFile(), before, "request", "the report")
  expect(KeptReport.keptOutput(summaryFile(), before, "request")).toBe("the report")
  await change()
  const after = TranscriptFolds.stateDigest(files(), scope(), options())
  return after === undefined ? undefined : KeptReport.keptOutput(summaryFile(), after, "request")
}

describe("keptReport over a config directory", () => {
  it("gives the kept report back while nothing changed, per request", async () => {
    expect(await keptAfter(() => undefined)).toBe("the report")
    const digest = TranscriptFolds.stateDigest(files(), scope(), options())!
    expect(KeptReport.keptOutput(summaryFile("another request"), digest, "another request")).toBeUndefined()
    KeptReport.keepOutput(summaryFile("another request"), digest, "another request", "another report")
    expect(KeptReport.keptOutput(summaryFile(), digest, "request")).toBe("the report")
    expect(KeptReport.keptOutput(summaryFile("another request"), digest, "another request")).toBe("another report")
  })

  it("is stale after a transcript is appended to", async () => {
    const kept = await keptAfter(() => {
      fs.appendFileSync(sessions[0]!.file, `${JSON.stringify({ type: "user", uuid: "x" })}\n`)
    })
    expect(kept).toBeUndefined()
  })

  it("is stale after a transcript is touched", async () => {
    const kept = await keptAfter(() => {
      const when = new Date(fs.statSync(sessions[0]!.file).mtimeMs + 5_000)
      fs.utimesSync(sessions[0]!.file, when, when)
    })
    expect(kept).toBeUndefined()
  })

  it("is stale after a transcript is deleted", async () => {
    const kept = await keptAfter(() => fs.rmSync(sessions[0]!.file))
    expect(kept).toBeUndefined()
  })

  it("is stale after a transcript is renamed", async () => {
    const kept = await keptAfter(() => {
      const file = sessions[0]!.file
      fs.renameSync(file, path.join(path.dirname(file), "00000000-0000-4000-8000-000000000000.jsonl"))
    })
    expect(kept).toBeUndefined()
  })

  it("is stale after the statistics cache is rewritten", async () => {
    const kept = await keptAfter(async () => {
      // another fold over fewer transcripts rewrites the one cache of the scope
      await TranscriptFolds.foldTranscripts(files().slice(1), scope(), options())
    })
    expect(kept).toBeUndefined()
  })

  it("is none when the kept file is not JSON, of another version, request or digest", async () => {
    const digest = await warmDigest()
    fs.mkdirSync(path.dirname(summaryFile()), { recursive: true })
    fs.writeFileSync(summaryFile(), "{ not json\nold\n")
    expect(KeptReport.keptOutput(summaryFile(), digest, "request")).toBeUndefined()
    fs.writeFileSync(summaryFile(), `${JSON.stringify({ version: 99, digest, request: "request" })}\nold\n`)
    expect(KeptReport.keptOutput(summaryFile(), digest, "request")).toBeUndefined()
    // another request's report filed under this one's name
    fs.writeFileSync(summaryFile(), `${JSON.stringify({ version: 1, digest, request: "another" })}\nold\n`)
    expect(KeptReport.keptOutput(summaryFile(), digest, "request")).toBeUndefined()
    KeptReport.keepOutput(summaryFile(), "another digest", "request", "the report")
    expect(KeptReport.keptOutput(summaryFile(), digest, "request")).toBeUndefined()
    expect(KeptReport.keptOutput(summaryFile(), "another digest", "request")).toBe("the report")
  })
})
