/**
 * Acontext's defaults as plain constants, for code that must not load the client (its HTTP
 * stack and schemas): the `acx` command tree names the default base URL in its help.
 * `AcontextClient` re-exports them.
 *
 * @since 0.1.0
 */

/**
 * Acontext's hosted API, `/api/v1` included.
 *
 * @since 0.1.0
 * @category constants
 */
export const DEFAULT_BASE_URL = "https://api.acontext.app/api/v1"
