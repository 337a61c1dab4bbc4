package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"k8s.io/client-go/tools/clientcmd"

	metricsusage "github.com/kubectl-informer/kubectl-informer/pkg/usage"
)

// The usage step (issue 38): what pods use, grouped by workload, at
// BENCH_REAL_PODS pods on a cluster of its own with metrics-server, cold
// and through a warm cache, beside the raw PodMetrics LIST.

// usageResult is the usage step.
type usageResult struct {
	real *realisticResult // the roll-out: nodes, Deployments, timings
	// sampledTime is from every pod Running until the metrics API had a
	// sample of each.
	sampledTime time.Duration
	sampled     int
	results     map[string]*result
	// cacheReadings are the warm cache's readings of PodMetrics after the
	// rows, and how many warm queries it answered.
	cacheReadings int64
	warmAnswered  int
	err           string
}

// usageQuery is the measured question: usage grouped by workload.
var usageQuery = []string{"query", "pods", "-A", "--group-by", "owner-root", "--sum", "usage.cpu", "--sum", "usage.memory"}

// usageStep starts a cluster of BENCH_REAL_NODES kwok nodes with
// metrics-server (hack/cluster up --metrics), rolls the realistic step's
// Deployments out on it, waits for a sample of every pod, and measures the
// raw PodMetrics LIST, the usage query cold (--cache off) and the same
// through a warm cache.
func (b *bench) usageStep(ctx context.Context) (err error) {
	r := &usageResult{real: &realisticResult{nodes: b.realNodes, deployments: b.realDeployments}}
	dir := filepath.Join(b.workDir, "usage")
	defer func() {
		down, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if _, derr := b.tool(down, "hack/cluster", "down", dir); derr != nil {
			err = errors.Join(err, derr)
		}
		if err != nil {
			r.err = err.Error()
		}
	}()
	b.logf("usage: hack/cluster up --nodes %d --metrics", b.realNodes)
	start := time.Now()
	if _, err := b.tool(ctx, "hack/cluster", "up", dir, "--nodes", strconv.Itoa(b.realNodes), "--metrics",
		"--owner-pid", strconv.Itoa(os.Getpid()), "--timeout", "5m"); err != nil {
		return err
	}
	r.real.upTime = time.Since(start)
	b.rep.usage = r
	kubeconfig := filepath.Join(dir, "admin.kubeconfig")
	if err := b.rollOut(ctx, kubeconfig, r.real); err != nil {
		return err
	}
	if err := b.waitForSamples(ctx, kubeconfig, r); err != nil {
		return err
	}
	b.write()

	seededKubeconfig := b.kubeconfig
	b.kubeconfig = kubeconfig
	defer func() { b.kubeconfig = seededKubeconfig }()
	env, stop, err := b.startWarmCache(ctx, "usage-xdg")
	if err != nil {
		return err
	}
	defer stop()
	groups := func(stdout string) error {
		if !strings.HasPrefix(stdout, "OWNER-ROOT") || countLines(stdout) < b.realDeployments+2 {
			return fmt.Errorf("want a row per Deployment and TOTAL, got %d lines", countLines(stdout))
		}
		return nil
	}
	cases := []benchCase{
		{id: "usage-raw", title: "`kubectl get --raw /apis/metrics.k8s.io/v1beta1/pods`",
			argv: []string{"kubectl", "get", "--raw", "/apis/metrics.k8s.io/v1beta1/pods"},
			check: func(stdout string) error {
				if !strings.Contains(stdout, `"PodMetricsList"`) {
					return errors.New("not a PodMetricsList")
				}
				return nil
			}},
		{id: "usage-cold", title: "`kubectl informer " + strings.Join(usageQuery, " ") + " --cache off`",
			argv: append(append([]string{"kubectl", "informer"}, usageQuery...), "--cache", "off"), check: groups},
		{id: "usage-warm", title: "the same through `cache start`",
			argv: append([]string{"kubectl", "informer"}, usageQuery...), env: env, check: groups},
	}
	if r.results, err = b.measureCases(ctx, cases); err != nil {
		return err
	}
	st, err := b.cacheStatus(ctx, env)
	if err != nil {
		return err
	}
	r.warmAnswered = int(st.Answered)
	for _, u := range st.Usage {
		if u.Pods {
			r.cacheReadings += u.Readings
		}
	}
	return nil
}

// waitForSamples waits until the metrics API has a sample of every pod.
func (b *bench) waitForSamples(ctx context.Context, kubeconfig string, r *usageResult) error {
	config, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return err
	}
	client, err := metricsusage.NewClient(config)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	start := time.Now()
	for {
		s, err := metricsusage.Fetch(ctx, client, metricsusage.Config{Pods: true})
		if err == nil {
			r.sampled = len(s.Pods)
		}
		if r.sampled >= r.real.set.pods {
			r.sampledTime = time.Since(start)
			b.logf("usage: samples of %d pods %.1fs after they ran", r.sampled, r.sampledTime.Seconds())
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("samples of %d of %d pods after %s (%v): %w", r.sampled, r.real.set.pods, time.Since(start).Round(time.Second), err, ctx.Err())
		case <-time.After(5 * time.Second):
		}
	}
}

// usageSection is the usage step's section of the report, "" when it did
// not run.
func (r *report) usageSection() string {
	u := r.usage
	if u == nil {
		return ""
	}
	var s strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&s, format, args...) }
	runs := 0
	for _, res := range u.results {
		runs = max(runs, len(res.samples))
	}
	p("## Usage grouped by workload (%d pods, median of %d runs)\n\n", u.real.set.pods, runs)
	p("Step `usage` (issue 38; not in the default set: it starts a cluster of its own with metrics-server). `hack/cluster up DIR --nodes %d --metrics` (kube-controller-manager, kube-scheduler, kwok nodes simulating each pod's usage, metrics-server v0.8.0 scraping them every 10 s behind the APIService), up in %.1f s; the realistic step's %d Deployments of %d pods rolled out in %.1f s; the metrics API had a sample of every pod %.1f s after they ran.\n\n",
		u.real.nodes, u.real.upTime.Seconds(), u.real.deployments, u.real.set.pods, u.real.runningTime.Seconds(), u.sampledTime.Seconds())
	if u.err != "" {
		p("The step failed: %s\n\n", u.err)
	}
	if len(u.results) == 0 {
		return s.String()
	}
	p("The question is usage per workload, `%s`: cold reads the pods (informer, streaming list) and one LIST of every PodMetrics; warm asks a running `cache start`, which keeps the pods' informer and a reader of the metrics API of its own (it answered %d queries and read the metrics API %d times during the rows, at the API's resolution, not per query). The raw PodMetrics LIST is the floor every usage tool pays (kube-capacity `--util` and kubectl-view-allocations `-u` read it, then the pods): it neither groups nor reads the pods.\n\n",
		strings.Join(usageQuery, " "), u.warmAnswered, u.cacheReadings)
	p("| command | wall s (min–max) | CPU s | peak RSS MiB | load | check |\n| --- | --- | --- | --- | --- | --- |\n")
	for _, id := range []string{"usage-raw", "usage-cold", "usage-warm"} {
		res := u.results[id]
		if res == nil {
			continue
		}
		lo, hi := res.wallRange()
		check := "right"
		if res.warn != "" {
			check = "⚠ " + res.warn
		}
		p("| %s | %.3f (%.3f–%.3f) | %.3f | %.1f | %.2f | %s |\n", res.c.title, res.wall(), lo, hi, res.cpu(), res.rss(), res.load(), check)
	}
	p("\n")
	return s.String()
}
