package server

import (
	"strings"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
)

// This file holds how a command that asks for some namespaces or a label
// selector shares the entry of all namespaces without a label selector:
// through a view of its type (engine.Type.Restrict), which answers as an
// informer of the command's own would, since the server sends that
// informer exactly the objects of its namespaces that its selector selects.
// Field selectors are not shared: the server's field semantics are its own.

// restriction is what a command leasing a wider entry asks of it: the
// namespaces and label selector of an engine.Type view.
type restriction struct {
	namespaces []string
	selector   labels.Selector
}

// wider returns the entry of all namespaces without a label selector that
// can answer a command asking for key (same type, field selector,
// managedFields mode...), if the pool holds one that has synced, with the
// restriction the command reads it through; p.mu must be held.
func (p *Pool) wider(key entryKey, cfg engine.Config) (*entry, *restriction) {
	wide := key
	wide.namespaces, wide.labelSelector = "", ""
	if wide == key {
		return nil, nil
	}
	e, ok := p.entries[wide]
	if !ok || !e.synced() {
		return nil, nil
	}
	// The command checked its selector; one the server would refuse gets
	// an entry of its own, and the server's refusal.
	selector, err := labels.Parse(cfg.LabelSelector)
	if err != nil {
		return nil, nil
	}
	r := &restriction{selector: selector}
	if key.namespaces != "" {
		r.namespaces = strings.Split(key.namespaces, ",")
	}
	return e, r
}

// synced reports whether e's engine has started without error.
func (e *entry) synced() bool {
	select {
	case <-e.ready:
		return e.err == nil
	default:
		return false
	}
}
