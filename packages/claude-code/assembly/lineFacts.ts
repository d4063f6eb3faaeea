/**
 * The facts `acx stats` folds, read from a transcript line's bytes without parsing the rest of it
 * (AssemblyScript, compiled to WebAssembly: `scripts/build-line-facts.ts` writes the module into
 * `src/internal/lineFactsWasm.ts`; `src/internal/lineFacts.ts` is its JavaScript side).
 *
 * Why: folding a big Claude Code directory was mostly `JSON.parse` building every line's objects
 * (tool inputs, tool results, progress payloads) only for the fold to read a dozen fields
 * (`StatsFold.EntryFacts`). This scanner checks the whole line's syntax as `JSON.parse` would,
 * in one pass over the bytes (16 at a time inside strings), and records only those fields.
 *
 * The contract, which the property tests hold it to: when `scan` answers `FACTS`, the line is
 * valid JSON (as `JSON.parse` of its UTF-8 decoding accepts it), an object nested at most
 * `MAX_DEPTH` deep, and the record holds exactly `StatsFold.factsOf(JSON.parse(line))`. Whenever
 * it is not sure (any syntax error, a key with an escape where the fold reads keys, an enumerated
 * value written with escapes, a figure that is not a plain integer of at most 15 digits, more than
 * `MAX_TOOLS` tool calls), it answers `UNSURE` and the caller parses the line itself, so a rare
 * line costs a parse and never a wrong count.
 */

// `JsonDepth.MAX_DEPTH`: a line nested deeper is malformed (the caller's parse says so)
const MAX_DEPTH: i32 = 512
/** Tool names one line may record; a line with more is parsed by the caller. */
const MAX_TOOLS: i32 = 1024

// `scan`'s answers
const UNSURE: i32 = 0
const BLANK: i32 = 1
const FACTS: i32 = 2

// a position that is no position: every scanned byte lies above the module's static data
const ERR: usize = 0

// The record (`record()`): i32 slots, then f64 figures, then tool names' refs.
// A ref is a string's bytes between its quotes: [start, end), start 0 when absent.
const FLAGS: usize = 0
const KIND: usize = 4
const ESCAPED: usize = 8
const REFS: usize = 12 // 5 refs × (start, end)
const TOOL_COUNT: usize = 52
const SAME: usize = 56 // bit per ref: the same bytes as the last line's that had it
const FIGURES: usize = 64 // 7 × f64
const TOOLS: usize = 128 // MAX_TOOLS × (start, end, escaped)
const RECORD = memory.data(128 + 12 * 1024, 16)
// The last bytes each ref had (when at most LAST_BYTES long; else its length is -1): most lines
// repeat the one before's timestamp, model or ids, and the caller keeps the string it decoded.
const LAST_BYTES: usize = 64
const LAST = memory.data(5 * 64, 16)
const LAST_LENGTH = memory.data<i32>([-1, -1, -1, -1, -1])

// refs
const R_TIMESTAMP: i32 = 0
const R_AGENT_ID: i32 = 1
const R_MESSAGE_ID: i32 = 2
const R_REQUEST_ID: i32 = 3
const R_MODEL: i32 = 4

// flags
const F_SIDECHAIN: u32 = 1
const F_META: u32 = 2
const F_COMPACT_SUMMARY: u32 = 4
const F_COMPACT_BOUNDARY: u32 = 8
const F_TOOL_RESULT_ONLY: u32 = 16
const F_USAGE: u32 = 32
const F_FAST: u32 = 64
const F_GEO_US: u32 = 128
const F_TIMESTAMP_MS: u32 = 256

// kinds (`type`), and the types of a content block
const K_NONE: i32 = 0
const K_ASSISTANT: i32 = 1
const K_USER: i32 = 2
const K_SYSTEM: i32 = 3
const B_TOOL_USE: i32 = 1
const B_TOOL_RESULT: i32 = 2

// figures
const G_INPUT: usize = 0
const G_OUTPUT: usize = 1
const G_CACHE_READ: usize = 2
const G_CACHE_WRITE: usize = 3
const G_EPHEMERAL_1H: usize = 4
const G_WEB_SEARCH: usize = 5
const G_TIMESTAMP_MS: usize = 6

