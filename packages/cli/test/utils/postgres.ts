/** Postgres helpers for the CLI's tests: a port nothing listens on, and dropping a test's schema. */
import * as net from "node:net"

interface PgClient {
  connect(): Promise<void>
  query(sql: string): Promise<unknown>
  end(): Promise<void>
}

/** A TCP port nothing listens on: one the OS just handed out and took back. */
export const closedPort = async (): Promise<number> => {
  const server = net.createServer()
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as net.AddressInfo).port
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

/** Drops a schema and everything in it (a test's own, on the run's server). */
export const dropSchema = async (url: string, schema: string): Promise<void> => {
  // pg is a dependency of @acx/cli, but its types are not installed here
  const pg = (await import("pg" as string)) as { default: { Client: new(options: object) => PgClient } }
  const client = new pg.default.Client({ connectionString: url })
  await client.connect()
  await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).finally(() => client.end())
}

/**
 * Whether `text` shows the password of the Postgres URL `href`. A password that is also part of
 * the URL's user, host or database name (CI's role is `acx:acx@…/acx_test`) cannot be looked for
 * alone, since those names may be shown: then a leak is the credential as a URL writes it.
 */
export const showsPassword = (text: string, href: string): boolean => {
  const url = new URL(href)
  const password = decodeURIComponent(url.password)
  if (password === "") return false
  const named = [url.username, url.hostname, url.pathname.slice(1)].some((part) => part.includes(password))
  return named ? text.includes(`:${password}@`) || text.includes(`:${url.password}@`) : text.includes(password)
}
