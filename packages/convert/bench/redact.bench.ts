/**
 * `pnpm bench` for the redactor (`Redact.text`, what every hook input and cache entry goes
 * through): a realistic 1 MB tool output (prose, code, a .env file, some keys) and hostile inputs
 * built to make a backtracking scan quadratic, each at 1 MB and 2 MB. Baseline, measured in the
 * same run over the same text: `JSON.stringify` (one linear pass that reads every character and
 * builds a string of the same size). The ratio per size, and the 2 MB / 1 MB ratio per input
 * (about 2 for a linear scan; a quadratic one gives about 4). Medians of 7 rounds.
 */
import * as Redact from "@acx/convert/Redact"

const ROUNDS = 7
const MB = 1_000_000

const fill = (unit: string, bytes: number) => unit.repeat(Math.ceil(bytes / unit.length)).slice(0, bytes)

const realistic = [
  "The cart total was wrong because the discount applied twice; see src/cart.ts:42.\n",
  "const total = items.reduce((sum, item) => sum + item.price * item.quantity, 0)\n",
  "DATABASE_URL=postgres://app:s3cretpw@db.internal:5432/shop\nPORT=3000\nexport API_KEY=abc123def456\n",
  "curl -H 'Authorization: Bearer abcdefghijklmnopqrstuvwxyz012345' https://api.example.com/v1/items\n",
  "found key sk-ant-api03-Abc123def456ghi789jkl012mno345pqr in the logs; password: hunter2\n"
].join("")

const inputs: Record<string, string> = {
  "realistic tool output": realistic,
  "eyJeyJeyJ…": "eyJ",
  "<private <private …": "<private ",
  "<priv<priv… then closes": "<priv",
  "newlines": "\n",
  "password=\"password=\"…": "password=\"",
  "://a:://a:…": "://a:",
  "KEYKEYKEY…": "KEY"
}

const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

const time = (f: () => unknown): number => {
  const start = performance.now()
  f()
  return performance.now() - start
}

const measure = (text: string) => {
  const redact: Array<number> = []
  const baseline: Array<number> = []
  for (let round = 0; round < ROUNDS; round++) {
    // alternate the order, so neither always runs on a warmer heap
    if (round % 2 === 0) {
      redact.push(time(() => Redact.text(text)))
      baseline.push(time(() => JSON.stringify(text)))
    } else {
      baseline.push(time(() => JSON.stringify(text)))
      redact.push(time(() => Redact.text(text)))
    }
  }
  return { redact: median(redact), baseline: median(baseline) }
}

// warm-up (JIT)
Redact.text(fill(realistic, MB))

console.log("input | 1 MB: redact (× baseline) | 2 MB: redact (× baseline) | 2 MB / 1 MB")
for (const [name, unit] of Object.entries(inputs)) {
  const text = name === "<priv<priv… then closes"
    ? `${fill(unit, MB / 2)}<private>x</private>${fill("ate>y</private>", MB / 2)}`
    : fill(unit, MB)
  const double = name === "<priv<priv… then closes"
    ? `${fill(unit, MB)}<private>x</private>${fill("ate>y</private>", MB)}`
    : fill(unit, 2 * MB)
  const one = measure(text)
  const two = measure(double)
  console.log(
    `${name} | ${one.redact.toFixed(1)} ms (${(one.redact / one.baseline).toFixed(1)}×) | ` +
      `${two.redact.toFixed(1)} ms (${(two.redact / two.baseline).toFixed(1)}×) | ${
        (two.redact / one.redact).toFixed(2)
      }`
  )
}
