// Package approvals keeps the answers a parent gave once for all to its
// helpers' permission prompts: "always" or "never" for one agent, one tool
// and one command prefix, until revoked. Later prompts that match are
// answered from here without asking again. A workspace's are Of(ws).
package approvals
