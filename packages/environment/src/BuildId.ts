/**
 * The identity of the running build: what acx's CLI build (`packages/cli/build.mjs`) defines as
 * `ACX_BUILD_ID` in every bundle it writes, else `source` (run from the TypeScript sources). What
 * a build keeps for a later run (a rendered report, a project's listing rows) is kept under it,
 * so that another build's code never serves it.
 *
 * @since 0.7.0
 */

// defined by the bundler; absent from the sources
declare const ACX_BUILD_ID: string | undefined

/**
 * The build running now: its id, or `source`.
 *
 * @since 0.7.0
 * @category build
 */
export const BUILD: string = typeof ACX_BUILD_ID === "string" ? ACX_BUILD_ID : "source"
