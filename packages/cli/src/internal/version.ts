/** The version `acx --version` prints (and the MCP server announces). */
export const VERSION = "0.1.0"
