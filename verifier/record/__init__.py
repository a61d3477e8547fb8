"""Recording traffic in front of any MCP server, for `taskmodel validate` (docs/third-party.md)."""
