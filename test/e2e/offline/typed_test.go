package offline

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// `kubectl cluster-info dump` gets its objects through kubectl's
// compiled-in API types, which drop the fields they do not know: a kubectl
// older than the API server writes objects without the server's newer
// fields (kubectl 1.32 drops a Deployment's status.terminatingReplicas).
// An answer that prints whole objects from such a dump is compared with the
// live answer less the fields the dump's copy of each object lacks; the
// rest of the object must be the same.

// heldObjects reads the objects of a cluster-info dump directory, by
// kind/namespace/name: each NS/TYPE.json and nodes.json is a typed List
// whose items lack kind, which is the List's kind without "List".
func heldObjects(t *testing.T, dir string) map[string]map[string]any {
	t.Helper()
	held := map[string]map[string]any{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".json") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var list struct {
			Kind  string           `json:"kind"`
			Items []map[string]any `json:"items"`
		}
		if err := json.Unmarshal(data, &list); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		for _, item := range list.Items {
			held[objectKey(strings.TrimSuffix(list.Kind, "List"), item)] = item
		}
		return nil
	})
	if err != nil {
		t.Fatalf("reading the cluster-info dump: %v", err)
	}
	return held
}

func objectKey(kind string, obj map[string]any) string {
	meta, _ := obj["metadata"].(map[string]any)
	return fmt.Sprintf("%s/%v/%v", kind, meta["namespace"], meta["name"])
}

// pruneTo returns live without the map keys that held lacks, at every
// depth (lists element by element).
func pruneTo(live, held any) any {
	switch l := live.(type) {
	case map[string]any:
		h, ok := held.(map[string]any)
		if !ok {
			return live
		}
		out := map[string]any{}
		for k, v := range l {
			if hv, ok := h[k]; ok {
				out[k] = pruneTo(v, hv)
			}
		}
		return out
	case []any:
		h, ok := held.([]any)
		if !ok || len(h) != len(l) {
			return live
		}
		out := make([]any, len(l))
		for i := range l {
			out[i] = pruneTo(l[i], h[i])
		}
		return out
	}
	return live
}

// compareHeldObjects compares an answer printing a List of whole objects
// (-o json or -o yaml) with the live answer less, in each item, the fields
// the dump's copy lacks (the item's apiVersion and kind, which the dump's
// Lists leave out, stay). It says how they differ, or "".
func compareHeldObjects(want, got string, held map[string]map[string]any) string {
	decode := func(s string) (map[string]any, error) {
		var v map[string]any
		err := yaml.Unmarshal([]byte(s), &v)
		return v, err
	}
	liveList, err := decode(want)
	if err != nil {
		return fmt.Sprintf("decoding the live answer: %v", err)
	}
	gotList, err := decode(got)
	if err != nil {
		return fmt.Sprintf("decoding the answer: %v", err)
	}
	items, _ := liveList["items"].([]any)
	for i, it := range items {
		obj, _ := it.(map[string]any)
		kind, _ := obj["kind"].(string)
		h, ok := held[objectKey(kind, obj)]
		if !ok {
			return fmt.Sprintf("the dump does not hold %s", objectKey(kind, obj))
		}
		pruned := pruneTo(obj, h).(map[string]any)
		pruned["apiVersion"], pruned["kind"] = obj["apiVersion"], obj["kind"]
		items[i] = pruned
	}
	if !reflect.DeepEqual(liveList, gotList) {
		a, _ := json.MarshalIndent(liveList, "", "  ")
		b, _ := json.MarshalIndent(gotList, "", "  ")
		return fmt.Sprintf("the objects differ from the live ones less the fields the dump lacks:\n%s\nwant\n%s", b, a)
	}
	return ""
}

func TestCompareHeldObjects(t *testing.T) {
	held := map[string]map[string]any{
		"Deployment/shop/cart": {"metadata": map[string]any{"name": "cart", "namespace": "shop"},
			"status": map[string]any{"replicas": 2.0}},
	}
	live := "apiVersion: v1\nkind: List\nitems:\n- apiVersion: apps/v1\n  kind: Deployment\n  metadata: {name: cart, namespace: shop}\n  status: {replicas: 2, terminatingReplicas: 0}\n"
	tests := []struct {
		name, got string
		same      bool
	}{
		{"the fields the dump holds", "apiVersion: v1\nkind: List\nitems:\n- apiVersion: apps/v1\n  kind: Deployment\n  metadata: {name: cart, namespace: shop}\n  status: {replicas: 2}\n", true},
		{"a field the dump holds is missing", "apiVersion: v1\nkind: List\nitems:\n- apiVersion: apps/v1\n  kind: Deployment\n  metadata: {name: cart, namespace: shop}\n  status: {}\n", false},
		{"a value differs", "apiVersion: v1\nkind: List\nitems:\n- apiVersion: apps/v1\n  kind: Deployment\n  metadata: {name: cart, namespace: shop}\n  status: {replicas: 3}\n", false},
		{"no kind", "apiVersion: v1\nkind: List\nitems:\n- metadata: {name: cart, namespace: shop}\n  status: {replicas: 2}\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := compareHeldObjects(live, tt.got, held); (diff == "") != tt.same {
				t.Errorf("compareHeldObjects(live, %q) = %q, want same=%v", tt.got, diff, tt.same)
			}
		})
	}
}
