package main

import "testing"

func TestBlankAge(t *testing.T) {
	tests := []struct {
		name, a, b string
		same       bool
	}{
		{"age last", "NAME   AGE\npod-1  59s\n", "NAME   AGE\npod-1  2m\n", true},
		{"age before a label column", "NAME   AGE   APP\npod-1  59s   app-3\n", "NAME   AGE   APP\npod-1  2m    app-3\n", true},
		{"age column wider", "NAME   AGE    APP\npod-1  110s   app-3\n", "NAME   AGE   APP\npod-1  2m    app-3\n", true},
		{"other column differs", "NAME   AGE   APP\npod-1  59s   app-3\n", "NAME   AGE   APP\npod-1  59s   app-4\n", false},
		{"no table", "pod/a\npod/b\n", "pod/a\npod/c\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := blankAge(tt.a) == blankAge(tt.b); got != tt.same {
				t.Errorf("blankAge(%q) == blankAge(%q) is %v, want %v (%q, %q)", tt.a, tt.b, got, tt.same, blankAge(tt.a), blankAge(tt.b))
			}
		})
	}
}
