"""Client scripts against the reference host: a small MCP client (HTTP and stdio) and the legs."""
