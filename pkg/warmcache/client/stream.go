package client

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
	"github.com/kubectl-informer/kubectl-informer/pkg/warmcache/protocol"
)

// stream is one Stream request's answer: the objects the cache held (sent
// once, on listed), then its changes as a watch.Interface. It ends when
// Stop is called or the ctx it was opened with ends; a stream that ends
// otherwise after its list reports the cache lost (OutageReport.Fatal).
type stream struct {
	feed     *feed
	cancel   context.CancelFunc
	events   chan watch.Event
	listed   chan listed
	stopOnce sync.Once
}

// listed is how a stream's list ended: the objects as a list, or why
// there is none.
type listed struct {
	list runtime.Object
	err  error
}

// newStream sends sr on conn and reads its answer.
func (f *feed) newStream(ctx context.Context, conn *Conn, sr protocol.StreamRequest, firstFrame time.Duration) *stream {
	ctx, cancel := context.WithCancel(ctx)
	st := &stream{feed: f, cancel: cancel, events: make(chan watch.Event), listed: make(chan listed, 1)}
	r, w := io.Pipe()
	go func() {
		res, err := conn.Stream(ctx, protocol.Request{Stream: &sr}, firstFrame, w, io.Discard)
		conn.Close()
		w.CloseWithError(streamEnd(res, err, conn.Hello.Pid))
	}()
	go st.read(ctx, r)
	return st
}

// streamEnd is the error a stream's reader gets at its end.
func streamEnd(res Result, err error, pid int) error {
	var unavailable *UnavailableError
	switch {
	case errors.As(err, &unavailable):
		return &readDirectly{reason: err.Error(), note: fmt.Sprintf("warning: not using the warm cache: %v; asking the API server directly", err)}
	case err != nil:
		return fmt.Errorf("lost the warm cache (pid %d): %w", pid, err)
	case res.Fallback != nil:
		return &readDirectly{reason: "the warm cache declined: " + res.Fallback.Reason, note: res.Fallback.Warning}
	case res.Exit != nil && res.Exit.Code != 0:
		return errors.New(res.Exit.Error)
	}
	return fmt.Errorf("the warm cache (pid %d) ended the stream", pid)
}

// Stop implements watch.Interface.
func (st *stream) Stop() { st.stopOnce.Do(st.cancel) }

// ResultChan implements watch.Interface.
func (st *stream) ResultChan() <-chan watch.Event { return st.events }

// read reads the stream's events from r until it ends.
func (st *stream) read(ctx context.Context, r io.Reader) {
	defer close(st.events)
	br := bufio.NewReaderSize(r, 64<<10)
	var items []runtime.RawExtension
	isListed := false
	end := func(err error) {
		switch {
		case !isListed:
			st.listed <- listed{err: err}
		case ctx.Err() == nil:
			if report := st.feed.report(); report.Fatal != nil {
				report.Fatal(err)
			}
		}
	}
	// buf holds each object's bytes until it is decoded: a decoded object
	// shares none of them.
	var buf []byte
	for {
		ev, object, err := protocol.ReadStreamRecord(br, buf)
		if err != nil {
			end(err)
			return
		}
		if cap(object) > cap(buf) && cap(object) <= maxReusedObject {
			buf = object
		}
		switch ev.Type {
		case protocol.StreamAdded, protocol.StreamModified, protocol.StreamDeleted:
			obj, err := st.feed.decode(object, ev.Proto)
			if err != nil {
				end(fmt.Errorf("decoding the warm cache's %s: %w", st.feed.mapping.Resource.Resource, err))
				return
			}
			if ev.FinalStateUnknown {
				engine.MarkFinalStateUnknown(obj)
			}
			if !isListed {
				items = append(items, runtime.RawExtension{Object: obj})
				continue
			}
			if !st.send(ctx, watch.Event{Type: watch.EventType(ev.Type), Object: obj}) {
				return
			}
		case protocol.StreamListed:
			isListed = true
			st.listed <- listed{list: &metav1.List{Items: items}}
			items = nil
		case protocol.StreamFailed:
			if report := st.feed.report(); report.Failed != nil {
				report.Failed(errors.New(ev.Message))
			}
		case protocol.StreamResumed:
			if report := st.feed.report(); report.Resumed != nil {
				report.Resumed()
			}
		case protocol.StreamWarning:
			if w := st.feed.source.Warnings; w != nil {
				w.HandleWarningHeader(299, "", ev.Message)
			}
		}
	}
}

// maxReusedObject bounds the buffer a stream keeps for its objects' bytes.
const maxReusedObject = 1 << 20

// send hands ev to the watch's consumer; false when the stream ended.
func (st *stream) send(ctx context.Context, ev watch.Event) bool {
	select {
	case st.events <- ev:
		return true
	case <-ctx.Done():
		return false
	}
}
