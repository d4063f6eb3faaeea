/**
 * What must never be stored, or shown to a model: text inside `<private>…</private>` (removed,
 * tags and all, to a fixpoint; an unclosed tag removes everything after it) and secrets in common
 * shapes (replaced by `[REDACTED:<kind>]`): Anthropic, OpenAI, GitHub, Slack, Google and AWS keys,
 * JSON Web Tokens, `Bearer` tokens and `Authorization: Basic`, private key blocks, passwords in
 * URLs, credential files (`.env` lines whose upper-case name says secret, `~/.aws/credentials`,
 * `.netrc`, `.pgpass`) and the values of secret-named keys (`password=…`, `db_password: …`,
 * `api_token = "…"`); names are kept. No shape needs a word boundary: a secret glued to other
 * text is still found.
 *
 * Pure and total: any text in, text out, in time linear in its length (no pattern can backtrack
 * quadratically); {@link value} walks JSON values (tool inputs and responses) the same way, keys
 * included. Idempotent: redacting twice changes nothing more.
 *
 * @since 0.1.0
 */

import * as JsonDepth from "@acx/schema/JsonDepth"

/**
 * One kind of secret: its name (in the marker) and its pattern (global).
 *
 * @since 0.1.0
 * @category models
 */
export interface SecretPattern {
  readonly kind: string
  readonly pattern: RegExp
  /** Whether a match is a secret (absent: every match is). */
  readonly accept?: (match: string) => boolean
  /** Text every match contains: a text without it skips the pattern (a scan that costs nothing). */
  readonly hint?: string
}

// No pattern has a word boundary: a secret glued to other text (`key%3Dsk-ant-…`, `X_sk-ant-…`,
// `ANSIsk-ant-…`) is still a secret. Every pattern starts with a literal and is followed by runs
// whose failure is found within a bounded number of characters, or by runs that cannot contain the
// next start: the scan stays linear in the text's length (no catastrophic backtracking).
// A space may arrive URL-encoded (`%20`, `+`).
const SPACE = String.raw`(?:\s|%20|\+)`

// A digit, an upper- and a lower-case letter: random, not a word.
const looksRandom = (token: string): boolean => /[0-9]/.test(token) && /[A-Z]/.test(token) && /[a-z]/.test(token)

/**
 * The shapes recognised by their own look, most specific first.
 *
 * @since 0.1.0
 * @category constants
 */
