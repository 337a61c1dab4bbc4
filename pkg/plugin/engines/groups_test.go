package engines

import (
	"testing"

	"github.com/kubectl-informer/kubectl-informer/pkg/index"
)

func TestParseGroupsGlobs(t *testing.T) {
	set, err := index.NewSet()
	if err != nil {
		t.Fatal(err)
	}
	if _, ms, err := ParseGroups(set, []string{"namespace"}, []string{"requests.nvidia.com/gpu"}); err != nil || len(ms) != 1 || ms[0].IsGlob() {
		t.Fatalf("ParseGroups(requests.nvidia.com/gpu) = %v, %v, want one measure", ms, err)
	}
	if _, ms, err := ParseGroups(set, nil, []string{"requests.nvidia.com/*"}); err != nil || len(ms) != 1 || !ms[0].IsGlob() {
		t.Errorf("ParseGroups(requests.nvidia.com/*) = %v, %v, want the glob", ms, err)
	}
	if _, _, err := ParseGroups(set, nil, []string{"requests.nvidia.com/[*"}); err == nil {
		t.Errorf("ParseGroups(requests.nvidia.com/[*) = nil error, want a malformed glob refused")
	}
}
