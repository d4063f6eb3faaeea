/**
 * Where the Claude Code binary is: the one lookup every part of acx that starts Claude Code uses
 * (tests with the model double, the demo, and later the agent backend and the memory worker).
 *
 * In order:
 * 1. `ACX_CLAUDE_PATH`, when set (it must name an executable file: a wrong value is an error, not
 *    a reason to look elsewhere);
 * 2. the installed `@anthropic-ai/claude-code` package's platform binary
 *    (`@anthropic-ai/claude-code-<platform>-<arch>[-musl]/claude`), found from this package and
 *    from the current directory — used directly, so it works where the wrapper's postinstall did
 *    not run (pnpm runs no build scripts unless allowed);
 * 3. `claude` on `PATH`.
 *
 * Nothing found is a {@link ClaudeBinaryError} that lists every place tried. Note that the
 * Claude Agent SDK's `query()` spawns its own bundled binary (its optional dependency
 * `@anthropic-ai/claude-agent-sdk-<platform>-<arch>`) unless `pathToClaudeCodeExecutable` says
 * otherwise: pass this lookup's `path` there to run the CLI acx found.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as path from "node:path"
import { pathToFileURL } from "node:url"

/**
 * The environment variable that names the binary, ahead of every other place.
 *
 * @since 0.1.0
 * @category constants
 */
export const ENV_VAR = "ACX_CLAUDE_PATH"

/**
 * A binary found, and where it was found.
 *
 * @since 0.1.0
 * @category models
 */
export interface ClaudeBinary {
  readonly path: string
  readonly source: "env" | "package" | "path"
}

/**
 * No Claude Code binary: `tried` lists every place looked at, in order.
 *
 * @since 0.1.0
 * @category errors
 */
export class ClaudeBinaryError extends Schema.TaggedError<ClaudeBinaryError>(
  "@acx/environment/ClaudeBinary/ClaudeBinaryError"
)("ClaudeBinaryError", {
  reason: Schema.Literal("NotFound", "NotExecutable"),
  tried: Schema.Array(Schema.String),
  description: Schema.String
}) {
  /**
   * @since 0.1.0
   */
  override get message(): string {
    return `Claude Code binary: ${this.description} (tried: ${this.tried.join("; ")})`
  }
}

/**
 * Where to look; each defaults to this process's.
 *
 * @since 0.1.0
 * @category models
 */
export interface FindOptions {
  readonly env?: { readonly [name: string]: string | undefined } | undefined
  readonly cwd?: string | undefined
  readonly platform?: NodeJS.Platform | undefined
  readonly arch?: string | undefined
}

const isExecutable = (file: string): boolean => {
  try {
    if (!fs.statSync(file).isFile()) return false
    fs.accessSync(file, fs.constants.X_OK)
    return true
  } catch {
    return false
  }
}

const isMusl = (): boolean => {
  const report = process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined
  return process.platform === "linux" && report?.header?.glibcVersionRuntime === undefined
}

/** The platform package names to try, most specific first. */
const platformPackages = (platform: string, arch: string): ReadonlyArray<string> => {
  const base = `@anthropic-ai/claude-code-${platform}-${arch}`
  return platform === "linux" && isMusl() ? [`${base}-musl`, base] : [base]
}

/** The platform binary of an `@anthropic-ai/claude-code` installed where `from` can resolve it. */
const fromPackage = (from: string, platform: string, arch: string, tried: Array<string>): string | undefined => {
  let wrapper: string
  try {
    wrapper = createRequire(from).resolve("@anthropic-ai/claude-code/package.json")
  } catch {
    tried.push(`@anthropic-ai/claude-code from ${path.dirname(from)} (not installed)`)
    return undefined
  }
  const fromWrapper = createRequire(wrapper)
  for (const name of platformPackages(platform, arch)) {
    try {
      const manifest = fromWrapper.resolve(`${name}/package.json`)
      const file = path.join(path.dirname(manifest), platform === "win32" ? "claude.exe" : "claude")
      tried.push(file)
      if (isExecutable(file)) return file
    } catch {
      tried.push(`${name} (not installed next to ${path.dirname(wrapper)})`)
    }
  }
  return undefined
}

const onPath = (env: FindOptions["env"], platform: string, tried: Array<string>): string | undefined => {
  const names = platform === "win32" ? ["claude.exe", "claude.cmd", "claude"] : ["claude"]
  for (const dir of (env?.["PATH"] ?? "").split(path.delimiter).filter((dir) => dir !== "")) {
    for (const name of names) {
      const file = path.join(dir, name)
      if (isExecutable(file)) return file
    }
  }
  tried.push(`claude on PATH (${env?.["PATH"] === undefined ? "PATH unset" : "not found"})`)
  return undefined
}

/**
 * Finds the binary (synchronous: a few `stat` calls).
 *
 * @since 0.1.0
 * @category constructors
 */
export const findSync = (options: FindOptions = {}): ClaudeBinary | ClaudeBinaryError => {
  const env = options.env ?? process.env
  const platform = options.platform ?? process.platform
  const arch = options.arch ?? process.arch
  const tried: Array<string> = []
  const explicit = env[ENV_VAR]
  if (explicit !== undefined && explicit !== "") {
    const file = path.resolve(options.cwd ?? process.cwd(), explicit)
    if (isExecutable(file)) return { path: file, source: "env" }
    return new ClaudeBinaryError({
      reason: "NotExecutable",
      tried: [`${ENV_VAR}=${explicit}`],
      description: `${ENV_VAR} names ${file}, which is not an executable file`
    })
  }
  tried.push(`${ENV_VAR} (unset)`)
  const fromHere = fromPackage(import.meta.url, platform, arch, tried)
  if (fromHere !== undefined) return { path: fromHere, source: "package" }
  const cwdAnchor = pathToFileURL(path.join(options.cwd ?? process.cwd(), "noop.js")).href
  const fromCwd = fromPackage(cwdAnchor, platform, arch, tried)
  if (fromCwd !== undefined) return { path: fromCwd, source: "package" }
  const found = onPath(env, platform, tried)
  if (found !== undefined) return { path: found, source: "path" }
  return new ClaudeBinaryError({
    reason: "NotFound",
    tried,
    description: `no Claude Code binary: set ${ENV_VAR}, or npm install @anthropic-ai/claude-code`
  })
}

/**
 * Finds the binary.
 *
 * @since 0.1.0
 * @category constructors
 */
export const find = (options?: FindOptions): Effect.Effect<ClaudeBinary, ClaudeBinaryError> =>
  Effect.suspend(() => {
    const found = findSync(options)
    return found instanceof ClaudeBinaryError ? Effect.fail(found) : Effect.succeed(found)
  }).pipe(Effect.withSpan("ClaudeBinary.find"))

/**
 * Finds the binary (Promise API): rejects with a {@link ClaudeBinaryError}.
 *
 * @since 0.1.0
 * @category constructors
 */
export const findClaudeBinary = async (options?: FindOptions): Promise<ClaudeBinary> => {
  const found = findSync(options)
  if (found instanceof ClaudeBinaryError) throw found
  return found
}
