package main

import (
	"reflect"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kubectl-informer/kubectl-informer/pkg/mcp"
)

func TestNewMCPTruth(t *testing.T) {
	owner := func(kind, name string) []metav1.OwnerReference {
		return []metav1.OwnerReference{{Kind: kind, Name: name}}
	}
	pod := func(ns, name, node string, phase corev1.PodPhase, owners []metav1.OwnerReference, spec corev1.PodSpec) corev1.Pod {
		spec.NodeName = node
		return corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, OwnerReferences: owners},
			Spec: spec, Status: corev1.PodStatus{Phase: phase}}
	}
	cm := func(ns, name string) corev1.ConfigMap {
		return corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	}
	mounts := func(name string) corev1.PodSpec {
		return corev1.PodSpec{Volumes: []corev1.Volume{{VolumeSource: corev1.VolumeSource{
			ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: name}}}}}}
	}
	pods := []corev1.Pod{
		pod("shop", "web-1", "n1", corev1.PodRunning, owner("ReplicaSet", "web-abc"), mounts("web-config")),
		pod("shop", "web-2", "n2", corev1.PodRunning, owner("ReplicaSet", "web-abc"), corev1.PodSpec{}),
		pod("shop", "api-1", "n1", corev1.PodRunning, owner("ReplicaSet", "api-abc"), corev1.PodSpec{}),
		pod("seed-0", "pod-0", "", corev1.PodPending, nil, corev1.PodSpec{}),
		pod("seed-0", "pod-1", "n2", corev1.PodSucceeded, nil, corev1.PodSpec{}),
	}
	rss := []appsv1.ReplicaSet{
		{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web-abc", OwnerReferences: owner("Deployment", "web")}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "api-abc", OwnerReferences: owner("Deployment", "api")}},
	}
	// A template's reference counts though no pod has it (yet).
	deps := []appsv1.Deployment{{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "api"},
		Spec: appsv1.DeploymentSpec{Template: corev1.PodTemplateSpec{Spec: mounts("api-config")}}}}
	cms := []corev1.ConfigMap{cm("shop", "web-config"), cm("shop", "api-config"), cm("seed-0", "web-config"), cm("seed-0", "cm-0")}

	got := newMCPTruth(pods, cms, deps, rss, "shop/web")
	want := mcpTruth{
		pods:           5,
		perNode:        map[string]int{"n1": 2, "n2": 2, noNode: 1},
		notRunning:     map[string]int{"seed-0": 2},
		unused:         map[string]bool{"seed-0/web-config": true, "seed-0/cm-0": true},
		configMaps:     4,
		deploymentPods: map[string]bool{"web-1": true, "web-2": true},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("newMCPTruth() = %+v, want %+v", got, want)
	}
}

func TestPodSpecConfigMaps(t *testing.T) {
	ref := corev1.LocalObjectReference{Name: "x"}
	named := func(n string) corev1.LocalObjectReference { return corev1.LocalObjectReference{Name: n} }
	spec := corev1.PodSpec{
		Volumes: []corev1.Volume{
			{VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: named("vol")}}},
			{VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{
				{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: named("kube-root-ca.crt")}},
				{Secret: &corev1.SecretProjection{LocalObjectReference: ref}},
			}}}},
			{VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "s"}}},
		},
		InitContainers: []corev1.Container{{EnvFrom: []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: named("init-env")}}}}},
		Containers: []corev1.Container{{Env: []corev1.EnvVar{
			{Name: "A", Value: "plain"},
			{Name: "B", ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{LocalObjectReference: named("key-ref"), Key: "k"}}},
			{Name: "C", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: ref, Key: "k"}}},
		}}},
		EphemeralContainers: []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{
			EnvFrom: []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: named("debug-env")}}}}}},
	}
	want := []string{"vol", "kube-root-ca.crt", "init-env", "key-ref", "debug-env"}
	if got := podSpecConfigMaps(&spec); !reflect.DeepEqual(got, want) {
		t.Errorf("podSpecConfigMaps() = %q, want %q", got, want)
	}
}

