package timetravel

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/duration"
)

// checkAges asks the recording for the pods at snapshot s's instant as a
// table: each pod's AGE counts from that instant, as kubectl counts it
// (duration.HumanDuration of the instant less the pod's creationTimestamp,
// read from the -o json answer at the same instant), and stderr says so
// once. With --now an hour later, the ages count from --now; --now
// without --from is refused.
func checkAges(t *testing.T, kubeconfig, file, ns string, s snapshot) {
	at := s.at.UTC().Format(time.RFC3339Nano)
	r := offline(t, kubeconfig, "query", "pods", "-n", ns, "--from", file, "--at", at, "-o", "json")
	if r.ExitCode != 0 {
		t.Fatalf("query pods --at %s -o json: %s", at, r)
	}
	var list struct {
		Items []struct {
			Metadata struct {
				Name              string    `json:"name"`
				CreationTimestamp time.Time `json:"creationTimestamp"`
			} `json:"metadata"`
		} `json:"items"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &list); err != nil {
		t.Fatalf("query pods --at %s -o json: %v\n%s", at, err, r.Stdout)
	}
	created := map[string]time.Time{}
	for _, item := range list.Items {
		created[item.Metadata.Name] = item.Metadata.CreationTimestamp
	}
	if len(created) == 0 {
		t.Fatalf("query pods --at %s: no pods, want the snapshot's", at)
	}
	later := s.at.Add(time.Hour)
	for _, c := range []struct {
		args []string
		from time.Time
		note string
	}{
		{nil, s.at, "ages as of " + s.at.UTC().Format(time.RFC3339) + ", the --at instant\n"},
		{[]string{"--now", later.UTC().Format(time.RFC3339Nano)}, later, "ages as of " + later.UTC().Format(time.RFC3339) + ", --now\n"},
	} {
		args := append([]string{"query", "pods", "-n", ns, "--from", file, "--at", at}, c.args...)
		r := offline(t, kubeconfig, args...)
		if r.ExitCode != 0 {
			t.Fatalf("%s: %s", strings.Join(args, " "), r)
		}
		if r.Stderr != c.note {
			t.Errorf("%s: stderr %q, want %q", strings.Join(args, " "), r.Stderr, c.note)
		}
		lines := strings.Split(strings.TrimSpace(r.Stdout), "\n")
		if header := strings.Fields(lines[0]); header[0] != "NAME" || header[len(header)-1] != "AGE" {
			t.Fatalf("%s: the table's header is not NAME … AGE:\n%s", strings.Join(args, " "), r.Stdout)
		}
		if len(lines)-1 != len(created) {
			t.Errorf("%s: %d rows, want the %d pods -o json printed:\n%s", strings.Join(args, " "), len(lines)-1, len(created), r.Stdout)
		}
		for _, line := range lines[1:] {
			cells := strings.Fields(line)
			name, age := cells[0], cells[len(cells)-1]
			c0, ok := created[name]
			if !ok {
				t.Errorf("%s: pod %s is not in the -o json answer", strings.Join(args, " "), name)
				continue
			}
			if want := duration.HumanDuration(c.from.Sub(c0)); age != want {
				t.Errorf("%s: pod %s AGE %q, want %q (created %s)", strings.Join(args, " "), name, age, want, c0.Format(time.RFC3339))
			}
		}
	}
	r = offline(t, kubeconfig, "query", "pods", "-n", ns, "--now", "-1m")
	if r.ExitCode != 1 || !strings.Contains(r.Stderr, "--now needs --from") {
		t.Errorf("query --now without --from = %s, want exit 1 and an error naming --now and --from", r)
	}
}
