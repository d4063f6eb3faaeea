/**
 * What `acx ui` does (its options: `../ui.ts`): starts `@acx/ui`'s server over the config
 * directory, or over the store `--from` names (opened for reading: `internal/storeSource.ts`),
 * prints its URL, and serves until SIGINT or SIGTERM.
 *
 * @since 0.1.0
 */
import * as ClaudeProjects from "@acx/claude-code/ClaudeProjects"
import * as DatabaseSpec from "@acx/environment/DatabaseSpec"
import * as UiSecurity from "@acx/ui/UiSecurity"
import * as UiServer from "@acx/ui/UiServer"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { spawn } from "node:child_process"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as CliError from "../../CliError.js"
import type { CommandIo } from "../../CommandIo.js"
import { acxPaths, CurrentIo } from "../../internal/currentIo.js"
import { listenForSignal } from "../../internal/signals.js"
import { projectsLayer } from "../../internal/source.js"
import { openStore } from "../../internal/storeSource.js"
import type { UiOptions } from "../args/ui.js"

// The platform's opener, detached: a missing one is a warning, never a failure.
const openBrowser = (url: string, io: CommandIo) =>
  Effect.sync(() => {
    const [command, args] = process.platform === "darwin"
      ? ["open", [url]]
      : process.platform === "win32"
      ? ["cmd", ["/c", "start", "", url]]
      : ["xdg-open", [url]]
    const child = spawn(command, args, { detached: true, stdio: "ignore" })
    child.on("error", (error) => io.stderr(`acx: warning: cannot open a browser (${error.message})\n`))
    child.unref()
  })

// The bundle ships the assets beside itself (dist/assets); from the sources, the ui package's.
const assetsDirs = () => {
  const here = path.dirname(fileURLToPath(import.meta.url))
  return [path.join(here, "assets"), path.join(here, "../../../../ui/dist/assets")]
}

/**
 * @since 0.1.0
 * @category handlers
 */
// The SQLite file a spec names (watched for appends); none for Postgres (its clock is polled).
const sqliteFile = (spec: string): string | undefined => {
  const parsed = DatabaseSpec.parse(spec)
  return Either.isRight(parsed) && parsed.right._tag === "Sqlite" ? parsed.right.filename : undefined
}

// What the page shows: the store --from names, else the config directory (which must exist).
const shown = (from: string | undefined, configDir: string | undefined, followSymlinks: boolean) =>
  from === undefined
    ? Effect.map(ClaudeProjects.ClaudeProjects, (projects) => ({ configDir: projects.configDir })).pipe(
      Effect.provide(projectsLayer(configDir, { followSymlinks }))
    )
    : Effect.map(openStore(from), ({ display, store }) => ({
      store: { store, location: display, file: sqliteFile(from) }
    }))

export const run = ({ configDir, followSymlinks, from, host, open, port }: UiOptions) =>
  Effect.gen(function*() {
    const port_ = port
    if (port_ !== undefined && (port_ < 0 || port_ > 65535)) {
      return yield* CliError.invalidArgument(`--port: ${port_} is not a port (0 to 65535)`)
    }
    if (from !== undefined && configDir !== undefined) {
      return yield* CliError.invalidArgument(
        "--from and --config-dir: choose one (the page shows a store or a config directory)"
      )
    }
    const source = yield* shown(from, configDir, followSymlinks)
    const server = yield* UiServer.make({
      ...source,
      acxHome: acxPaths(yield* CurrentIo).home,
      port: port_,
      host,
      followSymlinks,
      assetsDirs: assetsDirs()
    })
    if (!UiSecurity.isLoopback(host)) {
      yield* Console.error(
        `acx: warning: --host ${host}: the page is reachable from other machines; anyone with the URL (its token) can read your sessions`
      )
    }
    const taken = server.portTaken === undefined ? "" : ` (port ${server.portTaken} was taken)`
    // listening before the line says Ctrl-C stops it: one right after is answered (exit 0)
    const stopped = yield* listenForSignal
    yield* Console.log(`acx ui: ${server.url}${taken} — Ctrl-C stops it`)
    if (open) yield* openBrowser(server.url, yield* CurrentIo)
    yield* stopped
  }).pipe(Effect.scoped)
