/**
 * The server of `acx ui`, the local web page: start it, and the checks it applies.
 *
 * @since 0.1.0
 */
export * as UiServer from "./UiServer.js"

/**
 * The server's access rules as pure functions: hosts, token, cookie, origin, headers.
 *
 * @since 0.1.0
 */
export * as UiSecurity from "./UiSecurity.js"

/**
 * The page's built assets.
 *
 * @since 0.1.0
 */
export * as UiAssets from "./UiAssets.js"

/**
 * The errors of the page's server.
 *
 * @since 0.1.0
 */
export * as UiError from "./UiError.js"

/**
 * The JSON of the sessions list.
 *
 * @since 0.1.0
 */
export * as UiApi from "./UiApi.js"

/**
 * The sessions list as pure functions.
 *
 * @since 0.1.0
 */
export * as SessionList from "./SessionList.js"

/**
 * Sessions that cost far more than their project's usual.
 *
 * @since 0.1.0
 */
export * as CostOutliers from "./CostOutliers.js"

/**
 * Secrets masked on the page and in its exports.
 *
 * @since 0.1.0
 */
export * as SecretMask from "./SecretMask.js"

/**
 * The costs page's data: the day report of `acx stats`, stacked series, projects, top sessions.
 *
 * @since 0.1.0
 */
export * as CostsView from "./CostsView.js"

/**
 * The session page's wire format (its items and their fold are `@acx/convert`'s `SessionFold`).
 *
 * @since 0.1.0
 */
export * as SessionView from "./SessionView.js"

/**
 * The memory page's JSON and its pure shaping: observations with their turns, spend, requests.
 *
 * @since 0.1.0
 */
export * as MemoryView from "./MemoryView.js"
