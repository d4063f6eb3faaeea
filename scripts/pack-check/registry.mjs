// A read-only npm registry on 127.0.0.1 for the packed @acx tarballs, so the README's install
// line runs exactly as written: an `.npmrc` line `@acx:registry=<url>` sends the @acx scope here,
// everything else (effect, @effect/platform, the SDK) comes from the npm registry as a user gets it.
// Usage: node registry.mjs TARBALL_DIR: prints the URL on stdout, serves until stdin closes (the
// caller keeps a pipe open and closes it, so the server never outlives the check).
import { execFileSync } from "node:child_process"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as http from "node:http"
import * as path from "node:path"

const dir = path.resolve(process.argv[2] ?? ".")

/** One packument per package name: the manifest from inside each tarball, its integrity. */
const packuments = new Map()
for (const file of fs.readdirSync(dir).filter((name) => name.endsWith(".tgz"))) {
  const bytes = fs.readFileSync(path.join(dir, file))
  const manifest = JSON.parse(execFileSync("tar", ["-xzOf", path.join(dir, file), "package/package.json"], {
    encoding: "utf8"
  }))
  const dist = {
    tarball: `/-/${file}`,
    shasum: createHash("sha1").update(bytes).digest("hex"),
    integrity: `sha512-${createHash("sha512").update(bytes).digest("base64")}`
  }
  packuments.set(manifest.name, {
    name: manifest.name,
    "dist-tags": { latest: manifest.version },
    versions: { [manifest.version]: { ...manifest, _id: `${manifest.name}@${manifest.version}`, dist } }
  })
}

const server = http.createServer((request, response) => {
  const url = new URL(request.url ?? "/", "http://registry")
  const base = `http://${request.headers.host}`
  if (url.pathname.startsWith("/-/")) {
    const file = path.join(dir, path.basename(url.pathname))
    if (!fs.existsSync(file)) return void response.writeHead(404).end()
    response.writeHead(200, { "content-type": "application/octet-stream" })
    return void fs.createReadStream(file).pipe(response)
  }
  const packument = packuments.get(decodeURIComponent(url.pathname.slice(1)))
  if (packument === undefined) {
    response.writeHead(404, { "content-type": "application/json" })
    return void response.end(JSON.stringify({ error: "not found" }))
  }
  const versions = Object.fromEntries(
    Object.entries(packument.versions).map(([version, manifest]) => [
      version,
      { ...manifest, dist: { ...manifest.dist, tarball: base + manifest.dist.tarball } }
    ])
  )
  response.writeHead(200, { "content-type": "application/json" })
  response.end(JSON.stringify({ ...packument, versions }))
})

server.listen(0, "127.0.0.1", () => {
  console.log(`http://127.0.0.1:${server.address().port}/`)
})
process.stdin.resume()
process.stdin.on("end", () => server.close(() => process.exit(0)))
process.stdin.on("close", () => server.close(() => process.exit(0)))
