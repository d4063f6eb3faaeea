/**
 * The page's server started in this process on a config directory built from the fixtures, and
 * requests to it with the token's cookie (or without, or with other headers).
 */
import * as Fixtures from "@acx/fixtures"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as UiServer from "../../src/UiServer.js"

/** A started server and what it serves. */
export interface TestServer {
  readonly server: UiServer.UiServer
  readonly origin: string
  readonly configDir: string
  readonly acxHome: string
  readonly built: Fixtures.BuiltConfigDir
  /** A request with the token cookie (override headers with `init.headers`). */
  readonly request: (pathAndQuery: string, init?: RequestInit) => Promise<Response>
  readonly close: () => Promise<void>
}

/** Starts the server on a fresh copy of the fixtures (or on `configDir`) with a fresh ACX_HOME. */
export const startServer = async (
  options: { readonly configDir?: string; readonly acxHome?: string } = {}
): Promise<TestServer> => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "acx-ui-test-"))
  const built = Fixtures.buildClaudeConfigDir(options.configDir ?? path.join(root, "claude"))
  const acxHome = options.acxHome ?? path.join(root, "acx-home")
  const scope = Effect.runSync(Scope.make())
  const server = await Effect.runPromise(
    Scope.extend(UiServer.make({ configDir: built.configDir, acxHome, port: 0 }), scope)
  )
  const origin = `http://127.0.0.1:${server.port}`
  return {
    server,
    origin,
    configDir: built.configDir,
    acxHome,
    built,
    request: (pathAndQuery, init = {}) =>
      fetch(`${origin}${pathAndQuery}`, {
        ...init,
        redirect: "manual",
        headers: { cookie: `acx_ui_token=${server.token}`, ...(init.headers as Record<string, string> | undefined) }
      }),
    close: async () => {
      await Effect.runPromise(Scope.close(scope, Exit.void))
      fs.rmSync(root, { recursive: true, force: true })
    }
  }
}
