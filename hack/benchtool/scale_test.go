package main

import (
	"strings"
	"testing"
	"time"
)

func TestSelectorPath(t *testing.T) {
	tests := []struct{ param, sel, want string }{
		{"fieldSelector", "spec.nodeName=node-3", "/api/v1/pods?fieldSelector=spec.nodeName%3Dnode-3"},
		{"labelSelector", "app=app-7", "/api/v1/pods?labelSelector=app%3Dapp-7"},
		{"labelSelector", "app in (a,b)", "/api/v1/pods?labelSelector=app+in+%28a%2Cb%29"},
	}
	for _, tt := range tests {
		if got := selectorPath(tt.param, tt.sel); got != tt.want {
			t.Errorf("selectorPath(%q, %q) = %q, want %q", tt.param, tt.sel, got, tt.want)
		}
	}
}

func TestWarmVerdict(t *testing.T) {
	tests := []struct {
		answered, declined int64
		want               string
	}{
		{1, 0, "served warm"},
		{0, 1, "declined: ran directly"},
		{1, 1, "declined: ran directly"},
		{0, 0, "unclear (answered +0, declined +0)"},
		{2, 0, "unclear (answered +2, declined +0)"},
	}
	for _, tt := range tests {
		if got := warmVerdict(tt.answered, tt.declined); got != tt.want {
			t.Errorf("warmVerdict(%d, %d) = %q, want %q", tt.answered, tt.declined, got, tt.want)
		}
	}
}

// results makes a result of one sample per id: wall in seconds, peak RSS
// in MiB.
func results(m map[string][2]float64) map[string]*result {
	out := map[string]*result{}
	for id, v := range m {
		out[id] = &result{c: benchCase{id: id}, samples: []sample{{
			wall: time.Duration(v[0] * float64(time.Second)), rssKiB: int64(v[1] * 1024)}}}
	}
	return out
}

func TestScaleTargets(t *testing.T) {
	sc := scaleResult{
		pods: 150000,
		results: results(map[string][2]float64{
			"s-node-direct": {0.050, 40}, "raw-s-node": {0.010, 10}, // 40 ms over: missed
			"s-node": {0.100, 60}, "s-kubectl-node": {0.200, 50}, // 0.5×: met
			"s-app-direct": {0.240, 40}, "raw-s-app": {0.220, 10}, // 20 ms over: met
			"s-app": {0.300, 60}, "s-kubectl-app": {0.250, 50}, // 1.2×: missed
			"raw-pb": {2.0, 10}, "q1-direct": {2.9, 900}, // 1.45×, 900 MiB: met, met
			"s-q3-direct": {4.0, 1100}, // 2×, 1100 MiB: missed, missed
		}),
		warm: &warmResult{pods: 150000, objects: 150010, rssEmpty: 20 << 20, rssFull: 20<<20 + 150010*4096,
			results: results(map[string][2]float64{"w-q1-warm-direct": {0.040, 20}, "s-w-indexer": {0.120, 20}})},
		served: map[string]string{"s-w-indexer": "declined: ran directly"},
	}
	want := map[string]bool{
		"150000 pods: pods of node-3 (binary directly): wall − the filtered raw LIST ≤ 30 ms":             false,
		"150000 pods: pods of node-3 (kubectl informer): wall ≤ 1× kubectl get with the same selector":    true,
		"150000 pods: pods of app app-7 (binary directly): wall − the filtered raw LIST ≤ 30 ms":          true,
		"150000 pods: pods of app app-7 (kubectl informer): wall ≤ 1× kubectl get with the same selector": false,
		"150000 pods: query 1 (binary directly), cold: wall ≤ 1.5× the raw protobuf LIST":                 true,
		"150000 pods: query 1 (binary directly), cold: peak RSS":                                          true,
		"150000 pods: `--group-by node` (binary directly), cold: wall ≤ 1.5× the raw protobuf LIST":       false,
		"150000 pods: `--group-by node` (binary directly), cold: peak RSS":                                false,
		"150000 pods: warm lookup (query 1) (binary directly): wall":                                      true,
		"150000 pods: warm `--indexer` query (binary directly): wall":                                     false,
		"150000 pods: warm cache RSS per cached object":                                                   false,
	}
	got := scaleTargets(sc)
	seen := map[string]bool{}
	for _, tr := range got {
		met, ok := want[tr.name]
		if !ok {
			t.Errorf("unexpected target %q", tr.name)
			continue
		}
		seen[tr.name] = true
		if tr.met != met {
			t.Errorf("%q: met = %v, want %v (measured %s, limit %s)", tr.name, tr.met, met, tr.measured, tr.limit)
		}
		if tr.ratio < 0 {
			t.Errorf("%q: ratio %v below 0", tr.name, tr.ratio)
		}
	}
	for name := range want {
		if !seen[name] {
			t.Errorf("missing target %q", name)
		}
	}
	for _, tr := range got {
		if strings.Contains(tr.name, "--indexer") && tr.note != "the cache: declined: ran directly" {
			t.Errorf("the --indexer target's note is %q, want what the cache did", tr.note)
		}
	}
}

func TestScaleTargetsFasterThanTheFloor(t *testing.T) {
	sc := scaleResult{pods: 100000, results: results(map[string][2]float64{"s-node-direct": {0.010, 40}, "raw-s-node": {0.020, 10}})}
	ts := scaleTargets(sc)
	if len(ts) != 1 || !ts[0].met || ts[0].ratio != 0 || ts[0].measured != "-10 ms" {
		t.Fatalf("got %+v, want one target met at ratio 0 measuring -10 ms", ts)
	}
}

func TestScaleMemoryLimit(t *testing.T) {
	for _, tt := range []struct {
		pods  int
		limit float64
		ok    bool
	}{{10000, 100, true}, {100000, 0, false}, {150000, 1024, true}, {20000, 0, false}} {
		if l, ok := scaleMemoryLimit(tt.pods); l != tt.limit || ok != tt.ok {
			t.Errorf("scaleMemoryLimit(%d) = %v, %v; want %v, %v", tt.pods, l, ok, tt.limit, tt.ok)
		}
	}
}
