// Package clientusage reads what an agent client spent: the tokens each of
// its model's answers took, as the client records them in its own
// transcript (Claude Code: an "assistant" line per answer, with its model
// and usage; Codex CLI: a token count after each answer in its session
// log; Gemini CLI: each answer's tokens in its chat log), summed per
// model, and what that costs by a price table.
//
// It also reads how Codex CLI's turns end (LastTurnEnd): a turn that ends
// on an error, its usage limit among them, runs no hook of Codex's.
package clientusage
