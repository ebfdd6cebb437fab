package realclient

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// GeminiAPI stands in for the Gemini API, which Gemini CLI calls: POST
// /v1beta/models/<model>:streamGenerateContent?alt=sse (or
// :generateContent), answered as a stream of events. A command is asked for
// as a call of Gemini CLI's run_shell_command tool.
type GeminiAPI struct{ api }

// NewGeminiAPI starts a stand-in that answers every request with a text
// until told otherwise.
func NewGeminiAPI(t testing.TB) *GeminiAPI {
	a := &GeminiAPI{}
	a.start(t, a.serve)
	return a
}

func (a *GeminiAPI) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !strings.HasPrefix(r.URL.Path, "/v1beta/models/") {
		http.NotFound(w, r)
		return
	}
	req, ans, err := a.take(r, geminiToolOutput)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if ans.RateLimited {
		// A project's daily quota spent: Gemini CLI does not try again
		// until the day turns.
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusTooManyRequests)
		json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"code": 429, "status": "RESOURCE_EXHAUSTED",
			"message": "Quota exceeded for metric: generativelanguage.googleapis.com/generate_content_free_tier_requests, limit: 50",
			"details": []any{map[string]any{"@type": "type.googleapis.com/google.rpc.QuotaFailure",
				"violations": []any{map[string]any{"quotaMetric": "generativelanguage.googleapis.com/generate_content_free_tier_requests",
					"quotaId": "GenerateRequestsPerDayPerProjectPerModel-FreeTier"}}}}}})
		return
	}
	charged, chargedOut := Charge(req.N)
	part := map[string]any{"text": ans.Text}
	switch {
	case ans.Tool != "":
		part = map[string]any{"functionCall": map[string]any{"name": ans.Tool, "args": ans.Input}}
	case ans.Command != "":
		part = map[string]any{"functionCall": map[string]any{"name": "run_shell_command",
			"args": map[string]any{"command": ans.Command, "description": "Run a switchboard command"}}}
	}
	chunk := map[string]any{
		"candidates": []any{map[string]any{
			"content":      map[string]any{"role": "model", "parts": []any{part}},
			"finishReason": "STOP", "index": 0,
		}},
		"usageMetadata": map[string]int{"promptTokenCount": charged, "candidatesTokenCount": chargedOut, "cachedContentTokenCount": 2 * req.N, "totalTokenCount": charged + chargedOut},
		"modelVersion":  "gemini-2.5-pro",
	}
	if strings.HasSuffix(req.Path, ":streamGenerateContent") {
		newSSE(w).event("", chunk)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(chunk)
}

// geminiToolOutput finds a functionResponse in the last content.
func geminiToolOutput(doc any) (string, bool) {
	body, _ := doc.(map[string]any)
	last := lastOf(body["contents"])
	if last == nil {
		return "", false
	}
	parts, _ := last["parts"].([]any)
	for _, p := range parts {
		part, _ := p.(map[string]any)
		if resp, ok := part["functionResponse"]; ok {
			return textOf(resp), true
		}
	}
	return "", false
}
