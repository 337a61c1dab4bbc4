package watch

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/kubectl-informer/kubectl-informer/pkg/diff"
	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/printing"
	"github.com/kubectl-informer/kubectl-informer/pkg/terminal"
)

// This file holds the watch's formats: text with a compact or unified diff,
// JSON or YAML events with a JSON Patch, and names.

// rendered is one event ready to print.
type rendered struct {
	ev   *engine.Event
	Typ  engine.EventType
	note string
	// update is ev's update (ev.Old to ev.New) when ev is one of an object
	// in the watch: printed as an update (typ Modified), with its diff, or
	// entering or leaving a --where query, with who made it. Nil otherwise.
	update *diff.Update
	// managers own what an update changed, cause labels what no one owns
	// (see attribute).
	managers []string
	cause    string
}

// Handle prints ev if it is to be printed, and reports whether it was. An
// update is seen through the diff options once, as one diff.Update, which
// the check, the attribution and the writer read.
func (p *EventPrinter) Handle(ev *engine.Event) (bool, error) {
	r, ok := p.Classify(ev)
	if !ok {
		return false, nil
	}
	if ev.Type == engine.Modified && ev.Related == nil {
		whole := r.Typ == engine.Modified && p.Cfg.Format == formatText && p.Cfg.Diff == diffUnified
		u, err := diff.NewUpdate(ev.Old, ev.New, p.updateOptions(ev.Resource), whole)
		if err != nil {
			return false, err
		}
		if r.Typ == engine.Modified && !p.shows(u) {
			return false, nil
		}
		r.update = u
		r.managers, r.cause = p.attribute(ev, u)
	}
	switch p.Cfg.Format {
	case formatJSON, formatYAML:
		return true, p.writeEvent(r)
	case formatName:
		context := ""
		if p.Cfg.Context != "" {
			context = p.Cfg.Context + "/"
		}
		_, err := fmt.Fprintf(p.Out, "%s%s %s/%s\n", context, r.Typ, printing.KindName(ev.Resource), terminal.SanitizeText(printing.ObjectName(ev.Object())))
		return true, err
	}
	return true, p.writeText(r)
}

// shows reports whether the update u is printed: when it changes what the
// diff options let through. -o json and yaml also print an update whose
// only change is a reordering of named list elements, which u.Changed
// matches by name and so finds none: their JSON Patch works by index, and
// each event's patch must apply to the object of the event before it. It
// asks u for what the writer prints (the changes, the patch) first.
func (p *EventPrinter) shows(u *diff.Update) bool {
	switch {
	case p.Cfg.Format == formatText && p.Cfg.Diff == diffCompact:
		return len(u.Changes()) > 0
	case p.Cfg.Format == formatJSON || p.Cfg.Format == formatYAML:
		return len(u.Patch()) > 0 || u.Changed()
	}
	return u.Changed()
}

func (p *EventPrinter) paint(color, s string) string {
	if !p.Cfg.Color {
		return s
	}
	return color + s + terminal.Reset
}

// writeText writes r's line and, for an update, its diff; of several
// targets every line starts with the target's name.
func (p *EventPrinter) writeText(r rendered) error {
	prefix := ""
	if p.Cfg.Context != "" {
		prefix = p.Cfg.Context + " "
	}
	var line strings.Builder
	line.WriteString(prefix)
	if p.Cfg.Timestamps {
		loc := p.Cfg.Location
		if loc == nil {
			loc = time.Local
		}
		if p.RecordedAt != nil {
			line.WriteString(p.RecordedAt(r.ev).In(loc).Format("2006-01-02T15:04:05.000Z07:00 "))
		} else {
			line.WriteString(time.Now().In(loc).Format("15:04:05.000 "))
		}
	}
	color := map[engine.EventType]string{engine.Added: terminal.Green, engine.Modified: terminal.Yellow, engine.Deleted: terminal.Red}[r.Typ]
	line.WriteString(p.paint(color, fmt.Sprintf("%-8s", r.Typ)))
	line.WriteString(" ")
	line.WriteString(printing.KindName(r.ev.Resource) + "/" + terminal.SanitizeText(printing.ObjectName(r.ev.Object())))
	if ns := printing.ObjectNamespace(r.ev.Object()); ns != "" {
		line.WriteString(" -n " + terminal.SanitizeText(ns))
	}
	var notes []string
	if len(r.managers) > 0 {
		notes = append(notes, "by "+terminal.SanitizeText(strings.Join(r.managers, ", ")))
	}
	if r.cause != "" {
		notes = append(notes, r.cause)
	}
	if r.note != "" {
		notes = append(notes, r.note)
	}
	if r.ev.FinalStateUnknown {
		notes = append(notes, "final state unknown: deleted while the watch was down")
	}
	if r.ev.Coalesced > 0 {
		notes = append(notes, fmt.Sprintf("net of %d updates", r.ev.Coalesced+1))
	}
	if len(notes) > 0 {
		line.WriteString("  " + p.paint(terminal.Faint, "("+strings.Join(notes, "; ")+")"))
	}
	line.WriteString("\n")
	if _, err := p.Out.WriteString(line.String()); err != nil {
		return err
	}
	if r.Typ != engine.Modified {
		return nil
	}
	switch p.Cfg.Diff {
	case diffCompact:
		return diff.WriteCompact(p.Out, r.update.Changes(), prefix+"    ", p.Cfg.Color)
	case diffUnified:
		label := printing.KindName(r.ev.Resource) + "/" + printing.ObjectName(r.ev.New)
		var unified bytes.Buffer
		if err := r.update.WriteUnified(&unified, label+" (old)", label+" (new)", 3, p.Cfg.Color); err != nil {
			return err
		}
		for _, l := range bytes.SplitAfter(unified.Bytes(), []byte("\n")) {
			if len(l) > 0 {
				p.Out.WriteString(prefix)
				p.Out.Write(l)
			}
		}
	}
	return nil
}

