/**
 * What must never be stored, or shown to a model: text inside `<private>…</private>` (removed,
 * tags and all; an unclosed tag removes everything after it) and secrets in common shapes
 * (replaced by `[REDACTED:<kind>]`): Anthropic, OpenAI, GitHub, Slack, Google and AWS keys,
 * JSON Web Tokens, `Bearer` tokens, private key blocks, and the values of `.env`-style lines
 * whose upper-case name says secret (`…KEY=`, `…TOKEN=`, `…SECRET=`, `…PASSWORD=`, …; the name
 * is kept).
 *
 * Pure and total: any text in, text out; {@link value} walks JSON values (tool inputs and
 * responses) the same way, keys included. Idempotent: redacting twice changes nothing more.
 *
 * @since 0.1.0
 */

/**
 * One kind of secret: its name (in the marker) and its pattern (global).
 *
 * @since 0.1.0
 * @category models
 */
export interface SecretPattern {
  readonly kind: string
  readonly pattern: RegExp
}

/**
 * The shapes recognised, most specific first.
 *
 * @since 0.1.0
 * @category constants
 */
export const SECRET_PATTERNS: ReadonlyArray<SecretPattern> = [
  {
    kind: "private-key",
    pattern: /-----BEGIN[A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END[A-Z0-9 ]*PRIVATE KEY-----|$)/g
  },
  { kind: "anthropic-key", pattern: /\bsk-ant-[A-Za-z0-9_-]{16,}/g },
  { kind: "openai-key", pattern: /\bsk-(?:proj-|svcacct-)?[A-Za-z0-9_-]{20,}/g },
  { kind: "github-token", pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})/g },
  { kind: "slack-token", pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}/g },
  { kind: "google-api-key", pattern: /\bAIza[0-9A-Za-z_-]{35}/g },
  { kind: "aws-access-key", pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g },
  { kind: "jwt", pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g },
  { kind: "bearer-token", pattern: /\b(Bearer\s+)(?!\[REDACTED)[A-Za-z0-9._~+/-]{16,}=*/g }
]

// NAME=value (or NAME: value) where the upper-case, env-style NAME says secret; the value runs
// to the end of the line ("monkey: banana" and "Authorization: …" are not env lines)
const ENV_SECRET =
  /^(\s*(?:export\s+)?(?=[A-Z_])[A-Z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|PWD|CREDENTIALS?|AUTH)[A-Z0-9_]*\s*[=:]\s*)(?!\[REDACTED)(\S.*)$/gm

const marker = (kind: string) => `[REDACTED:${kind}]`

/**
 * Text with every `<private>…</private>` removed (case-insensitive; an unclosed tag removes the
 * rest).
 *
 * @since 0.1.0
 * @category redaction
 */
export const stripPrivate = (text: string): string =>
  text.replace(/<private(?:\s[^>]*)?>[\s\S]*?(?:<\/private\s*>|$)/gi, "")

/**
 * Text with every recognised secret replaced by `[REDACTED:<kind>]`.
 *
 * @since 0.1.0
 * @category redaction
 */
export const redactSecrets = (text: string): string => {
  let out = text
  for (const { kind, pattern } of SECRET_PATTERNS) {
    out = out.replace(pattern, (...groups: Array<unknown>) =>
      // a bearer token keeps its "Bearer " prefix
      kind === "bearer-token" ? `${groups[1] as string}${marker(kind)}` : marker(kind))
  }
  return out.replace(ENV_SECRET, (_whole, name: string) => `${name}${marker("env-secret")}`)
}

/**
 * Both: private parts removed, then secrets redacted.
 *
 * @since 0.1.0
 * @category redaction
 */
export const text = (input: string): string => redactSecrets(stripPrivate(input))

const MAX_DEPTH = 64

/**
 * A JSON value with `redact` applied to every string (keys too); anything nested deeper than
 * 64 levels is replaced by `"[REDACTED:too-deep]"` (input from outside cannot be trusted to be
 * sane). The structure is kept: the result is the same JSON with its strings replaced.
 *
 * @since 0.1.0
 * @category redaction
 */
export const mapStrings = (input: unknown, redact: (text: string) => string, depth = 0): unknown => {
  if (typeof input === "string") return redact(input)
  if (typeof input !== "object" || input === null) return input
  if (depth >= MAX_DEPTH) return marker("too-deep")
  if (Array.isArray(input)) return input.map((item) => mapStrings(item, redact, depth + 1))
  const out: Record<string, unknown> = {}
  for (const [key, item] of Object.entries(input)) {
    // defineProperty: a key named "__proto__" is data like any other
    Object.defineProperty(out, redact(key), {
      value: mapStrings(item, redact, depth + 1),
      enumerable: true,
      writable: true,
      configurable: true
    })
  }
  return out
}

/**
 * A JSON value with {@link text} applied to every string (keys too); anything nested deeper than
 * 64 levels is replaced by `"[REDACTED:too-deep]"` (a hook's stdin cannot be trusted to be sane).
 *
 * @since 0.1.0
 * @category redaction
 */
export const value = (input: unknown, depth = 0): unknown => mapStrings(input, text, depth)
