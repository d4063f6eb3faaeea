/** `acx import --to`: `sqlite:FILE` or `postgres://URL` as a SessionStore layer. */
import * as PostgresSessionStore from "@acx/session-store/PostgresSessionStore"
import type * as SessionStore from "@acx/session-store/SessionStore"
import * as SqliteSessionStore from "@acx/session-store/SqliteSessionStore"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as path from "node:path"
import * as CliError from "../CliError.js"

export interface Target {
  readonly layer: Layer.Layer<SessionStore.SessionStore, SessionStore.SessionStoreError>
  /** The target without credentials, for messages. */
  readonly display: string
}

const withoutPassword = (url: URL): string => {
  const copy = new URL(url.href)
  if (copy.password !== "") copy.password = "***"
  return copy.href
}

export const parseTarget = (spec: string, flag = "--to"): Effect.Effect<Target, CliError.CliError> => {
  if (spec.startsWith("sqlite:")) {
    const file = spec.slice("sqlite:".length).replace(/^\/\/(?=\/)/, "")
    if (file === "") {
      return Effect.fail(CliError.invalidArgument(`${flag} sqlite: needs a file, e.g. sqlite:./sessions.db`))
    }
    const filename = path.resolve(file)
    return Effect.succeed({ layer: SqliteSessionStore.layer({ filename }), display: `sqlite:${filename}` })
  }
  if (spec.startsWith("postgres://") || spec.startsWith("postgresql://")) {
    let url: URL
    try {
      url = new URL(spec)
    } catch {
      return Effect.fail(CliError.invalidArgument(`${flag} is not a valid postgres:// URL`))
    }
    const schema = url.searchParams.get("schema") ?? undefined
    url.searchParams.delete("schema")
    return Effect.succeed({
      layer: PostgresSessionStore.layer({ url: Redacted.make(url.href), schema }),
      display: withoutPassword(url) + (schema === undefined ? "" : ` (schema ${schema})`)
    })
  }
  return Effect.fail(
    CliError.invalidArgument(`${flag} must be sqlite:FILE or postgres://URL, got ${JSON.stringify(spec.slice(0, 80))}`)
  )
}
