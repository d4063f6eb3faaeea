/**
 * The facts `StatsFold` reads of a transcript line (`StatsFold.EntryFacts`), found on the line's
 * bytes without building the entry: `JSON.parse` of every line, and the garbage of every string
 * and object it makes, were most of a cold `acx stats` (docs/design.md, "The config directory
 * on the fast path"). The scan walks the whole line and checks its syntax as `JSON.parse` does,
 * but builds only the few values the fold reads.
 *
 * It answers for a line exactly what `JSON.parse(lineText(line))` and `StatsFold.factsOf` would
 * (`lineText`: long strings of long lines replaced by `""`, their insides unchecked), or
 * `undefined` when it is not sure: any whitespace, a key with an escape, a fault anywhere, a
 * nesting deeper than {@link MAX_SCAN_DEPTH}, a line that is not an object. The caller then
 * parses the line as before, which decides (the line may well be fine). A property test holds
 * the two equal on arbitrary and hostile lines.
 *
 * @internal
 */
import * as StatsFold from "@acx/convert/StatsFold"

/** Deeper lines are left to `JSON.parse` (and the depth check before it). @internal */
export const MAX_SCAN_DEPTH = 64

const FAIL = -1
const QUOTE = 0x22
const BACKSLASH = 0x5c
const COLON = 0x3a
const COMMA = 0x2c
const OPEN_BRACE = 0x7b
const CLOSE_BRACE = 0x7d
const OPEN_BRACKET = 0x5b
const CLOSE_BRACKET = 0x5d
const MINUS = 0x2d
const PLUS = 0x2b
const DOT = 0x2e
const ZERO = 0x30
const NINE = 0x39

// 1 for the bytes that end a run of plain string bytes: `"`, `\` and the control characters
const STOP = new Uint8Array(256)
for (let code = 0; code < 0x20; code++) STOP[code] = 1
STOP[QUOTE] = 1
STOP[BACKSLASH] = 1

// 1 for the characters that may follow `\` (besides `u`)
const ESCAPE = new Uint8Array(256)
for (const char of "\"\\/bfnrt") ESCAPE[char.charCodeAt(0)] = 1

const HEX = new Uint8Array(256)
for (const char of "0123456789abcdefABCDEF") HEX[char.charCodeAt(0)] = 1

const bytesOf = (text: string): Uint8Array => Uint8Array.from(text, (char) => char.charCodeAt(0))
const K_TYPE = bytesOf("type")
const K_TIMESTAMP = bytesOf("timestamp")
const K_AGENT_ID = bytesOf("agentId")
const K_IS_SIDECHAIN = bytesOf("isSidechain")
const K_IS_META = bytesOf("isMeta")
const K_IS_COMPACT_SUMMARY = bytesOf("isCompactSummary")
const K_SUBTYPE = bytesOf("subtype")
const K_REQUEST_ID = bytesOf("requestId")
const K_MESSAGE = bytesOf("message")
const K_ID = bytesOf("id")
const K_MODEL = bytesOf("model")
const K_USAGE = bytesOf("usage")
const K_CONTENT = bytesOf("content")
const K_NAME = bytesOf("name")
const V_TRUE = bytesOf("true")
const V_FALSE = bytesOf("false")
const V_NULL = bytesOf("null")
// values compared without decoding them
const KNOWN_VALUES = ["assistant", "user", "system", "tool_use", "tool_result", "compact_boundary"].map((
  text
) => [text, bytesOf(text)] as const)

// The scan's state: one line at a time, synchronously (module state rather than an object per
// line; the scan runs once per transcript line).
let buf: Buffer = Buffer.alloc(0)
// `buf`'s memory as 32-bit words (from the start of its ArrayBuffer)
let words: Int32Array<ArrayBufferLike> = new Int32Array(0)
let lineEnd = 0
let longLine = false
// what the last string scanned was: escaped (holds `\`), long (a long line's long string: `""`)
let escaped = false
let long = false
// long strings met so far in the line (a value parsed whole must not hold one)
let longCount = 0

const byteAt = (at: number): number => at < lineEnd ? buf[at]! : -1

const matches = (at: number, word: Uint8Array): boolean => {
  if (at + word.length > lineEnd) return false
  for (let i = 0; i < word.length; i++) if (buf[at + i] !== word[i]) return false
  return true
}

// The bytes in [from, to) are `word`.
const isWord = (from: number, to: number, word: Uint8Array): boolean => to - from === word.length && matches(from, word)

