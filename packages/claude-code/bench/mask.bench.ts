/**
 * `pnpm bench` for masking on the way into a store (`Redact.maskEntry`, what `acx sync` and
 * `acx import` run on every entry): the entries of a generated config dir
 * (`@acx/testing/BigConfigDir`, `ACX_BENCH_MASK_BYTES` bytes, default 40 MB, kept in the OS temp
 * dir and reused), parsed once; each round masks every entry. **Baseline**, same run, same files:
 * parsing them (`JSON.parse` of every line of text already read), the least an import does to
 * each entry. Rounds alternate the order; medians of 5, and the ratio masking / parsing.
 */
import * as Redact from "@acx/convert/Redact"
import { generateBigConfigDir } from "@acx/testing/BigConfigDir"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

const BYTES = Number(process.env["ACX_BENCH_MASK_BYTES"] ?? 40_000_000)
const ROUNDS = 5

const generated = generateBigConfigDir({
  dir: path.join(os.tmpdir(), `acx-bench-mask-${BYTES}`),
  sessions: 60,
  bytes: BYTES
})
const texts = fs.readdirSync(path.join(generated.configDir, "projects"), { recursive: true, withFileTypes: true })
  .filter((entry) => entry.isFile() && entry.name.endsWith(".jsonl"))
  .map((entry) => fs.readFileSync(path.join(entry.parentPath, entry.name), "utf8"))

const parse = (): Array<unknown> => {
  const entries: Array<unknown> = []
  for (const text of texts) {
    for (const line of text.split("\n")) if (line.trim() !== "") entries.push(JSON.parse(line))
  }
  return entries
}

const entries = parse()
const mask = (): number => {
  let masked = 0
  for (const entry of entries) masked += Redact.maskEntry(entry).masked
  return masked
}

const time = (f: () => unknown): number => {
  const start = performance.now()
  f()
  return performance.now() - start
}
const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

mask() // warm-up (JIT)
const parseMs: Array<number> = []
const maskMs: Array<number> = []
for (let round = 0; round < ROUNDS; round++) {
  if (round % 2 === 0) {
    parseMs.push(time(parse))
    maskMs.push(time(mask))
  } else {
    maskMs.push(time(mask))
    parseMs.push(time(parse))
  }
}
const [load] = os.loadavg()
console.log(
  `mask at scale: ${(generated.bytes / 1e6).toFixed(0)} MB, ${entries.length.toLocaleString("en")} entries, ` +
    `${mask()} secrets masked, load ${load!.toFixed(1)}`
)
console.log(
  `  parse (baseline): ${median(parseMs).toFixed(0)} ms; mask: ${median(maskMs).toFixed(0)} ms; ` +
    `mask / parse ${(median(maskMs) / median(parseMs)).toFixed(2)}×`
)
