package engines

import (
	"strings"
	"testing"

	"github.com/kubectl-informer/kubectl-informer/pkg/index"
)

func TestParseGroupsRefusesGlobs(t *testing.T) {
	set, err := index.NewSet()
	if err != nil {
		t.Fatal(err)
	}
	if _, ms, err := ParseGroups(set, []string{"namespace"}, []string{"requests.nvidia.com/gpu"}); err != nil || len(ms) != 1 {
		t.Fatalf("ParseGroups(requests.nvidia.com/gpu) = %d measures, %v", len(ms), err)
	}
	_, _, err = ParseGroups(set, nil, []string{"requests.nvidia.com/*"})
	if err == nil || !strings.Contains(err.Error(), "--sum requests.nvidia.com/*: a glob adds columns in capacity only") {
		t.Errorf("ParseGroups(requests.nvidia.com/*) error = %v, want the glob refused", err)
	}
}
