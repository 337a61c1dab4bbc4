package engines

import (
	"strings"
	"testing"

	"github.com/kubectl-informer/kubectl-informer/pkg/aggregate"
	"github.com/kubectl-informer/kubectl-informer/pkg/expr"
)

func TestRefuseWatchedUsage(t *testing.T) {
	usageCPU, err := aggregate.ParseMeasure("usage.cpu")
	if err != nil {
		t.Fatal(err)
	}
	requests, err := aggregate.ParseMeasure("requests.cpu")
	if err != nil {
		t.Fatal(err)
	}
	reads, err := CompilePredicate("--filter", `has(usage.cpu)`)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := CompilePredicate("--until", `object.metadata.name == "a"`)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		measures []aggregate.Measure
		guards   []*expr.Guard
		want     string
	}{
		{name: "requests and a plain expression", measures: []aggregate.Measure{requests}, guards: []*expr.Guard{plain, nil}},
		{name: "a usage measure", measures: []aggregate.Measure{requests, usageCPU}, want: "--sum usage.cpu: query -w does not re-read usage"},
		{name: "an expression reading usage", guards: []*expr.Guard{plain, reads}, want: "--filter: a watch does not re-read usage"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := RefuseWatchedUsage(tt.measures, tt.guards...)
			if (err == nil) != (tt.want == "") || (err != nil && !strings.HasPrefix(err.Error(), tt.want)) {
				t.Errorf("RefuseWatchedUsage() = %v, want %q", err, tt.want)
			}
		})
	}
}
