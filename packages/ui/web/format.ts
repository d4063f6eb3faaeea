// Numbers and dates as the page shows them (the CLI's conventions: "2.95B" counts, "$1.23").
import * as Money from "@acx/convert/Money"

/** Dollars: the CLI's rule (`Money.usd`), cents for every amount. */
export const usd: (value: number) => string = Money.usd

const ENTRY_KINDS: Record<string, string> = { O: "observation", S: "summary", P: "prompt" }

/**
 * A memory entry as the page names it: `O5` → "observation #5" (`S3` a summary, `P7` a prompt).
 * "O5" in a monospace font reads like "05"; the id itself stays for the memory tools and the CLI.
 */
export const memoryEntry = (id: string): string => {
  const kind = ENTRY_KINDS[id.charAt(0)]
  return kind === undefined ? id : `${kind} #${id.slice(1)}`
}

/** A count as 950, 12.3K, 4.56M, 2.95B. */
export const count = (value: number): string => {
  const abs = Math.abs(value)
  if (abs < 1000) return String(value)
  for (const [unit, size] of [["B", 1e9], ["M", 1e6], ["K", 1e3]] as const) {
    if (abs >= size) return `${(value / size).toFixed(value / size >= 100 ? 0 : value / size >= 10 ? 1 : 2)}${unit}`
  }
  return String(value)
}

/** Bytes as KB/MB/GB. */
export const bytes = (value: number): string =>
  value < 1024 ? `${value} B` : value < 1024 ** 2
    ? `${(value / 1024).toFixed(1)} KB`
    : value < 1024 ** 3
    ? `${(value / 1024 ** 2).toFixed(1)} MB`
    : `${(value / 1024 ** 3).toFixed(2)} GB`

const pad = (n: number) => String(n).padStart(2, "0")

/** A local date and time, `YYYY-MM-DD HH:MM`; "" for none. */
export const dateTime = (value: string | number | null | undefined): string => {
  if (value === null || value === undefined) return ""
  const date = new Date(value)
  if (Number.isNaN(date.getTime())) return ""
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${
    pad(date.getMinutes())
  }`
}

/** A local day, `YYYY-MM-DD`. */
export const day = (value: Date): string =>
  `${value.getFullYear()}-${pad(value.getMonth() + 1)}-${pad(value.getDate())}`
