/**
 * The `acx` command line as a library: the root command (to embed in another @effect/cli app)
 * and `run`.
 *
 * @since 0.1.0
 */

/**
 * @since 0.1.0
 */
export * as Cli from "./Cli.js"

/**
 * @since 0.1.0
 */
export * as CliError from "./CliError.js"

/**
 * @since 0.1.0
 */
export * as DemoSession from "./DemoSession.js"
