package expr

import "testing"

func TestIsCEL(t *testing.T) {
	tests := []struct {
		src  string
		want bool
	}{
		{"object.spec.nodeName", true},
		{"  object.metadata.?labels.app", true},
		{"quantity(object.spec.containers[0].resources.requests.cpu).sign()", true},
		{"[object.spec.nodeName, 'x']", true},
		{"now - timestamp(object.metadata.creationTimestamp) > duration('1h')", true},
		{"{.spec.nodeName}", false},
		{".spec.nodeName", false},
		{"spec.nodeName", false},
		{"spec.object", false},
		{"{.spec.containers[?(@.name==\"object\")].image}", false},
		{"spec.containers[?(@.name==\"now\")].image", false},
		{"objects.x", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := IsCEL(tt.src); got != tt.want {
			t.Errorf("IsCEL(%q) = %v, want %v", tt.src, got, tt.want)
		}
	}
}
