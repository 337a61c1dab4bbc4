package query

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/klog/v2"

	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/fleet"
	"github.com/kubectl-informer/kubectl-informer/pkg/index"
	"github.com/kubectl-informer/kubectl-informer/pkg/plugin/engines"
	"github.com/kubectl-informer/kubectl-informer/pkg/warmcache/protocol"
)

// This file lets a query use warm caches: each target whose warm cache
// runs (the cache of that target's identity) is asked the query as data (a
// Collect request carrying a protocol.Query) and answers as data (a
// protocol.Answer: its objects, or its table of groups), which the client
// prints exactly as an answer read directly. A target without a cache,
// whose cache is unusable (another build, not answering) or declines (what
// it does not share, --max-staleness), is read directly. With -v=1 each
// target says which it was, and why.

// collectWarm answers the query of target t from the target's warm cache
// into a. It reports whether the cache answered
// (warm): when not, the caller reads the target directly. err is the
// cache's answer that the query failed (a warm answer too), or ctx's end.
func (t *queryTarget) collectWarm(ctx context.Context, a *targetAnswer) (warm bool, err error) {
	direct := func(reason string) (bool, error) {
		klog.V(1).InfoS("query: reading the context directly", "context", a.name, "reason", reason)
		t.ReadDirectly()
		return false, nil
	}
	unusable := func(reason string) (bool, error) {
		fmt.Fprintf(t.errOut, "warning: not using the warm cache: %s; asking the API server directly\n", reason)
		return direct(reason)
	}
	conn := t.WarmConn
	t.WarmConn = nil
	if conn == nil {
		if t.Cache == "off" {
			return direct("--cache off")
		}
		return direct("no warm cache runs for the context's identity, or it cannot be used")
	}
	defer conn.Close()
	question, err := t.question()
	if err != nil {
		return direct(err.Error())
	}
	var answerJSON bytes.Buffer
	res, err := conn.Collect(ctx, protocol.Request{Query: &question}, t.SyncTimeout+engines.FirstFrameMargin, &answerJSON, t.errOut)
	switch {
	case err != nil && ctx.Err() != nil:
		return true, ctx.Err()
	case err != nil:
		return unusable(err.Error())
	case res.Fallback != nil:
		if res.Fallback.Warning != "" {
			fmt.Fprintln(t.errOut, res.Fallback.Warning)
		}
		return direct("the warm cache declined: " + res.Fallback.Reason)
	case res.Exit.Code != 0:
		klog.V(1).InfoS("query: answered by the warm cache", "context", a.name, "pid", conn.Hello.Pid, "failed", true)
		return true, errors.New(res.Exit.Error)
	}
	var answer protocol.Answer
	if err := json.Unmarshal(answerJSON.Bytes(), &answer); err != nil {
		return unusable(fmt.Sprintf("decoding its answer: %v", err))
	}
	if err := t.readAnswer(a, &answer); err != nil {
		return unusable(fmt.Sprintf("decoding its answer: %v", err))
	}
	klog.V(1).InfoS("query: answered by the warm cache", "context", a.name, "pid", conn.Hello.Pid)
	return true, nil
}

// readAnswer reads into a the answer a warm cache sent: its table of
// groups, or its objects, which the target's print config reads with the
// index values, Events and printer columns the cache sent; the API
// server's warnings it sent are printed as the target's own.
func (t *queryTarget) readAnswer(a *targetAnswer, answer *protocol.Answer) error {
	if len(answer.Warnings) > 0 {
		if restConfig, err := t.ConfigFlags.ToRESTConfig(); err == nil && restConfig.WarningHandler != nil {
			for _, message := range answer.Warnings {
				restConfig.WarningHandler.HandleWarningHeader(299, "", message)
			}
		}
	}
	a.cfg = t.print
	if answer.Table != nil {
		a.table = fleet.ContextTable{Context: a.name, Keys: len(t.print.groupBy), Table: *answer.Table}
		a.grouped = true
		return nil
	}
	groups, bound, events, err := decodeAnswer(answer)
	a.groups, a.cfg = groups, t.print.bind(bound)
	a.cfg.events = events
	return err
}

// Tables returns the tables a table output of q prints of answer, one
// context's answer to q (a Collect's) of objects, none when nothing
// matched: the tables the query command prints of that answer, its ages
// as of the answer's instant.
func Tables(q protocol.Query, answer *protocol.Answer) ([]Table, error) {
	o := queryOf(q, genericclioptions.NewConfigFlags(false), genericiooptions.IOStreams{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard})
	if err := o.Complete(nil, []string{q.Types}); err != nil {
		return nil, err
	}
	groups, bound, events, err := decodeAnswer(answer)
	if err != nil {
		return nil, err
	}
	a := &targetAnswer{groups: groups, cfg: o.print.bind(bound)}
	a.cfg.events, a.cfg.namespaces, a.cfg.ages = events, answer.Namespaces, engines.AgesAt(answer.Now)
	return answerPrinter{answers: []*targetAnswer{a}, contextAt: -1}.tables()
}

