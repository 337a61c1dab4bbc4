package mcp

import (
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

func TestValidateFlags(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"http not loopback", []string{"--http", "0.0.0.0:8080"}, `--http "0.0.0.0:8080": only a loopback address`},
		{"http without host", []string{"--http", ":8080"}, `--http ":8080": only a loopback address`},
		{"tiny budget", []string{"--max-result-tokens", "5"}, "--max-result-tokens must be at least 100, got 5"},
		{"no sync timeout", []string{"--sync-timeout", "0s"}, "--sync-timeout must be positive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			streams, _, _, _ := genericiooptions.NewTestIOStreams()
			cmd := NewCmdMCP(genericclioptions.NewConfigFlags(true), streams)
			cmd.SetArgs(tt.args)
			cmd.SilenceUsage, cmd.SilenceErrors = true, true
			err := cmd.Execute()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("mcp %v = %v, want an error containing %q", tt.args, err, tt.want)
			}
		})
	}
}
