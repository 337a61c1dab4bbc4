package fleet

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// fleetListOf reads a fleet command's -o json|yaml List: its items and the
// contexts beside them.
func fleetListOf(t *testing.T, output, text string) (items []interface{}, contexts []string) {
	t.Helper()
	var list struct {
		Kind     string        `json:"kind"`
		Items    []interface{} `json:"items"`
		Contexts []string      `json:"contexts"`
	}
	var err error
	if output == "yaml" {
		err = yaml.Unmarshal([]byte(text), &list)
	} else {
		err = json.Unmarshal([]byte(text), &list)
	}
	if err != nil || list.Kind != "List" {
		t.Fatalf("-o %s is not a List (%v):\n%s", output, err, text)
	}
	if len(list.Items) != len(list.Contexts) {
		t.Fatalf("-o %s: %d items beside %d contexts", output, len(list.Items), len(list.Contexts))
	}
	return list.Items, list.Contexts
}

// TestFleetCapacityObjects checks capacity -o json|yaml across contexts
// against capacity --context X -o json in each: one item per context that
// answered, equal to that context's object, named by contexts beside it;
// the dead context is named on stderr and makes the exit code 1.
func TestFleetCapacityObjects(t *testing.T) {
	seed(t)
	f := framework.CurrentFleet(t)
	for _, flags := range [][]string{
		nil,
		{"--group-by", "label:topology.kubernetes.io/zone", "--sort-by", "PODS", "--top", "1"},
	} {
		want := map[string]interface{}{}
		for _, c := range f.Contexts {
			r := informer(t, append([]string{"capacity", "--context", c, "-o", "json"}, flags...)...)
			if r.ExitCode != 0 {
				t.Fatalf("capacity --context %s -o json: %s", c, r)
			}
			var obj interface{}
			if err := json.Unmarshal([]byte(r.Stdout), &obj); err != nil {
				t.Fatalf("capacity --context %s -o json: %v\n%s", c, err, r.Stdout)
			}
			want[c] = obj
		}
		for _, output := range []string{"json", "yaml"} {
			name := output + " " + strings.Join(flags, " ")
			r := informer(t, append([]string{"capacity", "--context", "fleet-*," + f.Dead, "-o", output}, flags...)...)
			if r.ExitCode != 1 || strings.Count(r.Stderr, "error: context "+f.Dead+": ") != 1 {
				t.Errorf("%s: want the dead context named once and exit 1: %s", name, r)
			}
			items, contexts := fleetListOf(t, output, r.Stdout)
			if !reflect.DeepEqual(contexts, f.Contexts) {
				t.Errorf("%s: contexts %q, want %q", name, contexts, f.Contexts)
				continue
			}
			for i, c := range contexts {
				if !reflect.DeepEqual(items[i], want[c]) {
					t.Errorf("%s: item of %s:\n got %v\nwant %v", name, c, items[i], want[c])
				}
			}
		}
	}
}