// the objects whose members the scanner reads
const L_TOP: i32 = 0
const L_MESSAGE: i32 = 1
const L_BLOCK: i32 = 2
const L_USAGE: i32 = 3
const L_CACHE_CREATION: i32 = 4
const L_SERVER_TOOL_USE: i32 = 5

const TIMESTAMP = memory.data<u8>([116, 105, 109, 101, 115, 116, 97, 109, 112]) // "timestamp"
const TIMESTAMP_LENGTH: usize = 9
const AGENT_ID = memory.data<u8>([97, 103, 101, 110, 116, 73, 100]) // "agentId"
const AGENT_ID_LENGTH: usize = 7
const IS_SIDECHAIN = memory.data<u8>([105, 115, 83, 105, 100, 101, 99, 104, 97, 105, 110]) // "isSidechain"
const IS_SIDECHAIN_LENGTH: usize = 11
const TYPE = memory.data<u8>([116, 121, 112, 101]) // "type"
const TYPE_LENGTH: usize = 4
const IS_META = memory.data<u8>([105, 115, 77, 101, 116, 97]) // "isMeta"
const IS_META_LENGTH: usize = 6
const IS_COMPACT_SUMMARY = memory.data<u8>([105, 115, 67, 111, 109, 112, 97, 99, 116, 83, 117, 109, 109, 97, 114, 121]) // "isCompactSummary"
const IS_COMPACT_SUMMARY_LENGTH: usize = 16
const SUBTYPE = memory.data<u8>([115, 117, 98, 116, 121, 112, 101]) // "subtype"
const SUBTYPE_LENGTH: usize = 7
const REQUEST_ID = memory.data<u8>([114, 101, 113, 117, 101, 115, 116, 73, 100]) // "requestId"
const REQUEST_ID_LENGTH: usize = 9
const MESSAGE = memory.data<u8>([109, 101, 115, 115, 97, 103, 101]) // "message"
const MESSAGE_LENGTH: usize = 7
const CONTENT = memory.data<u8>([99, 111, 110, 116, 101, 110, 116]) // "content"
const CONTENT_LENGTH: usize = 7
const ID = memory.data<u8>([105, 100]) // "id"
const ID_LENGTH: usize = 2
const MODEL = memory.data<u8>([109, 111, 100, 101, 108]) // "model"
const MODEL_LENGTH: usize = 5
const USAGE = memory.data<u8>([117, 115, 97, 103, 101]) // "usage"
const USAGE_LENGTH: usize = 5
const NAME = memory.data<u8>([110, 97, 109, 101]) // "name"
const NAME_LENGTH: usize = 4
const INPUT_TOKENS = memory.data<u8>([105, 110, 112, 117, 116, 95, 116, 111, 107, 101, 110, 115]) // "input_tokens"
const INPUT_TOKENS_LENGTH: usize = 12
const OUTPUT_TOKENS = memory.data<u8>([111, 117, 116, 112, 117, 116, 95, 116, 111, 107, 101, 110, 115]) // "output_tokens"
const OUTPUT_TOKENS_LENGTH: usize = 13
const CACHE_READ = memory.data<u8>([99, 97, 99, 104, 101, 95, 114, 101, 97, 100, 95, 105, 110, 112, 117, 116, 95, 116, 111, 107, 101, 110, 115]) // "cache_read_input_tokens"
const CACHE_READ_LENGTH: usize = 23
const CACHE_CREATION_INPUT = memory.data<u8>([99, 97, 99, 104, 101, 95, 99, 114, 101, 97, 116, 105, 111, 110, 95, 105, 110, 112, 117, 116, 95, 116, 111, 107, 101, 110, 115]) // "cache_creation_input_tokens"
const CACHE_CREATION_INPUT_LENGTH: usize = 27
const CACHE_CREATION = memory.data<u8>([99, 97, 99, 104, 101, 95, 99, 114, 101, 97, 116, 105, 111, 110]) // "cache_creation"
const CACHE_CREATION_LENGTH: usize = 14
const EPHEMERAL_1H = memory.data<u8>([101, 112, 104, 101, 109, 101, 114, 97, 108, 95, 49, 104, 95, 105, 110, 112, 117, 116, 95, 116, 111, 107, 101, 110, 115]) // "ephemeral_1h_input_tokens"
const EPHEMERAL_1H_LENGTH: usize = 25
const SERVER_TOOL_USE = memory.data<u8>([115, 101, 114, 118, 101, 114, 95, 116, 111, 111, 108, 95, 117, 115, 101]) // "server_tool_use"
const SERVER_TOOL_USE_LENGTH: usize = 15
const WEB_SEARCH = memory.data<u8>([119, 101, 98, 95, 115, 101, 97, 114, 99, 104, 95, 114, 101, 113, 117, 101, 115, 116, 115]) // "web_search_requests"
const WEB_SEARCH_LENGTH: usize = 19
const SPEED = memory.data<u8>([115, 112, 101, 101, 100]) // "speed"
const SPEED_LENGTH: usize = 5
const INFERENCE_GEO = memory.data<u8>([105, 110, 102, 101, 114, 101, 110, 99, 101, 95, 103, 101, 111]) // "inference_geo"
const INFERENCE_GEO_LENGTH: usize = 13
const ASSISTANT = memory.data<u8>([97, 115, 115, 105, 115, 116, 97, 110, 116]) // "assistant"
const ASSISTANT_LENGTH: usize = 9
const USER = memory.data<u8>([117, 115, 101, 114]) // "user"
const USER_LENGTH: usize = 4
const SYSTEM = memory.data<u8>([115, 121, 115, 116, 101, 109]) // "system"
const SYSTEM_LENGTH: usize = 6
const COMPACT_BOUNDARY = memory.data<u8>([99, 111, 109, 112, 97, 99, 116, 95, 98, 111, 117, 110, 100, 97, 114, 121]) // "compact_boundary"
const COMPACT_BOUNDARY_LENGTH: usize = 16
const TOOL_USE = memory.data<u8>([116, 111, 111, 108, 95, 117, 115, 101]) // "tool_use"
const TOOL_USE_LENGTH: usize = 8
const TOOL_RESULT = memory.data<u8>([116, 111, 111, 108, 95, 114, 101, 115, 117, 108, 116]) // "tool_result"
const TOOL_RESULT_LENGTH: usize = 11
const FAST = memory.data<u8>([102, 97, 115, 116]) // "fast"
const FAST_LENGTH: usize = 4
const US = memory.data<u8>([117, 115]) // "us"
const US_LENGTH: usize = 2

