/**
 * `acx sessions [--project P] [--json]`: the sessions of a Claude Code config directory, last
 * active first, with title (or first prompt), size, branch and cwd, read from the head and tail of each
 * transcript and cached under `$ACX_HOME/cache` (`@acx/claude-code/PlainListing.sessionsListing`,
 * no Effect). `--from STORE`: a store's sessions, read without Effect when the store is current
 * (`internal/storeReads.ts`), else through the store (`run/sessions.ts`).
 *
 * @since 0.1.0
 */
import type { CommandIo } from "../CommandIo.js"
import type { CommandRun } from "../CommandSpec.js"
import { requireBundled } from "../internal/bundled.js"
import type * as ConfigDirReads from "../internal/configDirReads.js"
import { effectCommand } from "../internal/effectCommand.js"
import { withProjectKey } from "../internal/options.js"
import type * as StoreReads from "../internal/storeReads.js"
import type { SessionsOptions } from "./args/sessions.js"

/**
 * The one path over a config directory (`internal/configDirReads.ts`): its bundle when built,
 * else the module.
 *
 * @since 0.6.0
 * @category commands
 */
export const configDirReads = async (): Promise<typeof ConfigDirReads> =>
  requireBundled<typeof ConfigDirReads>("config-reads.cjs", import.meta.url) ??
    await import("../internal/configDirReads.js")

/**
 * The one path over a SQLite store (`internal/storeReads.ts`): its bundle when built, else the
 * module.
 *
 * @since 0.6.0
 * @category commands
 */
export const storeReads = async (): Promise<typeof StoreReads> =>
  requireBundled<typeof StoreReads>("store-reads.cjs", import.meta.url) ?? await import("../internal/storeReads.js")

// Through the store (`run/sessions.ts`): a store that is not current, a catalog of a later schema.
const throughStore = effectCommand<SessionsOptions & { readonly from: string }>(async (options, io) =>
  (await import("./run/sessions.js")).run(withProjectKey(options, io))
)

// The Effect store's opening (migrating, deriving), loaded only when a SQLite store needs it.
const prepare = async (from: string, projectKey: string | undefined, io: CommandIo): Promise<number> =>
  (await import("./run/sessions.js")).prepareStore(from, projectKey, io)

const fromStore = async (options: SessionsOptions & { readonly from: string }, io: CommandIo): Promise<number> => {
  const reads = await storeReads()
  const file = reads.sqliteFile(options.from, io)
  return file === undefined
    ? reads.sessionsOfPostgres(options, io, { list: throughStore })
    : reads.sessionsOfStore(options, file, io, { prepare, list: throughStore })
}

/**
 * @since 0.6.0
 * @category commands
 */
export const run: CommandRun<SessionsOptions> = async (options, io) => {
  if (options.limit !== undefined && options.limit < 1) {
    io.stderr(`acx: --limit: expected 1 or more, got ${options.limit}\n`)
    return 2
  }
  return options.from === undefined
    ? (await configDirReads()).listConfigDir(options, io)
    : fromStore({ ...options, from: options.from }, io)
}
