/**
 * What a test of "nothing of this text leaves" compares: every string a stored value holds (text
 * columns, list items, nested objects), and the runs of a text found in them — 20 characters or
 * more, as written or with case and white space folded (the team memory's floor, docs/memory.md,
 * "Team memory").
 *
 * @since 0.4.0
 */

/**
 * Every string in `value` (a row as JSON: its text columns, the items of its lists), in order.
 *
 * @since 0.4.0
 * @category leaks
 */
export const stringsOf = (value: unknown, out: Array<string> = []): Array<string> => {
  if (typeof value === "string") out.push(value)
  else if (Array.isArray(value)) { for (const item of value) stringsOf(item, out) }
  else if (typeof value === "object" && value !== null) {
    for (const item of Object.values(value)) {
      stringsOf(item, out)
    }
  }
  return out
}

const folded = (text: string) => text.toLowerCase().replace(/\s+/g, " ")

/**
 * The runs of `length` characters of `text` found in any of `shared`, as they are or with case
 * and white space folded: `[]` when none leaked.
 *
 * @since 0.4.0
 * @category leaks
 */
export const leaks = (text: string, shared: ReadonlyArray<string>, length = 20): Array<string> => {
  const haystack = shared.map(folded)
  const found: Array<string> = []
  for (let i = 0; i + length <= text.length; i++) {
    const run = text.slice(i, i + length)
    if (shared.some((item) => item.includes(run)) || haystack.some((item) => item.includes(folded(run)))) {
      found.push(run)
    }
  }
  return found
}
