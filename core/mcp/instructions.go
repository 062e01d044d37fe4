package mcp

// Instructions returns what initialize and server/discover tell an agent first: the
// domain, the call order and the conventions.
func Instructions() string { return mcpInstructions }
