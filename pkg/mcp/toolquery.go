package mcp

import (
	"context"
	"fmt"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/printing"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/query"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/targets"
	"github.com/kubectl-informer/kubectl-informer/pkg/warmcache/protocol"
)

// QueryInput is the query tool's arguments: the query command's flags.
type QueryInput struct {
	Context string `json:"context,omitempty" jsonschema:"kubeconfig context: a name, names joined by commas, a shell-style pattern such as prod-*, or all; empty is the current context"`
	Question
}

// Question is what a query asks of one context's objects, or of a
// recording's at an instant: the query command's flags but --context.
type Question struct {
	Types         string   `json:"types" jsonschema:"TYPE[,TYPE...] as kubectl get takes them: pods, deployments.apps, nodes, cm"`
	Namespace     string   `json:"namespace,omitempty" jsonschema:"namespace (several joined by commas); empty is the context's default namespace unless allNamespaces"`
	AllNamespaces bool     `json:"allNamespaces,omitempty" jsonschema:"ask every namespace"`
	LabelSelector string   `json:"labelSelector,omitempty" jsonschema:"label selector, as kubectl -l takes it"`
	Index         []string `json:"index,omitempty" jsonschema:"index selectors NAME=VALUE, ANDed, answered from the cache's indexes: node=worker-1, label:app=web, owner-root=Deployment/web, phase=Pending; see the indexers tool"`
	Filter        string   `json:"filter,omitempty" jsonschema:"CEL expression over object that must be true, e.g. object.status.phase != 'Running'"`
	GroupBy       []string `json:"groupBy,omitempty" jsonschema:"index names to group by (node, namespace, phase, label:app, ...): the answer is a count per group instead of objects"`
	Sums          []string `json:"sums,omitempty" jsonschema:"measures to sum per group: requests.cpu, limits.memory, requests.nvidia.com/* (a column per resource), usage.cpu and usage.memory (the metrics API's latest sample, pods and nodes), usage.cpu/requests.cpu (usage, requests and the share: 150m/700m (21%)), restarts, containers, or NAME=JSONPATH over quantities"`
	Top           int      `json:"top,omitempty" jsonschema:"with groupBy or sums, only the first N groups (after sortBy)"`
	SortBy        string   `json:"sortBy,omitempty" jsonschema:"a JSONPath (objects, e.g. .metadata.creationTimestamp) or a column name (groups, e.g. count)"`
	Columns       string   `json:"columns,omitempty" jsonschema:"the columns wanted, as kubectl custom-columns takes them: NAME:.metadata.name,NODE:.spec.nodeName; empty is kubectl's default table"`
	Wide          bool     `json:"wide,omitempty" jsonschema:"kubectl's wide table instead of the default one"`
	Limit         int      `json:"limit,omitempty" jsonschema:"at most this many rows per table; 0 for all that fit the budget"`

	// indexers are the query's --indexer definitions, for the tools that
	// ask through the query tool's code; a model does not set them.
	indexers []string
}

// QueryOutput is the query tool's answer: one entry per context.
type QueryOutput = ContextAnswers[QueryAnswer]

// QueryAnswer is one context's answer, or why it has none.
type QueryAnswer struct {
	ContextResult
	// NamespaceScope says which namespaces were asked.
	NamespaceScope string `json:"namespaceScope,omitempty"`
	// AnsweredBy says whose informers answered: this server's, or a warm
	// cache process (cache start) of the context's identity.
	AnsweredBy string `json:"answeredBy,omitempty"`
	// Tables are the answer's tables: one per type, or the groups' table.
	// No table means nothing matched.
	Tables   []Table  `json:"tables,omitempty"`
	Warnings []string `json:"warnings,omitempty"`
}

// Table is one table of an answer.
type Table struct {
	Header []string   `json:"header"`
	Rows   [][]string `json:"rows"`
	// Total is the totals row of a table of groups with sums.
	Total []string `json:"total,omitempty"`
	// TotalRows is how many rows the table has before limit, top and the
	// budget.
	TotalRows int `json:"totalRows"`
}

// query answers the query tool.
func (s *Server) query(ctx context.Context, _ *sdk.CallToolRequest, in QueryInput) (*sdk.CallToolResult, QueryOutput, error) {
	if err := in.check(); err != nil {
		return nil, QueryOutput{}, err
	}
	return answerContexts(ctx, s, in.Context, "rows", func(ctx context.Context, t targets.Target) QueryAnswer {
		return s.queryContext(ctx, t, in)
	}, queryText)
}

// check checks q's arguments without I/O.
func (q Question) check() error {
	if strings.TrimSpace(q.Types) == "" {
		return fmt.Errorf("types is required: TYPE[,TYPE...], e.g. pods or deployments.apps; see the types tool")
	}
	if q.Columns != "" && q.Wide {
		return fmt.Errorf("columns and wide exclude each other")
	}
	return nil
}

func (a QueryAnswer) size() (longest, count int) {
	for _, t := range a.Tables {
		longest, count = max(longest, len(t.Rows)), count+len(t.Rows)
	}
	return longest, count
}

func (a QueryAnswer) take(k int) QueryAnswer {
	tables := a.Tables
	a.Tables = make([]Table, len(tables))
	for j, t := range tables {
		t.Rows = t.Rows[:min(k, len(t.Rows))]
		a.Tables[j] = t
	}
	return a
}

