/**
 * The credentials of a hub member (`PostgresHub.addUser`): its role name checked, a generated
 * password, the SCRAM-SHA-256 verifier Postgres stores in its place, and the connection URL the
 * member is given (the admin's URL with the member's name and password instead of the admin's).
 *
 * The verifier, not the password, is what `CREATE ROLE … PASSWORD` sends: the server keeps the
 * same thing either way, but a statement log (`log_statement = 'ddl'`, common on managed
 * servers) then never holds the password.
 *
 * @since 0.4.0
 */
import * as Either from "effect/Either"
import * as Redacted from "effect/Redacted"
import { createHash, createHmac, pbkdf2Sync, randomBytes } from "node:crypto"

/**
 * A member's role name: 1 to 63 lower-case letters, digits and `_`, starting with a letter or `_`
 * (spliced into `CREATE ROLE` as an identifier, and typed into URLs unquoted); never `pg_…` (the
 * server's) nor `acx_…` (the hub's group roles).
 *
 * @since 0.4.0
 * @category validation
 */
export const checkRoleName = (name: string): Either.Either<string, string> => {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) {
    return Either.left(
      `invalid role name ${
        JSON.stringify(name)
      }: use 1 to 63 lower-case letters, digits and _, starting with a letter or _`
    )
  }
  if (name.startsWith("pg_") || name.startsWith("acx_")) {
    return Either.left(`invalid role name ${JSON.stringify(name)}: pg_ and acx_ names are reserved`)
  }
  return Either.right(name)
}

/**
 * A fresh password: 32 characters of URL-safe base64 (192 random bits), so that it needs no
 * percent-encoding in a URL nor quoting in SQL.
 *
 * @since 0.4.0
 * @category constructors
 */
export const generatePassword = (): Redacted.Redacted => Redacted.make(randomBytes(24).toString("base64url"))

/** The iteration count Postgres uses by default (`scram_iterations`). */
const ITERATIONS = 4096

/**
 * The SCRAM-SHA-256 verifier of `password` with `salt` (RFC 5802/7677, as Postgres'
 * `pg_authid.rolpassword` holds it): `SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>`.
 * Postgres applies SASLprep to the password first; for the ASCII passwords generated here that is
 * the identity.
 *
 * @since 0.4.0
 * @category credentials
 */
export const scramVerifier = (password: Redacted.Redacted, salt: Uint8Array = randomBytes(16)): string => {
  const salted = pbkdf2Sync(Redacted.value(password), salt, ITERATIONS, 32, "sha256")
  const clientKey = createHmac("sha256", salted).update("Client Key").digest()
  const storedKey = createHash("sha256").update(clientKey).digest()
  const serverKey = createHmac("sha256", salted).update("Server Key").digest()
  const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64")
  return `SCRAM-SHA-256$${ITERATIONS}:${b64(salt)}$${b64(storedKey)}:${b64(serverKey)}`
}

/**
 * The URL a member connects with: `adminUrl` (host, port, database, `sslmode` and every other
 * parameter) with the member's name and password, every `…password…=` parameter of the admin's
 * dropped, and `?schema=` when the hub is not in `public`.
 *
 * @since 0.4.0
 * @category credentials
 */
export const memberUrl = (
  adminUrl: Redacted.Redacted,
  name: string,
  password: Redacted.Redacted,
  schema: string | undefined
): Redacted.Redacted => {
  const url = new URL(Redacted.value(adminUrl))
  url.username = encodeURIComponent(name)
  url.password = encodeURIComponent(Redacted.value(password))
  for (const key of [...new Set(url.searchParams.keys())]) {
    if (/password|^user$/i.test(key) || key === "schema") url.searchParams.delete(key)
  }
  if (schema !== undefined && schema !== "public") url.searchParams.set("schema", schema)
  return Redacted.make(url.href)
}
