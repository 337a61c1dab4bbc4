package engines

import (
	"testing"

	"github.com/kubectl-informer/kubectl-informer/internal/version"
	"github.com/kubectl-informer/kubectl-informer/pkg/warmcache/protocol"
)

// TestOtherBuild: a cache is used only by the same build, told apart by
// its build identity when the version strings are the same (v0.0.0-dev).
func TestOtherBuild(t *testing.T) {
	tests := []struct {
		name  string
		hello protocol.Hello
		other bool
	}{
		{"same build", protocol.Hello{Build: version.Version, BuildID: version.BuildID()}, false},
		{"other version", protocol.Hello{Build: "v9.9.9", BuildID: version.BuildID()}, true},
		{"same version, other binary", protocol.Hello{Build: version.Version, BuildID: "another-build-id"}, true},
		{"same version, no build id (an older cache)", protocol.Hello{Build: version.Version}, true},
	}
	if version.BuildID() == "" {
		t.Fatal("version.BuildID() is empty for the test binary")
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := otherBuild(tt.hello); (got != "") != tt.other {
				t.Errorf("otherBuild(%+v) = %q, want other build %v", tt.hello, got, tt.other)
			}
		})
	}
}
