/**
 * The io of the command being run (`CommandIo`), as an Effect service: what a command's Effect
 * program writes goes to the io's stdout and stderr (Effect's `Console`, and the logger through
 * it), the `Config` it reads comes from the io's environment, and the environment, working
 * directory and terminal it asks about are the io's. Provided by `runEffect.ts`; nothing below it
 * reads `process.stdout`, `process.env` or `process.cwd()`.
 */
import type * as AcxHome from "@acx/environment/AcxHome"
import * as ConfigProvider from "effect/ConfigProvider"
import * as EffectConsole from "effect/Console"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Console as NodeConsole } from "node:console"
import { Writable } from "node:stream"
import type { CommandIo } from "../CommandIo.js"
import * as IoPaths from "./ioPaths.js"

/** The io of the command being run. */
export class CurrentIo extends Context.Tag("@acx/cli/CurrentIo")<CurrentIo, CommandIo>() {}

// A stream whose writes are handed to `write` as they come (synchronously, in order with the
// io's direct writes), as the global console hands its text to `process.stdout`.
const writerStream = (write: (text: string) => unknown) =>
  new Writable({
    decodeStrings: false,
    write(chunk: Buffer | string, _encoding, done) {
      void write(typeof chunk === "string" ? chunk : chunk.toString("utf8"))
      done()
    }
  })

/** A Node console writing to `io`'s stdout and stderr. */
export const nodeConsole = (io: CommandIo): globalThis.Console =>
  new NodeConsole({ stdout: writerStream(io.stdout), stderr: writerStream(io.stderr), colorMode: false })

/** Effect's `Console` over a Node console (every method as Effect's default console has it). */
export const effectConsole = (node: globalThis.Console): EffectConsole.Console => ({
  [EffectConsole.TypeId]: EffectConsole.TypeId,
  assert: (condition, ...args) => Effect.sync(() => node.assert(condition, ...args)),
  clear: Effect.sync(() => node.clear()),
  count: (label) => Effect.sync(() => node.count(label)),
  countReset: (label) => Effect.sync(() => node.countReset(label)),
  debug: (...args) => Effect.sync(() => node.debug(...args)),
  dir: (item, options) => Effect.sync(() => node.dir(item, options)),
  dirxml: (...args) => Effect.sync(() => node.dirxml(...args)),
  error: (...args) => Effect.sync(() => node.error(...args)),
  group: (options) =>
    Effect.sync(() => options?.collapsed === true ? node.groupCollapsed(options.label) : node.group(options?.label)),
  groupEnd: Effect.sync(() => node.groupEnd()),
  info: (...args) => Effect.sync(() => node.info(...args)),
  log: (...args) => Effect.sync(() => node.log(...args)),
  table: (data, properties) => Effect.sync(() => node.table(data, properties)),
  time: (label) => Effect.sync(() => node.time(label)),
  timeEnd: (label) => Effect.sync(() => node.timeEnd(label)),
  timeLog: (label, ...args) => Effect.sync(() => node.timeLog(label, ...args)),
  trace: (...args) => Effect.sync(() => node.trace(...args)),
  warn: (...args) => Effect.sync(() => node.warn(...args)),
  unsafe: node
})

/** `io`'s environment as Effect's `Config` reads the process's (`_` nests, `,` separates). */
export const configProvider = (io: CommandIo): ConfigProvider.ConfigProvider =>
  ConfigProvider.fromMap(
    new Map(Object.entries(io.env).filter((entry): entry is [string, string] => entry[1] !== undefined)),
    { pathDelim: "_", seqDelim: "," }
  )

/** `io` as the service, Effect's console and its config provider. */
export const layer = (io: CommandIo): Layer.Layer<CurrentIo> =>
  Layer.mergeAll(
    Layer.succeed(CurrentIo, io),
    EffectConsole.setConsole(effectConsole(nodeConsole(io))),
    Layer.setConfigProvider(configProvider(io))
  )

/** `file` resolved against `io`'s working directory (`ioPaths.ts`, without Effect). */
export const resolvePath = IoPaths.resolvePath

/** acx's home and what it keeps, in `io`'s environment and directory (`ioPaths.ts`, without Effect). */
export const acxPaths = IoPaths.acxPaths

/** {@link acxPaths} of the command being run. */
export const paths: Effect.Effect<AcxHome.AcxPaths, never, CurrentIo> = Effect.map(CurrentIo, acxPaths)

/**
 * Where Claude Code's settings files are for `io` (`ClaudeSettingsFiles.LocationOptions`): its
 * working directory, environment (`CLAUDE_CONFIG_DIR`, `$HOME`) and acx's home.
 */
export const settingsLocation = (io: CommandIo) => ({ cwd: io.cwd, env: io.env, acxHome: acxPaths(io).home })

/** The `acx` binary the command line ran (`argv[1]`), absolute: what hooks and servers are told to start. */
export const binOf = (io: CommandIo): string => resolvePath(io, io.argv[1] ?? "acx")
