/**
 * How `PostgresHub`'s operations fail: a statement's failure said as a `PostgresHubError`
 * (`Privilege` when the server refused it, else `Storage`), and a failure acx words itself.
 */
import * as Effect from "effect/Effect"
import { PostgresHubError } from "../PostgresHubError.js"
import { describeStatementFailure, isPermissionDenied } from "./pgConnect.js"

export const failure = (operation: string) => (cause: unknown): PostgresHubError =>
  new PostgresHubError({
    reason: isPermissionDenied(cause) ? "Privilege" : "Storage",
    operation,
    description: describeStatementFailure(cause),
    cause
  })

export const fail = (operation: string, reason: PostgresHubError["reason"], description: string) =>
  Effect.fail(new PostgresHubError({ reason, operation, description }))
