/**
 * Go behaviours the Acontext server shows on the wire, reproduced for the emulator: UUID parsing
 * (`github.com/google/uuid`), `encoding/json` marshalling (sorted keys, HTML escaping), gin
 * binding and validator error texts, `strconv` parse errors.
 *
 * @internal
 */

/** @internal */
export type Result<A> = { readonly ok: true; readonly value: A } | { readonly ok: false; readonly error: string }

/** @internal */
export const ok = <A>(value: A): Result<A> => ({ ok: true, value })

/** @internal */
export const err = <A = never>(error: string): Result<A> => ({ ok: false, error })

const isHex = (c: string | undefined): boolean => c !== undefined && /^[0-9a-fA-F]$/.test(c)

const hexOffsets = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34] as const

const canonical = (hex: string): string =>
  `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`.toLowerCase()

/**
 * `uuid.Parse` of google/uuid: accepts the 36-char form, `{…}` (38, braces not checked),
 * `urn:uuid:…` (45) and 32 hex digits; returns the canonical lowercase form or Go's error text.
 *
 * @internal
 */
export const parseUuid = (input: string): Result<string> => {
  const length = Buffer.byteLength(input, "utf8")
  const ascii = length === input.length
  let s = input
  switch (length) {
    case 36:
      break
    case 45: {
      if (!ascii || s.slice(0, 9).toLowerCase() !== "urn:uuid:") {
        return err(`invalid urn prefix: ${goQuote(s.slice(0, 9))}`)
      }
      s = s.slice(9)
      break
    }
    case 38:
      s = s.slice(1)
      break
    case 32: {
      if (!ascii) return err("invalid UUID format")
      for (let i = 0; i < 32; i++) {
        if (!isHex(s[i])) return err("invalid UUID format")
      }
      return ok(canonical(s))
    }
    default:
      return err(`invalid UUID length: ${length}`)
  }
  if (!ascii) return err("invalid UUID format")
  if (s[8] !== "-" || s[13] !== "-" || s[18] !== "-" || s[23] !== "-") return err("invalid UUID format")
  let hex = ""
  for (const offset of hexOffsets) {
    if (!isHex(s[offset]) || !isHex(s[offset + 1])) return err("invalid UUID format")
    hex += s.slice(offset, offset + 2)
  }
  return ok(canonical(hex))
}

/**
 * Go's `%q` for the strings the emulator quotes (close to JSON for printable input).
 *
 * @internal
 */
export const goQuote = (s: string): string => JSON.stringify(s)

const hexDigits = "0123456789abcdef"

const escapeString = (s: string): string => {
  let out = "\""
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = s.charCodeAt(i + 1)
      if (next >= 0xdc00 && next <= 0xdfff) {
        out += s[i]! + s[i + 1]!
        i++
      } else {
        out += "\\ufffd"
      }
      continue
    }
    if (c >= 0xdc00 && c <= 0xdfff) {
      out += "\\ufffd"
      continue
    }
    switch (c) {
      case 0x22:
        out += "\\\""
        break
      case 0x5c:
        out += "\\\\"
        break
      case 0x08:
        out += "\\b"
        break
      case 0x0c:
        out += "\\f"
        break
      case 0x0a:
        out += "\\n"
        break
      case 0x0d:
        out += "\\r"
        break
      case 0x09:
        out += "\\t"
        break
      case 0x3c:
      case 0x3e:
      case 0x26:
      case 0x2028:
      case 0x2029:
        out += "\\u" + c.toString(16).padStart(4, "0")
        break
      default:
        out += c < 0x20 ? "\\u00" + hexDigits[c >> 4] + hexDigits[c & 0xf] : s[i]
    }
  }
  return out + "\""
}

const formatNumber = (n: number): string => {
  if (!Number.isFinite(n)) return "null"
  // Go switches to exponent form at the same thresholds as JavaScript, with a two-digit exponent.
  return String(n).replace(/e([+-])(\d)$/, "e$10$2")
}

