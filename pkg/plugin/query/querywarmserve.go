package query

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/klog/v2"

	"github.com/kubectl-informer/kubectl-informer/pkg/columns"
	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/index"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/engines"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/printing"
	"github.com/kubectl-informer/kubectl-informer/pkg/warmcache/protocol"
	"github.com/kubectl-informer/kubectl-informer/pkg/warmcache/server"
)

// This file is the warm cache's side of a query asked as data
// (collectWarm is the client's): a Collect request's query is answered in
// the cache process, with the cache's engines, up to the lookup, and the
// answer is sent as data (a protocol.Answer) instead of printed.

// CollectHandler returns the handler of a warm cache's Collect requests:
// a request's query is answered with env's engines, and the answer written
// on stdout as one protocol.Answer in JSON.
func CollectHandler(env *engines.ServeEnv) server.Handler {
	return func(ctx context.Context, req protocol.Request, stdout, stderr io.Writer) (outcome server.Outcome) {
		if req.Query == nil {
			return server.Outcome{Exit: protocol.Exit{Code: 1, Error: "a collect request carries a query"}}
		}
		q := *req.Query
		defer func() {
			if r := recover(); r != nil {
				klog.ErrorS(fmt.Errorf("%v", r), "query panicked", "query", q)
				outcome = server.Outcome{Fallback: &protocol.Fallback{Reason: fmt.Sprintf("internal error: %v", r)}}
			}
		}()
		reqEnv := *env
		var mu sync.Mutex
		var warnings []string
		reqEnv.PrintWarning = func(message string) {
			mu.Lock()
			defer mu.Unlock()
			warnings = append(warnings, message)
		}
		configFlags := genericclioptions.NewConfigFlags(true)
		configFlags.Namespace = &q.Namespace
		o := queryOf(q, configFlags, genericiooptions.IOStreams{In: strings.NewReader(""), Out: stdout, ErrOut: stderr})
		o.Engines = engines.WarmEngines{Env: &reqEnv, MaxStaleness: &o.MaxStaleness}
		err := o.Complete(nil, []string{q.Types})
		if err == nil {
			err = o.Validate()
		}
		if err != nil {
			return server.OutcomeOf(err)
		}
		// Read here, as a target without a warm cache is (answer).
		a, err := o.answer(ctx, o.set.Targets[0], o.ErrOut, o.Config.Progress)
		defer a.shutdown()
		mu.Lock()
		got := warnings[:len(warnings):len(warnings)]
		mu.Unlock()
		if err == nil {
			err = writeAnswer(stdout, a, got)
		}
		return server.OutcomeOf(err)
	}
}

// writeAnswer writes a, a target's answer, on out as one protocol.Answer:
// for a grouped query its table of groups, otherwise its objects
// (encodeAnswer); with warnings, the API server's warnings the answer's
// lists and watches got, for the client to print as its own.
func writeAnswer(out io.Writer, a *targetAnswer, warnings []string) error {
	answer := &protocol.Answer{}
	if a.cfg.grouped() {
		table, err := a.groupTable()
		if err != nil {
			return err
		}
		answer.Table = &table.Table
	} else {
		var err error
		if answer, err = encodeAnswer(a.cfg, a.groups); err != nil {
			return err
		}
	}
	answer.Warnings = warnings
	return json.NewEncoder(out).Encode(answer)
}

// answerIndexes are the indexes whose values an answer of objects
// carries per object: those cfg prints, and its --sort-by index.
func answerIndexes(cfg queryPrintConfig) []index.Definition {
	if cfg.sortIndex != nil && !slices.ContainsFunc(cfg.indexes, func(def index.Definition) bool { return def.Name == cfg.sortIndex.Name }) {
		return append(slices.Clone(cfg.indexes), *cfg.sortIndex)
	}
	return cfg.indexes
}

// encodeAnswer returns groups as an Answer: each object as JSON, with its
// values of answerIndexes(cfg) and, with --show-events, the latest Event
// about it; each type with its printer columns; the namespaces asked and,
// for an output that prints ages, the instant they count from. Objects
// are carried as cached, or reduced to what the print reads (carried).
func encodeAnswer(cfg queryPrintConfig, groups []typeObjects) (*protocol.Answer, error) {
	defs := answerIndexes(cfg)
	answer := &protocol.Answer{Types: make([]protocol.AnswerType, 0, len(groups)), Namespaces: cfg.namespaces}
	if cfg.printsAges() {
		answer.Now = cfg.ages.Now()
	}
	for _, def := range defs {
		answer.Indexes = append(answer.Indexes, def.Name)
	}
	for _, g := range groups {
		at, err := cfg.encodeType(g, defs, answer.Now)
		if err != nil {
			return nil, fmt.Errorf("encoding the answer of %s: %w", g.t.Name(), err)
		}
		answer.Types = append(answer.Types, at)
	}
	return answer, nil
}

