/**
 * Records the statusline's `rate_limits` readings in `$ACX_HOME/quota/readings.jsonl`
 * (`QuotaReadings`: the format, the dedupe rule). Cheap enough for every statusline run: the
 * last readings are read from the file's tail (its last {@link TAIL_BYTES}), and what is new is
 * appended in ONE write to a descriptor opened with `O_APPEND`, so several statuslines at once
 * never interleave a line. The file is rotated to `readings.jsonl.1` past 1 MiB
 * (`AcxHome.openPrivateAppend`). Two statuslines reading the same tail at the same moment may
 * both append one reading: a duplicate the readers' summaries absorb, never a torn line.
 */
import * as QuotaReadings from "@acx/convert/QuotaReadings"
import * as AcxHome from "@acx/environment/AcxHome"
import * as fs from "node:fs"

/** How much of the file's end is read for the last reading of each window. */
export const TAIL_BYTES = 4096

/** The readings in the last {@link TAIL_BYTES} of `file` (none when it is missing or unreadable). */
export const tailReadings = (file: string): ReadonlyArray<QuotaReadings.Reading> => {
  let fd: number
  try {
    fd = fs.openSync(file, "r")
  } catch {
    return []
  }
  try {
    const size = fs.fstatSync(fd).size
    const length = Math.min(size, TAIL_BYTES)
    const buffer = Buffer.alloc(length)
    const read = fs.readSync(fd, buffer, 0, length, size - length)
    const text = buffer.toString("utf8", 0, read)
    // the first line may be cut by the window: dropped unless the window is the whole file
    return QuotaReadings.decodeText(length === size ? text : text.slice(text.indexOf("\n") + 1))
  } catch {
    return []
  } finally {
    fs.closeSync(fd)
  }
}

/**
 * Appends the readings of a statusline input (parsed JSON) seen at `nowMs` that differ from the
 * last recorded of their window; how many were written. Throws on a file that cannot be written
 * (the caller shows its line anyway).
 */
export const recordReadings = (home: string, input: unknown, nowMs: number): number => {
  const next = QuotaReadings.fromStatusline(input, nowMs)
  if (next.length === 0) return 0
  const file = AcxHome.paths(home).quotaReadings
  const fresh = QuotaReadings.toRecord(tailReadings(file), next)
  if (fresh.length === 0) return 0
  const fd = AcxHome.openPrivateAppend(file)
  try {
    fs.writeSync(fd, fresh.map((reading) => `${QuotaReadings.encode(reading)}\n`).join(""))
  } finally {
    fs.closeSync(fd)
  }
  return fresh.length
}