// Where the string opened at `open` ends in a long line, by `lineText`'s rule (the next `"` not
// escaped by an odd run of `\`): past it when the string is long (its insides go unchecked),
// FAIL when it is short (it had a fault: the parse decides) or has no end.
const longClose = (open: number): number => {
  let close = open + 1
  for (;;) {
    close = buf.indexOf(QUOTE, close)
    if (close === -1 || close >= lineEnd) return FAIL
    let backslashes = 0
    while (buf[close - 1 - backslashes] === BACKSLASH) backslashes++
    if (backslashes % 2 === 0) break
    close++
  }
  if (close - open + 1 <= StatsFold.LONG_STRING) return FAIL
  long = true
  longCount++
  return close + 1
}

// Whether any of the four bytes in `word` is `"`, `\` or a control character (exact as a
// whole; which byte is found by the byte loop).
const stops = (word: number): boolean => {
  const quote = word ^ 0x22222222
  const backslash = word ^ 0x5c5c5c5c
  return ((((word - 0x20202020) & ~word) | ((quote - 0x01010101) & ~quote) |
    ((backslash - 0x01010101) & ~backslash)) & 0x80808080) !== 0
}

// Past the string opened at `open`, checked as JSON.parse checks it; FAIL on a fault. Plain
// bytes are skipped four at a time (an aligned 32-bit view of the same memory).
const skipString = (open: number): number => {
  escaped = false
  long = false
  const bytes = buf
  const view = words
  const base = bytes.byteOffset
  const end = lineEnd
  // in a long line, a string that reaches LONG_STRING bytes is long: its end is found natively
  const limit = longLine ? Math.min(end, open + StatsFold.LONG_STRING) : end
  let at = open + 1
  for (;;) {
    if (((base + at) & 3) === 0) {
      while (at + 4 <= limit && !stops(view[(base + at) >> 2]!)) at += 4
    }
    if (at >= limit) break
    const code = bytes[at]!
    if (code !== QUOTE && code !== BACKSLASH && code >= 0x20) {
      at++
      continue
    }
    if (code === QUOTE) return at + 1
    if (code === BACKSLASH && at + 1 < end) {
      const next = bytes[at + 1]!
      if (ESCAPE[next] === 1) {
        escaped = true
        at += 2
        continue
      }
      if (next === 0x75 && at + 5 < end && isHex4(at + 2)) {
        escaped = true
        at += 6
        continue
      }
    }
    return longLine ? longClose(open) : FAIL
  }
  return longLine ? longClose(open) : FAIL
}

const isHex4 = (at: number): boolean =>
  HEX[buf[at]!] === 1 && HEX[buf[at + 1]!] === 1 && HEX[buf[at + 2]!] === 1 && HEX[buf[at + 3]!] === 1

const isDigit = (code: number): boolean => code >= ZERO && code <= NINE

const skipDigits = (at: number): number => {
  while (isDigit(byteAt(at))) at++
  return at
}

// Past the number at `at` (JSON's grammar); FAIL when there is none.
const skipNumber = (start: number): number => {
  let at = byteAt(start) === MINUS ? start + 1 : start
  const first = byteAt(at)
  if (first === ZERO) at++
  else if (isDigit(first)) at = skipDigits(at + 1)
  else return FAIL
  if (byteAt(at) === DOT) {
    if (!isDigit(byteAt(at + 1))) return FAIL
    at = skipDigits(at + 2)
  }
  const e = byteAt(at)
  if (e === 0x65 || e === 0x45) {
    at++
    const sign = byteAt(at)
    if (sign === PLUS || sign === MINUS) at++
    if (!isDigit(byteAt(at))) return FAIL
    at = skipDigits(at + 1)
  }
  return at
}

