/**
 * The names an origin is kept under (`SessionOrigins`): a session's key, a machine's name, the
 * ledger source of a directory synced from a machine. Pure, without Effect: `SessionOrigins`
 * re-exports them, and the first step of `acx sync` (an unchanged directory) names its ledger source
 * with them before Effect loads.
 *
 * @since 0.4.0
 */

/**
 * A session's key as one string: `projectKey/sessionId`.
 *
 * @since 0.4.0
 * @category keys
 */
export const originKey = (session: { readonly projectKey: string; readonly sessionId: string }): string =>
  `${session.projectKey}/${session.sessionId}`

/**
 * The ledger source of a directory synced from a machine: `machine:path`. A machine name never
 * holds `:` (see {@link machineName}), so the path is all that follows the first one.
 *
 * @since 0.4.0
 * @category keys
 */
export const sourceOf = (machine: string, path: string): string => `${machine}:${path}`

/**
 * A machine name as stores keep it: 1 to 64 of `A-Z a-z 0-9 . _ -`, starting with a letter or
 * digit; anything else in a hostname becomes `-` (an empty one is `unknown`).
 *
 * @since 0.4.0
 * @category keys
 */
export const machineName = (name: string): string => {
  const cleaned = name.replace(/[^A-Za-z0-9._-]/g, "-").replace(/^[^A-Za-z0-9]+/, "").slice(0, 64)
  return cleaned === "" ? "unknown" : cleaned
}

/**
 * Whether a name given for a machine (`--machine`) is one stores keep as given.
 *
 * @since 0.4.0
 * @category keys
 */
export const isMachineName = (name: string): boolean => name !== "" && machineName(name) === name