// set by `str`: whether the string just scanned holds a backslash escape
let escaped: bool = false
// set by `figure`: the value of the figure just scanned
let figureValue: f64 = 0
// set by a block's members: its type and name
let blockType: i32 = 0
let blockNameStart: usize = 0
let blockNameEnd: usize = 0
let blockNameEscaped: bool = false

@inline function isWhitespace(c: u32): bool {
  return c == 0x20 || c == 0x0a || c == 0x0d || c == 0x09
}

@inline function isDigit(c: u32): bool {
  return c - 0x30 < 10
}

@inline function isHex(c: u32): bool {
  return c - 0x30 < 10 || (c | 0x20) - 0x61 < 6
}

@inline function whitespace(p: usize, end: usize): usize {
  while (p < end && isWhitespace(load<u8>(p))) p++
  return p
}

// The first byte at or after p that is a quote, a backslash or a control character, else end.
// It reads 16 bytes at a time, up to 15 past `end`: the caller keeps `OVERREAD` bytes of memory
// after every line (what is read there is never taken).
function special(p: usize, end: usize): usize {
  const quote = i8x16.splat(0x22)
  const backslash = i8x16.splat(0x5c)
  const space = i8x16.splat(0x20)
  while (p < end) {
    const bytes = v128.load(p)
    const hits = v128.or(v128.or(i8x16.eq(bytes, quote), i8x16.eq(bytes, backslash)), i8x16.lt_u(bytes, space))
    const mask = i8x16.bitmask(hits)
    if (mask != 0) {
      const at = p + <usize>ctz(mask)
      return at < end ? at : end
    }
    p += 16
  }
  return end
}

