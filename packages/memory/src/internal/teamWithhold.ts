/**
 * What the team push withholds: no text of the user's prompts or of the tool inputs leaves the
 * machine, whoever wrote the entry (the local observer, or a model that quoted them). The push
 * does not trust the writer: every text it sends is compared with the prompts and tool inputs of
 * the entry's session, and every run of {@link MIN_VERBATIM} characters or more found in one of
 * them is replaced by {@link WITHHELD}.
 *
 * The comparison ignores case and treats any run of white space as one space, so a quote with its
 * line breaks changed is still found. Windows of {@link MIN_VERBATIM} characters are kept as
 * hashes (two polynomial hashes modulo 2^32, in typed arrays): a session's inputs cost 9 bytes
 * per character at most, not a string, and a collision (about one in 10^19 per window) only
 * withholds a little more.
 */

/** The shortest run of a prompt or tool input that is withheld. */
export const MIN_VERBATIM = 20

/** What a withheld run becomes. */
export const WITHHELD = "[withheld]"

// two polynomial hashes modulo 2^32 (Math.imul keeps them exact)
const BASE1 = 0x01000193
const BASE2 = 0x0001003f

const power = (base: number): number => {
  let result = 1
  for (let i = 0; i < MIN_VERBATIM - 1; i++) result = Math.imul(result, base)
  return result
}
const TOP1 = power(BASE1)
const TOP2 = power(BASE2)

const isSpace = (code: number): boolean =>
  code === 32 || (code >= 9 && code <= 13) || code === 0xa0 || code === 0x85 || code === 0x1680 ||
  (code >= 0x2000 && code <= 0x200a) || code === 0x2028 || code === 0x2029 || code === 0x202f ||
  code === 0x205f || code === 0x3000 || code === 0xfeff

/** A text's code units lower-cased, with white space runs as one space, and where each came from. */
const normalised = (
  text: string
): { readonly codes: Uint16Array; readonly from: Uint32Array; readonly length: number } => {
  const lower = text.toLowerCase()
  // a lower case longer than its letter (İ) is compared as written
  const source = lower.length === text.length ? lower : text
  const codes = new Uint16Array(source.length)
  const from = new Uint32Array(source.length)
  let length = 0
  let space = false
  for (let i = 0; i < source.length; i++) {
    const code = source.charCodeAt(i)
    if (isSpace(code)) {
      if (!space) {
        codes[length] = 32
        from[length++] = i
      }
      space = true
      continue
    }
    space = false
    codes[length] = code
    from[length++] = i
  }
  return { codes, from, length }
}

/** Calls `each(start, h1, h2)` for every window of {@link MIN_VERBATIM} code units of `codes`. */
const windows = (codes: Uint16Array, length: number, each: (start: number, h1: number, h2: number) => void): void => {
  let h1 = 0
  let h2 = 0
  for (let i = 0; i < length; i++) {
    const code = codes[i]!
    if (i >= MIN_VERBATIM) {
      const out = codes[i - MIN_VERBATIM]!
      h1 = (h1 - Math.imul(out, TOP1)) | 0
      h2 = (h2 - Math.imul(out, TOP2)) | 0
    }
    h1 = (Math.imul(h1, BASE1) + code) | 0
    h2 = (Math.imul(h2, BASE2) + code) | 0
    if (i >= MIN_VERBATIM - 1) each(i - MIN_VERBATIM + 1, h1 >>> 0, h2 >>> 0)
  }
}

/**
 * A set of windows: open addressing over two 32-bit hashes (no number is allocated per window,
 * as a `Set` of 53-bit numbers would).
 */
class Windows {
  private one = new Uint32Array(1024)
  private two = new Uint32Array(1024)
  private used = new Uint8Array(1024)
  size = 0

  add(h1: number, h2: number): void {
    if ((this.size + 1) * 2 > this.used.length) this.grow()
    const mask = this.used.length - 1
    let at = (h1 ^ Math.imul(h2, 0x9e3779b1)) & mask
    while (this.used[at] === 1) {
      if (this.one[at] === h1 && this.two[at] === h2) return
      at = (at + 1) & mask
    }
    this.used[at] = 1
    this.one[at] = h1
    this.two[at] = h2
    this.size++
  }

  has(h1: number, h2: number): boolean {
    const mask = this.used.length - 1
    let at = (h1 ^ Math.imul(h2, 0x9e3779b1)) & mask
    while (this.used[at] === 1) {
      if (this.one[at] === h1 && this.two[at] === h2) return true
      at = (at + 1) & mask
    }
    return false
  }

  private grow(): void {
    const { one, two, used } = this
    this.one = new Uint32Array(used.length * 2)
    this.two = new Uint32Array(used.length * 2)
    this.used = new Uint8Array(used.length * 2)
    this.size = 0
    for (let i = 0; i < used.length; i++) if (used[i] === 1) this.add(one[i]!, two[i]!)
  }
}

/** The windows of a session's prompts and tool inputs, and the files its tools named. */
export interface Verbatim {
  readonly windows: { readonly size: number; has(h1: number, h2: number): boolean }
  /** The `file_path`s of its tool inputs: a list of files may name them as they are. */
  readonly files: ReadonlySet<string>
}

/** The windows of `texts` (prompts, tool input values). */
export const index = (texts: Iterable<string>, files: Iterable<string> = []): Verbatim => {
  const found = new Windows()
  for (const text of texts) {
    const { codes, length } = normalised(text)
    windows(codes, length, (_, h1, h2) => found.add(h1, h2))
  }
  return { windows: found, files: new Set(files) }
}

/** `text` with every run found in `verbatim` withheld, and how many runs were. */
export const withhold = (text: string, verbatim: Verbatim): { readonly text: string; readonly runs: number } => {
  if (verbatim.windows.size === 0 || text.length < MIN_VERBATIM) return { text, runs: 0 }
  const { codes, from, length } = normalised(text)
  // the found windows as runs of the normalised text, merged where they touch
  const runs: Array<[number, number]> = []
  windows(codes, length, (start, h1, h2) => {
    if (!verbatim.windows.has(h1, h2)) return
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
