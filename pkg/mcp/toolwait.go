package mcp

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/targets"
)

// Wait's bounds: how often it asks again, and how long it may wait.
const (
	waitPoll           = time.Second
	defaultWaitTimeout = 60 * time.Second
	maxWaitTimeout     = 10 * time.Minute
)

// waitColumns name each object a wait reads.
const waitColumns = "NAMESPACE:.metadata.namespace,NAME:.metadata.name"

// WaitInput is the wait tool's arguments: a query's selection and the
// condition its objects must meet.
type WaitInput struct {
	Context       string   `json:"context,omitempty" jsonschema:"kubeconfig context: a name, names joined by commas, a shell-style pattern such as prod-*, or all; empty is the current context"`
	Types         string   `json:"types" jsonschema:"TYPE[,TYPE...] of the objects waited for, as kubectl get takes them: deployments.apps, pods"`
	Namespace     string   `json:"namespace,omitempty" jsonschema:"namespace; empty is the context's default namespace unless allNamespaces"`
	AllNamespaces bool     `json:"allNamespaces,omitempty" jsonschema:"wait for objects of every namespace"`
	LabelSelector string   `json:"labelSelector,omitempty" jsonschema:"label selector of the objects waited for"`
	Index         []string `json:"index,omitempty" jsonschema:"index selectors NAME=VALUE of the objects waited for, as the query tool takes them: owner-root=Deployment/web"`
	Filter        string   `json:"filter,omitempty" jsonschema:"CEL expression that picks the objects waited for, e.g. object.metadata.name == 'web'"`
	Condition     string   `json:"condition" jsonschema:"CEL expression over object that every selected object must meet, e.g. object.status.updatedReplicas == object.spec.replicas && object.status.availableReplicas == object.spec.replicas"`
	// TimeoutSeconds bounds the wait.
	TimeoutSeconds int `json:"timeoutSeconds,omitempty" jsonschema:"how long to wait, in seconds: default 60, at most 600"`
}

// WaitOutput is the wait tool's answer: one entry per context.
type WaitOutput = ContextAnswers[WaitAnswer]

// WaitAnswer is how one context's wait ended, or why it could not wait.
type WaitAnswer struct {
	ContextResult
	// NamespaceScope says which namespaces were asked.
	NamespaceScope string `json:"namespaceScope,omitempty"`
	// Met is true when at least one object was selected and every
	// selected object met the condition.
	Met bool `json:"met"`
	// TimedOut is true when the timeout passed first.
	TimedOut bool `json:"timedOut,omitempty"`
	// WaitedSeconds is how long the wait took.
	WaitedSeconds float64 `json:"waitedSeconds"`
	// Objects is how many objects were selected at the last look.
	Objects int `json:"objects"`
	// Pending are the selected objects (namespace/name) that did not meet
	// the condition at the last look; TotalPending counts them before the
	// budget.
	Pending      []string `json:"pending,omitempty"`
	TotalPending int      `json:"totalPending"`
	Warnings     []string `json:"warnings,omitempty"`
}

// wait answers the wait tool: per context, in parallel, it asks the query
// tool's code every second for the selected objects and for those of
// them that meet the condition, until every one does (and there is at
// least one) or the timeout passes.
func (s *Server) wait(ctx context.Context, _ *sdk.CallToolRequest, in WaitInput) (*sdk.CallToolResult, WaitOutput, error) {
	if strings.TrimSpace(in.Types) == "" {
		return nil, WaitOutput{}, fmt.Errorf("types is required: TYPE[,TYPE...], e.g. deployments.apps")
	}
	if strings.TrimSpace(in.Condition) == "" {
		return nil, WaitOutput{}, fmt.Errorf("condition is required: a CEL expression over object, e.g. object.status.readyReplicas == object.spec.replicas")
	}
	timeout := defaultWaitTimeout
	switch {
	case in.TimeoutSeconds < 0 || time.Duration(in.TimeoutSeconds)*time.Second > maxWaitTimeout:
		return nil, WaitOutput{}, fmt.Errorf("timeoutSeconds must be between 1 and %d, got %d", int(maxWaitTimeout.Seconds()), in.TimeoutSeconds)
	case in.TimeoutSeconds > 0:
		timeout = time.Duration(in.TimeoutSeconds) * time.Second
	}
	return answerContexts(ctx, s, in.Context, "pending objects", func(ctx context.Context, t targets.Target) WaitAnswer {
		return s.waitContext(ctx, t, in, timeout)
	}, waitText)
}