export const SECRET_PATTERNS: ReadonlyArray<SecretPattern> = [
  {
    kind: "private-key",
    pattern: new RegExp(
      String
        .raw`-----BEGIN(?:[A-Z0-9 ]|%20|\+)*PRIVATE${SPACE}KEY-----[\s\S]*?(?:-----END(?:[A-Z0-9 ]|%20|\+)*PRIVATE${SPACE}KEY-----|$)`,
      "g"
    )
  },
  { kind: "anthropic-key", pattern: /sk-ant-[A-Za-z0-9_-]{16,}/g },
  { kind: "openai-key", pattern: /sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,}/g },
  // a bare sk-… must look random: "task-management-…" is prose, not a key
  { kind: "openai-key", pattern: /sk-[A-Za-z0-9_-]{20,}/g, accept: (match) => looksRandom(match.slice(3)) },
  { kind: "github-token", pattern: /(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})/g },
  { kind: "slack-token", pattern: /xox[abposr]-[A-Za-z0-9-]{10,}/g },
  { kind: "google-api-key", pattern: /AIza[0-9A-Za-z_-]{35,}/g },
  { kind: "aws-access-key", pattern: /(?:AKIA|ASIA)[0-9A-Z]{16,}/g },
  // a whole dotted run, started only where a run starts (a regex looking for "eyJ…" anywhere
  // rescans "eyJeyJeyJ…" from every "eyJ"): the token inside it is found by `redactJwt`
  { kind: "jwt", pattern: /(?<![A-Za-z0-9_-])[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)+/g, hint: "eyJ" },
  {
    kind: "bearer-token",
    pattern: new RegExp(String.raw`(Bearer${SPACE}+)(?!\[REDACTED)[A-Za-z0-9._~+/-]{16,}=*`, "g")
  },
  {
    kind: "basic-auth",
    pattern: new RegExp(
      String
        .raw`(Authorization\\?["']?${SPACE}*(?::|=|%3[AaDd])${SPACE}*\\?["']?[Bb]asic${SPACE}+)(?!\[REDACTED)[A-Za-z0-9+/]{4,}=*`,
      "gi"
    )
  },
  // scheme://user:password@host: the password goes, the rest stays (the user class stops at the
  // next "/", so two attempts never scan the same characters)
  { kind: "url-password", pattern: /(:\/\/[^/\s:@]*:)(?!\[REDACTED)([^/\s@]+)(?=@)/g, hint: "://" },
  // the same URL URL-encoded (`%3A%2F%2Fuser%3Apassword%40host`); the password is bounded, as an
  // encoded one may hold "%3A%2F%2F" and every start must stay cheap
  {
    kind: "url-password",
    pattern:
      /(%3A%2F%2F[A-Za-z0-9._~-]*%3A)(?!\[REDACTED)((?:[A-Za-z0-9._~!$'()*,;=-]|%(?!40)[0-9A-Fa-f]{2}){1,256})(?=%40)/gi
  }
]

const marker = (kind: string) => `[REDACTED:${kind}]`

const JWT_SEGMENT = /^[A-Za-z0-9_-]{8,}$/

// header.payload.signature inside a dotted run: a header holding "eyJ" and 8 more characters (text
// may be glued before it), a payload starting "eyJ", a signature of 8 or more.
const isJwtAt = (segments: ReadonlyArray<string>, i: number, start: number): boolean =>
  start >= 0 && i + 2 < segments.length && JWT_SEGMENT.test(segments[i]!.slice(start + 3)) &&
  segments[i + 1]!.startsWith("eyJ") && JWT_SEGMENT.test(segments[i + 1]!.slice(3)) &&
  JWT_SEGMENT.test(segments[i + 2]!)

const redactJwt = (run: string): string => {
  const segments = run.split(".")
  const out: Array<string> = []
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!
    const start = segment.indexOf("eyJ")
    if (isJwtAt(segments, i, start)) {
      out.push(`${segment.slice(0, start)}${marker("jwt")}`)
      i += 2
    } else {
      out.push(segment)
    }
  }
  return out.join(".")
}

// What each rule's every match contains, as one cheap test: a text without it skips the rule.
// In the order of SECRET_PATTERNS; the JWT rule has its `hint` ("eyJ"). Case-sensitive where the
// rule is; `i` where it is.
const SHAPE_ANCHORS: ReadonlyArray<RegExp | undefined> = [
  /-----BEGIN/,
  /sk-ant-/,
  /sk-(?:proj|svcacct|admin)-/,
  /sk-/,
  /gh[pousr]_|github_pat_/,
  /xox[abposr]-/,
  /AIza/,
  /AKIA|ASIA/,
  undefined,
  /Bearer/,
  /authorization/i,
  undefined,
  /%3A%2F%2F/i
]

const redactShapes = (text: string): string => {
  let out = text
  for (let i = 0; i < SECRET_PATTERNS.length; i++) {
    const { accept, hint, kind, pattern } = SECRET_PATTERNS[i]!
    if (hint !== undefined && !out.includes(hint)) continue
    if (SHAPE_ANCHORS[i]?.test(out) === false) continue
    out = out.replace(pattern, (whole: string, prefix: unknown) => {
      if (kind === "jwt") return redactJwt(whole)
      if (accept !== undefined && !accept(whole)) return whole
      // these keep what introduces the secret ("Bearer ", "Authorization: Basic ", "://user:")
      return typeof prefix === "string" ? `${prefix}${marker(kind)}` : marker(kind)
    })
  }
  return out
}

/**
 * The last word of a key that names a secret (`password`, `db_password`, `api_token`,
 * `aws_secret_access_key`, `client-secret`, `db_pwd`, …). `secret_sauce`, `max_tokens` and a bare
 * `pwd` (a working directory) are not.
 *
 * @since 0.2.0
 * @category constants
 */
export const SECRET_KEY_NAME =
  /(?:password|passwd|passphrase|[_.-]pwd|secret|token|credentials?|auth|(?:api|access|secret|private|signing|encryption|master|account)[_.-]?key)$/i

// A secret-named key, an optional closing quote (or an escaped one), "=" or ":" (perhaps
// URL-encoded), then the value: quoted (up to 256 characters on the line, the same quote closing
// it: the bound keeps a missing close quote cheap) or bare (to a space, quote or separator).
const KEY_VALUE = new RegExp(
  String
    .raw`(password|passwd|passphrase|[_.-]pwd|secret|token|credentials?|(?:api|access|secret|private|signing|encryption|master|account)[_.-]?key)` +
    String.raw`((?:\\?["']|%2[27])?(?:[ \t+]|%20){0,16}(?:=|:|%3[AaDd])(?:[ \t+]|%20){0,16})` +
    String
      .raw`(?!(?:[ \t+]|%20)*(?:\\?["']|%2[27])?\[REDACTED)(?:(\\?["']|%2[27])([^\n]{1,256}?)\3|(\\?["']?)[^\s"'&,;)}\]]+)`,
  "gi"
)

// Every KEY_VALUE match holds a secret name and a separator ("=", ":", or "%3A"/"%3D").
const KEY_VALUE_ANCHOR = /pass|pwd|secret|token|credential|key/i
const SEPARATOR_ANCHOR = /[=:]|%3/

const redactKeyValues = (text: string): string =>
  !KEY_VALUE_ANCHOR.test(text) || !SEPARATOR_ANCHOR.test(text) ? text : text.replace(
    KEY_VALUE,
    (_whole, name: string, separator: string, quote: string | undefined, _quoted, open: string | undefined) =>
      quote !== undefined
        ? `${name}${separator}${quote}${marker("credential")}${quote}`
        : `${name}${separator}${open ?? ""}${marker("credential")}`
  )

// A line starts after a newline, or after an escaped one ("\n" in JSON-escaped text: a .env file
// printed inside a JSON string is still a .env file), and runs to the next of either. Each line
// rule is one global regex over the whole text: no line is matched twice, and no split and join
// (a megabyte of empty lines stays cheap). Each comes twice: anchored at real line starts only
// (`^`, which the regex engine finds fast), and also after escaped newlines, used when the text
// holds one.
const LINE_REST = String.raw`(?:[^\r\n\\]|\\(?!n))`

interface LineRule {
  readonly plain: RegExp
  readonly escaped: RegExp
}

const lineRule = (body: string): LineRule => ({
  plain: new RegExp(`^${body}`, "gm"),
  escaped: new RegExp(String.raw`(?:^|(?<=\\n))${body}`, "gm")
})

// NAME=value (or NAME: value) where the upper-case, env-style NAME says secret; the value runs
// to the end of the line ("monkey: banana" and "Authorization: …" are not env lines). One class
// for the name, so a line is matched in one pass.
const ENV_LINE = lineRule(
  String.raw`([ \t"']*(?:export[ \t]+)?)([A-Z_][A-Z0-9_]*)([ \t]*[=:][ \t]*)(?!\[REDACTED)` +
    String.raw`(?:[^\s\\]|\\(?!n))${LINE_REST}*`
)
const ENV_SECRET_NAME = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|PWD|CREDENTIAL|AUTH/
// ~/.pgpass: host:port:database:user:password
const PGPASS_LINE = lineRule(
  String.raw`([ \t"']*[^:\s"']+:(?:\d+|\*):[^:\s]+:[^:\s]+:)(?!\[REDACTED)${LINE_REST}+`
)
// ~/.netrc: "machine h login u password p" on one line, or "password p" on its own line
const NETRC_LINE = lineRule(
  String.raw`[ \t"']*(?:machine|default|login|password|passwd|account)[ \t]${LINE_REST}*`
)
const NETRC_PASSWORD = /(^|[ \t"'])(password|passwd)([ \t]+)(?![=:]|\[REDACTED)(\S+)/g

// What a line rule needs to change anything: an env line a secret name (ENV_SECRET_NAME) and a
// separator; a .pgpass line its four colons around a port; a .netrc line "password" or "passwd".
const ENV_ANCHOR = /KEY|TOKEN|SECRET|PASSW|PWD|CREDENTIAL|AUTH/
const PGPASS_ANCHOR = /:(?:\d+|\*):[^:\s]+:[^:\s]+:/
const NETRC_ANCHOR = /passw/

const redactEnvLines = (text: string, rule: keyof LineRule): string =>
  !ENV_ANCHOR.test(text) || !/[=:]/.test(text) ? text : text.replace(
    ENV_LINE[rule],
    (line, before: string, name: string, separator: string) =>
      ENV_SECRET_NAME.test(name) ? `${before}${name}${separator}${marker("env-secret")}` : line
  )

const redactPgpassLines = (text: string, rule: keyof LineRule): string =>
  !PGPASS_ANCHOR.test(text)
    ? text
    : text.replace(PGPASS_LINE[rule], (_line, fields: string) => `${fields}${marker("pgpass")}`)

const redactNetrcLines = (text: string, rule: keyof LineRule): string =>
  !NETRC_ANCHOR.test(text) ? text : text.replace(NETRC_LINE[rule], (line) =>
    line.replace(
      NETRC_PASSWORD,
      (_whole, before: string, word: string, gap: string) => `${before}${word}${gap}${marker("netrc")}`
    ))

const redactLines = (text: string): string => {
  const rule = text.includes("\\n") ? "escaped" : "plain"
  return redactNetrcLines(redactPgpassLines(redactEnvLines(text, rule), rule), rule)
}

// One pre-scan for every rule at once: a text holding none of the anchors above (case-insensitive
// here, so weaker than each) has no secret in any shape and comes back as itself. Most text has
// none; what has one runs only the rules whose own anchor it holds.
const ANY_ANCHOR =
  /-----begin|sk-|gh[pousr]_|github_pat_|xox|aiza|akia|asia|eyj|bearer|auth|:\/\/|%3a%2f%2f|pass|pwd|secret|token|credential|key|:(?:\d+|\*):[^:\s]+:[^:\s]+:/i

// The pre-scan split by separators: every rule but the shapes and .netrc lines needs a ":", "="
// or "%" (key values, credential lines, URLs, `Authorization`); without one, only a shape's own
// case-sensitive literal or a .netrc line's "passw" can match, and each of those holds one of
// ANY_ANCHOR's words too. So a text with a separator needs ANY_ANCHOR, one without needs
// SHAPE_LITERAL (found first by the plain substrings it cannot match without: prose that says
// "token" or "key" costs a few substring scans).
const SHAPE_LITERAL = /-----BEGIN|sk-|gh[pousr]_|github_pat_|xox[abposr]-|AIza|AKIA|ASIA|eyJ|Bearer|passw/
const SHAPE_WORDS = ["-----BEGIN", "sk-", "gh", "github_pat_", "xox", "AIza", "AKIA", "ASIA", "eyJ", "Bearer", "passw"]

const mayHoldSecret = (text: string): boolean =>
  text.includes(":") || text.includes("=") || text.includes("%")
    ? ANY_ANCHOR.test(text)
    : SHAPE_WORDS.some((word) => text.includes(word)) && SHAPE_LITERAL.test(text)

/**
 * Text with every recognised secret replaced by `[REDACTED:<kind>]`: the {@link SECRET_PATTERNS}
 * shapes, then credential-file lines (env-style `NAME=…`, `.pgpass`, `.netrc`), then the values of
 * secret-named keys anywhere ({@link SECRET_KEY_NAME}: `password=…`, `db_password: …`,
 * `api_token = "…"`). Linear in the text's length; idempotent.
 *
 * @since 0.1.0
 * @category redaction
 */
export const redactSecrets = (text: string): string =>
  mayHoldSecret(text) ? redactKeyValues(redactLines(redactShapes(text))) : text

const OPEN_TAG = /^<private(?:\s[^>]*)?>$/i
const CLOSE_TAG = /^<\/private\s*>$/i
const UNFINISHED_OPEN_TAG = /^<private(?:\s|$)/i
const ANGLE = /[<>]/g

/**
 * Text with every `<private>…</private>` removed, tags and all (case-insensitive). Removal runs to
 * a fixpoint: nested tags count (`<private>a<private>b</private>c</private>` goes whole), a tag
 * formed by what is left once another part is removed (`<priv<private>x</private>ate>SECRET`) is
 * a tag too, and an unclosed one removes the rest. One pass over the text: the output never holds
 * a `<private>` tag, so stripping again changes nothing.
 *
 * @since 0.1.0
 * @category redaction
 */
export const stripPrivate = (text: string): string => {
  // `done` is final output; `pending` holds the output since each "<" that no ">" followed yet
  // (only such a run can still become a tag when more text is appended to it)
  const done: Array<string> = []
  const pending: Array<string> = []
  const emit = (piece: string) => {
    if (pending.length > 0) pending[pending.length - 1] += piece
    else done.push(piece)
  }
  let openBelow = -1 // the lowest pending candidate below the top that is an unfinished open tag
  let depth = 0
  let tagStart = -1 // inside a private part: where the last "<" was
  let at = 0
  ANGLE.lastIndex = 0
  for (let match = ANGLE.exec(text); match !== null; match = ANGLE.exec(text)) {
    const index = match.index
    if (depth === 0) {
      emit(text.slice(at, index))
      if (text[index] === "<") {
        // a candidate is judged once it stops growing (its start never changes again)
        if (openBelow === -1 && pending.length > 0 && UNFINISHED_OPEN_TAG.test(pending[pending.length - 1]!)) {
          openBelow = pending.length - 1
        }
        pending.push("<")
      } else {
        // "<private x <b>" is an open tag too: the lowest unfinished one opens the private part
        const open = openBelow >= 0
          ? openBelow
          : pending.length > 0 && UNFINISHED_OPEN_TAG.test(pending[pending.length - 1]!)
          ? pending.length - 1
          : -1
        if (open >= 0) {
          // what stays pending below it may still become a tag with what follows the part
          pending.length = open
          depth = 1
          tagStart = -1
        } else {
          // a ">" ends every candidate: none can become a tag any more
          done.push(...pending, ">")
          pending.length = 0
        }
        openBelow = -1
      }
    } else if (text[index] === "<") {
      tagStart = index
    } else if (tagStart >= 0) {
      const tag = text.slice(tagStart, index + 1)
      if (OPEN_TAG.test(tag)) depth++
      else if (CLOSE_TAG.test(tag)) depth--
      tagStart = -1
    }
    at = index + 1
  }
  if (depth > 0) return finish(done, pending)
  emit(text.slice(at))
  return finish(done, pending)
}

// An open tag never finished with ">" removes itself and the rest, like an unclosed tag.
const finish = (done: Array<string>, pending: Array<string>): string => {
  const open = pending.findIndex((candidate) => UNFINISHED_OPEN_TAG.test(candidate))
  return [...done, ...(open === -1 ? pending : pending.slice(0, open))].join("")
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
 * sane). The structure is kept: the result is the same JSON with its strings replaced. With
 * `secretKey`, a string or number under a key it accepts is replaced whole by
 * `"[REDACTED:credential]"` (`{"password": "hunter2"}` has no secret in its own shape).
 *
 * @since 0.1.0
 * @category redaction
 */
export const mapStrings = (
  input: unknown,
  redact: (text: string) => string,
  depth = 0,
  secretKey?: (key: string) => boolean,
  maxDepth = MAX_DEPTH
): unknown => walk(input, { redact, secretKey, maxDepth, share: false }, depth)

interface Walk {
  readonly redact: (text: string) => string
  readonly secretKey: ((key: string) => boolean) | undefined
  readonly maxDepth: number
  /** Give back an array or plain object whose strings all stay as they are as itself (no copy). */
  readonly share: boolean
}

const walk = (input: unknown, how: Walk, depth: number): unknown => {
  if (typeof input === "string") return how.redact(input)
  if (typeof input !== "object" || input === null) return input
  if (depth >= how.maxDepth) return marker("too-deep")
  if (Array.isArray(input)) return walkArray(input, how, depth)
  if (how.share && Object.getPrototypeOf(input) === Object.prototype) {
    return walkShared(input as Record<string, unknown>, how, depth)
  }
  const out: Record<string, unknown> = {}
  for (const [key, item] of Object.entries(input)) put(out, how.redact(key), walkValue(key, item, how, depth))
  return out
}

const walkArray = (input: ReadonlyArray<unknown>, how: Walk, depth: number): unknown => {
  if (!how.share) return input.map((item) => walk(item, how, depth + 1))
  for (let i = 0; i < input.length; i++) {
    const item = input[i]
    const next = walk(item, how, depth + 1)
    // the first change: copy what came before, map the rest
    if (next !== item) {
      return [
        ...input.slice(0, i),
        next,
        ...input.slice(i + 1).map((rest) => walk(rest, how, depth + 1))
      ]
    }
  }
  return input
}

// A plain object walked without a copy until a key or value changes.
const walkShared = (input: Record<string, unknown>, how: Walk, depth: number): unknown => {
  const keys = Object.keys(input)
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!
    const name = how.redact(key)
    const value = walkValue(key, input[key], how, depth)
    if (name === key && value === input[key]) continue
    const out: Record<string, unknown> = {}
    for (let j = 0; j < i; j++) put(out, keys[j]!, input[keys[j]!])
    put(out, name, value)
    for (let j = i + 1; j < keys.length; j++) {
      put(out, how.redact(keys[j]!), walkValue(keys[j]!, input[keys[j]!], how, depth))
    }
    return out
  }
  return input
}

// A value under a key: replaced whole under a secret-named key, walked otherwise.
const walkValue = (key: string, item: unknown, how: Walk, depth: number): unknown =>
  how.secretKey !== undefined && (typeof item === "string" || typeof item === "number") && how.secretKey(key) &&
    item !== ""
    ? marker("credential")
    : walk(item, how, depth + 1)

// A key named "__proto__" is data like any other (defineProperty); every other key is assigned,
// which is the same own property and many times faster (thousands of rows a page's list).
const put = (out: Record<string, unknown>, name: string, value: unknown): void => {
  if (name === "__proto__") {
    Object.defineProperty(out, name, { value, enumerable: true, writable: true, configurable: true })
  } else {
    out[name] = value
  }
}

/**
 * A stored entry with its secrets masked, and how many were: {@link redactSecrets} on every
 * string (keys too), the mask the page applies to what it shows (`@acx/ui/SecretMask`), applied
 * on the way into a store (`acx sync`, `acx import`). Walks as deep as a stored entry may be
 * (`JsonDepth.MAX_DEPTH`), so nothing a store keeps is cut. An entry without a secret comes back
 * as itself (the same object), with 0, and nothing is copied on the way; in one with a secret,
 * the arrays and plain objects holding none are the entry's own (shared, not copied).
 *
 * @since 0.5.0
 * @category redaction
 */
export const maskEntry = <A>(input: A): { readonly value: A; readonly masked: number } => {
  let masked = 0
  const mask = (text: string): string => {
    const out = redactSecrets(text)
    if (out !== text) masked += Math.max(1, markers(out) - markers(text))
    return out
  }
  const value = walk(
    input,
    { redact: mask, secretKey: undefined, maxDepth: JsonDepth.MAX_DEPTH + 1, share: true },
    0
  ) as A
  return masked === 0 ? { value: input, masked } : { value, masked }
}

// How many `[REDACTED:` markers a text holds.
const markers = (text: string): number => {
  let count = 0
  for (let at = text.indexOf(MARKER_START); at >= 0; at = text.indexOf(MARKER_START, at + 1)) count++
  return count
}

const MARKER_START = "[REDACTED:"

/**
 * Whether a JSON key names a secret ({@link SECRET_KEY_NAME}, in any case: `password`,
 * `GITHUB_TOKEN`, `aws_secret_access_key`).
 *
 * @since 0.2.0
 * @category predicates
 */
export const isSecretKey = (key: string): boolean => SECRET_KEY_NAME.test(key)

/**
 * A JSON value with {@link text} applied to every string (keys too), and the values of
 * secret-named keys ({@link isSecretKey}) replaced whole; anything nested deeper than 64 levels is
 * replaced by `"[REDACTED:too-deep]"` (a hook's stdin cannot be trusted to be sane).
 *
 * @since 0.1.0
 * @category redaction
 */
export const value = (input: unknown, depth = 0): unknown => mapStrings(input, text, depth, isSecretKey)

// Raised whenever the redaction code changes what it replaces without a pattern changing (an
// `accept` check, the order the rules run in): the fingerprint below is made of the rules' data,
// which reads the same from the sources and from any bundle of them.
const RULES_REVISION = 1

/**
 * A short fingerprint of the redaction rules (every pattern and its kind, the credential-line
 * rules, the secret key names, and {@link RULES_REVISION} for changes in code): it changes
 * whenever the rules do, so a store of text redacted earlier can tell that it must be redacted
 * again (`@acx/memory` does, once).
 *
 * @since 0.3.0
 * @category redaction
 */
export const RULES_FINGERPRINT: string = (() => {
  const parts = [
    String(RULES_REVISION),
    ...SECRET_PATTERNS.map(({ hint, kind, pattern }) =>
      `${kind}\u0000${pattern.source}\u0000${pattern.flags}\u0000${hint ?? ""}`
    ),
    SECRET_KEY_NAME.source,
    KEY_VALUE.source,
    ENV_LINE.plain.source,
    ENV_SECRET_NAME.source,
    PGPASS_LINE.plain.source,
    NETRC_LINE.plain.source,
    NETRC_PASSWORD.source
  ]
  let hash = 0x811c9dc5
  for (const char of parts.join("\u0001")) {
    hash ^= char.codePointAt(0)!
    hash = Math.imul(hash, 0x01000193) >>> 0
  }
  return hash.toString(16).padStart(8, "0")
})()