// Past the value at `at` (any JSON value, checked); FAIL on a fault or deeper than the cap.
const skipValue = (at: number, depth: number): number => {
  const code = byteAt(at)
  if (code === QUOTE) return skipString(at)
  if (code === OPEN_BRACE) {
    if (depth >= MAX_SCAN_DEPTH) return FAIL
    at++
    if (byteAt(at) === CLOSE_BRACE) return at + 1
    for (;;) {
      if (byteAt(at) !== QUOTE) return FAIL
      at = skipString(at)
      if (at === FAIL || byteAt(at) !== COLON) return FAIL
      at = skipValue(at + 1, depth + 1)
      if (at === FAIL) return FAIL
      const next = byteAt(at)
      if (next === CLOSE_BRACE) return at + 1
      if (next !== COMMA) return FAIL
      at++
    }
  }
  if (code === OPEN_BRACKET) {
    if (depth >= MAX_SCAN_DEPTH) return FAIL
    at++
    if (byteAt(at) === CLOSE_BRACKET) return at + 1
    for (;;) {
      at = skipValue(at, depth + 1)
      if (at === FAIL) return FAIL
      const next = byteAt(at)
      if (next === CLOSE_BRACKET) return at + 1
      if (next !== COMMA) return FAIL
      at++
    }
  }
  if (code === 0x74) return matches(at, V_TRUE) ? at + 4 : FAIL
  if (code === 0x66) return matches(at, V_FALSE) ? at + 5 : FAIL
  if (code === 0x6e) return matches(at, V_NULL) ? at + 4 : FAIL
  return skipNumber(at)
}

// Where `readText` keeps the last string of each member (see `decode`)
const TIMESTAMP = 0
const REQUEST_ID = 1
const MESSAGE_ID = 2
const MODEL = 3
const NAME = 4
const OTHER = 5
const SLOTS = 6

// The string value last read (`readText`), `undefined` when the value was not a string.
let text: string | undefined

// Reads the value at `at` into `text` (a string's value, else `undefined`); past it, or FAIL.
const readText = (at: number, depth: number, slot: number = OTHER): number => {
  if (byteAt(at) !== QUOTE) {
    text = undefined
    return skipValue(at, depth)
  }
  const end = skipString(at)
  if (end === FAIL) return FAIL
  if (long) text = ""
  else if (escaped) text = JSON.parse(buf.toString("utf8", at, end)) as string
  else text = known(at + 1, end - 1) ?? decode(at + 1, end - 1, slot)
  return end
}

// The last string decoded per member read: consecutive lines repeat most of what is read (a
// message's id and request id, the model, a timestamp within the millisecond).
const recent = new Array<string>(SLOTS).fill("")

// `buf` in [from, to) decoded as UTF-8; the slot's last string when the bytes are its
// characters, all ASCII (any other byte is decoded: it may be part of a character or invalid).
const decode = (from: number, to: number, slot: number): string => {
  const length = to - from
  const last = recent[slot]!
  if (last.length === length) {
    let same = true
    for (let i = 0; i < length; i++) {
      const code = buf[from + i]!
      if (code >= 0x80 || code !== last.charCodeAt(i)) {
        same = false
        break
      }
    }
    if (same) return last
  }
  const decoded = buf.toString("utf8", from, to)
  recent[slot] = decoded
  return decoded
}

const known = (from: number, to: number): string | undefined => {
  for (const [value, bytes] of KNOWN_VALUES) if (isWord(from, to, bytes)) return value
  return undefined
}

// Whether the value at `at` is `true` (into `flag`); past it, or FAIL.
let flag = false
const readTrue = (at: number, depth: number): number => {
  flag = matches(at, V_TRUE)
  return flag ? at + 4 : skipValue(at, depth)
}

// The objects whose members are read, each by its own function (called directly, not passed:
// one call site per function keeps them inlined).
const ENTRY = 0
const MESSAGE = 1
const BLOCK = 2
const USAGE = 3
const USAGE_INNER = 4

const member = (level: number, from: number, to: number, at: number): number => {
  switch (level) {
    case ENTRY:
      return entryMember(from, to, at)
    case MESSAGE:
      return messageMember(from, to, at)
    case BLOCK:
      return blockMember(from, to, at)
    case USAGE:
      return usageMember(from, to, at)
    default:
      return innerMember(from, to, at)
  }
}

// An object's members, each key handed to `member` of `level` (which reads the value and returns
// past it); past the object, or FAIL. Keys with escapes are not compared: FAIL.
const members = (at: number, depth: number, level: number): number => {
  if (depth >= MAX_SCAN_DEPTH) return FAIL
  at++
  if (byteAt(at) === CLOSE_BRACE) return at + 1
  for (;;) {
    if (byteAt(at) !== QUOTE) return FAIL
    const key = at
    at = skipString(at)
    if (at === FAIL || escaped || byteAt(at) !== COLON) return FAIL
    // a long key is `""` in the parsed line: no key the fold reads
    at = long ? skipValue(at + 1, depth + 1) : member(level, key + 1, at - 1, at + 1)
    if (at === FAIL) return FAIL
    const next = byteAt(at)
    if (next === CLOSE_BRACE) return at + 1
    if (next !== COMMA) return FAIL
    at++
  }
}

