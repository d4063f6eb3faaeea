/**
 * What `acx ui` does (its options: `../ui.ts`): starts `@acx/ui`'s server, prints its URL, and
 * serves until SIGINT or SIGTERM.
 *
 * @since 0.1.0
 */
import * as ClaudeProjects from "@acx/claude-code/ClaudeProjects"
import * as AcxHome from "@acx/environment/AcxHome"
import * as UiSecurity from "@acx/ui/UiSecurity"
import * as UiServer from "@acx/ui/UiServer"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { spawn } from "node:child_process"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as CliError from "../../CliError.js"
import { untilSignal } from "../../internal/signals.js"
import { projectsLayer } from "../../internal/source.js"
import type { UiArgs } from "../args/ui.js"

// The platform's opener, detached: a missing one is a warning, never a failure.
const openBrowser = (url: string) =>
  Effect.sync(() => {
    const [command, args] = process.platform === "darwin"
      ? ["open", [url]]
      : process.platform === "win32"
      ? ["cmd", ["/c", "start", "", url]]
      : ["xdg-open", [url]]
    const child = spawn(command, args, { detached: true, stdio: "ignore" })
    child.on("error", (error) => process.stderr.write(`acx: warning: cannot open a browser (${error.message})\n`))
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
export const run = ({ configDir, followSymlinks, host, open, port }: UiArgs) =>
  Effect.gen(function*() {
    const port_ = Option.getOrUndefined(port)
    if (port_ !== undefined && (port_ < 0 || port_ > 65535)) {
      return yield* CliError.invalidArgument(`--port: ${port_} is not a port (0 to 65535)`)
    }
    // the same checks as every command: the config directory must exist
    const projects = yield* ClaudeProjects.ClaudeProjects
    const server = yield* UiServer.make({
      configDir: projects.configDir,
      acxHome: AcxHome.acxHome(),
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
    yield* Console.log(`acx ui: ${server.url}${taken} — Ctrl-C stops it`)
    if (open) yield* openBrowser(server.url)
    yield* untilSignal
  }).pipe(Effect.scoped, Effect.provide(projectsLayer(configDir, { followSymlinks })))
