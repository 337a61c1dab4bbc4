package targets

import (
	"testing"

	"go.uber.org/goleak"
)

// Run's goroutines end before it returns: none outlives a test.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