// encodeType returns g as an AnswerType of an answer that carries the
// values of defs, its rows' cells computed at now.
func (c queryPrintConfig) encodeType(g typeObjects, defs []index.Definition, now time.Time) (protocol.AnswerType, error) {
	m := g.t.Mapping
	at := protocol.AnswerType{
		Group: m.Resource.Group, Version: m.Resource.Version, Resource: m.Resource.Resource,
		Kind: m.GroupVersionKind.Kind, Namespaced: g.t.Namespaced(), Columns: g.columns,
		Objects: make([]protocol.AnswerObject, 0, len(g.objs)),
	}
	table := c.tableOf(g.t, g.columns)
	carried := c.carried(g.t, table)
	for _, obj := range g.objs {
		sent, identity, form, err := answerForm(obj, m.GroupVersionKind, carried)
		if err != nil {
			return at, err
		}
		if at.Form == "" {
			at.Form = form
		} else if at.Form != form {
			return at, fmt.Errorf("objects of forms %s and %s", at.Form, form)
		}
		ao := protocol.AnswerObject{Identity: identity}
		for _, def := range defs {
			ao.Values = append(ao.Values, index.Values(def, obj))
		}
		if c.showEvents {
			if latest := index.EventsOf(c.events, obj); len(latest) > 0 {
				ao.Event = latest[0]
			}
		}
		if ro, ok := obj.(runtime.Object); ok && form == protocol.FormRow {
			if ao.Cells, err = tableCells(table, ro, now); err != nil {
				return at, fmt.Errorf("printing %s: %w", printing.ObjectName(obj), err)
			}
		}
		if sent != nil {
			if ao.Object, err = json.Marshal(sent); err != nil {
				return at, err
			}
		}
		at.Objects = append(at.Objects, ao)
	}
	return at, nil
}

// carried returns how an answer of c carries the objects of t, whose
// table is table: as cached (""); for -o name their identity alone
// (FormName); for kubectl's table of a built-in type (a custom
// resource's columns may differ between contexts), when its order reads
// nothing of them (table.Compare, a --sort-by JSONPath), their identity
// and cells (FormRow).
func (c queryPrintConfig) carried(t *engine.Type, table columns.Table) string {
	_, builtIn := columns.For(t.Mapping.Resource.GroupResource())
	switch {
	case c.namesOnly():
		return protocol.FormName
	case builtIn && (c.out.Format == "" || c.out.Format == "wide") && table.Compare == nil && (c.sortKey == nil || c.sortIndex != nil):
		return protocol.FormRow
	}
	return ""
}

// answerForm returns how an answer carries obj, a cached object of kind
// gvk (carried): as cached, the object to send and its form, a Go type of
// the kubernetes scheme, unstructured or metadata only; otherwise its
// identity, with its labels for a row (-L, --show-labels).
func answerForm(obj interface{}, gvk schema.GroupVersionKind, carried string) (interface{}, *protocol.Identity, string, error) {
	if carried == "" {
		switch obj.(type) {
		case *unstructured.Unstructured:
			return obj, nil, protocol.FormUnstructured, nil
		case *metav1.PartialObjectMetadata:
			return obj, nil, protocol.FormMetadata, nil
		}
		if example, err := scheme.Scheme.New(gvk); err != nil || reflect.TypeOf(example) != reflect.TypeOf(obj) {
			return nil, nil, "", fmt.Errorf("a cached %T is not the scheme's %s", obj, gvk)
		}
		return obj, nil, protocol.FormTyped, nil
	}
	accessor, err := meta.Accessor(obj)
	if err != nil {
		return nil, nil, "", err
	}
	id := &protocol.Identity{Name: accessor.GetName(), Namespace: accessor.GetNamespace(), UID: accessor.GetUID()}
	if carried == protocol.FormRow {
		id.Labels = accessor.GetLabels()
	}
	return nil, id, carried, nil
}
