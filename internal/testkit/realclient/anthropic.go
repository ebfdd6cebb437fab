package realclient

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
)

// MessagesAPI stands in for Anthropic's Messages API, which Claude Code
// calls: POST /v1/messages, answered as a stream of events. A command is
// asked for as a call of Claude Code's Bash tool.
type MessagesAPI struct{ api }

// NewMessagesAPI starts a stand-in that answers every request with a text
// until told otherwise.
func NewMessagesAPI(t testing.TB) *MessagesAPI {
	a := &MessagesAPI{}
	a.start(t, a.serve)
	return a
}

func (a *MessagesAPI) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/messages" {
		http.NotFound(w, r)
		return
	}
	req, ans, err := a.take(r, anthropicToolOutput)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if ans.RateLimited {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("retry-after", "3600")
		w.WriteHeader(http.StatusTooManyRequests)
		json.NewEncoder(w).Encode(map[string]any{"type": "error",
			"error": map[string]any{"type": "rate_limit_error", "message": "This request would exceed your account's rate limit. Please try again later."}})
		return
	}
	var in struct {
		Model  string `json:"model"`
		Stream bool   `json:"stream"`
	}
	json.Unmarshal(req.Body, &in)
	id := fmt.Sprintf("msg_%d", req.N)
	block, stopReason := map[string]any{"type": "text", "text": ans.Text}, "end_turn"
	switch {
	case ans.Tool != "":
		block = map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_%d", req.N), "name": ans.Tool, "input": ans.Input}
		stopReason = "tool_use"
	case ans.Command != "":
		block = map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_%d", req.N), "name": "Bash",
			"input": map[string]any{"command": ans.Command, "description": "Run a switchboard command"}}
		stopReason = "tool_use"
	}
	charged, chargedOut := Charge(req.N)
	usage := map[string]int{"input_tokens": charged, "output_tokens": 1, "cache_read_input_tokens": 2 * req.N, "cache_creation_input_tokens": req.N}
	if !in.Stream {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"id": id, "type": "message", "role": "assistant", "model": in.Model,
			"content": []any{block}, "stop_reason": stopReason, "stop_sequence": nil, "usage": map[string]int{"input_tokens": charged, "output_tokens": chargedOut, "cache_read_input_tokens": 2 * req.N, "cache_creation_input_tokens": req.N},
		})
		return
	}
	s := newSSE(w)
	s.event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": in.Model,
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": usage,
	}})
	if stopReason == "tool_use" {
		input, _ := json.Marshal(block["input"])
		start := map[string]any{"type": "tool_use", "id": block["id"], "name": block["name"], "input": map[string]any{}}
		s.event("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": start})
		s.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "input_json_delta", "partial_json": string(input)}})
	} else {
		s.event("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "text", "text": ""}})
		s.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "text_delta", "text": ans.Text}})
	}
	s.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	s.event("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stopReason, "stop_sequence": nil}, "usage": map[string]int{"output_tokens": chargedOut}})
	s.event("message_stop", map[string]any{"type": "message_stop"})
}

// Charge is what a stand-in charges for its answer to request n: input
// tokens in (the Responses API counts its cache reads of 2n among them),
// output tokens out, and cache reads of 2n and writes of n (the Messages
// API), so that a sum of usage tells which requests it counted.
func Charge(n int) (in, out int) { return 1000 + n, 10 * n }

// anthropicToolOutput finds a tool_result block in the last message but
// those of the system (Claude Code 2.1.328 ends its list with one).
func anthropicToolOutput(doc any) (string, bool) {
	body, _ := doc.(map[string]any)
	messages, _ := body["messages"].([]any)
	for len(messages) > 0 {
		if m, _ := messages[len(messages)-1].(map[string]any); m["role"] != "system" {
			break
		}
		messages = messages[:len(messages)-1]
	}
	last := lastOf(messages)
	if last == nil || last["role"] != "user" {
		return "", false
	}
	blocks, _ := last["content"].([]any)
	for _, b := range blocks {
		block, _ := b.(map[string]any)
		if block["type"] == "tool_result" {
			return textOf(block["content"]), true
		}
	}
	return "", false
}
