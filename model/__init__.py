"""The executable model of RFC 0198: an OpenWOP host serving runs as MCP tasks, the network, and clients.

The model imports no engine and no property; engines and properties read it.
"""
