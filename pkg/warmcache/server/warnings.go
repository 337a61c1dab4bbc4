package server

import (
	"net/http"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"
	utilnet "k8s.io/apimachinery/pkg/util/net"
)

// Warnings keeps the API server's warnings (Warning headers with code 299,
// e.g. of a deprecated API version) per resource, as the cache's informers
// get them on their lists and watches, so that each command the cache
// answers can print them on its own stderr as a command without the cache
// prints those of its own list and watch.
//
// Per resource it holds the warnings of the latest list or watch response
// (none when that response had none): what a command's own list would get
// now. A Subscription of a command gets those, then those of every later
// response of its resources; it holds them until Release, so a command the
// cache declines prints none (the client's own list then gets them).
type Warnings struct {
	mu   sync.Mutex
	last map[schema.GroupVersionResource][]string
	subs map[*Subscription]struct{}
}

// NewWarnings returns an empty Warnings.
func NewWarnings() *Warnings {
	return &Warnings{last: map[schema.GroupVersionResource][]string{}, subs: map[*Subscription]struct{}{}}
}

// WrapTransport returns a RoundTripper that records the warnings of every
// GET response of a resource collection (a list or a watch) of rt, for
// rest.Config.Wrap. It never waits on a subscriber.
func (w *Warnings) WrapTransport(rt http.RoundTripper) http.RoundTripper {
	return warningTransport{next: rt, w: w}
}

type warningTransport struct {
	next http.RoundTripper
	w    *Warnings
}

func (t warningTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil || req.Method != http.MethodGet {
		return resp, err
	}
	if gvr, ok := resourceOfPath(req.URL.Path); ok {
		var messages []string
		warnings, _ := utilnet.ParseWarningHeaders(resp.Header["Warning"])
		for _, wh := range warnings {
			if wh.Code == 299 && wh.Text != "" {
				messages = append(messages, wh.Text)
			}
		}
		t.w.record(gvr, messages)
	}
	return resp, err
}

// resourceOfPath returns the resource of an API path: /api/v1/pods,
// /api/v1/namespaces/NS/pods, /apis/GROUP/VERSION/[namespaces/NS/]RESOURCE,
// with anything after the resource (a name, a subresource), and with any
// prefix before /api or /apis (a server URL with a path).
func resourceOfPath(path string) (schema.GroupVersionResource, bool) {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	var gvr schema.GroupVersionResource
	var rest []string
	for i, s := range segs {
		if s == "api" && len(segs) > i+2 {
			gvr.Version, rest = segs[i+1], segs[i+2:]
			break
		}
		if s == "apis" && len(segs) > i+3 {
			gvr.Group, gvr.Version, rest = segs[i+1], segs[i+2], segs[i+3:]
			break
		}
	}
	switch {
	case len(rest) == 0:
		return gvr, false
	case rest[0] == "namespaces" && len(rest) >= 3:
		gvr.Resource = rest[2]
	default:
		gvr.Resource = rest[0]
	}
	return gvr, true
}

func (w *Warnings) record(gvr schema.GroupVersionResource, messages []string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(messages) == 0 {
		delete(w.last, gvr)
		return
	}
	w.last[gvr] = messages
	for s := range w.subs {
		if s.resources[gvr] {
			s.add(messages)
		}
	}
}

// Subscribe returns a Subscription to the warnings of resources, holding
// those of their latest responses; print will get each, in order, after
// Release.
func (w *Warnings) Subscribe(resources []schema.GroupVersionResource, print func(message string)) *Subscription {
	s := &Subscription{w: w, resources: map[schema.GroupVersionResource]bool{}, print: print}
	s.cond = sync.NewCond(&s.mu)
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, gvr := range resources {
		if s.resources[gvr] {
			continue
		}
		s.resources[gvr] = true
		s.add(w.last[gvr])
	}
	w.subs[s] = struct{}{}
	return s
}

// Subscription is one command's share of Warnings.
type Subscription struct {
	w         *Warnings
	resources map[schema.GroupVersionResource]bool
	print     func(string)

	mu       sync.Mutex
	cond     *sync.Cond
	pending  []string
	released bool
	printing bool
	closed   bool
}

func (s *Subscription) add(messages []string) {
	if len(messages) == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	s.pending = append(s.pending, messages...)
	s.cond.Broadcast()
}

// Release prints the warnings held so far and returns when they have been
// printed; later ones are printed as they come, by a goroutine of the
// subscription, until Cancel.
func (s *Subscription) Release() {
	s.mu.Lock()
	if !s.released && !s.closed {
		s.released = true
		go s.loop()
	}
	for (len(s.pending) > 0 || s.printing) && !s.closed {
		s.cond.Wait()
	}
	s.mu.Unlock()
}

func (s *Subscription) loop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		for len(s.pending) == 0 && !s.closed {
			s.cond.Wait()
		}
		if s.closed {
			return
		}
		msg := s.pending[0]
		s.pending = s.pending[1:]
		s.printing = true
		s.mu.Unlock()
		s.print(msg)
		s.mu.Lock()
		s.printing = false
		s.cond.Broadcast()
	}
}

// Cancel ends the subscription: warnings not yet printed never are.
func (s *Subscription) Cancel() {
	s.w.mu.Lock()
	delete(s.w.subs, s)
	s.w.mu.Unlock()
	s.mu.Lock()
	s.closed = true
	s.pending = nil
	s.cond.Broadcast()
	s.mu.Unlock()
}
