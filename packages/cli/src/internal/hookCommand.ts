/**
 * The command `acx memory install` writes for a hook event: this Node and the hook bundle beside
 * the running acx (`dist/hook.cjs`), run directly — the shortest start Claude Code can give a
 * hook, which it runs on every tool call. Without a built hook bundle (acx run from its sources)
 * it is the acx bin with `hook <Event>`. Paths are absolute, so Claude Code's PATH and cwd do not
 * matter, and quoted for its shell.
 */
import * as fs from "node:fs"
import * as path from "node:path"

const quote = (text: string) => `"${text.replace(/(["\\$`])/g, "\\$1")}"`

/** The hook bundle of the acx whose bin is `bin` (the npm link followed), when it is built. */
export const hookBundle = (bin: string): string | undefined => {
  try {
    const bundle = path.resolve(path.dirname(fs.realpathSync(bin)), "../dist/hook.cjs")
    return fs.statSync(bundle).isFile() ? bundle : undefined
  } catch {
    return undefined
  }
}

/** `event`'s command for the acx whose bin is `bin` (default: the running one), with `node`. */
export const hookCommand = (
  bin: string = path.resolve(process.argv[1] ?? "acx"),
  node: string = process.execPath
) => {
  const bundle = hookBundle(bin)
  return (event: string): string =>
    bundle === undefined
      ? `${quote(node)} ${quote(bin)} hook ${event}`
      : `${quote(node)} ${quote(bundle)} ${event}`
}

/** The sync hook's bundle beside the hook bundle (`dist/sync-hook.cjs`), when it is built. */
const syncHookBundle = (bin: string): string | undefined => {
  const bundle = hookBundle(bin)
  if (bundle === undefined) return undefined
  const sync = path.join(path.dirname(bundle), "sync-hook.cjs")
  return fs.existsSync(sync) ? sync : undefined
}

/**
 * The command `acx sync install` writes (the same for each event): the sync hook's bundle run
 * directly, which starts `acx sync --background` detached and returns. Without a built bundle it
 * is the acx bin's `sync --background`, which syncs before it returns. `target` is passed on as
 * `--to` (a Postgres password in it would be written into the settings file: give it in
 * `PGPASSWORD` or `~/.pgpass` instead).
 */
export const syncHookCommand = (
  target: string | undefined,
  bin: string = path.resolve(process.argv[1] ?? "acx"),
  node: string = process.execPath
) => {
  const bundle = syncHookBundle(bin)
  const to = target === undefined ? "" : ` --to ${quote(target)}`
  return (_event: string): string =>
    bundle === undefined
      ? `${quote(node)} ${quote(bin)} sync --background${to}`
      : `${quote(node)} ${quote(bundle)}${to}`
}

/**
 * The command `acx statusline install` writes: this Node and the statusline's bundle
 * (`dist/statusline.cjs`) run directly, else the acx bin's `statusline`. `format` is passed on as
 * `--format`, `wrap` (the statusline it replaces) as `--wrap`: both quoted for Claude Code's shell.
 */
export const statuslineCommand = (
  options: { readonly format?: string | undefined; readonly wrap?: string | undefined },
  bin: string = path.resolve(process.argv[1] ?? "acx"),
  node: string = process.execPath
): string => {
  const hook = hookBundle(bin)
  const bundle = hook === undefined ? undefined : path.join(path.dirname(hook), "statusline.cjs")
  const head = bundle !== undefined && fs.existsSync(bundle)
    ? `${quote(node)} ${quote(bundle)}`
    : `${quote(node)} ${quote(bin)} statusline`
  const format = options.format === undefined ? "" : ` --format ${quote(options.format)}`
  const wrap = options.wrap === undefined ? "" : ` --wrap ${quote(options.wrap)}`
  return `${head}${format}${wrap}`
}
