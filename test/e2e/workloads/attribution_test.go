package workloads

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/client-go/kubernetes"
	"k8s.io/kube-openapi/pkg/util/proto"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/kubectl-informer/kubectl-informer/test/e2e/framework"
)

// minAttributed is the share of updates with an owner that must be
// attributed.
const minAttributed = 0.95

// checkAttribution checks the managers the plugin printed for every MODIFIED
// event against the owners of the changed paths, computed here from the
// server's own watch stream (managedFields kept) independently of the
// plugin's code: the changed paths are structured-merge-diff's comparison of
// the two versions typed with the server's OpenAPI schema (so list elements
// are named by the schema's keys), and a changed path is owned by the new
// version's managedFields entries that hold it or a field under it or, when
// none does, its nearest ancestor some entry holds whole (a leaf of its set,
// as atomic maps and lists are); of several, those whose time moved in the
// update, if any moved.
//
// Every printed list must equal the computed one (no owner: no name), and at
// least minAttributed of the updates that have owners must name them.
func checkAttribution(t *testing.T, cs kubernetes.Interface, server []framework.ServerEvent, printed []framework.WatchEvent) {
	t.Helper()
	doc, err := cs.Discovery().OpenAPISchema()
	if err != nil {
		t.Fatalf("fetching the OpenAPI schema: %v", err)
	}
	models, err := proto.NewOpenAPIData(doc)
	if err != nil {
		t.Fatalf("reading the OpenAPI schema: %v", err)
	}
	parser, err := managedfields.NewGVKParser(models, false)
	if err != nil {
		t.Fatalf("building a parser from the OpenAPI schema: %v", err)
	}

	// Each server state by UID and resourceVersion, with the one before it.
	type state struct{ old, new map[string]interface{} }
	states := map[string]state{}
	last := map[string]map[string]interface{}{}
	for _, ev := range server {
		uid := framework.NestedString(ev.Object, "metadata", "uid")
		rv := framework.NestedString(ev.Object, "metadata", "resourceVersion")
		states[uid+"/"+rv] = state{old: last[uid], new: ev.Object}
		last[uid] = ev.Object
	}

	withOwner, attributed, mismatches, updates := 0, 0, 0, 0
	causes := map[string]int{}
	var unowned []string
	for _, ev := range printed {
		if ev.Type != "MODIFIED" {
			continue
		}
		uid := framework.NestedString(ev.Object, "metadata", "uid")
		rv := framework.NestedString(ev.Object, "metadata", "resourceVersion")
		s, ok := states[uid+"/"+rv]
		if !ok || s.old == nil {
			t.Errorf("%s: the server sent no state %s after another", ev, rv)
			continue
		}
		want, paths, err := changeOwners(parser, s.old, s.new)
		if err != nil {
			t.Errorf("%s: %v", ev, err)
			continue
		}
		// A label, where the server recorded no owner, must be true.
		if ev.Cause != "" {
			causes[ev.Cause]++
		}
		if want := certainCause(s.old, s.new); ev.Cause != want {
			t.Errorf("%s %s: labelled %q, want %q", ev.Kind()+"/"+ev.Name(), rv, ev.Cause, want)
		}
		got := slices.Clone(ev.Managers)
		slices.Sort(got)
		updates++
		if len(want) == 0 && ev.Cause == "" {
			unowned = append(unowned, fmt.Sprintf("%s %s: %s", ev.Kind()+"/"+ev.Name(), rv, strings.ReplaceAll(paths, "\n", " ")))
		}
		if len(want) > 0 {
			withOwner++
			if len(got) > 0 {
				attributed++
			}
		}
		if !slices.Equal(got, want) {
			mismatches++
			if mismatches <= 10 {
				t.Errorf("%s %s: managers %q, want the owners of the changed paths %q\nchanged paths: %s", ev.Kind()+"/"+ev.Name(), rv, got, want, paths)
			}
		}
	}
	if mismatches > 10 {
		t.Errorf("… %d mismatches in all", mismatches)
	}
	share := 1.0
	if withOwner > 0 {
		share = float64(attributed) / float64(withOwner)
	}
	t.Logf("attribution: %d of %d updates whose changed paths have an owner were attributed (%.0f%%); %d printed lists differ from the owners; %d updates in all, labels where no owner: %v", attributed, withOwner, 100*share, mismatches, updates, causes)
	if len(unowned) > 0 {
		t.Logf("updates the server recorded no owner for, unlabelled:\n%s", strings.Join(unowned, "\n"))
	}
	if withOwner == 0 {
		t.Errorf("no update had an owner: the test proved nothing")
	}
	if share < minAttributed {
		t.Errorf("%.0f%% of the updates with an owner were attributed, want at least %.0f%%", 100*share, 100*minAttributed)
	}
}

