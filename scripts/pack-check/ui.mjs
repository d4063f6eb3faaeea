// pack-check step 3c: the web page's assets ship: `npx acx ui` from the installed @acx/cli serves
// its page and script, and @acx/ui started as a library serves its own; each behind the token.
import * as UiServer from "@acx/ui/UiServer"
import { Effect, Exit, Scope } from "effect"
import assert from "node:assert/strict"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

const root = fs.mkdtempSync(path.join(os.tmpdir(), "acx-pack-ui-"))
const configDir = path.join(root, "claude")
fs.mkdirSync(path.join(configDir, "projects"), { recursive: true })

const checkServed = async (url) => {
  const { origin } = new URL(url)
  const token = new URL(url).searchParams.get("token")
  assert.equal((await fetch(`${origin}/assets/app.js`)).status, 401, "no token: 401")
  for (const file of ["/", "/assets/app.js", "/assets/style.css", "/api/sessions"]) {
    const response = await fetch(`${origin}${file}`, { headers: { cookie: `acx_ui_token=${token}` } })
    assert.equal(response.status, 200, `${file}: ${response.status}`)
  }
}

try {
  // the CLI's bundle, as npx runs it
  const child = spawn("npx", ["acx", "ui", "--port", "0", "--config-dir", configDir], {
    env: { ...process.env, ACX_HOME: path.join(root, "home") },
    stdio: ["ignore", "pipe", "inherit"],
    // its own process group: npx does not pass a signal on to the acx it started
    detached: true
  })
  const url = await new Promise((resolve, reject) => {
    let out = ""
    child.stdout.on("data", (chunk) => {
      out += chunk
      const match = /http:\/\/\S+\?token=\S+/.exec(out)
      if (match !== null) resolve(match[0])
    })
    child.on("exit", (code) => reject(new Error(`npx acx ui exited (${code}): ${out}`)))
  })
  try {
    await checkServed(url)
  } finally {
    const exited = new Promise((resolve) => child.once("exit", resolve))
    process.kill(-child.pid, "SIGINT")
    await exited
  }
  console.log("npx acx ui: page, script, style and sessions served behind the token")

  // the library, from its own dist/assets
  const scope = Effect.runSync(Scope.make())
  const server = await Effect.runPromise(
    Scope.extend(UiServer.make({ configDir, acxHome: path.join(root, "home"), port: 0 }), scope)
  )
  try {
    await checkServed(server.url)
  } finally {
    await Effect.runPromise(Scope.close(scope, Exit.void))
  }
  console.log("@acx/ui: page, script, style and sessions served behind the token")
} finally {
  fs.rmSync(root, { recursive: true, force: true })
}