// The string whose opening quote is at p: just past its closing quote, or ERR. Bytes from 0x80
// up are taken as they are (the caller decodes UTF-8 as the line's parse would).
function str(p: usize, end: usize): usize {
  escaped = false
  p++
  while (true) {
    p = special(p, end)
    if (p >= end) return ERR
    const c = load<u8>(p)
    if (c == 0x22) return p + 1
    if (c != 0x5c) return ERR
    escaped = true
    if (p + 1 >= end) return ERR
    const e = <u32>load<u8>(p + 1)
    if (e == 0x75) {
      if (p + 6 > end) return ERR
      if (!isHex(load<u8>(p + 2)) || !isHex(load<u8>(p + 3)) || !isHex(load<u8>(p + 4)) || !isHex(load<u8>(p + 5))) {
        return ERR
      }
      p += 6
    } else if (e == 0x22 || e == 0x5c || e == 0x2f || e == 0x62 || e == 0x66 || e == 0x6e || e == 0x72 || e == 0x74) {
      p += 2
    } else {
      return ERR
    }
  }
}

// Digits from p: just past them.
@inline function digits(p: usize, end: usize): usize {
  while (p < end && isDigit(load<u8>(p))) p++
  return p
}

// The number at p (a minus sign or a digit): just past it, or ERR. `figureValue` is its value
// when it is a plain integer of at most 15 digits, else -1 (negative numbers: -1 too).
function num(p: usize, end: usize): usize {
  const negative = load<u8>(p) == 0x2d
  if (negative) p++
  if (p >= end) return ERR
  const first = <u32>load<u8>(p)
  const start = p
  if (first == 0x30) p++
  else if (first - 0x31 < 9) p = digits(p + 1, end)
  else return ERR
  let plain = !negative && p - start <= 15
  if (p < end && load<u8>(p) == 0x2e) {
    plain = false
    if (p + 1 >= end || !isDigit(load<u8>(p + 1))) return ERR
    p = digits(p + 1, end)
  }
  if (p < end && (<u32>load<u8>(p) | 0x20) == 0x65) {
    plain = false
    p++
    if (p < end && (load<u8>(p) == 0x2b || load<u8>(p) == 0x2d)) p++
    if (p >= end || !isDigit(load<u8>(p))) return ERR
    p = digits(p, end)
  }
  if (plain) {
    let value: f64 = 0
    for (let at = start; at < p; at++) value = value * 10 + <f64>(<u32>load<u8>(at) - 0x30)
    figureValue = value
  } else {
    figureValue = negative ? 0 : -1
  }
  return p
}

// `true`, `false` or `null` at p (its first byte is t, f or n): just past it, or ERR.
function literal(p: usize, end: usize): usize {
  const c = load<u8>(p)
  if (c == 0x74) return p + 4 <= end && load<u32>(p) == 0x65757274 ? p + 4 : ERR
  if (c == 0x66) return p + 5 <= end && load<u32>(p) == 0x736c6166 && load<u8>(p + 4) == 0x65 ? p + 5 : ERR
  return p + 4 <= end && load<u32>(p) == 0x6c6c756e ? p + 4 : ERR
}

// Any value at p (p < end, no whitespace first), checked and passed over: just past it, or ERR.
function skip(p: usize, end: usize, depth: i32): usize {
  const c = <u32>load<u8>(p)
  if (c == 0x22) return str(p, end)
  if (c == 0x7b) return walkObject(p, end, depth + 1, -1)
  if (c == 0x5b) return skipArray(p, end, depth + 1)
  if (c == 0x74 || c == 0x66 || c == 0x6e) return literal(p, end)
  if (c == 0x2d || isDigit(c)) return num(p, end)
  return ERR
}

function skipArray(p: usize, end: usize, depth: i32): usize {
  if (depth > MAX_DEPTH) return ERR
  p = whitespace(p + 1, end)
  if (p < end && load<u8>(p) == 0x5d) return p + 1
  while (true) {
    if (p >= end) return ERR
    p = skip(p, end, depth)
    if (p == ERR) return ERR
    p = whitespace(p, end)
    if (p >= end) return ERR
    const c = load<u8>(p)
    if (c == 0x5d) return p + 1
    if (c != 0x2c) return ERR
    p = whitespace(p + 1, end)
  }
}

