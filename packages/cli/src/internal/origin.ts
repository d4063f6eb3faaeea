/**
 * `--machine` and `--user` (`acx sync`, `acx import`): the origin an import records, this machine
 * and user unless named. A machine name is what stores keep as given (`SessionOrigins.isMachineName`);
 * the hostname is made into one.
 */
import * as ProjectOrigin from "@acx/claude-code/ProjectOrigin"
import * as SessionOrigins from "@acx/session-store/SessionOrigins"
import * as Effect from "effect/Effect"
import * as CliError from "../CliError.js"

/** The origin of an import: `--machine` (checked), else the hostname; `--user`, else the OS user. */
export const originOf = (
  machine: string | undefined,
  user: string | undefined
): Effect.Effect<ProjectOrigin.Origin, CliError.CliError> => {
  const named = machine
  if (named !== undefined && !SessionOrigins.isMachineName(named)) {
    return Effect.fail(
      CliError.invalidArgument(
        `--machine: ${
          JSON.stringify(named)
        } is not a machine name (1 to 64 of A-Z a-z 0-9 . _ -, starting with a letter or digit)`
      )
    )
  }
  const local = ProjectOrigin.localOrigin({ user })
  return Effect.succeed({ machine: named ?? SessionOrigins.machineName(local.machine), user: local.user })
}
