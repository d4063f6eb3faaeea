/**
 * The entry Claude Code runs for a hook (`dist/hook.cjs`): it runs the hook's bundle
 * (`dist/hook-main-<hash>.cjs`, from `hook.ts`, named by its content) compiled with V8's code
 * cache for it, so a hook does not parse and compile the same code on every tool call.
 *
 * The cache lives in `$ACX_HOME/cache`, owner-only, named by the bundle's file name and this
 * Node's version and architecture: V8 checks a cache against the source's length only, so a cache
 * made from another build must never be offered to this one, and the loader of one build only
 * ever reads its own bundle. A missing, unreadable or rejected cache compiles as usual; the cache
 * is then written (atomically) when the process exits, after the run, so it holds every function
 * the hook compiled.
 *
 * @since 0.1.0
 */
import * as AcxHome from "@acx/environment/AcxHome"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as path from "node:path"
import * as vm from "node:vm"

/** The hook bundle's file name, `hook-main-<hash>.cjs` (the build defines it). */
declare const ACX_HOOK_MAIN: string

const main = path.join(__dirname, ACX_HOOK_MAIN)
const source = fs.readFileSync(main, "utf8")

const cacheFile = (): string | undefined => {
  try {
    return path.join(
      AcxHome.paths(AcxHome.acxHome()).cache,
      `${path.basename(ACX_HOOK_MAIN, ".cjs")}-${process.version}-${process.arch}.v8`
    )
  } catch {
    return undefined
  }
}

const readCache = (file: string | undefined): Buffer | undefined => {
  if (file === undefined) return undefined
  try {
    return fs.readFileSync(file)
  } catch {
    return undefined
  }
}

const file = cacheFile()
const cachedData = readCache(file)
// the wrapper Node gives a CommonJS module
const script = new vm.Script(
  `(function (exports, require, module, __filename, __dirname) {${source}\n})`,
  { filename: main, ...(cachedData === undefined ? {} : { cachedData }) }
)
if (file !== undefined && (cachedData === undefined || script.cachedDataRejected === true)) {
  process.once("exit", () => {
    try {
      AcxHome.writePrivateFile(file, script.createCachedData())
    } catch {
      // no cache this time: the next hook compiles as this one did
    }
  })
}
const hookModule = { exports: {} }
;(script.runInThisContext() as (...args: ReadonlyArray<unknown>) => void)(
  hookModule.exports,
  createRequire(main),
  hookModule,
  main,
  __dirname
)