// Two decimal digits at p, or -1.
@inline function twoDigits(p: usize): i32 {
  const a = <u32>load<u8>(p) - 0x30
  const b = <u32>load<u8>(p + 1) - 0x30
  return a < 10 && b < 10 ? <i32>(a * 10 + b) : -1
}

// Days from 1970-01-01 to the first of month m (1–12) of year y (Howard Hinnant's days_from_civil).
function daysFromCivil(year: i32, m: i32): i32 {
  const y = m <= 2 ? year - 1 : year
  const era = (y >= 0 ? y : y - 399) / 400
  const yoe = y - era * 400
  const doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5
  const doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
  return era * 146097 + doe - 719468
}

// Claude Code's timestamp, `YYYY-MM-DDTHH:MM:SS.mmmZ`, in [p, end): its epoch milliseconds into
// the record, as `Date.parse` gives them (a day up to 31 in any month runs on into the next, as
// V8's parser lets it), when it has that shape with a month 1–12, a day 1–31, an hour up to 23, a
// minute and a second up to 59; else false (the caller parses the string).
function isoMs(p: usize, end: usize): bool {
  if (end - p != 24) return false
  if (load<u8>(p + 4) != 0x2d || load<u8>(p + 7) != 0x2d || load<u8>(p + 10) != 0x54 || load<u8>(p + 13) != 0x3a ||
    load<u8>(p + 16) != 0x3a || load<u8>(p + 19) != 0x2e || load<u8>(p + 23) != 0x5a) return false
  const century = twoDigits(p)
  const yy = twoDigits(p + 2)
  const month = twoDigits(p + 5)
  const day = twoDigits(p + 8)
  const hour = twoDigits(p + 11)
  const minute = twoDigits(p + 14)
  const second = twoDigits(p + 17)
  const centis = twoDigits(p + 20)
  const last = <u32>load<u8>(p + 22) - 0x30
  if (century < 0 || yy < 0 || centis < 0 || last >= 10) return false
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour < 0 || hour > 23 || minute < 0 || minute > 59) return false
  if (second < 0 || second > 59) return false
  const days = <f64>(daysFromCivil(century * 100 + yy, month) + day - 1)
  const ms = days * 86400000 + <f64>(hour * 3600000 + minute * 60000 + second * 1000 + centis * 10 + <i32>last)
  setFigure(G_TIMESTAMP_MS, ms)
  return true
}

@inline function same(p: usize, length: usize, key: usize, keyLength: usize): bool {
  return length == keyLength && memory.compare(p, key, length) == 0
}

@inline function flag(bit: u32, on: bool): void {
  const flags = load<u32>(RECORD + FLAGS)
  store<u32>(RECORD + FLAGS, on ? flags | bit : flags & ~bit)
}

@inline function setRef(ref: i32, start: usize, end: usize, isEscaped: bool): void {
  store<u32>(RECORD + REFS + <usize>ref * 8, <u32>start)
  store<u32>(RECORD + REFS + <usize>ref * 8 + 4, <u32>end)
  const bits = load<u32>(RECORD + ESCAPED)
  store<u32>(RECORD + ESCAPED, isEscaped ? bits | (1 << ref) : bits & ~(1 << ref))
}

@inline function setFigure(figure: usize, value: f64): void {
  store<f64>(RECORD + FIGURES + figure * 8, value)
}

// A string value at p recorded as `ref` (absent when it is not a string, or `nonEmpty` and
// empty); just past the value, or ERR.
function stringRef(p: usize, end: usize, depth: i32, ref: i32, nonEmpty: bool): usize {
  if (load<u8>(p) != 0x22) {
    setRef(ref, 0, 0, false)
    return skip(p, end, depth)
  }
  const next = str(p, end)
  if (next == ERR) return ERR
  if (nonEmpty && next == p + 2) setRef(ref, 0, 0, false)
  else setRef(ref, p + 1, next - 1, escaped)
  return next
}

// `true` at p sets `bit`, any other value clears it; just past the value, or ERR.
function isTrue(p: usize, end: usize, depth: i32, bit: u32): usize {
  const next = skip(p, end, depth)
  flag(bit, next != ERR && load<u8>(p) == 0x74)
  return next
}

// set by `enumerated`: the bytes of the string it passed over (start 0: it was not a string)
let wordStart: usize = 0
let wordLength: usize = 0