func (a WaitAnswer) size() (longest, count int) { return len(a.Pending), len(a.Pending) }

func (a WaitAnswer) take(k int) WaitAnswer {
	a.Pending = a.Pending[:min(k, len(a.Pending))]
	return a
}

// waitContext waits in one context until in's objects meet its
// condition, timeout passes or ctx ends.
func (s *Server) waitContext(ctx context.Context, t targets.Target, in WaitInput, timeout time.Duration) WaitAnswer {
	began := time.Now()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	selected := QueryInput{Question: Question{Types: in.Types, Namespace: in.Namespace, AllNamespaces: in.AllNamespaces, LabelSelector: in.LabelSelector,
		Index: in.Index, Filter: in.Filter, Columns: waitColumns}}
	// An object meets the condition when it evaluates to true: one whose
	// evaluation fails (a field not set yet) is pending.
	meeting := selected
	meeting.Filter = "(" + in.Condition + ")"
	if in.Filter != "" {
		meeting.Filter = "(" + in.Filter + ") && " + meeting.Filter
	}
	for {
		a := WaitAnswer{WaitedSeconds: time.Since(began).Round(time.Millisecond).Seconds()}
		all := s.queryContext(ctx, t, selected)
		met := s.queryContext(ctx, t, meeting)
		a.NamespaceScope, a.Warnings = all.NamespaceScope, all.Warnings
		switch {
		case all.Error != "":
			a.Error = all.Error
			return a
		case met.Error != "":
			a.Error = "condition: " + met.Error
			return a
		}
		names, meetingNames := objectNames(all), objectNames(met)
		a.Objects = len(names)
		for _, name := range names {
			if _, ok := slices.BinarySearch(meetingNames, name); !ok {
				a.Pending = append(a.Pending, name)
			}
		}
		a.TotalPending = len(a.Pending)
		if a.Met = a.Objects > 0 && a.TotalPending == 0; a.Met {
			return a
		}
		select {
		case <-ctx.Done():
			a.Error = fmt.Sprintf("the wait was cancelled: %v", ctx.Err())
			return a
		case <-deadline.C:
			a.TimedOut = true
			a.WaitedSeconds = time.Since(began).Round(time.Millisecond).Seconds()
			return a
		case <-time.After(waitPoll):
		}
	}
}

// objectNames returns the namespace/name (or name) of each row of a's
// waitColumns tables, sorted.
func objectNames(a QueryAnswer) []string {
	var names []string
	for _, t := range a.Tables {
		for _, row := range t.Rows {
			if len(row) < 2 {
				continue
			}
			name := row[1]
			if ns := row[0]; ns != "" && ns != "<none>" {
				name = ns + "/" + name
			}
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// waitText is the compact text form of out.
func waitText(out WaitOutput) string {
	var b strings.Builder
	for _, a := range out.Contexts {
		switch {
		case a.Error != "":
			fmt.Fprintf(&b, "context %s: error: %s\n", a.Context, a.Error)
		case a.Met:
			fmt.Fprintf(&b, "context %s, %s: condition met by all %d objects after %.1fs\n", a.Context, a.NamespaceScope, a.Objects, a.WaitedSeconds)
		case a.Objects == 0:
			fmt.Fprintf(&b, "context %s, %s: timed out after %.1fs: no object is selected\n", a.Context, a.NamespaceScope, a.WaitedSeconds)
		default:
			fmt.Fprintf(&b, "context %s, %s: timed out after %.1fs: %d of %d objects do not meet the condition yet: %s\n",
				a.Context, a.NamespaceScope, a.WaitedSeconds, a.TotalPending, a.Objects, strings.Join(a.Pending, " "))
		}
		for _, w := range a.Warnings {
			fmt.Fprintf(&b, "warning: %s\n", w)
		}
	}
	if out.Cut != nil {
		fmt.Fprintf(&b, "CUT: %s\n", out.Cut.Reason)
	}
	return b.String()
}
