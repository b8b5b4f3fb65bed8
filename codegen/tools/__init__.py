"""``mcpgen tools``: typed bindings of a server's tools (msgspec Structs and one async function
per tool), from the server itself or a saved ``tools/list`` result."""
