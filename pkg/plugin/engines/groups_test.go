package engines

import (
	"strings"
	"testing"

	"github.com/kubectl-informer/kubectl-informer/pkg/index"
)

func TestParseGroupsGlobs(t *testing.T) {
	set, err := index.NewSet()
	if err != nil {
		t.Fatal(err)
	}
	if _, ms, err := ParseGroups(set, []string{"namespace"}, []string{"requests.nvidia.com/gpu"}, false); err != nil || len(ms) != 1 {
		t.Fatalf("ParseGroups(requests.nvidia.com/gpu) = %d measures, %v", len(ms), err)
	}
	if _, ms, err := ParseGroups(set, nil, []string{"requests.nvidia.com/*"}, true); err != nil || len(ms) != 1 || !ms[0].IsGlob() {
		t.Errorf("ParseGroups(requests.nvidia.com/*, globs) = %v, %v, want the glob", ms, err)
	}
	_, _, err = ParseGroups(set, nil, []string{"requests.nvidia.com/*"}, false)
	if err == nil || !strings.Contains(err.Error(), "--sum requests.nvidia.com/*: query -w keeps its table's columns") {
		t.Errorf("ParseGroups(requests.nvidia.com/*) error = %v, want the glob refused", err)
	}
}
