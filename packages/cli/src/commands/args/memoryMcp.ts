/**
 * What `acx memory mcp` takes: the types of its options, which the command (`../memoryMcp.ts`) and what
 * runs it (`../run/`) share.
 *
 * @since 0.6.0
 */

/**
 * What `acx memory mcp` is given.
 *
 * @since 0.6.0
 * @category models
 */
export interface McpOptions {
  readonly from: string | undefined
}
