/**
 * The command lines the fast read path (`fastRead.ts`) takes: exactly the options it names, each
 * at most once, in any order, `--name value` (never `--name=value`), no value that looks like an
 * option. Anything else is the full parser's to read and to word.
 */

/** How an option is spelled (`--project`, `-p`) → its name, for options with a value and flags. */
export interface ArgSpec {
  readonly values: { readonly [spelling: string]: string }
  readonly flags: { readonly [spelling: string]: string }
}

/** The options by name (flags `true`), or `undefined` when `args` is not exactly of `spec`. */
export const parseArgs = (
  args: ReadonlyArray<string>,
  spec: ArgSpec
): { readonly [name: string]: string | true } | undefined => {
  const seen: { [name: string]: string | true } = {}
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    const flag = Object.hasOwn(spec.flags, arg) ? spec.flags[arg]! : undefined
    const name = flag ?? (Object.hasOwn(spec.values, arg) ? spec.values[arg]! : undefined)
    if (name === undefined || Object.hasOwn(seen, name)) return undefined
    if (flag !== undefined) {
      seen[name] = true
      continue
    }
    const value = args[++i]
    if (value === undefined || value.startsWith("-")) return undefined
    seen[name] = value
  }
  return seen
}
