import { startEmbeddedPostgres } from "@acx/fixtures/postgres"
import { leftoverMessage, makeRunTmpdir } from "@acx/fixtures/runTmpdir"

/**
 * Points `TMPDIR` at a directory of this run's own, so every temp dir a test, a test kit or a
 * spawned process makes (`os.tmpdir()`, `mktemp`) lands there. The teardown fails the run when
 * anything is left in it: a test removes what it makes (docs/testing.md "Temp dirs"). The
 * directory itself is removed either way, so a failed run leaves nothing behind either.
 */
const privateTmpdir = (): () => void => {
  const run = makeRunTmpdir()
  const previous = process.env["TMPDIR"]
  process.env["TMPDIR"] = run.dir
  return () => {
    if (previous === undefined) delete process.env["TMPDIR"]
    else process.env["TMPDIR"] = previous
    const message = leftoverMessage(run.finish())
    if (message !== undefined) throw new Error(message)
  }
}

/**
 * Runs once before all test projects. The Postgres tests need a real server: `ACX_PG_URL` when
 * it is set (CI starts the machine's cluster), else an embedded PostgreSQL started here for the
 * run and stopped after it, so a fresh clone's `pnpm test` runs them too. The workers inherit
 * `ACX_PG_URL` and the run's private `TMPDIR`.
 */
export default async function setup(): Promise<() => Promise<void>> {
  if (process.env["ACX_PG_URL"] !== undefined && process.env["ACX_PG_URL"] !== "") {
    const checkTmpdir = privateTmpdir()
    return async () => checkTmpdir()
  }
  // started before TMPDIR moves: as root the server runs as an unprivileged user from a copy in
  // the temp dir, which the run's private (0700) directory would not let it reach; it removes its
  // own directory when it stops
  const started = Date.now()
  const postgres = await startEmbeddedPostgres()
  process.env["ACX_PG_URL"] = postgres.url
  console.log(
    `[acx] ACX_PG_URL not set: embedded PostgreSQL on 127.0.0.1:${postgres.port} (${Date.now() - started} ms)`
  )
  const checkTmpdir = privateTmpdir()
  return async () => {
    await postgres.stop()
    checkTmpdir()
  }
}
