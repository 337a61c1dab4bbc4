package targets

import (
	"reflect"
	"strings"
	"testing"
)

func TestIsSelection(t *testing.T) {
	for _, tc := range []struct {
		value string
		want  bool
	}{
		{"", false},
		{"prod", false},
		{"arn:aws:eks:eu-west-1:1:cluster/prod", false},
		{"a,b", true},
		{"prod-*", true},
		{"prod-?", true},
		{"prod-[12]", true},
	} {
		if got := IsSelection(tc.value); got != tc.want {
			t.Errorf("IsSelection(%q) = %v, want %v", tc.value, got, tc.want)
		}
	}
}

func TestSelect(t *testing.T) {
	available := []string{"prod-b", "dev", "prod-a", "stage"}
	for _, tc := range []struct {
		name    string
		value   string
		all     bool
		want    Selection
		wantErr string
	}{
		{name: "all sorted", all: true, want: Selection{Names: []string{"dev", "prod-a", "prod-b", "stage"}}},
		{name: "list in order", value: "stage,dev", want: Selection{Names: []string{"stage", "dev"}}},
		{name: "spaces trimmed, duplicates once", value: "dev, dev ,stage", want: Selection{Names: []string{"dev", "stage"}}},
		{name: "pattern sorted", value: "prod-*", want: Selection{Names: []string{"prod-a", "prod-b"}}},
		{name: "pattern and name", value: "stage,prod-?", want: Selection{Names: []string{"stage", "prod-a", "prod-b"}}},
		{name: "class", value: "prod-[b]", want: Selection{Names: []string{"prod-b"}}},
		{name: "unknown name is missing", value: "dev,nope", want: Selection{Names: []string{"dev"}, Missing: []string{"nope"}}},
		{name: "pattern matching nothing", value: "dev,qa-*", wantErr: `pattern "qa-*" matches no context`},
		{name: "bad pattern", value: "prod-[", wantErr: `bad pattern "prod-["`},
		{name: "empty item", value: "dev,", wantErr: "empty context name"},
		{name: "all with context", value: "dev", all: true, wantErr: "--all-contexts cannot be combined"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Select(available, tc.value, tc.all)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Select(%q, %v) error = %v, want one containing %q", tc.value, tc.all, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Select(%q, %v): %v", tc.value, tc.all, err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Select(%q, %v) = %+v, want %+v", tc.value, tc.all, got, tc.want)
			}
		})
	}
	if _, err := Select(nil, "", true); err == nil {
		t.Error("Select with --all-contexts and no contexts: want an error")
	}
}
