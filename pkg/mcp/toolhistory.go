package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/kubectl-informer/kubectl-informer/pkg/diff"
	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/fieldmanagers"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/history"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/watch"
)

// HistoryInput is the history tool's arguments: the history command's.
type HistoryInput struct {
	Recording string   `json:"recording,omitempty" jsonschema:"the recording to read, by its file name; empty when the server has one"`
	Object    string   `json:"object" jsonschema:"the object as TYPE/NAME: deployment/web, pod/web-5d9c7-x2x4z, configmap/app-config"`
	Namespace string   `json:"namespace,omitempty" jsonschema:"the object's namespace; empty is default (ignored for a cluster-scoped type)"`
	Only      []string `json:"only,omitempty" jsonschema:"report only changes at or under these paths, e.g. [\"spec\"] or [\"spec.template.spec.containers\"]"`
	Ignore    []string `json:"ignore,omitempty" jsonschema:"leave changes at or under these paths out, e.g. [\"status\"]"`
}

// HistoryOutput is the history tool's answer.
type HistoryOutput struct {
	Recording string `json:"recording"`
	Object    string `json:"object"`
	Namespace string `json:"namespace,omitempty"`
	// Events are the object's recorded changes, oldest first.
	Events []HistoryEvent `json:"events"`
	// TotalEvents is how many events there are before the budget.
	TotalEvents int `json:"totalEvents"`
	// CutOff says the recording was cut off after its last complete
	// event: the history ends there.
	CutOff bool `json:"cutOff,omitempty"`
	// Cut is set when events were left out to fit the budget.
	Cut *Cut `json:"cut,omitempty"`
}

// HistoryEvent is one recorded change of the object.
type HistoryEvent struct {
	// Time is when the change was recorded (RFC 3339, UTC).
	Time string `json:"time"`
	// Type is ADDED, MODIFIED or DELETED.
	Type            string `json:"type"`
	ResourceVersion string `json:"resourceVersion,omitempty"`
	// Managers are the field managers who own what an update changed;
	// Cause labels a change no manager owns but whose cause is certain.
	Managers []string `json:"managers,omitempty"`
	Cause    string   `json:"cause,omitempty"`
	// Changes are what an update changed.
	Changes []HistoryChange `json:"changes,omitempty"`
}

// HistoryChange is one changed path of an update.
type HistoryChange struct {
	// Op is added, removed or modified.
	Op   string `json:"op"`
	Path string `json:"path"`
	Old  any    `json:"old,omitempty"`
	New  any    `json:"new,omitempty"`
	// Redacted says the values are hidden (a Secret's data).
	Redacted bool `json:"redacted,omitempty"`
}

// history answers the history tool: every recorded change of one object,
// read with the history command's code; a Secret's values are emptied
// before they are compared, so only the names of its keys can change.
func (s *Server) history(ctx context.Context, _ *sdk.CallToolRequest, in HistoryInput) (*sdk.CallToolResult, HistoryOutput, error) {
	path, err := s.recordingOf(in.Recording)
	if err != nil {
		return nil, HistoryOutput{}, err
	}
	typ, name, ok := strings.Cut(in.Object, "/")
	if !ok || typ == "" || name == "" || strings.Contains(name, "/") {
		return nil, HistoryOutput{}, fmt.Errorf("object must be one object as TYPE/NAME (deployment/web), got %q", in.Object)
	}
	opts, err := watch.ParseDiffPaths(in.Ignore, in.Only)
	if err != nil {
		return nil, HistoryOutput{}, fmt.Errorf("%s", strings.NewReplacer("--ignore", "ignore", "--only", "only").Replace(err.Error()))
	}
	namespace := in.Namespace
	if namespace == "" {
		namespace = "default"
	}
	var events []HistoryEvent
	answer := HistoryOutput{Recording: filepath.Base(path), Object: in.Object}
	cutOff, err := history.Each(ctx, path, typ, namespace, name, func(ev *engine.Event, at time.Time) error {
		if m, err := meta.Accessor(ev.Object()); err == nil {
			answer.Namespace = m.GetNamespace()
		}
		e, show, err := historyEvent(ev, at, opts)
		if show {
			events = append(events, e)
		}
		return err
	})
	if err != nil {
		return nil, HistoryOutput{}, err
	}
	answer.Events, answer.TotalEvents, answer.CutOff = events, len(events), cutOff
	out, text := fitAnswers(s.opts.MaxResultTokens, []HistoryOutput{answer}, "events",
		func(cut []HistoryOutput, c *Cut) (HistoryOutput, string) {
			out := cut[0]
			if c != nil {
				c.Narrow = "report fewer paths (only, e.g. [\"spec\"]) or leave some out (ignore, e.g. [\"status\"])"
			}
			out.Cut = c
			return out, historyText(out)
		})
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}}, out, nil
}

