import { startEmbeddedPostgres } from "@acx/fixtures/postgres"

/**
 * Runs once before all test projects. The Postgres tests need a real server: `ACX_PG_URL` when
 * it is set (CI starts the machine's cluster), else an embedded PostgreSQL started here for the
 * run and stopped after it, so a fresh clone's `pnpm test` runs them too. The workers inherit
 * `ACX_PG_URL`.
 */
export default async function setup(): Promise<(() => Promise<void>) | undefined> {
  if (process.env["ACX_PG_URL"] !== undefined && process.env["ACX_PG_URL"] !== "") return undefined
  const started = Date.now()
  const postgres = await startEmbeddedPostgres()
  process.env["ACX_PG_URL"] = postgres.url
  console.log(
    `[acx] ACX_PG_URL not set: embedded PostgreSQL on 127.0.0.1:${postgres.port} (${Date.now() - started} ms)`
  )
  return postgres.stop
}
