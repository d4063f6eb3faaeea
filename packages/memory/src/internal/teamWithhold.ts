/**
 * What the team push withholds: no text of the user's prompts or of the tool inputs leaves the
 * machine, whoever wrote the entry (the local observer, or a model that quoted them). The push
 * does not trust the writer: every text it sends is compared with the prompts and tool inputs of
 * the entry's session, and every run of {@link MIN_VERBATIM} characters or more found in one of
 * them is replaced by {@link WITHHELD}.
 *
 * The comparison ignores case and treats any run of white space as one space, so a quote with its
 * line breaks changed is still found. Windows of {@link MIN_VERBATIM} characters are kept as
 * hashes (two 26-bit polynomial hashes in one number): a session's inputs cost a number per
 * character, not a string, and a collision (one in about 10^15) only withholds a little more.
 */

/** The shortest run of a prompt or tool input that is withheld. */
export const MIN_VERBATIM = 20

/** What a withheld run becomes. */
export const WITHHELD = "[withheld]"

const BASE = 131
const P1 = 67_108_859
const P2 = 67_108_837

const power = (p: number): number => {
  let result = 1
  for (let i = 0; i < MIN_VERBATIM - 1; i++) result = (result * BASE) % p
  return result
}
const TOP1 = power(P1)
const TOP2 = power(P2)

/** A text lower-cased with white space runs as one space, and where each of its characters came from. */
const normalised = (text: string): { readonly chars: string; readonly from: ReadonlyArray<number> } => {
  let chars = ""
  const from: Array<number> = []
  let space = false
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!
    if (/\s/.test(char)) {
      if (!space) {
        chars += " "
        from.push(i)
      }
      space = true
      continue
    }
    space = false
    chars += char.toLowerCase().length === 1 ? char.toLowerCase() : char
    from.push(i)
  }
  return { chars, from }
}

/** Calls `each(start, hash)` for every window of {@link MIN_VERBATIM} characters of `chars`. */
const windows = (chars: string, each: (start: number, hash: number) => void): void => {
  if (chars.length < MIN_VERBATIM) return
  let h1 = 0
  let h2 = 0
  for (let i = 0; i < chars.length; i++) {
    const code = chars.charCodeAt(i)
    if (i >= MIN_VERBATIM) {
      const out = chars.charCodeAt(i - MIN_VERBATIM)
      h1 = (h1 - ((out * TOP1) % P1) + P1) % P1
      h2 = (h2 - ((out * TOP2) % P2) + P2) % P2
    }
    h1 = (h1 * BASE + code) % P1
    h2 = (h2 * BASE + code) % P2
    if (i >= MIN_VERBATIM - 1) each(i - MIN_VERBATIM + 1, h1 * P2 + h2)
  }
}

/** The windows of a session's prompts and tool inputs, and the files its tools named. */
export interface Verbatim {
  readonly hashes: ReadonlySet<number>
  /** The `file_path`s of its tool inputs: a list of files may name them as they are. */
  readonly files: ReadonlySet<string>
}

/** The windows of `texts` (prompts, tool input values). */
export const index = (texts: Iterable<string>, files: Iterable<string> = []): Verbatim => {
  const hashes = new Set<number>()
  for (const text of texts) windows(normalised(text).chars, (_, hash) => hashes.add(hash))
  return { hashes, files: new Set(files) }
}

/** `text` with every run found in `verbatim` withheld, and how many runs were. */
export const withhold = (text: string, verbatim: Verbatim): { readonly text: string; readonly runs: number } => {
  if (verbatim.hashes.size === 0 || text.length < MIN_VERBATIM) return { text, runs: 0 }
  const { chars, from } = normalised(text)
  // the found windows as runs of the normalised text, merged where they touch
  const runs: Array<[number, number]> = []
  windows(chars, (start, hash) => {
    if (!verbatim.hashes.has(hash)) return
    const last = runs.at(-1)
    if (last !== undefined && start <= last[1]) last[1] = start + MIN_VERBATIM
    else runs.push([start, start + MIN_VERBATIM])
  })
  if (runs.length === 0) return { text, runs: 0 }
  let out = ""
  let at = 0
  for (const [start, end] of runs) {
    const first = from[start]!
    // to the character before the next kept one: a run's trailing white space goes with it
    const next = from[end - 1]! + 1
    out += text.slice(at, first) + WITHHELD
    at = next
  }
  return { text: out + text.slice(at), runs: runs.length }
}

const FILE_KEYS = new Set(["file_path", "notebook_path"])

/**
 * The string values of a tool input into `texts`, but its file's path, which goes into `files`
 * (shared as the entry's files, named from the repository's root).
 */
export const inputTexts = (input: unknown, texts: Array<string>, files: Array<string>): void => {
  if (typeof input === "string") texts.push(input)
  else if (Array.isArray(input)) { for (const item of input) inputTexts(item, texts, files) }
  else if (typeof input === "object" && input !== null) {
    for (const [key, value] of Object.entries(input)) {
      if (FILE_KEYS.has(key) && typeof value === "string") files.push(value)
      else inputTexts(value, texts, files)
    }
  }
}
