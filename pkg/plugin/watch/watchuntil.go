package watch

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/expr"
	"github.com/kubectl-informer/kubectl-informer/pkg/object"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/printing"
)

// This file decides when watch --until (or --until-all) ends a watch.

// untilMode says which objects the condition must hold for.
type untilMode int

const (
	// untilNamed: every object the arguments name (deploy/web), each of
	// which must exist.
	untilNamed untilMode = iota
	// untilAny: any object of the watch (--until without names).
	untilAny
	// untilAll: every object of the watch, at least one (--until-all).
	untilAll
)

// untilState is the condition's value on one object of the watch.
type untilState struct {
	resource, name string
	holds          bool
}

// untilCondition tracks whether the watch's end condition holds. The
// objects of the watch are those it would print: named ones when names were
// given, passing --where and --filter. The condition is a function of the
// caches, not of the events: an event only says which object to look at
// again, and is used only when it carries the cache's current state of the
// object (same resourceVersion), so a stale event queued before a newer one
// never ends the watch on a state that is already gone. It is used by the
// printer's goroutine only.
type untilCondition struct {
	guard *expr.Guard
	flag  string
	mode  untilMode
	names map[string]map[string]bool // resource → names, for untilNamed

	states map[string]untilState // resource|storage key → state, objects of the watch only
	nHolds int
	// metOn is the object that met an untilAny condition, for the message.
	metOn string
	// byEvent judges each object by the state its event carries instead
	// of the cache's: in a replay every event is a state the recording
	// held, in order, while the cache may already be ahead of the printer.
	byEvent bool
}

// seed evaluates the condition on every cached object of types, the synced
// state, before any event is handled.
func (u *untilCondition) seed(p *EventPrinter, types []*engine.Type) {
	for _, t := range types {
		objs, err := t.Lookup(nil)
		if err != nil {
			continue
		}
		for _, obj := range objs {
			key, err := object.Key(obj)
			if err != nil {
				continue
			}
			u.set(p, t, key, obj)
		}
	}
}

// update looks again at the object of ev, if ev carries its current state.
func (u *untilCondition) update(p *EventPrinter, ev *engine.Event) {
	if u.byEvent {
		if ev.Type == engine.Deleted {
			u.remove(ev.Resource.Name() + "|" + ev.Key)
		} else {
			u.set(p, ev.Resource, ev.Key, ev.New)
		}
		return
	}
	cur, exists, err := ev.Resource.GetByKey(ev.Key)
	switch {
	case err != nil:
		return
	case !exists:
		if ev.Type == engine.Deleted {
			u.remove(ev.Resource.Name() + "|" + ev.Key)
		}
		// Otherwise the object's delete is queued: wait for it.
		return
	case ev.Type == engine.Deleted || resourceVersion(cur) != resourceVersion(ev.New):
		// A newer event of the object is queued: wait for it.
		return
	}
	u.set(p, ev.Resource, ev.Key, cur)
}

func (u *untilCondition) set(p *EventPrinter, t *engine.Type, key string, obj interface{}) {
	id := t.Name() + "|" + key
	if !p.inWatch(t, obj) {
		u.remove(id)
		return
	}
	holds := u.guard.Match(context.Background(), obj, time.Now())
	u.remove(id)
	u.states[id] = untilState{resource: t.Name(), name: printing.ObjectName(obj), holds: holds}
	if holds {
		u.nHolds++
		if u.metOn == "" {
			u.metOn = printing.KindName(t) + "/" + printing.ObjectName(obj)
			if ns := printing.ObjectNamespace(obj); ns != "" {
				u.metOn += " -n " + ns
			}
		}
	}
}

func (u *untilCondition) remove(id string) {
	if s, ok := u.states[id]; ok {
		if s.holds {
			u.nHolds--
		}
		delete(u.states, id)
	}
	if u.nHolds == 0 {
		u.metOn = ""
	}
}

// met reports whether the condition holds for the objects the mode asks for.
func (u *untilCondition) met() bool {
	switch u.mode {
	case untilAny:
		return u.nHolds > 0
	case untilAll:
		return len(u.states) > 0 && u.nHolds == len(u.states)
	}
	for resource, names := range u.names {
		for name := range names {
			found := false
			for _, s := range u.states {
				if s.resource != resource || s.name != name {
					continue
				}
				if !s.holds {
					return false
				}
				found = true
			}
			if !found {
				return false
			}
		}
	}
	return true
}

// target says which objects the condition is waited for on.
func (u *untilCondition) target() string {
	switch u.mode {
	case untilAny:
		return "any watched object"
	case untilAll:
		return "every watched object"
	}
	var named []string
	for resource, names := range u.names {
		for name := range names {
			named = append(named, resource+"/"+name)
		}
	}
	sort.Strings(named)
	return strings.Join(named, ", ")
}

// metMessage is the stderr line when the condition is met.
func (u *untilCondition) metMessage() string {
	if u.mode == untilAny {
		return fmt.Sprintf("%s: the condition holds for %s", u.flag, u.metOn)
	}
	return fmt.Sprintf("%s: the condition holds for %s", u.flag, u.target())
}

// timeoutError is the error when --timeout passes before the condition holds.
func (u *untilCondition) timeoutError(timeout time.Duration) error {
	return fmt.Errorf("timed out after %s waiting for %s %q to hold for %s (it holds for %d of the %d watched objects)",
		timeout, u.flag, u.guard.Program().Source(), u.target(), u.nHolds, len(u.states))
}

func resourceVersion(obj interface{}) string {
	a, err := meta.Accessor(obj)
	if err != nil {
		return ""
	}
	return a.GetResourceVersion()
}

// endError says the condition did not hold when a finished --from source
// had nothing more to print.
func (u *untilCondition) endError() error {
	return fmt.Errorf("%s %q did not hold for %s by the end of --from (it holds for %d of the %d watched objects)",
		u.flag, u.guard.Program().Source(), u.target(), u.nHolds, len(u.states))
}
