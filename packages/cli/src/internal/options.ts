/**
 * What the options several commands share mean beyond their text: `--project` of the reading
 * commands is a project directory's name (`projectKey.ts`), `--project DIR` of the memory and the
 * installers an absolute directory. Applied by each command's module before its work runs.
 */
import * as path from "node:path"
import type { CommandIo } from "../CommandIo.js"
import { projectKeyOf } from "./projectKey.js"

export { projectKeyOf, projectLabel } from "./projectKey.js"

/** `options` with `--project` as the project directory's name it means (a path against `io.cwd`). */
export const withProjectKey = <O extends { readonly project: string | undefined }>(options: O, io: CommandIo): O => ({
  ...options,
  project: options.project === undefined ? undefined : projectKeyOf(options.project, io.env, io.cwd)
})

/** `options` with `--project DIR` resolved against the io's working directory. */
export const withProjectDir = <O extends { readonly project: string | undefined }>(options: O, io: CommandIo): O => ({
  ...options,
  project: options.project === undefined ? undefined : path.resolve(io.cwd, options.project)
})
