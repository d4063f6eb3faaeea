/**
 * `acx stats --from postgres://… [--json] [--by GROUP]` on the fast read path (`fastRead.ts`):
 * a report the full path kept (`keptReport.ts`) printed again when one statement
 * (`StoreCatalogSql.postgresListDigest`, as the connecting role sees the store: row-level security
 * applies) says the session list is the one it was made from (and the origins, for `--by
 * project|machine|user`), the store needs no migration and
 * no derivation (which the full path would run first), and the prices load as the full path
 * loads them (`StatsPricing`: a refused pricing file is the full path's error).
 * Anything else, and any error (no kept report, a server that does not answer, a refused login),
 * hands the command back: the full path connects again and says what went wrong in its words.
 */
import * as Pricing from "@acx/convert/Pricing"
import * as StatsReport from "@acx/convert/StatsReport"
import * as AcxHome from "@acx/environment/AcxHome"
import * as PgDriverUrl from "@acx/session-store/PgDriverUrl"
import * as StoreCatalogSql from "@acx/session-store/StoreCatalogSql"
import { createRequire } from "node:module"
import type { StatsRequest } from "./fastStats.js"
import { pricingTable } from "./fastStats.js"
import * as KeptReport from "./keptReport.js"

// `pg`'s client, loaded only for a Postgres spec (the SQLite fast path never pays for it).
interface PgClient {
  connect(): Promise<void>
  query(text: string): Promise<{ readonly rows: ReadonlyArray<{ readonly [column: string]: unknown }> }>
  end(): Promise<void>
  on(event: "error", listener: (error: unknown) => void): void
}

// The digests the statement gives for `schema` as the connecting role sees it, if the store is one
// this acx reads as is (nothing to migrate, nothing to derive); `undefined` otherwise.
const digests = async (client: PgClient, schema: string, origins: boolean) => {
  await client.connect()
  const { rows: [row] } = await client.query(StoreCatalogSql.postgresListDigest(schema, { origins }))
  const ready = Number(row?.["version"]) === StoreCatalogSql.POSTGRES_SCHEMA_VERSION && Number(row?.["behind"]) === 0
  return ready ? { digest: row?.["digest"], origins: row?.["origins"] } : undefined
}

/** The kept report `request` may print now (its bytes, the final newline included), or `undefined`. */
export const statsOutput = async (request: StatsRequest): Promise<Uint8Array | undefined> => {
  let client: PgClient | undefined
  try {
    const store = KeptReport.postgresStore(request.from)
    const pricing = store === undefined ? undefined : pricingTable(AcxHome.acxHome())
    if (store === undefined || pricing === undefined) return undefined
    const kept = KeptReport.read(store, { by: request.by, json: request.json, pricing: Pricing.fingerprint(pricing) })
    if (kept === undefined) return undefined
    const { Client } = createRequire(import.meta.url)("pg") as { Client: new(config: object) => PgClient }
    // a server that does not answer costs this before the full path tries (and says why) itself
    client = new Client({
      connectionString: PgDriverUrl.driverUrl(store.url),
      application_name: "acx",
      connectionTimeoutMillis: 3_000
    })
    client.on("error", () => undefined)
    const origins = StatsReport.byOrigin(request.by)
    const now = await digests(client, store.schema, origins)
    const same = now !== undefined && now.digest === kept.kept.digest && (!origins || now.origins === kept.kept.origins)
    return same ? kept.output : undefined
  } catch {
    // a connection string the driver refuses, a server that does not answer: the full path says so
    return undefined
  } finally {
    await client?.end().catch(() => undefined)
  }
}
