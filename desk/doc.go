// Package desk is what an agent does with its mail, the same whether it
// asks through the command line or through the tools of the MCP server:
// send (routed by the rules), list its inbox, read, and reply. A Desk
// belongs to one agent of one workspace; its errors name no flag and no
// tool, so that each front end says what to do in its own words.
package desk
