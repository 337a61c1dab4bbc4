package mcp

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/targets"
)

// eventsAboutIndex is the index the events tool asks for: an Event's
// involvedObject as KIND/NAME. It is a custom index of the query command
// (--indexer), which a warm pool registers once and shares.
const eventsAboutIndex = "involved-object=object.involvedObject.kind + '/' + object.involvedObject.name"

// eventColumns are the columns the events tool reads of each Event.
const eventColumns = "LAST:.lastTimestamp,TYPE:.type,REASON:.reason,COUNT:.count,SOURCE:.source.component,MESSAGE:.message"

// EventsInput is the events tool's arguments.
type EventsInput struct {
	Context   string `json:"context,omitempty" jsonschema:"kubeconfig context: a name, names joined by commas, a shell-style pattern such as prod-*, or all; empty is the current context"`
	Object    string `json:"object" jsonschema:"the object the Events are about, as TYPE/NAME: pod/web-5d9c7-x2x4z, deployment/web, node/worker-1"`
	Namespace string `json:"namespace,omitempty" jsonschema:"the object's namespace; empty is the context's default namespace (ignored for cluster-scoped objects, whose Events are looked for in every namespace)"`
	Type      string `json:"type,omitempty" jsonschema:"only Events of this type: Normal or Warning"`
	Limit     int    `json:"limit,omitempty" jsonschema:"at most this many Events, the newest; 0 for all that fit the budget"`
}

// EventsOutput is the events tool's answer: one entry per context.
type EventsOutput = ContextAnswers[EventsAnswer]

// EventsAnswer is one context's Events about the object, newest first, or
// why it has none.
type EventsAnswer struct {
	ContextResult
	// Object is the object as KIND/NAME.
	Object string `json:"object,omitempty"`
	// NamespaceScope says where the Events were looked for.
	NamespaceScope string `json:"namespaceScope,omitempty"`
	// AnsweredBy says whose informers answered.
	AnsweredBy string  `json:"answeredBy,omitempty"`
	Events     []Event `json:"events,omitempty"`
	// TotalEvents is how many Events there are before limit and the
	// budget.
	TotalEvents int      `json:"totalEvents"`
	Warnings    []string `json:"warnings,omitempty"`
}

// Event is one Event about the object, as kubectl get events shows it.
type Event struct {
	LastSeen string `json:"lastSeen,omitempty"`
	Type     string `json:"type,omitempty"`
	Reason   string `json:"reason,omitempty"`
	Count    int    `json:"count,omitempty"`
	Source   string `json:"source,omitempty"`
	Message  string `json:"message,omitempty"`
}

// events answers the events tool with the query command's code: the
// Events of the object's namespace selected by the involved-object index,
// sorted by lastTimestamp, newest first.
func (s *Server) events(ctx context.Context, _ *sdk.CallToolRequest, in EventsInput) (*sdk.CallToolResult, EventsOutput, error) {
	typ, name, ok := strings.Cut(in.Object, "/")
	if !ok || typ == "" || name == "" || strings.Contains(name, "/") {
		return nil, EventsOutput{}, fmt.Errorf("object must be TYPE/NAME, e.g. pod/web-5d9c7-x2x4z, got %q", in.Object)
	}
	switch in.Type {
	case "", "Normal", "Warning":
	default:
		return nil, EventsOutput{}, fmt.Errorf("type must be Normal or Warning, got %q", in.Type)
	}
	return answerContexts(ctx, s, in.Context, "events", func(ctx context.Context, t targets.Target) EventsAnswer {
		return s.eventsContext(ctx, t, in, typ, name)
	}, eventsText)
}

func (a EventsAnswer) size() (longest, count int) { return len(a.Events), len(a.Events) }

func (a EventsAnswer) take(k int) EventsAnswer {
	a.Events = a.Events[:min(k, len(a.Events))]
	return a
}

// eventsContext answers in for one context: it resolves typ to its kind
// through the context's discovery and asks the query tool's code.
func (s *Server) eventsContext(ctx context.Context, t targets.Target, in EventsInput, typ, name string) EventsAnswer {
	a := EventsAnswer{}
	env, err := s.warmEnv(t)
	if err != nil {
		a.Error = err.Error()
		return a
	}
	mappings, err := engine.Resolve(env.Source.RESTMapper(), []string{typ})
	if err != nil {
		a.Error = err.Error()
		return a
	}
	kind := mappings[0].GroupVersionKind.Kind
	a.Object = kind + "/" + name
	q := QueryInput{Question: Question{Types: "events", Namespace: in.Namespace, Index: []string{"involved-object=" + a.Object},
		Columns: eventColumns, SortBy: ".lastTimestamp", indexers: []string{eventsAboutIndex}}}
	if mappings[0].Scope.Name() == meta.RESTScopeNameRoot {
		q.Namespace, q.AllNamespaces = "", true
	}
	if in.Type != "" {
		q.Filter = fmt.Sprintf("object.type == %q", in.Type)
	}
	qa := s.queryContext(ctx, t, q)
	a.NamespaceScope, a.AnsweredBy, a.Warnings = qa.NamespaceScope, qa.AnsweredBy, qa.Warnings
	if qa.Error != "" {
		a.Error = qa.Error
		return a
	}
	for _, table := range qa.Tables {
		for _, row := range table.Rows {
			a.Events = append(a.Events, eventOf(table.Header, row))
		}
	}
	// Sorted oldest first, as kubectl --sort-by sorts: newest first here.
	slices.Reverse(a.Events)
	a.TotalEvents = len(a.Events)
	if in.Limit > 0 {
		a.Events = a.Events[:min(in.Limit, len(a.Events))]
	}
	return a
}

// eventOf reads one row of eventColumns.
func eventOf(header, row []string) Event {
	cell := func(name string) string {
		i := slices.Index(header, name)
		if i < 0 || i >= len(row) || row[i] == "<none>" {
			return ""
		}
		return row[i]
	}
	count, _ := strconv.Atoi(cell("COUNT"))
	return Event{LastSeen: cell("LAST"), Type: cell("TYPE"), Reason: cell("REASON"), Count: count, Source: cell("SOURCE"), Message: cell("MESSAGE")}
}

// eventsText is the compact text form of out.
func eventsText(out EventsOutput) string {
	var b strings.Builder
	for _, a := range out.Contexts {
		if a.Error != "" {
			fmt.Fprintf(&b, "context %s: error: %s\n", a.Context, a.Error)
			continue
		}
		fmt.Fprintf(&b, "context %s, Events about %s, %s, newest first:\n", a.Context, a.Object, a.NamespaceScope)
		if a.TotalEvents == 0 {
			b.WriteString("no Events (the API server keeps them for an hour by default)\n")
		}
		for _, e := range a.Events {
			fmt.Fprintf(&b, "%s %s %s (x%d, %s): %s\n", e.LastSeen, e.Type, e.Reason, max(e.Count, 1), e.Source, e.Message)
		}
		if len(a.Events) < a.TotalEvents {
			fmt.Fprintf(&b, "(%d of %d events)\n", len(a.Events), a.TotalEvents)
		}
		for _, w := range a.Warnings {
			fmt.Fprintf(&b, "warning: %s\n", w)
		}
	}
	if out.Cut != nil {
		fmt.Fprintf(&b, "CUT: %s; to narrow: type Warning, or a limit\n", out.Cut.Reason)
	}
	return b.String()
}
