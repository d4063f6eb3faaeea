/**
 * `acx stats --from sqlite:FILE [--json] [--by GROUP]` on the fast read path (`fastRead.ts`):
 * answered only when the full path would fold nothing and write nothing — every session of the
 * store cached by `StoreStats` as the catalog has it now (same `mtime` and entries, every state
 * intact, no other session in the cache), prices the full path would load too (`StatsPricing`),
 * no malformed entry to warn about, something to show. Then the report is the full path's,
 * computed by its own parts: `StoreStatsCache` (the cache, the directory order, the file folds,
 * the run), `StatsOutput.reportStats`, and `statsReport` / `StatsOutput.statsJson`.
 */
import * as StatsOutput from "@acx/claude-code/StatsOutput"
import * as StatsPricing from "@acx/claude-code/StatsPricing"
import * as StoreStatsCache from "@acx/claude-code/StoreStatsCache"
import * as Pricing from "@acx/convert/Pricing"
import * as StatsReport from "@acx/convert/StatsReport"
import * as AcxHome from "@acx/environment/AcxHome"
import * as StoreCatalogSql from "@acx/session-store/StoreCatalogSql"
import { parseArgs } from "./fastArgs.js"
import * as format from "./format.js"
import { statsReport } from "./statsTable.js"

/** A `stats` command line the fast path takes. */
export interface StatsRequest {
  readonly from: string
  readonly json: boolean
  readonly by: StatsReport.GroupBy
}

/**
 * `--from SPEC`, `--json`, `--by GROUP` (one of `StatsReport.groupings`; default `session`); the
 * origin groupings, `project`, `machine` and `user`, which read the store's origins, only with
 * `origins` (a kept Postgres report, whose key covers them): else the full path.
 */
export const parseStats = (args: ReadonlyArray<string>, origins = false): StatsRequest | undefined => {
  const options = parseArgs(args, { values: { "--from": "from", "--by": "by" }, flags: { "--json": "json" } })
  const from = options?.["from"]
  const by = options?.["by"] ?? "session"
  if (typeof from !== "string" || !StatsReport.groupings.includes(by as StatsReport.GroupBy)) return undefined
  if (!origins && StatsReport.byOrigin(by as StatsReport.GroupBy)) return undefined
  return { from, json: options!["json"] === true, by: by as StatsReport.GroupBy }
}

/**
 * The prices the full path uses (`StatsPricing.load`: the built-in table, with
 * `$ACX_HOME/pricing.json` applied when there is one), or `undefined` when it refuses the file
 * (the full path says why, in its words).
 */
export const pricingTable = (home: string): Pricing.PricingTable | undefined => {
  const loaded = StatsPricing.load(AcxHome.paths(home).pricing)
  return loaded._tag === "Table" ? loaded.table : undefined
}

/** What `acx stats` prints for `request` over the store's meta `rows`, or `undefined`. */
export const statsOutput = (
  request: StatsRequest,
  location: string,
  rows: ReadonlyArray<StoreCatalogSql.MetaRow>
): string | undefined => {
  try {
    const home = AcxHome.acxHome()
    const pricing = pricingTable(home)
    if (pricing === undefined) return undefined
    const cached = StoreStatsCache.readCache(
      StoreStatsCache.cacheFileOf(AcxHome.paths(home).cache, location),
      location,
      Pricing.fingerprint(pricing)
    )
    const sessions = StoreStatsCache.inDirectoryOrder(rows.map(StoreCatalogSql.storedSessionOf))
    // a cache holding other sessions is rewritten by the full path
    if (sessions.length === 0 || Object.keys(cached).length !== sessions.length) return undefined
    const folds: Array<StatsReport.FileFold> = []
    for (const session of sessions) {
      const transcripts = StoreStatsCache.reusable(cached, session)
      if (transcripts === undefined) return undefined
      folds.push(...StoreStatsCache.fileFolds(location, session, transcripts))
    }
    if (folds.some((item) => item.fold.malformed > 0)) return undefined
    const run = StoreStatsCache.storeRun(folds, { cached: folds.length, folded: 0 }, undefined)
    const result = StatsOutput.reportStats({ pricing, run }, request.by)
    if (request.json) return format.json(StatsOutput.statsJson(result))
    return result.report.rows.length === 0 ? undefined : statsReport(result)
  } catch {
    return undefined
  }
}
