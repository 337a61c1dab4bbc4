package targets

import (
	"reflect"
	"strings"
	"testing"

	"github.com/kubectl-informer/kubectl-informer/pkg/index"
)

func TestSplitContextIndex(t *testing.T) {
	for _, tc := range []struct {
		name      string
		selectors []string
		groupBy   []string
		want      ContextIndex
		several   bool
		wantErr   string
	}{
		{name: "none", want: ContextIndex{At: -1}},
		{
			name:      "context selectors taken out",
			selectors: []string{"node=n1", "context=prod", "context in (a,b)"},
			want: ContextIndex{
				Selectors: []index.Selector{
					{Name: "context", Operator: index.Equals, Values: []string{"prod"}},
					{Name: "context", Operator: index.In, Values: []string{"a", "b"}},
				},
				Others: []string{"node=n1"},
				At:     -1,
			},
			several: true,
		},
		{name: "other selectors and keys", selectors: []string{"node=a"}, groupBy: []string{"node"}, want: ContextIndex{Others: []string{"node=a"}, GroupBy: []string{"node"}, At: -1}},
		{name: "context alone", groupBy: []string{"context"}, want: ContextIndex{At: 0}, several: true},
		{name: "context first", groupBy: []string{"context", "node"}, want: ContextIndex{GroupBy: []string{"node"}, At: 0}, several: true},
		{name: "context after a key, trimmed", groupBy: []string{"node", " context", "namespace"}, want: ContextIndex{GroupBy: []string{"node", "namespace"}, At: 1}, several: true},
		{name: "context twice", groupBy: []string{"context", "context"}, wantErr: "--group-by context: named twice"},
		{name: "bad selector", selectors: []string{"context in (a"}, wantErr: "--where"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := SplitContextIndex("--where", tc.selectors, tc.groupBy)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("SplitContextIndex error = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("SplitContextIndex = %+v, want %+v", got, tc.want)
			}
			if got.Several() != tc.several {
				t.Errorf("Several() = %v, want %v", got.Several(), tc.several)
			}
		})
	}
}

func TestContextIndexMatches(t *testing.T) {
	c, err := SplitContextIndex("--index", []string{"context!=dev", "context in (dev,prod,stage)"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]bool{"prod": true, "stage": true, "dev": false, "other": false} {
		if got := c.Matches(name); got != want {
			t.Errorf("Matches(%q) = %v, want %v", name, got, want)
		}
	}
}
