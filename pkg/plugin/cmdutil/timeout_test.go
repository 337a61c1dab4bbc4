package cmdutil

import (
	"testing"
	"time"
)

func TestWithinTimeout(t *testing.T) {
	if v, ok := WithinTimeout(time.Second, func() int { return 7 }); !ok || v != 7 {
		t.Errorf("WithinTimeout of a quick call = %d, %v, want 7, true", v, ok)
	}
	release := make(chan struct{})
	defer close(release)
	if v, ok := WithinTimeout(10*time.Millisecond, func() int { <-release; return 7 }); ok || v != 0 {
		t.Errorf("WithinTimeout of a call that does not return = %d, %v, want 0, false", v, ok)
	}
}