func (a HistoryOutput) size() (longest, count int) { return len(a.Events), len(a.Events) }

func (a HistoryOutput) take(k int) HistoryOutput {
	a.Events = a.Events[:min(k, len(a.Events))]
	return a
}

// historyEvent is ev, recorded at at, as data; show is false for an update
// that changed nothing opts let through.
func historyEvent(ev *engine.Event, at time.Time, opts diff.Options) (e HistoryEvent, show bool, err error) {
	e = HistoryEvent{Time: at.UTC().Format(time.RFC3339Nano), Type: string(ev.Type)}
	if m, err := meta.Accessor(ev.Object()); err == nil {
		e.ResourceVersion = m.GetResourceVersion()
	}
	if ev.Type != engine.Modified {
		return e, true, nil
	}
	if ev.Resource.Mapping.Resource.GroupResource() == secretResource {
		emptySecretValues(ev.Old)
		emptySecretValues(ev.New)
	}
	u, err := diff.NewUpdate(ev.Old, ev.New, opts, false)
	if err != nil {
		return e, false, err
	}
	changes := u.Changes()
	if len(changes) == 0 {
		return e, false, nil
	}
	for _, c := range changes {
		e.Changes = append(e.Changes, HistoryChange{Op: c.Op.String(), Path: c.Path, Old: c.Old, New: c.New, Redacted: c.Redacted})
	}
	o, err1 := meta.Accessor(ev.Old)
	n, err2 := meta.Accessor(ev.New)
	if err1 == nil && err2 == nil {
		old, new := u.Projected()
		e.Managers = fieldmanagers.Authors(old, new, fieldmanagers.Entries(o.GetManagedFields()), fieldmanagers.Entries(n.GetManagedFields()))
		gr := ev.Resource.Mapping.Resource.GroupResource()
		e.Cause = fieldmanagers.Cause(old, new, gr.Group == "" && gr.Resource == "pods")
	}
	return e, true, nil
}

// historyText is the compact text form of out: a line per event and one
// per change, as the history command prints them.
func historyText(out HistoryOutput) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s in %s:\n", out.Object, out.Recording)
	for _, e := range out.Events {
		fmt.Fprintf(&b, "%s %-8s", e.Time, e.Type)
		var notes []string
		if len(e.Managers) > 0 {
			notes = append(notes, "by "+strings.Join(e.Managers, ", "))
		}
		if e.Cause != "" {
			notes = append(notes, e.Cause)
		}
		if len(notes) > 0 {
			fmt.Fprintf(&b, " (%s)", strings.Join(notes, "; "))
		}
		b.WriteString("\n")
		for _, c := range e.Changes {
			switch {
			case c.Redacted:
				fmt.Fprintf(&b, "    %s %s: (hidden)\n", c.Op, c.Path)
			case c.Op == "added":
				fmt.Fprintf(&b, "    + %s: %s\n", c.Path, compactJSON(c.New))
			case c.Op == "removed":
				fmt.Fprintf(&b, "    - %s: %s\n", c.Path, compactJSON(c.Old))
			default:
				fmt.Fprintf(&b, "    ~ %s: %s → %s\n", c.Path, compactJSON(c.Old), compactJSON(c.New))
			}
		}
	}
	if len(out.Events) < out.TotalEvents {
		fmt.Fprintf(&b, "(%d of %d events)\n", len(out.Events), out.TotalEvents)
	}
	if out.CutOff {
		fmt.Fprintf(&b, "warning: %s was cut off after its last complete event; the history ends there\n", out.Recording)
	}
	if out.Cut != nil {
		fmt.Fprintf(&b, "CUT: %s; to narrow: %s\n", out.Cut.Reason, out.Cut.Narrow)
	}
	return b.String()
}

// compactJSON is v as one line of JSON.
func compactJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
