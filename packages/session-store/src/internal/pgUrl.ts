/**
 * The connection string the `pg` driver is given, with no Effect on its path (the CLI's fast read
 * loads it): `sslmode` read as libpq reads it, and the password libpq would take from the password
 * file. `pg` reads `~/.pgpass` itself too, but prints `DeprecationWarning: pgpass support is
 * deprecated` on stderr each time it does, breaking the one-line stderr of every command; a URL
 * that already holds the password never reaches that code.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

/**
 * The URL with `sslmode` read as libpq reads it. `pg` (8.x) takes `require`, `prefer` and
 * `verify-ca` for `verify-full` unless told `uselibpqcompat=true`, and warns about it on stderr on
 * every connection; a URL written for `psql` (a managed server's `sslmode=require`, which encrypts
 * without checking the certificate) must mean the same here. A URL that says `uselibpqcompat`
 * itself is left as it is.
 */
export const withLibpqSslmode = (url: string): string => {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return url
  }
  if (!parsed.searchParams.has("sslmode") || parsed.searchParams.has("uselibpqcompat")) return url
  parsed.searchParams.set("uselibpqcompat", "true")
  return parsed.href
}

/** The four fields a password file's line is matched on. */
export interface PassKey {
  readonly host: string
  readonly port: string
  readonly database: string
  readonly user: string
}

/** A line's fields, split on `:` with libpq's escapes (`\:` a colon, `\\` a backslash). */
const fields = (line: string): ReadonlyArray<string> => {
  const out: Array<string> = []
  let current = ""
  for (let i = 0; i < line.length; i++) {
    const char = line[i]!
    if (char === "\\" && i + 1 < line.length) {
      current += line[++i]
    } else if (char === ":" && out.length < 4) {
      out.push(current)
      current = ""
    } else {
      current += char
    }
  }
  out.push(current)
  return out
}

/**
 * The password of the first line of `text` (a password file) matching `key`, as libpq matches:
 * `host:port:database:user:password`, `*` in the first four a wildcard, `#` lines comments.
 */
export const matchPassFile = (text: string, key: PassKey): string | undefined => {
  const wanted = [key.host, key.port, key.database, key.user]
  for (const raw of text.split(/\r?\n/)) {
    if (raw === "" || raw.startsWith("#")) continue
    const parts = fields(raw)
    if (parts.length < 5) continue
    if (wanted.every((value, i) => parts[i] === "*" || parts[i] === value)) return parts[4]
  }
  return undefined
}

/**
 * The password file libpq reads (`PGPASSFILE`, else `~/.pgpass`), when it may be read: a regular
 * file with no group or world access (libpq ignores any other, and so does this, saying so on
 * stderr as libpq does).
 */
const readPassFile = (env: NodeJS.ProcessEnv): string | undefined => {
  const file = env["PGPASSFILE"] ?? path.join(os.homedir(), ".pgpass")
  let stat: fs.Stats
  try {
    stat = fs.statSync(file)
  } catch {
    return undefined
  }
  if (!stat.isFile()) return undefined
  if (process.platform !== "win32" && (stat.mode & 0o077) !== 0) {
    process.stderr.write(
      `acx: warning: password file ${file} has group or world access and is ignored (chmod 600 it)\n`
    )
    return undefined
  }
  try {
    return fs.readFileSync(file, "utf8")
  } catch {
    process.stderr.write(`acx: warning: cannot read password file ${file}; it is ignored\n`)
    return undefined
  }
}

/** The host, port, database and user `pg` connects with for `parsed`, with its defaults. */
const keyOf = (parsed: URL, env: NodeJS.ProcessEnv): PassKey => {
  const user = decodeURIComponent(parsed.username) || parsed.searchParams.get("user") ||
    env["PGUSER"] || (process.platform === "win32" ? env["USERNAME"] : env["USER"]) || os.userInfo().username
  const socket = parsed.searchParams.get("host")
  const hostname = parsed.hostname.replace(/^\[(.*)\]$/, "$1")
  const host = hostname !== "" ? decodeURIComponent(hostname) : socket ?? env["PGHOST"] ?? "localhost"
  return {
    // libpq matches a Unix-socket connection against `localhost`
    host: host.startsWith("/") ? "localhost" : host,
    port: parsed.port !== "" ? parsed.port : parsed.searchParams.get("port") ?? env["PGPORT"] ?? "5432",
    database: decodeURIComponent(parsed.pathname.slice(1)) || env["PGDATABASE"] || user,
    user
  }
}

/**
 * `url` with the password file's password for it, when the URL holds none and `PGPASSWORD` is
 * unset (libpq's order: the connection string, then `PGPASSWORD`, then the file); else `url`.
 */
export const withPassFile = (url: string, env: NodeJS.ProcessEnv = process.env): string => {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return url
  }
  if (parsed.password !== "" || parsed.searchParams.has("password") || (env["PGPASSWORD"] ?? "") !== "") return url
  const text = readPassFile(env)
  if (text === undefined) return url
  const password = matchPassFile(text, keyOf(parsed, env))
  if (password === undefined) return url
  if (parsed.username === "") parsed.username = encodeURIComponent(keyOf(parsed, env).user)
  parsed.password = encodeURIComponent(password)
  return parsed.href
}

/** What every connection of acx gives the driver: libpq's `sslmode`, and the password file's password. */
export const driverUrl = (url: string): string => withLibpqSslmode(withPassFile(url))
