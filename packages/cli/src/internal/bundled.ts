/**
 * A CommonJS bundle built beside the CLI's entry (`dist/hook.cjs`, `dist/store-reads.cjs`, …), for
 * what must start faster than the ES module loader lets it: required when it is there, which it
 * is only in a build. From the sources (tests, `tsx`) there is none, and the caller imports the
 * module instead.
 */

/** The bundle `name` beside `base` (an `import.meta.url`), required; `undefined` when there is none. */
export const requireBundled = <M>(name: string, base: string): M | undefined => {
  const url = new URL(name, base)
  if (!process.getBuiltinModule("node:fs").existsSync(url)) return undefined
  const { createRequire } = process.getBuiltinModule("node:module")
  return createRequire(base)(process.getBuiltinModule("node:url").fileURLToPath(url)) as M
}
