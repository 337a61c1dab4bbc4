package mcp

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// TestUsageWithoutMetricsAPI asks the query tool for usage measures and
// the capacity tool for usage on a control plane without the metrics API:
// both answer, with kubectl top's message among their warnings, the usage
// columns there and blank, and every other column as without usage.
func TestUsageWithoutMetricsAPI(t *testing.T) {
	c := capacityCluster(t)
	cs := mcpServer(t, c.AdminKubeconfig())

	res, structured := call(t, cs, "query", map[string]any{"types": "pods", "allNamespaces": true, "labelSelector": seedLabel,
		"groupBy": []string{"namespace"}, "sums": []string{"requests.cpu", "usage.cpu", "usage.cpu/requests.cpu"}})
	if res.IsError {
		t.Fatalf("query with usage is an error: %s", textOf(res))
	}
	var q struct {
		Contexts []struct {
			Warnings []string `json:"warnings"`
			Tables   []struct {
				Header []string   `json:"header"`
				Rows   [][]string `json:"rows"`
			} `json:"tables"`
		} `json:"contexts"`
	}
	if err := json.Unmarshal([]byte(structured), &q); err != nil || len(q.Contexts) != 1 || len(q.Contexts[0].Tables) != 1 {
		t.Fatalf("query = %s (%v), want one context with one table", structured, err)
	}
	a := q.Contexts[0]
	if !slices.ContainsFunc(a.Warnings, func(w string) bool { return strings.Contains(w, "Metrics API not available") }) {
		t.Errorf("query warnings = %q, want kubectl top's message", a.Warnings)
	}
	table := a.Tables[0]
	requests, used, share := column(t, table.Header, "REQUESTS.CPU"), column(t, table.Header, "USAGE.CPU"), column(t, table.Header, "USAGE.CPU/REQUESTS.CPU")
	for _, row := range table.Rows {
		if row[requests] == "" || row[used] != "" || row[share] != "" {
			t.Errorf("row %q: want requests.cpu, and blank usage cells", row)
		}
	}

	res, structured = call(t, cs, "capacity", map[string]any{"usage": true})
	if res.IsError {
		t.Fatalf("capacity with usage is an error: %s", textOf(res))
	}
	var capacity struct {
		Contexts []struct {
			Columns  []string `json:"columns"`
			Warnings []string `json:"warnings"`
		} `json:"contexts"`
	}
	if err := json.Unmarshal([]byte(structured), &capacity); err != nil || len(capacity.Contexts) != 1 {
		t.Fatalf("capacity = %s (%v), want one context", structured, err)
	}
	ca := capacity.Contexts[0]
	for _, col := range []string{"requests.cpu", "usage.cpu", "pods.usage.memory"} {
		if !slices.Contains(ca.Columns, col) {
			t.Errorf("capacity columns = %q, want %s among them", ca.Columns, col)
		}
	}
	if !slices.ContainsFunc(ca.Warnings, func(w string) bool { return strings.Contains(w, "Metrics API not available") }) {
		t.Errorf("capacity warnings = %q, want kubectl top's message", ca.Warnings)
	}
}