// changeOwners returns the names (MANAGER/Operation[/subresource]) of the
// owners of what changed from old to new, sorted, and the changed paths.
func changeOwners(parser *managedfields.GvkParser, old, new map[string]interface{}) ([]string, string, error) {
	gv, err := schema.ParseGroupVersion(framework.NestedString(new, "apiVersion"))
	if err != nil {
		return nil, "", err
	}
	pt := parser.Type(gv.WithKind(framework.NestedString(new, "kind")))
	if pt == nil {
		return nil, "", fmt.Errorf("no schema for %s", new["kind"])
	}
	ov, err := pt.FromUnstructured(framework.WithoutBookkeeping(old))
	if err != nil {
		return nil, "", fmt.Errorf("typing the old object: %w", err)
	}
	nv, err := pt.FromUnstructured(framework.WithoutBookkeeping(new))
	if err != nil {
		return nil, "", fmt.Errorf("typing the new object: %w", err)
	}
	cmp, err := ov.Compare(nv)
	if err != nil {
		return nil, "", fmt.Errorf("comparing: %w", err)
	}
	changed := cmp.Added.Union(cmp.Modified).Union(cmp.Removed)

	type owner struct {
		name  string
		set   *fieldpath.Set
		moved bool
	}
	oldTimes := map[string]time.Time{}
	for _, e := range managedFieldsOf(old) {
		oldTimes[entryName(e)] = entryTime(e)
	}
	var owners []owner
	for _, e := range managedFieldsOf(new) {
		set := &fieldpath.Set{}
		if e.FieldsV1 != nil {
			if err := set.FromJSON(strings.NewReader(e.FieldsV1.GetRawString())); err != nil {
				return nil, "", fmt.Errorf("parsing the fields of %s: %w", entryName(e), err)
			}
		}
		prev, ok := oldTimes[entryName(e)]
		owners = append(owners, owner{name: entryName(e), set: set, moved: !ok || !prev.Equal(entryTime(e))})
	}
	// An ancestor owns what changed under it only when held whole: a leaf of
	// the owner's set, as an atomic map or list is; "." beside children
	// owns the node's existence, not what others put in it.
	holdsWhole := func(o owner, p fieldpath.Path) bool {
		if !o.set.Has(p) {
			return false
		}
		s := o.set
		for _, pe := range p[:len(p)-1] {
			s, _ = s.Children.Get(pe)
		}
		_, inner := s.Children.Get(p[len(p)-1])
		return !inner
	}
	holdsUnder := func(o owner, p fieldpath.Path) bool {
		if o.set.Has(p) {
			return true
		}
		under := false
		o.set.Iterate(func(q fieldpath.Path) {
			under = under || len(q) > len(p) && q[:len(p)].Equals(p)
		})
		return under
	}

	names := map[string]bool{}
	changed.Iterate(func(p fieldpath.Path) {
		holds := holdsUnder
		for n := len(p); n > 0; n-- {
			var holders []owner
			moved := 0
			for _, o := range owners {
				if holds(o, p[:n]) {
					holders = append(holders, o)
					if o.moved {
						moved++
					}
				}
			}
			holds = holdsWhole // ancestors: held whole
			if len(holders) == 0 {
				continue
			}
			for _, o := range holders {
				if moved == 0 || len(holders) == 1 || o.moved {
					names[o.name] = true
				}
			}
			return
		}
	})
	var out []string
	for name := range names {
		out = append(out, name)
	}
	slices.Sort(out)
	return out, changed.String(), nil
}

func managedFieldsOf(obj map[string]interface{}) []metav1.ManagedFieldsEntry {
	var m metav1.ObjectMeta
	md, _ := obj["metadata"].(map[string]interface{})
	if md == nil {
		return nil
	}
	data, err := json.Marshal(map[string]interface{}{"managedFields": md["managedFields"]})
	if err != nil {
		return nil
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return nil
	}
	return m.ManagedFields
}

func entryName(e metav1.ManagedFieldsEntry) string {
	name := e.Manager + "/" + string(e.Operation)
	if e.Subresource != "" {
		name += "/" + e.Subresource
	}
	return name
}

func entryTime(e metav1.ManagedFieldsEntry) time.Time {
	if e.Time == nil {
		return time.Time{}
	}
	return e.Time.Time
}

// certainCause returns the label an update from old to new must carry: a
// DELETE set or moved metadata.deletionTimestamp, or pods/binding set a
// pod's spec.nodeName; both leave no managedFields entry.
func certainCause(old, new map[string]interface{}) string {
	ts := framework.NestedString(new, "metadata", "deletionTimestamp")
	switch {
	case ts != "" && ts != framework.NestedString(old, "metadata", "deletionTimestamp"):
		return "deletion requested"
	case framework.NestedString(new, "kind") == "Pod" && framework.NestedString(old, "spec", "nodeName") == "" && framework.NestedString(new, "spec", "nodeName") != "":
		return "bound by pods/binding"
	}
	return ""
}