func TestCheckGroupCounts(t *testing.T) {
	answer := func(tables ...mcp.Table) mcp.QueryOutput {
		return mcp.QueryOutput{Contexts: []mcp.QueryAnswer{{ContextResult: mcp.ContextResult{Context: "c"}, Tables: tables}}}
	}
	table := func(rows ...[]string) mcp.Table {
		return mcp.Table{Header: []string{"NODE", "COUNT"}, Rows: rows, TotalRows: len(rows)}
	}
	want := map[string]int{"n1": 2, "n2": 1}
	tests := []struct {
		name    string
		out     mcp.QueryOutput
		want    map[string]int
		wantErr string
	}{
		{"right", answer(table([]string{"n2", "1"}, []string{"n1", "2"})), want, ""},
		{"a count off", answer(table([]string{"n1", "2"}, []string{"n2", "3"})), want, "n2: 3, want 1"},
		{"a group missing", answer(table([]string{"n1", "2"})), want, "n2: 0, want 1"},
		{"a group too many", answer(table([]string{"n1", "2"}, []string{"n2", "1"}, []string{"n3", "1"})), want, "n3: 1, want 0"},
		{"nothing matched, none wanted", answer(), map[string]int{}, ""},
		{"nothing matched", answer(), want, "n1: 0, want 2"},
		{"cut", mcp.QueryOutput{Contexts: answer(table([]string{"n1", "2"})).Contexts, Cut: &mcp.Cut{Returned: 1, Total: 2}}, want, "cut"},
		{"rows left out", answer(mcp.Table{Header: []string{"NODE", "COUNT"}, Rows: [][]string{{"n1", "2"}}, TotalRows: 2}), want, "1 of 2 rows"},
		{"context failed", mcp.QueryOutput{Contexts: []mcp.QueryAnswer{{ContextResult: mcp.ContextResult{Context: "c", Error: "forbidden"}}}}, want, "forbidden"},
		{"no context", mcp.QueryOutput{}, want, "0 contexts"},
		{"not a count", answer(mcp.Table{Header: []string{"NAME", "READY"}, Rows: [][]string{{"a", "1/1"}}, TotalRows: 1}), want, "header"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkGroupCounts(tt.out, tt.want)
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("checkGroupCounts() = %v, want an error containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestCheckNames(t *testing.T) {
	cms := func(rows ...[]string) mcp.QueryOutput {
		return mcp.QueryOutput{Contexts: []mcp.QueryAnswer{{ContextResult: mcp.ContextResult{Context: "c"}, Tables: []mcp.Table{
			{Header: []string{"NAMESPACE", "NAME", "DATA"}, Rows: rows, TotalRows: len(rows)}}}}}
	}
	want := map[string]bool{"a/x": true, "b/x": true}
	tests := []struct {
		name       string
		out        mcp.QueryOutput
		namespaced bool
		wantErr    string
	}{
		{"right", cms([]string{"b", "x", "1"}, []string{"a", "x", "1"}), true, ""},
		{"the same name in another namespace is another object", cms([]string{"a", "x", "1"}, []string{"c", "x", "1"}), true, "b/x: 0, want 1"},
		{"twice", cms([]string{"a", "x", "1"}, []string{"a", "x", "1"}, []string{"b", "x", "1"}), true, "a/x: 2, want 1"},
		{"names alone", cms([]string{"a", "x", "1"}, []string{"b", "y", "1"}), false, "z: 0, want 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := want
			if !tt.namespaced {
				w = map[string]bool{"x": true, "y": true, "z": true}
			}
			err := checkNames(tt.out, w, tt.namespaced)
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("checkNames() = %v, want an error containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestQueryOutput(t *testing.T) {
	// The client decodes structured content as a map; queryOutput reads
	// it back into the tool's type.
	structured := map[string]any{"contexts": []any{map[string]any{"context": "c",
		"tables": []any{map[string]any{"header": []any{"NODE", "COUNT"}, "rows": []any{[]any{"n1", "2"}}, "totalRows": 1}}}}}
	out, err := queryOutput(structured)
	if err != nil {
		t.Fatal(err)
	}
	if err := checkGroupCounts(out, map[string]int{"n1": 2}); err != nil {
		t.Errorf("checkGroupCounts(queryOutput(...)) = %v, want nil", err)
	}
}

func TestParseTextTable(t *testing.T) {
	text := "NAMESPACE   NAME    READY   STATUS    NODE           NOMINATED NODE   LABELS\n" +
		"seed-0      pod-0   1/1     Running   kwok-node-2    <none>           app=app-0,tier=frontend\n" +
		"seed-1      pod-1   0/1     Pending   <none>         <none>           app=app-1\n" +
		"seed-1      pod-11  1/1     Running   kwok-node-2    <none>           <none>\n"
	tbl := parseTextTable(text)
	wantHeader := []string{"NAMESPACE", "NAME", "READY", "STATUS", "NODE", "NOMINATED NODE", "LABELS"}
	if !reflect.DeepEqual(tbl.header, wantHeader) {
		t.Errorf("header = %q, want %q", tbl.header, wantHeader)
	}
	tests := []struct {
		column string
		want   map[string]int
	}{
		{"NODE", map[string]int{"kwok-node-2": 2, "<none>": 1}},
		{"NAMESPACE", map[string]int{"seed-0": 1, "seed-1": 2}},
		{"NOMINATED NODE", map[string]int{"<none>": 3}},
		{"LABELS", map[string]int{"app=app-0,tier=frontend": 1, "app=app-1": 1, "<none>": 1}},
	}
	for _, tt := range tests {
		got, err := tbl.count(tt.column)
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("count(%q) = %v, %v, want %v", tt.column, got, err, tt.want)
		}
	}
	if _, err := tbl.count("IP"); err == nil {
		t.Errorf("count(IP) = nil error, want one: the table has no such column")
	}
	if empty := parseTextTable(""); len(empty.rows) != 0 || len(empty.header) != 0 {
		t.Errorf("parseTextTable(\"\") = %+v, want an empty table", empty)
	}
}

func TestTruthChange(t *testing.T) {
	before := mcpTruth{perNode: map[string]int{"n1": 2}, notRunning: map[string]int{}, unused: map[string]bool{"a/x": true}, deploymentPods: map[string]bool{"p": true}}
	if got := truthChange(before, before); got != "" {
		t.Errorf("truthChange(same) = %q, want \"\"", got)
	}
	after := before
	after.notRunning = map[string]int{"seed-0": 1}
	if got := truthChange(before, after); !strings.Contains(got, "pods not Running: seed-0: 1, want 0") {
		t.Errorf("truthChange() = %q, want it to name the new pod not Running", got)
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -2048: "-2,048"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestMCPTargets(t *testing.T) {
	warm := func(ms ...int) []time.Duration {
		var out []time.Duration
		for _, m := range ms {
			out = append(out, time.Duration(m)*time.Millisecond)
		}
		return out
	}
	r := &mcpResult{measures: map[string]map[string]*mcpMeasure{
		"per-node": {
			"ours":   {bytes: 2484, read: 2100, warm: warm(4, 5, 3)},
			"anchor": {bytes: 3203327, warm: warm(3000)},
		},
		"not-running": {
			"ours":   {bytes: 823, read: 450, warm: warm(900, 950, 800)},
			"anchor": {bytes: 50000, warm: warm(200)},
		},
		// Compared with the anchor of not-running.
		"not-running-index": {"ours": {bytes: 400, read: 220, warm: warm(3)}},
		// Not a count question: no bytes or ratio target.
		"unused-cm": {"ours": {bytes: 19117, warm: warm(26)}, "anchor-yaml": {bytes: 23392404}},
	}}
	got := map[string]bool{}
	for _, tg := range r.targets() {
		got[tg.name] = tg.met
	}
	want := map[string]bool{
		"pods per node: our answer's bytes a model reads":                                           false, // 2,100 ≥ 2,048
		"pods per node: our warm call (median)":                                                     true,
		"pods not Running per namespace: our answer's bytes a model reads":                          true,
		"pods not Running per namespace: our warm call (median)":                                    false,
		"pods not Running per namespace, through the phase index: our answer's bytes a model reads": true,
		"pods not Running per namespace, through the phase index: our warm call (median)":           true,
		"ConfigMaps nothing uses: our warm call (median)":                                           true,
		"pods per node: the anchor's bytes over ours":                                               true,  // 1,290×
		"pods not Running per namespace: the anchor's bytes over ours":                              false, // 61×
		"pods not Running per namespace, through the phase index: the anchor's bytes over ours":     true,  // 125×
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("targets() = %v, want %v", got, want)
	}
}

func TestModelBytes(t *testing.T) {
	text := func(s string) []sdk.Content { return []sdk.Content{&sdk.TextContent{Text: s}} }
	for _, tc := range []struct {
		name string
		res  *sdk.CallToolResult
		want int
	}{
		{"no result", nil, 0},
		{"text only", &sdk.CallToolResult{Content: text("0123456789")}, 10},
		{"structured larger", &sdk.CallToolResult{Content: text("ab"), StructuredContent: map[string]any{"k": "value"}}, len(`{"k":"value"}`)},
		{"text larger", &sdk.CallToolResult{Content: text("a much longer text form"), StructuredContent: map[string]any{"k": 1}}, 23},
	} {
		if got := modelBytes(tc.res); got != tc.want {
			t.Errorf("%s: modelBytes = %d, want %d", tc.name, got, tc.want)
		}
	}
}
