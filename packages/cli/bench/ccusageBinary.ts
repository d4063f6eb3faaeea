/**
 * ccusage 20's native binary for the benches that compare acx with it (`ccusage.bench.ts`,
 * `scale.bench.ts`): the npm package `@ccusage/ccusage-linux-x64` (`ACX_BENCH_CCUSAGE_VERSION`,
 * default 20.0.24) installed by npm into a directory of the OS temp dir at bench time, never a
 * dependency of acx (`ACX_BENCH_CCUSAGE=/path/to/ccusage` uses another binary); and the check
 * that acx's totals equal its own.
 */
import { execFileSync, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

/** The ccusage version installed. */
export const CCUSAGE_VERSION = process.env["ACX_BENCH_CCUSAGE_VERSION"] ?? "20.0.24"

/** ccusage's native binary (installed and kept for the next run), or undefined on another platform. */
export const ccusageBinary = (): string | undefined => {
  const given = process.env["ACX_BENCH_CCUSAGE"]
  if (given !== undefined) return given
  if (process.platform !== "linux" || process.arch !== "x64") return undefined
  const prefix = path.join(os.tmpdir(), `acx-bench-ccusage-${CCUSAGE_VERSION}`)
  const binary = path.join(prefix, "node_modules/@ccusage/ccusage-linux-x64/bin/ccusage")
  if (!fs.existsSync(binary)) {
    execFileSync("npm", ["install", "--prefix", prefix, "--no-save", `@ccusage/ccusage-linux-x64@${CCUSAGE_VERSION}`], {
      stdio: "inherit"
    })
  }
  // the package ships the binary without its execute bit
  fs.chmodSync(binary, 0o755)
  return binary
}

/** Tokens and dollars, as both tools total them. */
export interface Totals {
  readonly input: number
  readonly output: number
  readonly cacheRead: number
  readonly cacheWrite: number
  readonly costUSD: number
}

/** The totals of `acx stats --json`. */
export const acxTotals = (stdout: string): Totals => {
  const { total } = JSON.parse(stdout) as {
    total: { tokens: { input: number; output: number; cacheRead: number; cacheWrite: number }; costUSD: number }
  }
  return { ...total.tokens, costUSD: total.costUSD }
}

/** The totals of `ccusage claude session --json`. */
export const ccusageTotals = (stdout: string): Totals => {
  const { totals } = JSON.parse(stdout) as {
    totals: {
      inputTokens: number
      outputTokens: number
      cacheReadTokens: number
      cacheCreationTokens: number
      totalCost: number
    }
  }
  return {
    input: totals.inputTokens,
    output: totals.outputTokens,
    cacheRead: totals.cacheReadTokens,
    cacheWrite: totals.cacheCreationTokens,
    costUSD: totals.totalCost
  }
}

/** Throws unless both tools' tokens are equal and their dollars equal to the cent; else says they agree. */
export const sameTotals = (ours: Totals, theirs: Totals): string => {
  for (const key of ["input", "output", "cacheRead", "cacheWrite"] as const) {
    if (theirs[key] !== ours[key]) throw new Error(`${key} tokens differ: acx ${ours[key]}, ccusage ${theirs[key]}`)
  }
  if (Math.round(theirs.costUSD * 100) !== Math.round(ours.costUSD * 100)) {
    throw new Error(`dollars differ: acx ${ours.costUSD}, ccusage ${theirs.costUSD}`)
  }
  return `acx and ccusage ${CCUSAGE_VERSION} agree: ${
    (ours.input + ours.output + ours.cacheRead + ours.cacheWrite).toLocaleString("en-US")
  } tokens, $${ours.costUSD.toFixed(2)}`
}

/** Runs ccusage on `configDir` (its `HOME` an empty dir, so it finds no other agent's logs) and compares with acx's `stats --json`. */
export const checkAgreement = (acxStatsJson: string, ccusage: string, configDir: string, emptyHome: string): string => {
  const { NODE_OPTIONS: _loader, ...userEnv } = process.env
  const result = spawnSync(ccusage, ["claude", "session", "--json", "--offline"], {
    env: { ...userEnv, CLAUDE_CONFIG_DIR: configDir, HOME: emptyHome },
    encoding: "utf8",
    maxBuffer: 512 * 1024 * 1024
  })
  if (result.status !== 0) throw new Error(`ccusage failed (${result.status}): ${result.stderr}`)
  return sameTotals(acxTotals(acxStatsJson), ccusageTotals(result.stdout))
}
