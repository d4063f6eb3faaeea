/**
 * Paths in a command's io, without Effect: a file resolved against its working directory, and
 * acx's home (`$ACX_HOME` of its env against its cwd, else `~/.acx` of its `$HOME`). The Effect
 * commands reach them through `currentIo.ts`; the plain ones (`configDirReads.ts`) import them here.
 */
import * as AcxHome from "@acx/environment/AcxHome"
import * as path from "node:path"
import type { CommandIo } from "../CommandIo.js"
import { homeDir } from "./configDir.js"

/** `file` resolved against `io`'s working directory. */
export const resolvePath = (io: Pick<CommandIo, "cwd">, file: string): string => path.resolve(io.cwd, file)

/** acx's home (`$ACX_HOME`, else `~/.acx`) and what it keeps, in `io`'s environment and directory. */
export const acxPaths = (io: Pick<CommandIo, "cwd" | "env">): AcxHome.AcxPaths => {
  const home = io.env[AcxHome.ENV_VAR]
  return AcxHome.paths(
    home !== undefined && home !== "" ? resolvePath(io, home) : path.join(homeDir(io.env), ".acx")
  )
}