// question returns t's query as data for its warm cache: its flags, the
// context index taken out of --index and --group-by, the namespace as
// this side resolves it, and a file -o names made absolute (the cache
// process runs in another directory).
func (t *queryTarget) question() (protocol.Query, error) {
	co := t.q
	ns, err := t.Engines.Namespace(t.ConfigFlags)
	if err != nil {
		return protocol.Query{}, err
	}
	q := protocol.Query{
		Types: co.typeArg, Namespace: ns, AllNamespaces: co.AllNamespaces,
		LabelSelector: co.LabelSelector, FieldSelector: co.FieldSelector, Indexers: co.Indexers, QueryFlags: co.QueryFlags,
		SyncTimeout: protocol.Duration(co.SyncTimeout), MaxStaleness: protocol.Duration(co.MaxStaleness),
	}
	q.Index, q.GroupBy = co.split.Others, co.split.GroupBy
	if format, path, ok := strings.Cut(q.Output, "="); ok && strings.HasSuffix(format, "-file") && path != "" {
		if abs, err := filepath.Abs(path); err == nil {
			q.Output = format + "=" + abs
		}
	}
	return q, nil
}

// queryOf returns QueryOptions that ask q, to be completed with args
// queryArgs(q): the options a query command's flags would hold.
func queryOf(q protocol.Query, configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *QueryOptions {
	o := NewQueryOptions(configFlags, streams)
	o.AllNamespaces, o.LabelSelector, o.FieldSelector, o.Indexers = q.AllNamespaces, q.LabelSelector, q.FieldSelector, q.Indexers
	o.QueryFlags = q.QueryFlags
	o.SyncTimeout, o.MaxStaleness = time.Duration(q.SyncTimeout), time.Duration(q.MaxStaleness)
	if o.SyncTimeout <= 0 {
		o.SyncTimeout = 60 * time.Second
	}
	o.Cache = "off"
	return o
}

// decodeAnswer returns an Answer's objects per type, definitions of its
// indexes that return the values the cache sent for each object, and the
// Events it sent.
func decodeAnswer(answer *protocol.Answer) ([]typeObjects, []index.Definition, index.KubeEvents, error) {
	values := make([]map[interface{}][]string, len(answer.Indexes))
	for i := range values {
		values[i] = map[interface{}][]string{}
	}
	events := answerEvents{}
	groups := make([]typeObjects, 0, len(answer.Types))
	for _, at := range answer.Types {
		gvk := schema.GroupVersionKind{Group: at.Group, Version: at.Version, Kind: at.Kind}
		scope := meta.RESTScopeRoot
		if at.Namespaced {
			scope = meta.RESTScopeNamespace
		}
		t := &engine.Type{Mapping: &meta.RESTMapping{
			Resource:         schema.GroupVersionResource{Group: at.Group, Version: at.Version, Resource: at.Resource},
			GroupVersionKind: gvk,
			Scope:            scope,
		}}
		g := typeObjects{t: t, objs: make([]interface{}, 0, len(at.Objects)), columns: at.Columns}
		for _, ao := range at.Objects {
			obj, err := decodeObject(at.Form, gvk, ao)
			if err != nil {
				return nil, nil, nil, fmt.Errorf("%s: %w", t.Name(), err)
			}
			if len(ao.Values) != len(answer.Indexes) {
				return nil, nil, nil, fmt.Errorf("%s: an object has %d index values, want %d", t.Name(), len(ao.Values), len(answer.Indexes))
			}
			for i, v := range ao.Values {
				values[i][obj] = v
			}
			if ao.Event != nil {
				if m, err := meta.Accessor(obj); err == nil {
					events[string(m.GetUID())] = ao.Event
				}
			}
			g.objs = append(g.objs, obj)
		}
		groups = append(groups, g)
	}
	defs := make([]index.Definition, len(answer.Indexes))
	for i, name := range answer.Indexes {
		byObject := values[i]
		defs[i] = index.Definition{Name: name, Func: func(obj interface{}) ([]string, error) {
			return byObject[obj], nil
		}}
	}
	return groups, defs, events, nil
}

// decodeObject decodes one object of an Answer, of kind gvk, as the cache
// carried it (form): a Go type of the kubernetes scheme, unstructured,
// metadata only, or by its identity, as a name or a row.
func decodeObject(form string, gvk schema.GroupVersionKind, ao protocol.AnswerObject) (interface{}, error) {
	var obj runtime.Object
	switch form {
	case protocol.FormUnstructured:
		obj = &unstructured.Unstructured{}
	case protocol.FormMetadata:
		obj = &metav1.PartialObjectMetadata{}
	case protocol.FormName, protocol.FormRow:
		if ao.Identity == nil {
			return nil, fmt.Errorf("an object of form %s without its name", form)
		}
		m := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{
			Name: ao.Name, Namespace: ao.Namespace, UID: ao.UID, Labels: ao.Labels,
		}}
		m.SetGroupVersionKind(gvk)
		if form == protocol.FormRow {
			return &rowObject{PartialObjectMetadata: m, cells: ao.Cells}, nil
		}
		return m, nil
	case protocol.FormTyped:
		var err error
		if obj, err = scheme.Scheme.New(gvk); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("objects of unknown form %q", form)
	}
	if err := json.Unmarshal(ao.Object, obj); err != nil {
		return nil, err
	}
	return obj, nil
}

// rowObject is an object of a warm answer carried as its row
// (protocol.FormRow): its metadata, and its cells of its type's table.
type rowObject struct {
	*metav1.PartialObjectMetadata
	cells []string
}

// answerEvents are the latest Events an Answer sent, by the UID of the
// object each is about.
type answerEvents map[string]*corev1.Event

// EventsAbout implements index.KubeEvents.
func (e answerEvents) EventsAbout(_, _, _, uid string) []*corev1.Event {
	if ev, ok := e[uid]; ok {
		return []*corev1.Event{ev}
	}
	return nil
}