let facts: StatsFold.EntryFacts = StatsFold.noFacts()

const entryMember = (from: number, to: number, at: number): number => {
  let end: number
  switch (to - from) {
    case 4:
      if (!matches(from, K_TYPE)) break
      end = readText(at, 2)
      facts.type = text
      return end
    case 6:
      if (!matches(from, K_IS_META)) break
      end = readTrue(at, 2)
      facts.isMeta = flag
      return end
    case 7:
      if (matches(from, K_AGENT_ID)) {
        end = readText(at, 2)
        facts.agentId = text
        return end
      }
      if (matches(from, K_SUBTYPE)) {
        end = readText(at, 2)
        facts.subtype = text
        return end
      }
      if (!matches(from, K_MESSAGE)) break
      // a later `message` replaces an earlier one whole, whatever it is
      facts.messageId = undefined
      facts.model = undefined
      facts.usage = undefined
      clearContent()
      return byteAt(at) === OPEN_BRACE ? members(at, 2, MESSAGE) : skipValue(at, 2)
    case 9:
      if (matches(from, K_TIMESTAMP)) {
        end = readText(at, 2, TIMESTAMP)
        facts.timestamp = text
        return end
      }
      if (!matches(from, K_REQUEST_ID)) break
      end = readText(at, 2, REQUEST_ID)
      facts.requestId = text
      return end
    case 11:
      if (!matches(from, K_IS_SIDECHAIN)) break
      end = readTrue(at, 2)
      facts.isSidechain = flag
      return end
    case 16:
      if (!matches(from, K_IS_COMPACT_SUMMARY)) break
      end = readTrue(at, 2)
      facts.isCompactSummary = flag
      return end
  }
  return skipValue(at, 2)
}

const clearContent = () => {
  facts.contentArray = false
  facts.blocks = 0
  facts.toolResults = 0
  facts.toolUses = []
}

const messageMember = (from: number, to: number, at: number): number => {
  if (isWord(from, to, K_ID)) {
    const end = readText(at, 3, MESSAGE_ID)
    facts.messageId = text
    return end
  }
  if (isWord(from, to, K_MODEL)) {
    const end = readText(at, 3, MODEL)
    facts.model = text
    return end
  }
  if (isWord(from, to, K_USAGE)) return readUsage(at)
  if (isWord(from, to, K_CONTENT)) {
    clearContent()
    return byteAt(at) === OPEN_BRACKET ? readContent(at) : skipValue(at, 3)
  }
  return skipValue(at, 3)
}

// `usage`: only the members `Pricing.responseUsage` reads, gathered into a small object it
// reads the same way (a number where the line has a number, a string where it has a string,
// `undefined` for anything else, which it counts as nothing either way).
let usage: { [key: string]: unknown } = {}

const readUsage = (at: number): number => {
  if (byteAt(at) !== OPEN_BRACE) {
    facts.usage = undefined
    return skipValue(at, 3)
  }
  usage = {}
  const end = members(at, 3, USAGE)
  facts.usage = usage
  return end
}

const K_INPUT = bytesOf("input_tokens")
const K_OUTPUT = bytesOf("output_tokens")
const K_CACHE_READ = bytesOf("cache_read_input_tokens")
const K_CACHE_WRITE = bytesOf("cache_creation_input_tokens")
const K_SPEED = bytesOf("speed")
const K_GEO = bytesOf("inference_geo")
const K_CACHE_CREATION = bytesOf("cache_creation")
const K_EPHEMERAL_1H = bytesOf("ephemeral_1h_input_tokens")
const K_SERVER_TOOL_USE = bytesOf("server_tool_use")
const K_WEB_SEARCH = bytesOf("web_search_requests")

const usageNumber = (at: number, key: string): number => {
  const end = readNumber(at, 4)
  usage[key] = number
  return end
}

const usageText = (at: number, key: string): number => {
  const end = readText(at, 4)
  usage[key] = text
  return end
}

// An object inside `usage` (`key`), of which one member is read (`read`, its name `name`).
const usageObject = (at: number, key: string, name: string, read: Uint8Array): number => {
  if (byteAt(at) !== OPEN_BRACE) {
    usage[key] = undefined
    return skipValue(at, 4)
  }
  inner = {}
  innerKey = name
  innerBytes = read
  usage[key] = inner
  return members(at, 4, USAGE_INNER)
}