// A value the fold compares with fixed words (`type`, `subtype`, `speed`…), passed over once:
// just past it, or ERR (also for a string with an escape: the caller is not sure).
function enumerated(p: usize, end: usize, depth: i32): usize {
  wordStart = 0
  if (load<u8>(p) != 0x22) return skip(p, end, depth)
  const after = str(p, end)
  if (after == ERR || escaped) return ERR
  wordStart = p + 1
  wordLength = after - p - 2
  return after
}

// Whether the value `enumerated` passed over is the string [word, word + length).
@inline function isWord(word: usize, length: usize): bool {
  return wordStart != 0 && same(wordStart, wordLength, word, length)
}

// A figure at p: `count` of its value (0 for anything but a positive number); just past it, or
// ERR (also when its value is not plain: the caller is not sure).
function figure(p: usize, end: usize, depth: i32, at: usize): usize {
  const c = <u32>load<u8>(p)
  if (c != 0x2d && !isDigit(c)) {
    setFigure(at, 0)
    return skip(p, end, depth)
  }
  const after = num(p, end)
  if (after == ERR || figureValue < 0) return ERR
  setFigure(at, figureValue)
  return after
}

function resetUsage(): void {
  flag(F_USAGE | F_FAST | F_GEO_US, false)
  for (let figure: usize = 0; figure < 6; figure++) setFigure(figure, 0)
}

function resetContent(): void {
  flag(F_TOOL_RESULT_ONLY, false)
  store<i32>(RECORD + TOOL_COUNT, 0)
}

function resetMessage(): void {
  setRef(R_MESSAGE_ID, 0, 0, false)
  setRef(R_MODEL, 0, 0, false)
  resetContent()
  resetUsage()
}

