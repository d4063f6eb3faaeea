/**
 * What the CLI's benches share: running `node` to completion as a user's shell would, timing a
 * call, and dropping a bench's Postgres schema.
 */
import { spawnSync } from "node:child_process"

/** Runs `node args…` with `env` (and `extra`) to completion; its stdout, or a failure with its stderr. */
export const nodeRunner =
  (env: Readonly<Record<string, string | undefined>>) =>
  (args: ReadonlyArray<string>, extra: Record<string, string> = {}): string => {
    const result = spawnSync(process.execPath, args, {
      env: { ...env, ...extra },
      encoding: "utf8",
      maxBuffer: 256 * 1024 * 1024
    })
    if (result.status !== 0) throw new Error(`node ${args.join(" ")} failed (${result.status}): ${result.stderr}`)
    return result.stdout
  }

/** How long `f` took, in milliseconds. */
export const timed = (f: () => unknown): number => {
  const started = performance.now()
  f()
  return performance.now() - started
}

/** Drops a schema and everything in it. */
export const dropSchema = async (url: string, schema: string): Promise<void> => {
  const pg = (await import("pg" as string)) as {
    default: {
      Client: new(
        options: object
      ) => { connect(): Promise<void>; query(sql: string): Promise<unknown>; end(): Promise<void> }
    }
  }
  const client = new pg.default.Client({ connectionString: url })
  await client.connect()
  await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).finally(() => client.end())
}