const usageMember = (from: number, to: number, at: number): number => {
  switch (to - from) {
    case 5:
      if (matches(from, K_SPEED)) return usageText(at, "speed")
      break
    case 12:
      if (matches(from, K_INPUT)) return usageNumber(at, "input_tokens")
      break
    case 13:
      if (matches(from, K_OUTPUT)) return usageNumber(at, "output_tokens")
      if (matches(from, K_GEO)) return usageText(at, "inference_geo")
      break
    case 14:
      if (matches(from, K_CACHE_CREATION)) {
        return usageObject(at, "cache_creation", "ephemeral_1h_input_tokens", K_EPHEMERAL_1H)
      }
      break
    case 15:
      if (matches(from, K_SERVER_TOOL_USE)) return usageObject(at, "server_tool_use", "web_search_requests", K_WEB_SEARCH)
      break
    case 23:
      if (matches(from, K_CACHE_READ)) return usageNumber(at, "cache_read_input_tokens")
      break
    case 27:
      if (matches(from, K_CACHE_WRITE)) return usageNumber(at, "cache_creation_input_tokens")
      break
  }
  return skipValue(at, 4)
}

// an object inside `usage`, and the member of it that is read
let inner: { [key: string]: unknown } = {}
let innerKey = ""
let innerBytes: Uint8Array<ArrayBufferLike> = new Uint8Array(0)

const innerMember = (from: number, to: number, at: number): number => {
  if (!isWord(from, to, innerBytes)) return skipValue(at, 5)
  const end = readNumber(at, 5)
  inner[innerKey] = number
  return end
}

// The number value last read (`readNumber`), `undefined` when the value was not a number.
let number: number | undefined

// Reads the value at `at` into `number`; past it, or FAIL. Integers of up to 15 digits are
// summed from their digits (exact); any other number is read by `Number`, as `JSON.parse` reads it.
const readNumber = (at: number, depth: number): number => {
  const code = byteAt(at)
  if (code !== MINUS && !isDigit(code)) {
    number = undefined
    return skipValue(at, depth)
  }
  const end = skipNumber(at)
  if (end === FAIL) return FAIL
  let value = 0
  for (let i = at; i < end; i++) {
    const digit = buf[i]!
    if (!isDigit(digit) || end - at > 15) {
      number = Number(buf.toString("latin1", at, end))
      return end
    }
    value = value * 10 + digit - ZERO
  }
  number = value
  return end
}

let blockType: string | undefined
let blockName: string | undefined

const blockMember = (from: number, to: number, at: number): number => {
  if (isWord(from, to, K_TYPE)) {
    const end = readText(at, 5)
    blockType = text
    return end
  }
  if (isWord(from, to, K_NAME)) {
    const end = readText(at, 5, NAME)
    blockName = text
    return end
  }
  return skipValue(at, 5)
}

const readContent = (at: number): number => {
  facts.contentArray = true
  at++
  if (byteAt(at) === CLOSE_BRACKET) return at + 1
  for (;;) {
    facts.blocks++
    if (byteAt(at) === OPEN_BRACE) {
      blockType = undefined
      blockName = undefined
      at = members(at, 4, BLOCK)
      if (blockType === "tool_result") facts.toolResults++
      else if (blockType === "tool_use" && blockName !== undefined) facts.toolUses.push(blockName)
    } else {
      at = skipValue(at, 4)
    }
    if (at === FAIL) return FAIL
    const next = byteAt(at)
    if (next === CLOSE_BRACKET) return at + 1
    if (next !== COMMA) return FAIL
    at++
  }
}

/**
 * The facts of the line in `bytes[from, to)` (no `\n`), or `undefined` when the scan is not
 * sure (see the module doc): then `JSON.parse` of the line's text decides.
 *
 * @internal
 */
export const scanLine = (bytes: Buffer, from: number, to: number): StatsFold.EntryFacts | undefined => {
  buf = bytes
  if (words.buffer !== bytes.buffer) words = new Int32Array(bytes.buffer, 0, bytes.buffer.byteLength >> 2)
  lineEnd = to
  longLine = to - from > StatsFold.LONG_LINE
  longCount = 0
  facts = StatsFold.noFacts()
  if (byteAt(from) !== OPEN_BRACE) return undefined
  const end = members(from, 1, ENTRY)
  return end === to ? facts : undefined
}

