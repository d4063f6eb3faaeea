/**
 * A command's handler, loaded when the command runs. Parsing a command line and printing help
 * need only the command tree (names, options, descriptions: `commands/*.ts`); what a command
 * does lives in its own module (`commands/run/*.ts`) behind an `import()`, where the bundle is
 * split, so `acx sessions` never loads the SQL drivers, the MCP server or the Claude Agent SDK.
 */
import * as Effect from "effect/Effect"

/**
 * The handler `pick` chooses from the module `load` imports, as a handler of its own: the module
 * is imported on the first call (a module that cannot load is a defect, as any broken install).
 */
export const lazyHandler = <M, A, E, R>(
  load: () => Promise<M>,
  pick: (module: M) => (args: A) => Effect.Effect<void, E, R>
) =>
(args: A): Effect.Effect<void, E, R> => Effect.flatMap(Effect.promise(load), (module) => pick(module)(args))