/**
 * `json.Marshal` of a decoded JSON value, as Go writes it: object keys sorted, `<`, `>`, `&`,
 * U+2028 and U+2029 escaped, invalid UTF-16 replaced by `\ufffd`.
 *
 * @internal
 */
export const marshal = (value: unknown): string => {
  if (value === null || value === undefined) return "null"
  switch (typeof value) {
    case "boolean":
      return value ? "true" : "false"
    case "number":
      return formatNumber(value)
    case "string":
      return escapeString(value)
    case "object": {
      if (Array.isArray(value)) return `[${value.map(marshal).join(",")}]`
      const record = value as Record<string, unknown>
      const keys = Object.keys(record).filter((k) => record[k] !== undefined).sort()
      return `{${keys.map((k) => `${escapeString(k)}:${marshal(record[k])}`).join(",")}}`
    }
    default:
      return "null"
  }
}

/**
 * The size in bytes of `json.Marshal(value)`.
 *
 * @internal
 */
export const marshalledSize = (value: unknown): number => Buffer.byteLength(marshal(value), "utf8")

/**
 * The JSON type name `encoding/json` uses in `UnmarshalTypeError`.
 *
 * @internal
 */
export const jsonTypeName = (value: unknown): string => {
  if (Array.isArray(value)) return "array"
  switch (typeof value) {
    case "boolean":
      return "bool"
    case "number":
      return "number"
    case "string":
      return "string"
    default:
      return "object"
  }
}

/**
 * `json: cannot unmarshal <json type> into Go struct field <Struct>.<field> of type <goType>`.
 *
 * @internal
 */
export const unmarshalFieldError = (struct: string, field: string, value: unknown, goType: string): string =>
  `json: cannot unmarshal ${jsonTypeName(value)} into Go struct field ${struct}.${field} of type ${goType}`

/**
 * `json: cannot unmarshal <json type> into Go value of type <goType>`.
 *
 * @internal
 */
export const unmarshalValueError = (value: unknown, goType: string): string =>
  `json: cannot unmarshal ${jsonTypeName(value)} into Go value of type ${goType}`

/**
 * A go-playground/validator field error, as gin reports it.
 *
 * @internal
 */
export const validationError = (struct: string, field: string, tag: string): string =>
  `Key: '${struct}.${field}' Error:Field validation for '${field}' failed on the '${tag}' tag`

/**
 * Decodes a JSON request body the way gin's JSON binding does: an empty body is `EOF`.
 *
 * @internal
 */
export const decodeJsonBody = (text: string): Result<unknown> => {
  if (text.trim() === "") return err("EOF")
  try {
    return ok(JSON.parse(text) as unknown)
  } catch (cause) {
    const message = cause instanceof Error ? cause.message : String(cause)
    return err(/end of (JSON )?input/i.test(message) ? "unexpected EOF" : `invalid character in JSON body: ${message}`)
  }
}

/**
 * `strconv.ParseInt(s, 10, 64)` as gin's form binding uses it (an empty value is `0`).
 *
 * @internal
 */
export const parseInt64 = (s: string): Result<number> => {
  if (s === "") return ok(0)
  if (!/^[+-]?\d+$/.test(s)) return err(`strconv.ParseInt: parsing ${goQuote(s)}: invalid syntax`)
  const n = Number(s)
  if (!Number.isSafeInteger(n)) return err(`strconv.ParseInt: parsing ${goQuote(s)}: value out of range`)
  return ok(n)
}

/**
 * `strconv.ParseBool` as gin's form binding uses it (an empty value is `false`).
 *
 * @internal
 */
export const parseBool = (s: string): Result<boolean> => {
  switch (s) {
    case "":
    case "0":
    case "f":
    case "F":
    case "false":
    case "FALSE":
    case "False":
      return ok(false)
    case "1":
    case "t":
    case "T":
    case "true":
    case "TRUE":
    case "True":
      return ok(true)
    default:
      return err(`strconv.ParseBool: parsing ${goQuote(s)}: invalid syntax`)
  }
}