// The value of the member [key, key + length) of an object of `level` at p: recorded when the
// fold reads it, else passed over; just past it, or ERR.
function member(level: i32, key: usize, length: usize, p: usize, end: usize, depth: i32): usize {
  if (level == L_TOP) {
    if (same(key, length, TYPE, TYPE_LENGTH)) {
      const after = enumerated(p, end, depth)
      if (after == ERR) return ERR
      const kind = isWord(ASSISTANT, ASSISTANT_LENGTH)
        ? K_ASSISTANT
        : isWord(USER, USER_LENGTH)
        ? K_USER
        : isWord(SYSTEM, SYSTEM_LENGTH)
        ? K_SYSTEM
        : K_NONE
      store<i32>(RECORD + KIND, kind)
      return after
    }
    if (same(key, length, TIMESTAMP, TIMESTAMP_LENGTH)) {
      const after = stringRef(p, end, depth, R_TIMESTAMP, false)
      flag(F_TIMESTAMP_MS, after != ERR && !escaped && load<u8>(p) == 0x22 && isoMs(p + 1, after - 1))
      return after
    }
    if (same(key, length, MESSAGE, MESSAGE_LENGTH)) {
      resetMessage()
      return load<u8>(p) == 0x7b ? walkObject(p, end, depth + 1, L_MESSAGE) : skip(p, end, depth)
    }
    if (same(key, length, IS_SIDECHAIN, IS_SIDECHAIN_LENGTH)) return isTrue(p, end, depth, F_SIDECHAIN)
    if (same(key, length, REQUEST_ID, REQUEST_ID_LENGTH)) return stringRef(p, end, depth, R_REQUEST_ID, false)
    if (same(key, length, AGENT_ID, AGENT_ID_LENGTH)) return stringRef(p, end, depth, R_AGENT_ID, true)
    if (same(key, length, IS_META, IS_META_LENGTH)) return isTrue(p, end, depth, F_META)
    if (same(key, length, IS_COMPACT_SUMMARY, IS_COMPACT_SUMMARY_LENGTH)) return isTrue(p, end, depth, F_COMPACT_SUMMARY)
    if (same(key, length, SUBTYPE, SUBTYPE_LENGTH)) {
      const after = enumerated(p, end, depth)
      if (after != ERR) flag(F_COMPACT_BOUNDARY, isWord(COMPACT_BOUNDARY, COMPACT_BOUNDARY_LENGTH))
      return after
    }
  } else if (level == L_MESSAGE) {
    if (same(key, length, CONTENT, CONTENT_LENGTH)) {
      resetContent()
      return load<u8>(p) == 0x5b ? content(p, end, depth + 1) : skip(p, end, depth)
    }
    if (same(key, length, USAGE, USAGE_LENGTH)) {
      resetUsage()
      if (load<u8>(p) != 0x7b) return skip(p, end, depth)
      flag(F_USAGE, true)
      return walkObject(p, end, depth + 1, L_USAGE)
    }
    if (same(key, length, ID, ID_LENGTH)) return stringRef(p, end, depth, R_MESSAGE_ID, true)
    if (same(key, length, MODEL, MODEL_LENGTH)) return stringRef(p, end, depth, R_MODEL, false)
  } else if (level == L_BLOCK) {
    if (same(key, length, TYPE, TYPE_LENGTH)) {
      const after = enumerated(p, end, depth)
      blockType = isWord(TOOL_USE, TOOL_USE_LENGTH) ? B_TOOL_USE : isWord(TOOL_RESULT, TOOL_RESULT_LENGTH) ? B_TOOL_RESULT : 0
      return after
    }
    if (same(key, length, NAME, NAME_LENGTH)) {
      blockNameStart = 0
      if (load<u8>(p) != 0x22) return skip(p, end, depth)
      const after = str(p, end)
      if (after == ERR) return ERR
      blockNameStart = p + 1
      blockNameEnd = after - 1
      blockNameEscaped = escaped
      return after
    }
  } else if (level == L_USAGE) {
    if (same(key, length, INPUT_TOKENS, INPUT_TOKENS_LENGTH)) return figure(p, end, depth, G_INPUT)
    if (same(key, length, OUTPUT_TOKENS, OUTPUT_TOKENS_LENGTH)) return figure(p, end, depth, G_OUTPUT)
    if (same(key, length, CACHE_READ, CACHE_READ_LENGTH)) return figure(p, end, depth, G_CACHE_READ)
    if (same(key, length, CACHE_CREATION_INPUT, CACHE_CREATION_INPUT_LENGTH)) return figure(p, end, depth, G_CACHE_WRITE)
    if (same(key, length, CACHE_CREATION, CACHE_CREATION_LENGTH)) {
      setFigure(G_EPHEMERAL_1H, 0)
      return load<u8>(p) == 0x7b ? walkObject(p, end, depth + 1, L_CACHE_CREATION) : skip(p, end, depth)
    }
    if (same(key, length, SERVER_TOOL_USE, SERVER_TOOL_USE_LENGTH)) {
      setFigure(G_WEB_SEARCH, 0)
      return load<u8>(p) == 0x7b ? walkObject(p, end, depth + 1, L_SERVER_TOOL_USE) : skip(p, end, depth)
    }
    if (same(key, length, SPEED, SPEED_LENGTH)) {
      const after = enumerated(p, end, depth)
      if (after != ERR) flag(F_FAST, isWord(FAST, FAST_LENGTH))
      return after
    }
    if (same(key, length, INFERENCE_GEO, INFERENCE_GEO_LENGTH)) {
      const after = enumerated(p, end, depth)
      if (after != ERR) flag(F_GEO_US, isWord(US, US_LENGTH))
      return after
    }
  } else if (level == L_CACHE_CREATION) {
    if (same(key, length, EPHEMERAL_1H, EPHEMERAL_1H_LENGTH)) return figure(p, end, depth, G_EPHEMERAL_1H)
  } else if (level == L_SERVER_TOOL_USE) {
    if (same(key, length, WEB_SEARCH, WEB_SEARCH_LENGTH)) return figure(p, end, depth, G_WEB_SEARCH)
  }
  return skip(p, end, depth)
}

