/** The message of anything thrown, for an error's description. */
export const describe = (cause: unknown): string =>
  cause instanceof Error ? cause.message : typeof cause === "string" ? cause : String(cause)
