package realclient

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// ResponsesAPI stands in for OpenAI's Responses API, which Codex CLI calls
// through a custom provider: POST /v1/responses, answered as a stream of
// events. A command is asked for as a call of Codex's exec_command tool.
type ResponsesAPI struct{ api }

// NewResponsesAPI starts a stand-in that answers every request with a text
// until told otherwise.
func NewResponsesAPI(t testing.TB) *ResponsesAPI {
	a := &ResponsesAPI{}
	a.start(t, a.serve)
	return a
}

func (a *ResponsesAPI) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/responses" {
		http.NotFound(w, r)
		return
	}
	req, ans, err := a.take(r, openaiToolOutput)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if ans.RateLimited {
		// What a ChatGPT plan's account gets at its limit: Codex does not
		// try again, and says when the limit resets.
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusTooManyRequests)
		json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"type": "usage_limit_reached",
			"message": "The usage limit has been reached", "plan_type": "plus", "resets_at": LimitResets.Unix()}})
		return
	}
	var in struct {
		Model string `json:"model"`
	}
	json.Unmarshal(req.Body, &in)
	respID := fmt.Sprintf("resp_%d", req.N)
	charged, chargedOut := Charge(req.N)
	response := func(status string, output []any) map[string]any {
		return map[string]any{"id": respID, "object": "response", "created_at": 1700000000, "status": status,
			"model": in.Model, "output": output,
			"usage": map[string]any{"input_tokens": charged, "output_tokens": chargedOut, "total_tokens": charged + chargedOut,
				"input_tokens_details": map[string]int{"cached_tokens": 2 * req.N}, "output_tokens_details": map[string]int{"reasoning_tokens": 0}}}
	}
	s := newSSE(w)
	s.event("response.created", map[string]any{"type": "response.created", "response": response("in_progress", []any{})})
	var item map[string]any
	if ans.Command != "" || ans.Tool != "" {
		name, args := "exec_command", []byte(nil)
		args, _ = json.Marshal(map[string]string{"cmd": ans.Command})
		namespace := ""
		if ans.Tool != "" {
			name = ans.Tool
			args, _ = json.Marshal(ans.Input)
			// A tool of a namespace (Codex puts an MCP server's tools in
			// one, mcp__<server>) is called by its name within it.
			if i := strings.LastIndex(name, "__"); i > 0 {
				namespace, name = name[:i], name[i+2:]
			}
		}
		item = map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_%d", req.N), "call_id": fmt.Sprintf("call_%d", req.N),
			"name": name, "arguments": string(args), "status": "completed"}
		if namespace != "" {
			item["namespace"] = namespace
		}
		s.event("response.output_item.added", map[string]any{"type": "response.output_item.added", "output_index": 0, "item": item})
	} else {
		itemID := fmt.Sprintf("msg_%d", req.N)
		s.event("response.output_item.added", map[string]any{"type": "response.output_item.added", "output_index": 0,
			"item": map[string]any{"type": "message", "id": itemID, "status": "in_progress", "role": "assistant", "content": []any{}}})
		s.event("response.output_text.delta", map[string]any{"type": "response.output_text.delta", "item_id": itemID,
			"output_index": 0, "content_index": 0, "delta": ans.Text})
		item = map[string]any{"type": "message", "id": itemID, "status": "completed", "role": "assistant",
			"content": []any{map[string]any{"type": "output_text", "text": ans.Text, "annotations": []any{}}}}
	}
	s.event("response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": 0, "item": item})
	s.event("response.completed", map[string]any{"type": "response.completed", "response": response("completed", []any{item})})
}

// openaiToolOutput finds a function_call_output as the last input item.
func openaiToolOutput(doc any) (string, bool) {
	body, _ := doc.(map[string]any)
	last := lastOf(body["input"])
	if last == nil || last["type"] != "function_call_output" {
		return "", false
	}
	return textOf(last["output"]), true
}
