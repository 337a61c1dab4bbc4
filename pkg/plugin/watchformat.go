package plugin

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/kubectl-informer/kubectl-informer/pkg/cache"
	"github.com/kubectl-informer/kubectl-informer/pkg/diff"
	"github.com/kubectl-informer/kubectl-informer/pkg/terminal"
)

// This file holds the watch's formats: text with a compact or unified diff,
// JSON or YAML events with a JSON Patch, and names.

// rendered is one event ready to print.
type rendered struct {
	ev   *cache.Event
	typ  cache.EventType
	note string
	// old and new are set for updates only, as diff.UpdateMaps returns them: for
	// typed objects they may leave out what did not change.
	old, new map[string]interface{}
	changes  []diff.Change
	// managers own what an update changed, cause labels what no one owns
	// (see attribute); for updates, and for those that enter or leave a
	// --where query.
	managers []string
	cause    string
}

// handle prints ev if it is to be printed, and reports whether it was.
func (p *eventPrinter) handle(ev *cache.Event) (bool, error) {
	r, ok := p.classify(ev)
	if !ok {
		return false, nil
	}
	if r.typ == cache.Modified {
		var err error
		if r.old, r.new, err = diff.UpdateMaps(ev.Old, ev.New, p.cfg.format == formatText && p.cfg.diff == diffUnified); err != nil {
			return false, err
		}
		opts := p.textDiffOptions(ev.Resource)
		if p.cfg.format == formatText && p.cfg.diff == diffCompact {
			r.changes = diff.Compare(r.old, r.new, opts)
			if len(r.changes) == 0 {
				return false, nil
			}
		} else if !diff.Changed(r.old, r.new, opts) && !p.patchOnly(r) {
			return false, nil
		}
		r.managers, r.cause = p.attribute(ev, r.old, r.new)
	} else if ev.Type == cache.Modified && ev.Related == nil {
		// An update that enters or leaves the query: who made it.
		old, new, err := diff.UpdateMaps(ev.Old, ev.New, false)
		if err != nil {
			return false, err
		}
		r.managers, r.cause = p.attribute(ev, old, new)
	}
	switch p.cfg.format {
	case formatJSON:
		return true, p.writeJSON(r)
	case formatYAML:
		return true, p.writeYAML(r)
	case formatName:
		_, err := fmt.Fprintf(p.out, "%s %s/%s\n", r.typ, kindName(ev.Resource), terminal.SanitizeText(objectName(ev.Object())))
		return true, err
	}
	return true, p.writeText(r)
}

func (p *eventPrinter) paint(color, s string) string {
	if !p.cfg.color {
		return s
	}
	return color + s + terminal.Reset
}

func (p *eventPrinter) writeText(r rendered) error {
	var line strings.Builder
	if p.cfg.timestamps {
		loc := p.cfg.location
		if loc == nil {
			loc = time.Local
		}
		line.WriteString(time.Now().In(loc).Format("15:04:05.000 "))
	}
	color := map[cache.EventType]string{cache.Added: terminal.Green, cache.Modified: terminal.Yellow, cache.Deleted: terminal.Red}[r.typ]
	line.WriteString(p.paint(color, fmt.Sprintf("%-8s", r.typ)))
	line.WriteString(" ")
	line.WriteString(kindName(r.ev.Resource) + "/" + terminal.SanitizeText(objectName(r.ev.Object())))
	if ns := objectNamespace(r.ev.Object()); ns != "" {
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
	if _, err := p.out.WriteString(line.String()); err != nil {
		return err
	}
	if r.typ != cache.Modified {
		return nil
	}
	opts := p.textDiffOptions(r.ev.Resource)
	switch p.cfg.diff {
	case diffCompact:
		return diff.WriteCompact(p.out, r.changes, "    ", p.cfg.color)
	case diffUnified:
		label := kindName(r.ev.Resource) + "/" + objectName(r.ev.New)
		return diff.Unified(p.out, label+" (old)", label+" (new)", r.old, r.new, opts, 3, p.cfg.color)
	}
	return nil
}

// textDiffOptions adds the redaction of Secret values to the diff options.
func (p *eventPrinter) textDiffOptions(t *cache.Type) diff.Options {
	opts := p.cfg.diffOptions
	if !p.cfg.showSecretValues && t.Mapping.Resource.Group == "" && t.Mapping.Resource.Resource == "secrets" {
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
	Type cache.EventType `json:"type"`
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

func (p *eventPrinter) event(r rendered) (jsonEvent, error) {
	obj, err := diff.WithoutManagedFields(r.ev.Object())
	if err != nil {
		return jsonEvent{}, err
	}
	ev := jsonEvent{
		Type:              r.typ,
		Object:            obj,
		Managers:          r.managers,
		Cause:             r.cause,
		FinalStateUnknown: r.ev.FinalStateUnknown,
		Coalesced:         r.ev.Coalesced,
		Note:              r.note,
	}
	if r.typ == cache.Modified {
		ev.Patch = diff.JSONPatch(r.old, r.new, p.cfg.diffOptions)
	}
	return ev, nil
}

// patchOnly reports whether -o json or yaml must print an update that
// diff.Changed finds empty: Changed matches named list elements by name, so
// reordering them is no change, but the JSON Patch works by index, and
// each event's patch must apply to the object of the event before it.
func (p *eventPrinter) patchOnly(r rendered) bool {
	return (p.cfg.format == formatJSON || p.cfg.format == formatYAML) && len(diff.JSONPatch(r.old, r.new, p.cfg.diffOptions)) > 0
}

func (p *eventPrinter) writeJSON(r rendered) error {
	ev, err := p.event(r)
	if err != nil {
		return err
	}
	b, err := json.Marshal(ev)
	if err != nil {
		return fmt.Errorf("encoding event: %w", err)
	}
	b = append(b, '\n')
	_, err = p.out.Write(b)
	return err
}

func (p *eventPrinter) writeYAML(r rendered) error {
	ev, err := p.event(r)
	if err != nil {
		return err
	}
	b, err := marshalYAML(ev)
	if err != nil {
		return fmt.Errorf("encoding event: %w", err)
	}
	if _, err := p.out.WriteString("---\n"); err != nil {
		return err
	}
	_, err = p.out.Write(b)
	return err
}