// updateOptions returns the diff options (--only, --ignore) for updates of
// objects of type t; for Secrets, unless --show-secret-values, they also hide
// the values of data and stringData in text diffs (diff.Options.Redact; a
// JSON Patch carries them, as the object itself does).
func (p *EventPrinter) updateOptions(t *engine.Type) diff.Options {
	opts := p.Cfg.DiffOptions
	if !p.Cfg.ShowSecretValues && t.Mapping.Resource.Group == "" && t.Mapping.Resource.Resource == "secrets" {
		opts.Redact = append(opts.Redact, secretPaths()...)
	}
	return opts
}

func secretPaths() []diff.Path {
	var paths []diff.Path
	for _, s := range []string{"data", "stringData"} {
		p, err := diff.ParsePath(s)
		if err == nil {
			paths = append(paths, p)
		}
	}
	return paths
}

// jsonEvent is one line of -o json: the shape of kubectl get -w
// --output-watch-events -o json, plus the patch and what we know of it.
type jsonEvent struct {
	// Context names the target of a watch of several (-o json).
	Context string           `json:"context,omitempty"`
	Type    engine.EventType `json:"type"`
	// Time is when a recorded event was recorded (RFC 3339); a live
	// watch leaves it out.
	Time string `json:"time,omitempty"`
	// Object is the object without managedFields: an unstructured map, or
	// a typed object, which encoding/json renders as ToUnstructured would
	// (the same fields and values; keys in the struct's order, not sorted).
	Object interface{}    `json:"object"`
	Patch  []diff.PatchOp `json:"patch,omitempty"`
	// Managers own what the update changed (MANAGER/Operation[/subresource]);
	// Cause labels a change the server records no owner for, where certain.
	Managers          []string `json:"managers,omitempty"`
	Cause             string   `json:"cause,omitempty"`
	FinalStateUnknown bool     `json:"finalStateUnknown,omitempty"`
	Coalesced         int      `json:"coalesced,omitempty"`
	Note              string   `json:"note,omitempty"`
}

// writeEvent writes r as a line of JSON (-o json) or a YAML document (-o
// yaml); of several targets, the context is its first field.
func (p *EventPrinter) writeEvent(r rendered) error {
	obj, err := diff.WithoutManagedFields(r.ev.Object())
	if err != nil {
		return err
	}
	ev := jsonEvent{
		Type:              r.Typ,
		Object:            obj,
		Managers:          r.managers,
		Cause:             r.cause,
		FinalStateUnknown: r.ev.FinalStateUnknown,
		Coalesced:         r.ev.Coalesced,
		Note:              r.note,
	}
	if r.Typ == engine.Modified {
		ev.Patch = r.update.Patch()
	}
	if p.RecordedAt != nil {
		ev.Time = p.RecordedAt(r.ev).UTC().Format(time.RFC3339Nano)
	}
	if p.Cfg.Format == formatJSON {
		ev.Context = p.Cfg.Context
		// Encode writes what Marshal returns and a newline, straight into
		// the output buffer: no copy of the line per event.
		if p.jsonOut == nil || p.jsonTo != p.Out {
			p.jsonOut, p.jsonTo = json.NewEncoder(p.Out), p.Out
		}
		if err := p.jsonOut.Encode(ev); err != nil {
			return fmt.Errorf("encoding event: %w", err)
		}
		return nil
	}
	b, err := printing.MarshalYAML(ev)
	if err != nil {
		return fmt.Errorf("encoding event: %w", err)
	}
	head := "---\n"
	if p.Cfg.Context != "" {
		// First, where the keys of b are sorted; a JSON string is a
		// YAML scalar.
		name, _ := json.Marshal(p.Cfg.Context)
		head += "context: " + string(name) + "\n"
	}
	if _, err := p.Out.WriteString(head); err != nil {
		return err
	}
	_, err = p.Out.Write(b)
	return err
}
