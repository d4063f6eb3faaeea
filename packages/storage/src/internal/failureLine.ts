/**
 * A failed store as the one line the Promise facade warns with when no `onError` is given: the
 * error's own message and, after it, the causes underneath (e.g. `fetch failed: connect
 * ECONNREFUSED 127.0.0.1:9`), each by its first line — never a stack trace or an object dump.
 */
import * as TerminalText from "@acx/convert/TerminalText"
import type { StorageError } from "../StorageError.js"

/** How deep a `cause` chain is followed (chains are short; a cycle must still end). */
const MAX_DEPTH = 8
const MAX_LENGTH = 1000

const firstLine = (text: string): string => {
  const line = (text.split("\n").find((part) => part.trim() !== "") ?? "").trim()
  // control characters (a terminal escape in a server's message) are shown, not obeyed
  return TerminalText.line(line)
}

const messageOf = (value: unknown): string => {
  if (value instanceof Error) return firstLine(value.message) || value.name
  if (typeof value === "object" && value !== null && typeof (value as { message?: unknown }).message === "string") {
    return firstLine((value as { message: string }).message)
  }
  try {
    return firstLine(String(value))
  } catch {
    return "unprintable error"
  }
}

const causeOf = (value: unknown): unknown =>
  typeof value === "object" && value !== null ? (value as { readonly cause?: unknown }).cause : undefined

const clip = (line: string): string => line.length > MAX_LENGTH ? `${line.slice(0, MAX_LENGTH - 3)}...` : line

/**
 * `message: cause: cause…` for any thrown value: each level's first line, a level that only
 * repeats the one above it left out; a cycle ends where it comes back.
 */
export const causeChain = (error: unknown): string => {
  const parts: Array<string> = []
  const seen = new Set<unknown>()
  let current: unknown = error
  for (let depth = 0; depth < MAX_DEPTH && current !== undefined && current !== null && !seen.has(current); depth++) {
    seen.add(current)
    const message = messageOf(current)
    const previous = parts.at(-1)
    if (message !== "" && (previous === undefined || !previous.includes(message))) parts.push(message)
    current = causeOf(current)
  }
  return clip(parts.join(": "))
}

/** `acx: Failed to store message (session=…): Reason: the cause (what lies under it)`. */
export const describe = (error: StorageError): string => {
  const under = causeChain(causeOf(error.cause))
  const line = `acx: ${messageOf(error)}${under === "" ? "" : ` (${under})`}`
  return clip(line)
}