// queryContext answers in for one context (collect), its namespace scope
// made explicit.
func (s *Server) queryContext(ctx context.Context, t targets.Target, in QueryInput) QueryAnswer {
	a := QueryAnswer{}
	fail := func(err error) QueryAnswer {
		a.Error = err.Error()
		return a
	}
	namespace, scope, err := namespaceScope(t, in.Namespace, in.AllNamespaces)
	if err != nil {
		return fail(err)
	}
	env, err := s.warmEnv(t)
	if err != nil {
		return fail(err)
	}
	return answerQuestion(ctx, a, namespace, scope, in.Question, func(ctx context.Context, q protocol.Query) (protocol.Answer, string, string, error) {
		return s.collect(ctx, t, env, q)
	}, s.opts.SyncTimeout)
}

// answerQuestion fills a with the answer to in, asked of namespace ("" for
// all), whose scope says which namespaces that is, through collect.
func answerQuestion(ctx context.Context, a QueryAnswer, namespace, scope string, in Question, collect func(context.Context, protocol.Query) (answer protocol.Answer, stderr, by string, err error), syncTimeout time.Duration) QueryAnswer {
	fail := func(err error) QueryAnswer {
		a.Error = err.Error()
		return a
	}
	a.NamespaceScope = scope + "; cluster-scoped types are whole"
	grouped := len(in.GroupBy) > 0 || len(in.Sums) > 0
	q := protocol.Query{
		Types: in.Types, Namespace: namespace, AllNamespaces: in.AllNamespaces, LabelSelector: in.LabelSelector,
		Indexers: in.indexers, QueryFlags: protocol.QueryFlags{Index: in.Index, GroupBy: in.GroupBy, Sums: in.Sums, Filter: in.Filter},
		SyncTimeout: protocol.Duration(syncTimeout),
	}
	switch {
	case in.Columns != "":
		q.Output = "custom-columns=" + in.Columns
	case in.Wide:
		q.Output = "wide"
	}
	if !grouped {
		q.SortBy = in.SortBy
	}
	answer, stderr, by, err := collect(ctx, q)
	if err != nil {
		return fail(err)
	}
	a.AnsweredBy = by
	a.Warnings = append(answer.Warnings, nonEmptyLines(stderr)...)
	if answer.Table != nil {
		t, err := groupTable(answer, in)
		if err != nil {
			return fail(err)
		}
		if len(t.Rows) > 0 || t.Total != nil {
			a.Tables = []Table{t}
		}
	} else {
		tables, err := query.Tables(q, &answer)
		if err != nil {
			return fail(err)
		}
		for _, t := range tables {
			a.Tables = append(a.Tables, Table{Header: t.Header, Rows: t.Rows, TotalRows: len(t.Rows)})
		}
	}
	if in.Limit > 0 {
		for i := range a.Tables {
			a.Tables[i].Rows = a.Tables[i].Rows[:min(in.Limit, len(a.Tables[i].Rows))]
		}
	}
	return a
}

// groupTable returns the answer's table of groups sorted by in.SortBy
// (key columns ascending, counts and sums largest first) and cut to
// in.Top, as the query command prints it.
func groupTable(answer protocol.Answer, in Question) (Table, error) {
	t := *answer.Table
	total := len(t.Rows)
	if in.SortBy != "" {
		col, _ := t.Column(in.SortBy)
		keyWidth := len(t.Columns) - 1 - len(in.Sums)
		if err := t.SortBy(in.SortBy, col >= keyWidth); err != nil {
			return Table{}, fmt.Errorf("sortBy: %w", err)
		}
	}
	t.Top(in.Top)
	header, rows := t.Strings()
	out := Table{Header: header, TotalRows: total}
	if t.Total != nil {
		out.Total, rows = rows[len(rows)-1], rows[:len(rows)-1]
	}
	out.Rows = rows
	return out, nil
}

// queryText is the compact text form of out: per context, its scope and
// tables as kubectl prints them.
func queryText(out QueryOutput) string {
	var b strings.Builder
	for _, a := range out.Contexts {
		if a.Error != "" {
			fmt.Fprintf(&b, "context %s: error: %s\n", a.Context, a.Error)
			continue
		}
		fmt.Fprintf(&b, "context %s, %s:\n", a.Context, a.NamespaceScope)
		if len(a.Tables) == 0 {
			b.WriteString("no objects matched\n")
		}
		for _, t := range a.Tables {
			rows := t.Rows
			if t.Total != nil {
				rows = append(rows[:len(rows):len(rows)], t.Total)
			}
			_ = printing.WriteTable(&b, t.Header, rows, false)
			if len(t.Rows) < t.TotalRows {
				fmt.Fprintf(&b, "(%d of %d rows)\n", len(t.Rows), t.TotalRows)
			}
		}
		for _, w := range a.Warnings {
			fmt.Fprintf(&b, "warning: %s\n", w)
		}
	}
	if out.Cut != nil {
		fmt.Fprintf(&b, "CUT: %s; to narrow: %s\n", out.Cut.Reason, out.Cut.Narrow)
	}
	return b.String()
}

// nonEmptyLines splits s into its non-empty lines.
func nonEmptyLines(s string) []string {
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	return lines
}
