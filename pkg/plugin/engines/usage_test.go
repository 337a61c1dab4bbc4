package engines

import (
	"strings"
	"testing"

	"github.com/kubectl-informer/kubectl-informer/pkg/expr"
)

func TestRefuseWatchedUsage(t *testing.T) {
	reads, err := CompilePredicate("--filter", `has(usage.cpu)`)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := CompilePredicate("--until", `object.metadata.name == "a"`)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		guards []*expr.Guard
		want   string
	}{
		{name: "a plain expression", guards: []*expr.Guard{plain, nil}},
		{name: "an expression reading usage", guards: []*expr.Guard{plain, reads}, want: "--filter: a watch does not re-read usage"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := RefuseWatchedUsage(tt.guards...)
			if (err == nil) != (tt.want == "") || (err != nil && !strings.HasPrefix(err.Error(), tt.want)) {
				t.Errorf("RefuseWatchedUsage() = %v, want %q", err, tt.want)
			}
		})
	}
}
