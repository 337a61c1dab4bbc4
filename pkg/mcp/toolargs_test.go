package mcp

import (
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestArgumentErrors checks that arguments no context could answer are
// tool errors naming the argument (the schema's, or the tool's own), before
// any cluster is asked.
func TestArgumentErrors(t *testing.T) {
	cs := connect(t, New(Options{ConfigFlags: deadKubeconfig(t)}))
	tests := []struct {
		tool string
		args map[string]any
		want string
	}{
		{"query", map[string]any{"types": " "}, "types is required"},
		{"tree", map[string]any{}, "roots"},
		{"tree", map[string]any{"roots": []string{}}, "roots is required"},
		{"tree", map[string]any{"roots": []string{"deployment/web"}, "direction": "sideways"}, "direction must be"},
		{"tree", map[string]any{"roots": []string{"deployment/web"}, "direction": "up", "types": []string{"pods"}}, "types lists"},
		{"events", map[string]any{"object": "web"}, "TYPE/NAME"},
		{"events", map[string]any{"object": "pod/web", "type": "Error"}, "Normal or Warning"},
		{"wait", map[string]any{"types": "pods"}, "condition"},
		{"wait", map[string]any{"types": "pods", "condition": " "}, "condition is required"},
		{"wait", map[string]any{"types": " ", "condition": "true"}, "types is required"},
		{"wait", map[string]any{"types": "pods", "condition": "true", "timeoutSeconds": 601}, "timeoutSeconds"},
	}
	for _, tt := range tests {
		t.Run(tt.tool+" "+tt.want, func(t *testing.T) {
			res, _ := call(t, cs, tt.tool, tt.args)
			if !res.IsError {
				t.Fatalf("%s %v is no error", tt.tool, tt.args)
			}
			var text strings.Builder
			for _, c := range res.Content {
				if tc, ok := c.(*sdk.TextContent); ok {
					text.WriteString(tc.Text)
				}
			}
			if !strings.Contains(text.String(), tt.want) {
				t.Errorf("%s %v = %s, want it to name %q", tt.tool, tt.args, text.String(), tt.want)
			}
		})
	}
}
