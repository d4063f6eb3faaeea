/**
 * The JavaScript side of the line scanner (`assembly/lineFacts.ts`, compiled into
 * `lineFactsWasm.ts`): a transcript line's `StatsFold.EntryFacts` read from its bytes, without
 * `JSON.parse` building the line's objects. Lines are read straight into the module's memory
 * ({@link LineFacts.input}); a line the scanner is not sure of comes back `undefined`, and the
 * caller parses it as before (docs/design.md, "Cold stats: the facts of a line, not its objects").
 *
 * @internal
 */
import type * as Pricing from "@acx/convert/Pricing"
import * as StatsFold from "@acx/convert/StatsFold"
import { LINE_FACTS_WASM } from "./lineFactsWasm.js"

// the scanner's answers, its record's layout and its flags (assembly/lineFacts.ts)
const UNSURE = 0
const BLANK = 1
const FLAGS = 0
const KIND = 1
const ESCAPED = 2
const REFS = 3
const TOOL_COUNT = 13
const SAME = 14
const FIGURES = 8
const TOOLS = 32
const R_TIMESTAMP = 0
const R_AGENT_ID = 1
const R_MESSAGE_ID = 2
const R_REQUEST_ID = 3
const R_MODEL = 4
const F_SIDECHAIN = 1
const F_META = 2
const F_COMPACT_SUMMARY = 4
const F_COMPACT_BOUNDARY = 8
const F_TOOL_RESULT_ONLY = 16
const F_USAGE = 32
const F_FAST = 64
const F_GEO_US = 128
const F_TIMESTAMP_MS = 256
const KINDS = [undefined, "assistant", "user", "system"] as const
const OVERREAD = 16

// Node's WebAssembly global: its types come with the DOM library, which the packages do not load
declare const WebAssembly: {
  readonly Module: new(bytes: Uint8Array) => object
  readonly Instance: new(module: object, imports: object) => { readonly exports: unknown }
}

interface Exports {
  readonly memory: { readonly buffer: ArrayBuffer; grow(pages: number): number }
  readonly scan: (start: number, end: number) => number
  readonly record: () => number
  readonly heapBase: () => number
}

let compiled: object | undefined

/** What a line is to the scanner: its facts, blank, or `undefined` when the caller must parse it. */
export type Scanned = StatsFold.EntryFacts | "blank" | undefined

/**
 * One instance of the scanner with room for `capacity` bytes of lines. Its memory never grows
 * after construction, so the views stay valid.
 *
 * @internal
 */
export class LineFacts {
  /** Where lines are read to be scanned: a view of the module's memory. */
  readonly input: Buffer
  private readonly bytes: Buffer
  private readonly i32: Int32Array
  private readonly f64: Float64Array
  private readonly record: number
  private readonly scanAt: (start: number, end: number) => number
  // each ref's last decoded string: the scanner says when a line's bytes are the same again
  private readonly last = new Array<string | undefined>(5)

  constructor(capacity: number) {
    compiled ??= new WebAssembly.Module(Buffer.from(LINE_FACTS_WASM, "base64"))
    const exports = new WebAssembly.Instance(compiled, {}).exports as unknown as Exports
    const base = exports.heapBase()
    // the scanner reads up to 15 bytes past a line's end (16 at a time)
    const missing = base + capacity + OVERREAD - exports.memory.buffer.byteLength
    if (missing > 0) exports.memory.grow(Math.ceil(missing / 65536))
    const buffer = exports.memory.buffer
    this.bytes = Buffer.from(buffer)
    this.input = this.bytes.subarray(base, base + capacity)
    this.record = exports.record()
    this.i32 = new Int32Array(buffer, this.record)
    this.f64 = new Float64Array(buffer, this.record)
    this.scanAt = exports.scan
  }

  /** Whether `bytes` is a view of this scanner's memory (a line in it can be scanned in place). */
  holds(bytes: Uint8Array): boolean {
    return bytes.buffer === this.bytes.buffer
  }

  /**
   * The line at [from, to) of `bytes`, a view of this scanner's memory ({@link holds}).
   */
  scan(bytes: Uint8Array, from: number, to: number): Scanned {
    const answer = this.scanAt(bytes.byteOffset + from, bytes.byteOffset + to)
    if (answer === UNSURE) return undefined
    if (answer === BLANK) return "blank"
    return this.facts()
  }

  // the string of ref `ref`, `undefined` when absent
  private ref(ref: number): string | undefined {
    const start = this.i32[REFS + ref * 2]!
    if (start === 0) return undefined
    if ((this.i32[SAME]! & (1 << ref)) !== 0) return this.last[ref]
    const text = this.text(start, this.i32[REFS + ref * 2 + 1]!, (this.i32[ESCAPED]! & (1 << ref)) !== 0)
    this.last[ref] = text
    return text
  }

  // a string's bytes between its quotes, decoded as the line's parse decodes it
  private text(start: number, end: number, escaped: boolean): string {
    return escaped
      ? JSON.parse(this.bytes.toString("utf8", start - 1, end + 1)) as string
      : this.bytes.toString("utf8", start, end)
  }

  private facts(): StatsFold.EntryFacts {
    const i32 = this.i32
    const flags = i32[FLAGS]!
    const model = this.ref(R_MODEL)
    return {
      timestamp: this.ref(R_TIMESTAMP),
      ms: (flags & F_TIMESTAMP_MS) === 0 ? undefined : this.f64[FIGURES + 6],
      agentId: this.ref(R_AGENT_ID),
      sidechain: (flags & F_SIDECHAIN) !== 0,
      kind: KINDS[i32[KIND]!],
      meta: (flags & (F_META | F_COMPACT_SUMMARY)) !== 0,
      compactBoundary: (flags & F_COMPACT_BOUNDARY) !== 0,
      toolResultOnly: (flags & F_TOOL_RESULT_ONLY) !== 0,
      toolNames: this.toolNames(),
      messageId: this.ref(R_MESSAGE_ID),
      requestId: this.ref(R_REQUEST_ID) ?? "",
      model: StatsFold.modelKey(model),
      usage: (flags & F_USAGE) === 0 ? undefined : this.usage(flags)
    }
  }

  private toolNames(): ReadonlyArray<string> {
    const count = this.i32[TOOL_COUNT]!
    const names = new Array<string>(count)
    for (let i = 0; i < count; i++) {
      const at = TOOLS + i * 3
      names[i] = this.text(this.i32[at]!, this.i32[at + 1]!, this.i32[at + 2] !== 0)
    }
    return names
  }

  // `Pricing.responseUsage` of the usage object the record describes
  private usage(flags: number): Pricing.ResponseUsage {
    const f64 = this.f64
    const cacheWrite = f64[FIGURES + 3]!
    return {
      input: f64[FIGURES]!,
      output: f64[FIGURES + 1]!,
      cacheRead: f64[FIGURES + 2]!,
      cacheWrite,
      cacheWrite1h: Math.min(cacheWrite, f64[FIGURES + 4]!),
      webSearchRequests: f64[FIGURES + 5]!,
      fast: (flags & F_FAST) !== 0,
      inferenceGeoUs: (flags & F_GEO_US) !== 0
    }
  }
}
