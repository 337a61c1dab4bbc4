package aggregate

import (
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func resourceSet(names ...string) map[corev1.ResourceName]bool {
	s := map[corev1.ResourceName]bool{}
	for _, n := range names {
		s[corev1.ResourceName(n)] = true
	}
	return s
}

func mustMeasures(t *testing.T, in ...string) []Measure {
	t.Helper()
	var ms []Measure
	for _, s := range in {
		m, err := ParseMeasure(s)
		if err != nil {
			t.Fatal(err)
		}
		ms = append(ms, m)
	}
	return ms
}

func TestExpandGlobs(t *testing.T) {
	requested := resourceSet("cpu", "memory", "nvidia.com/gpu", "nvidia.com/mig-1g.5gb", "nvidia.com/mig-2g.10gb", "example.com/foo")
	limited := resourceSet("cpu", "nvidia.com/mig-1g.5gb")
	tests := []struct {
		name          string
		in            []string
		wantNames     []string
		wantUnmatched []string
	}{
		{"one vendor", []string{"requests.nvidia.com/*"},
			[]string{"requests.nvidia.com/gpu", "requests.nvidia.com/mig-1g.5gb", "requests.nvidia.com/mig-2g.10gb"}, nil},
		{"MIG limits", []string{"limits.nvidia.com/mig-*"}, []string{"limits.nvidia.com/mig-1g.5gb"}, nil},
		{"star does not cross the slash", []string{"requests.*"}, []string{"requests.cpu", "requests.memory"}, nil},
		{"named before a glob is not repeated", []string{"requests.nvidia.com/gpu", "requests.nvidia.com/*", "restarts"},
			[]string{"requests.nvidia.com/gpu", "requests.nvidia.com/mig-1g.5gb", "requests.nvidia.com/mig-2g.10gb", "restarts"}, nil},
		{"nothing matched", []string{"requests.amd.com/*", "limits.nvidia.com/gpu*"}, nil,
			[]string{"requests.amd.com/*", "limits.nvidia.com/gpu*"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, unmatched := ExpandGlobs(mustMeasures(t, tt.in...), requested, limited)
			var names []string
			for _, m := range got {
				if m.IsGlob() {
					t.Errorf("ExpandGlobs left the glob %s", m.Name)
				}
				names = append(names, m.Name)
			}
			if !reflect.DeepEqual(names, tt.wantNames) || !reflect.DeepEqual(unmatched, tt.wantUnmatched) {
				t.Errorf("ExpandGlobs(%q) = %q, unmatched %q, want %q, %q", tt.in, names, unmatched, tt.wantNames, tt.wantUnmatched)
			}
		})
	}
}

func TestGlobMeasureHasNoValue(t *testing.T) {
	ms := mustMeasures(t, "requests.nvidia.com/*")
	if _, err := Values(ms, plainPod); err == nil || !strings.Contains(err.Error(), "glob") {
		t.Errorf("Values(glob) error = %v, want one about the glob", err)
	}
}

func TestExpandResources(t *testing.T) {
	present := resourceSet("cpu", "nvidia.com/gpu", "nvidia.com/mig-1g.5gb")
	got, unmatched := ExpandResources([]string{"nvidia.com/gpu", "nvidia.com/*", "example.com/fpga", "amd.com/*"}, present)
	want := []corev1.ResourceName{"nvidia.com/gpu", "nvidia.com/mig-1g.5gb", "example.com/fpga"}
	if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(unmatched, []string{"amd.com/*"}) {
		t.Errorf("ExpandResources = %q, unmatched %q, want %q, [amd.com/*]", got, unmatched, want)
	}
}

func TestCheckResourcePattern(t *testing.T) {
	for in, wantErr := range map[string]string{
		"nvidia.com/gpu":   "",
		"nvidia.com/mig-*": "",
		"nvidia.com/[":     "--resource nvidia.com/[: malformed glob",
		"a b":              "--resource a b: invalid resource name",
	} {
		err := CheckResourcePattern("--resource", in)
		if (err == nil) != (wantErr == "") || (err != nil && !strings.Contains(err.Error(), wantErr)) {
			t.Errorf("CheckResourcePattern(%q) = %v, want %q", in, err, wantErr)
		}
	}
}

func TestExpandGlobsOver(t *testing.T) {
	ms := mustMeasures(t, "requests.cpu", "requests.nvidia.com/*")
	got, unmatched := ExpandGlobsOver(ms, []interface{}{plainPod, gpuPod, "not a pod"})
	var names []string
	for _, m := range got {
		names = append(names, m.Name)
	}
	if strings.Join(names, ",") != "requests.cpu,requests.nvidia.com/gpu" || unmatched != nil {
		t.Errorf("ExpandGlobsOver() = %v, %v, want requests.cpu, requests.nvidia.com/gpu", names, unmatched)
	}
	if _, unmatched := ExpandGlobsOver(ms, []interface{}{plainPod}); len(unmatched) != 1 {
		t.Errorf("ExpandGlobsOver(no GPU pod) unmatched = %v, want the glob", unmatched)
	}
}