// The object at p (its `{`), at `depth`, its members read as `level` (-1: none are): just past
// it, or ERR.
function walkObject(p: usize, end: usize, depth: i32, level: i32): usize {
  if (depth > MAX_DEPTH) return ERR
  p = whitespace(p + 1, end)
  if (p < end && load<u8>(p) == 0x7d) return p + 1
  while (true) {
    if (p >= end || load<u8>(p) != 0x22) return ERR
    const key = p
    p = str(p, end)
    if (p == ERR) return ERR
    // a key with an escape may spell one the fold reads
    if (level >= 0 && escaped) return ERR
    const keyEnd = p - 1
    p = whitespace(p, end)
    if (p >= end || load<u8>(p) != 0x3a) return ERR
    p = whitespace(p + 1, end)
    if (p >= end) return ERR
    p = level < 0 ? skip(p, end, depth) : member(level, key + 1, keyEnd - key - 1, p, end, depth)
    if (p == ERR) return ERR
    p = whitespace(p, end)
    if (p >= end) return ERR
    const c = load<u8>(p)
    if (c == 0x7d) return p + 1
    if (c != 0x2c) return ERR
    p = whitespace(p + 1, end)
  }
}

// A message's content array at p, at `depth`: its tool calls' names and whether every block is a
// tool result; just past it, or ERR.
function content(p: usize, end: usize, depth: i32): usize {
  if (depth > MAX_DEPTH) return ERR
  let blocks = 0
  let allResults = true
  p = whitespace(p + 1, end)
  if (p < end && load<u8>(p) == 0x5d) return p + 1
  while (true) {
    if (p >= end) return ERR
    if (load<u8>(p) == 0x7b) {
      blockType = 0
      blockNameStart = 0
      p = walkObject(p, end, depth + 1, L_BLOCK)
      if (p == ERR) return ERR
      if (blockType != B_TOOL_RESULT) allResults = false
      if (blockType == B_TOOL_USE && blockNameStart != 0) {
        const count = load<i32>(RECORD + TOOL_COUNT)
        if (count == MAX_TOOLS) return ERR
        const at = RECORD + TOOLS + <usize>count * 12
        store<u32>(at, <u32>blockNameStart)
        store<u32>(at + 4, <u32>blockNameEnd)
        store<u32>(at + 8, blockNameEscaped ? 1 : 0)
        store<i32>(RECORD + TOOL_COUNT, count + 1)
      }
    } else {
      p = skip(p, end, depth)
      if (p == ERR) return ERR
      allResults = false
    }
    blocks++
    p = whitespace(p, end)
    if (p >= end) return ERR
    const c = load<u8>(p)
    if (c == 0x5d) break
    if (c != 0x2c) return ERR
    p = whitespace(p + 1, end)
  }
  flag(F_TOOL_RESULT_ONLY, blocks > 0 && allResults)
  return p + 1
}

/**
 * Scans the line in memory at [start, end): `FACTS` (the record holds its facts), `BLANK` (JSON
 * whitespace only) or `UNSURE` (the caller parses it).
 */
export function scan(start: usize, end: usize): i32 {
  memory.fill(RECORD, 0, TOOLS)
  const p = whitespace(start, end)
  if (p == end) return BLANK
  if (load<u8>(p) != 0x7b) return UNSURE
  const after = walkObject(p, end, 1, L_TOP)
  if (after == ERR || whitespace(after, end) != end) return UNSURE
  remember()
  return FACTS
}

// Marks the refs whose bytes are the last line's that had the ref, and keeps the others' bytes.
// A ref a line lacks leaves its last bytes as they were.
function remember(): void {
  let same: u32 = 0
  for (let ref: usize = 0; ref < 5; ref++) {
    const start = <usize>load<u32>(RECORD + REFS + ref * 8)
    if (start == 0) continue
    const length = <usize>load<u32>(RECORD + REFS + ref * 8 + 4) - start
    const last = load<i32>(LAST_LENGTH + ref * 4)
    if (<usize>last == length && memory.compare(start, LAST + ref * LAST_BYTES, length) == 0) {
      same |= 1 << <u32>ref
    } else if (length <= LAST_BYTES) {
      memory.copy(LAST + ref * LAST_BYTES, start, length)
      store<i32>(LAST_LENGTH + ref * 4, <i32>length)
    } else {
      store<i32>(LAST_LENGTH + ref * 4, -1)
    }
  }
  store<u32>(RECORD + SAME, same)
}

/** Where the record is. */
export function record(): usize {
  return RECORD
}

/** Where free memory starts (16-byte aligned). */
export function heapBase(): usize {
  return (__heap_base + 15) & ~15
}
