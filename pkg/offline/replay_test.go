package offline

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-informer/kubectl-informer/pkg/engine"
)

func TestReplayClock(t *testing.T) {
	since := t0
	tests := []struct {
		name    string
		speed   float64
		elapsed time.Duration // since the replay started
		event   time.Duration // recorded after since
		want    time.Duration // slept
	}{
		{name: "all at once", speed: 0, elapsed: 0, event: time.Hour, want: 0},
		{name: "real time", speed: 1, elapsed: 0, event: 10 * time.Second, want: 10 * time.Second},
		{name: "ten times", speed: 10, elapsed: 0, event: 10 * time.Second, want: time.Second},
		{name: "ten times, part waited", speed: 10, elapsed: 400 * time.Millisecond, event: 10 * time.Second, want: 600 * time.Millisecond},
		{name: "already due", speed: 2, elapsed: time.Minute, event: 10 * time.Second, want: 0},
		{name: "half speed", speed: 0.5, elapsed: 0, event: time.Second, want: 2 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newReplayClock(since, tt.speed)
			var slept time.Duration
			c.sleep = func(_ context.Context, d time.Duration) error { slept += d; return nil }
			c.now = func() time.Time { return c.started.Add(tt.elapsed) }
			if err := c.wait(context.Background(), since.Add(tt.event)); err != nil {
				t.Fatal(err)
			}
			if slept != tt.want {
				t.Fatalf("wait(since+%s) at speed %g after %s slept %s, want %s", tt.event, tt.speed, tt.elapsed, slept, tt.want)
			}
		})
	}
}

func TestReplayClockInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, speed := range []float64{0, 1} {
		if err := newReplayClock(t0, speed).wait(ctx, t0.Add(time.Hour)); err == nil {
			t.Errorf("wait at speed %g with an ended context = nil, want its error", speed)
		}
	}
}

func TestReplay(t *testing.T) {
	path := writeRecording(t, rolloutEvents())
	tests := []struct {
		name    string
		window  Window
		initial string   // the pods at the start
		events  []string // TYPE name=image
	}{
		{name: "whole", initial: "web-1=web:v1 web-2=web:v1", events: []string{"ADDED web-3=web:v1", "MODIFIED web-1=web:v2", "DELETED web-1=web:v2"}},
		{name: "since", window: Window{Since: t0.Add(15 * time.Second)}, initial: "web-1=web:v1 web-2=web:v1 web-3=web:v1", events: []string{"MODIFIED web-1=web:v2", "DELETED web-1=web:v2"}},
		{name: "until", window: Window{Until: t0.Add(20 * time.Second)}, initial: "web-1=web:v1 web-2=web:v1", events: []string{"ADDED web-3=web:v1", "MODIFIED web-1=web:v2"}},
		{name: "an empty window", window: Window{Since: t0.Add(11 * time.Second), Until: t0.Add(19 * time.Second)}, initial: "web-1=web:v1 web-2=web:v1 web-3=web:v1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := NewReplay(path, tt.window)
			if err != nil {
				t.Fatal(err)
			}
			source := p.Source()
			if got := listPods(t, source); got != tt.initial {
				t.Fatalf("the state at the start = %q, want %q", got, tt.initial)
			}
			mappings, _ := engine.Resolve(source.RESTMapper(), []string{"pods"})
			feed, err := source.Feed(mappings[0], "shop", true)
			if err != nil {
				t.Fatal(err)
			}
			w, err := feed.WatchWithContext(context.Background(), metav1.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Stop()
			if err := p.Run(context.Background()); err != nil {
				t.Fatalf("Run() = %v", err)
			}
			<-source.(interface{ Finished() <-chan struct{} }).Finished()
			var got []string
			for len(got) < len(tt.events) {
				select {
				case ev := <-w.ResultChan():
					pod := ev.Object.(*corev1.Pod)
					got = append(got, string(ev.Type)+" "+pod.Name+"="+pod.Spec.Containers[0].Image)
				case <-time.After(5 * time.Second):
					t.Fatalf("events %q, want %q", got, tt.events)
				}
			}
			if strings.Join(got, ", ") != strings.Join(tt.events, ", ") {
				t.Fatalf("events %q, want %q", got, tt.events)
			}
		})
	}
}
