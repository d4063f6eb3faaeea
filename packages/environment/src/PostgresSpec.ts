/**
 * The Postgres half of `DatabaseSpec`'s grammar, without Effect: a `postgres://` or
 * `postgresql://` URL whose `schema` query parameter (at most one, not empty) is taken out and
 * names the schema acx's tables live in. `DatabaseSpec.parse` reads Postgres specs through it, and
 * so does a reader that must start without loading Effect (the CLI's kept `stats --from` reports),
 * so both accept and refuse the same specs. Pure and total: errors are values, and no description
 * echoes the input (it may hold a password).
 *
 * @since 0.4.0
 */

/**
 * A Postgres spec as parsed: the connection URL without `schema` (it may hold a password: never
 * print it) and the schema named (`undefined`: the store's default, `public`).
 *
 * @since 0.4.0
 * @category models
 */
export interface Parsed {
  readonly _tag: "Parsed"
  readonly href: string
  readonly schema: string | undefined
}

/**
 * Why a spec that starts like a Postgres URL names no database, in one line without the input.
 *
 * @since 0.4.0
 * @category models
 */
export interface Invalid {
  readonly _tag: "Invalid"
  readonly reason: "InvalidUrl" | "InvalidSchema"
  readonly description: string
}

const SCHEME = /^postgres(?:ql)?:\/\//i
const UNSAFE = "/ ? # @ :"
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/

/**
 * The schema a store uses when a spec names none.
 *
 * @since 0.4.0
 * @category constants
 */
export const DEFAULT_SCHEMA = "public"

/**
 * Whether `spec` is written as a Postgres URL (`postgres://` or `postgresql://`, any case).
 *
 * @since 0.4.0
 * @category parsing
 */
export const isPostgres = (spec: string): boolean => SCHEME.test(spec)

/**
 * Whether a store accepts `name` as its schema: 1 to 63 lower-case letters, digits and `_`,
 * starting with a letter or `_` (spliced into statements unquoted).
 *
 * @since 0.4.0
 * @category parsing
 */
export const isSchemaName = (name: string): boolean => SCHEMA_NAME.test(name)

const invalid = (reason: Invalid["reason"], description: string): Invalid => ({ _tag: "Invalid", reason, description })

/**
 * Parses a spec already known to be a Postgres URL ({@link isPostgres}).
 *
 * @since 0.4.0
 * @category parsing
 */
export const parse = (spec: string): Parsed | Invalid => {
  let url: URL
  try {
    url = new URL(spec)
  } catch {
    // the input is not echoed: it may hold a password in a form the URL parser could not split
    return invalid("InvalidUrl", "not a valid postgres:// URL")
  }
  // A password typed with a `/`, `?` or `#` in it splits early: `postgres://u:1234/x@host/db`
  // parses as host `u`, port 1234 and a path holding the rest of the password. Any `@` left
  // outside the user part means that happened: refused, and said without echoing the input.
  const outside = [url.host, url.pathname, url.search, url.hash]
  if ((url.username === "" && spec.includes("@")) || outside.some((part) => part.includes("@"))) {
    return invalid("InvalidUrl", `not a valid postgres:// URL (a password's ${UNSAFE} must be percent-encoded)`)
  }
  const schemas = url.searchParams.getAll("schema")
  if (schemas.length > 1) return invalid("InvalidSchema", "the URL names more than one schema")
  if (schemas.length === 1 && schemas[0] === "") return invalid("InvalidSchema", "?schema= needs a name")
  url.searchParams.delete("schema")
  return { _tag: "Parsed", href: url.href, schema: schemas[0] }
}

/**
 * A query parameter whose value is a secret (`password`, `sslpassword`, …).
 *
 * @since 0.6.0
 * @category display
 */
export const SECRET_PARAMETER = /password/i

const HIDDEN = "***"

/**
 * Hides what may be a credential in text that was meant to be a database spec but is not one:
 * from the `:` after `//user` to the last `@`, and from the first `…password…=` parameter's
 * value to the end. For echoing bad input back: hiding too much is the safe side.
 *
 * @since 0.6.0
 * @category display
 */
export const hideCredentials = (text: string): string =>
  text
    // up to the last `@`: a password typed with a `/`, `?` or `#` in it is hidden whole
    .replace(/(\/\/[^/?#@:]*):[\s\S]*@/, `$1:${HIDDEN}@`)
    // to the end: the rest may be the password's own `&`
    .replace(/([?&;][^=&#]*password[^=&#]*=)[\s\S]*$/i, `$1${HIDDEN}`)

/**
 * A Postgres URL for messages: its password and every `…password…=` parameter replaced by `***`.
 *
 * @since 0.6.0
 * @category display
 */
export const displayUrl = (href: string): string => {
  let url: URL
  try {
    url = new URL(href)
  } catch {
    return hideCredentials(href)
  }
  if (url.password !== "") url.password = HIDDEN
  for (const name of [...new Set(url.searchParams.keys())]) {
    if (SECRET_PARAMETER.test(name)) url.searchParams.set(name, HIDDEN)
  }
  return url.href
}

/**
 * A Postgres store for messages: {@link displayUrl} of its URL, and ` (schema NAME)` when one is
 * named (what `DatabaseSpec.display` says of it).
 *
 * @since 0.6.0
 * @category display
 */
export const display = (href: string, schema: string | undefined): string =>
  displayUrl(href) + (schema === undefined ? "" : ` (schema ${schema})`)
