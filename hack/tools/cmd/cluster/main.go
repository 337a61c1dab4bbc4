// Command cluster runs a real local control plane for the tests, benchmarks
// and demo of kubectl-informer: one etcd and one or more kube-apiservers, all
// on 127.0.0.1 at ports picked at run time, with TLS, client-certificate
// authentication, RBAC, service-account keys and an audit log; on request
// also kube-controller-manager, kube-scheduler and nodes simulated by kwok.
//
// It is run through hack/cluster, which builds it from the tools module.
// Everything about one cluster lives in one directory (DIR): certificates,
// etcd data, logs, kubeconfigs and cluster.json, the state that later verbs
// read. The processes it starts run in their own sessions, so they outlive
// the command; `down` stops them by pid.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"
)

const usage = `usage: hack/cluster VERB [ARGS] [FLAGS]

Verbs:
  build [--force] [--control-plane-only]
        Build kube-apiserver, etcd, kube-controller-manager, kube-scheduler,
        kwok and metrics-server into the cache if missing
        (${KUBECTL_INFORMER_CACHE:-$HOME/.cache/kubectl-informer}/k8s-VERSION/).
        --control-plane-only builds kube-apiserver and etcd alone.
  up DIR [--nodes N [--metrics] [--gpus G]] [--timeout 60s] [--owner-pid PID]
        Build what is missing, start etcd and kube-apiserver with their state
        in DIR, wait for /readyz, and write DIR/admin.kubeconfig,
        DIR/viewer.kubeconfig, DIR/audit.log, DIR/env and DIR/cluster.json.
        With --nodes N (N > 0), also start kube-controller-manager,
        kube-scheduler and kwok, register N simulated nodes (spread over
        three zones and three instance types) and wait until they are Ready:
        Deployments then roll out, pods are scheduled and reach Running.
        With --metrics, also start metrics-server (a sample every 10s) behind
        an APIService v1beta1.metrics.k8s.io, scraping the resource metrics
        kwok simulates for each node: a pod uses the CPU and memory of its
        annotations kwok.x-k8s.io/usage-cpu and kwok.x-k8s.io/usage-memory
        in each of its containers (1m and 1Mi without them), and kubectl top
        works once two samples were taken. viewer may read the metrics of
        team-a's pods.
        With --gpus G, odd-numbered nodes have G nvidia.com/gpu allocatable
        (and the label nvidia.com/gpu.present=true); the others have none.
        With --owner-pid, a watcher runs "down DIR" once that process exits.
  down DIR
        Stop every process up started in DIR (SIGTERM, then SIGKILL).
        Safe to run twice; leaves logs and data in DIR.
  apiserver DIR NAME [--timeout 60s] [--no-watch-cache]
        Start another kube-apiserver against the same etcd, certificates and
        service-account keys on a new port; writes DIR/NAME.kubeconfig (admin),
        DIR/NAME.log and DIR/NAME-audit.log. --no-watch-cache serves lists
        and watches straight from etcd (--watch-cache=false).
  stop-apiserver DIR [NAME] [--kill]
        Stop one kube-apiserver (default: the primary, "kube-apiserver").
        --kill sends SIGKILL at once instead of SIGTERM.
  start-apiserver DIR [NAME] [--timeout 60s]
        Start a stopped kube-apiserver again with the same flags and port.
  components DIR NAME [--timeout 60s]
        Restart kube-controller-manager, kube-scheduler, kwok and
        metrics-server (if it runs) against
        the apiserver NAME ("kube-apiserver" is the primary), as a load
        balancer of an HA control plane would send them there: they keep
        driving the cluster while another apiserver is stopped.
  compact DIR
        Compact etcd's history up to its current revision: a watch that
        resumes from an older resourceVersion through an apiserver without a
        watch cache then gets "410 Gone".
  status DIR
        Print the ports, pids and whether each process is running.
  help
        Print this text.
`

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintf(os.Stderr, "cluster: %v\n", err)
		os.Exit(1)
	}
}

// errUsage marks errors that should be followed by the usage text.
var errUsage = errors.New("usage")

func run(args []string) error {
	if len(args) == 0 {
		fmt.Fprint(os.Stderr, usage)
		return fmt.Errorf("missing verb: %w", errUsage)
	}
	verb, args := args[0], args[1:]
	fs := flag.NewFlagSet("cluster "+verb, flag.ContinueOnError)
	fs.Usage = func() { fmt.Fprint(os.Stderr, usage) }
	timeout := fs.Duration("timeout", 60*time.Second, "how long to wait for readiness")
	switch verb {
	case "help", "-h", "--help":
		fmt.Print(usage)
		return nil
	case "build":
		force := fs.Bool("force", false, "rebuild even if the binaries exist")
		controlPlaneOnly := fs.Bool("control-plane-only", false, "build only kube-apiserver and etcd")
		if _, err := parseArgs(fs, args, 0, 0); err != nil {
			return err
		}
		names := controlPlaneBins
		if !*controlPlaneOnly {
			names = append(append(append([]string{}, controlPlaneBins...), workloadBins...), metricsBins...)
		}
		bins, err := ensureBinaries(*force, names...)
		if err != nil {
			return err
		}
		for _, name := range names {
			fmt.Printf("%s: %s\n", name, bins[name])
		}
		return nil
	case "up":
		ownerPID := fs.Int("owner-pid", 0, "run down once this process exits")
		var o upOptions
		fs.IntVar(&o.nodes, "nodes", 0, "also start controllers, a scheduler and this many simulated nodes")
		fs.BoolVar(&o.metrics, "metrics", false, "also start metrics-server behind the metrics.k8s.io APIService (needs --nodes)")
		fs.IntVar(&o.gpus, "gpus", 0, "give odd-numbered nodes this many nvidia.com/gpu (needs --nodes)")
		pos, err := parseArgs(fs, args, 1, 1)
		if err != nil {
			return err
		}
		return upRetrying(pos[0], *timeout, *ownerPID, o)
	case "down":
		pos, err := parseArgs(fs, args, 1, 1)
		if err != nil {
			return err
		}
		return down(pos[0])
	case "apiserver":
		noWatchCache := fs.Bool("no-watch-cache", false, "start it with --watch-cache=false")
		pos, err := parseArgs(fs, args, 2, 2)
		if err != nil {
			return err
		}
		return addAPIServer(pos[0], pos[1], *timeout, *noWatchCache)
	case "stop-apiserver":
		kill := fs.Bool("kill", false, "send SIGKILL at once")
		pos, err := parseArgs(fs, args, 1, 2)
		if err != nil {
			return err
		}
		return stopAPIServer(pos[0], nameArg(pos), *kill)
	case "start-apiserver":
		pos, err := parseArgs(fs, args, 1, 2)
		if err != nil {
			return err
		}
		return startAPIServer(pos[0], nameArg(pos), *timeout)
	case "components":
		pos, err := parseArgs(fs, args, 2, 2)
		if err != nil {
			return err
		}
		return moveComponents(pos[0], pos[1], *timeout)
	case "compact":
		pos, err := parseArgs(fs, args, 1, 1)
		if err != nil {
			return err
		}
		return compact(pos[0])
	case "status":
		pos, err := parseArgs(fs, args, 1, 1)
		if err != nil {
			return err
		}
		return status(pos[0])
	case "reap":
		// Internal: started by up --owner-pid, detached.
		ownerPID := fs.Int("owner-pid", 0, "")
		ownerStart := fs.Uint64("owner-start", 0, "")
		pos, err := parseArgs(fs, args, 1, 1)
		if err != nil {
			return err
		}
		return reap(pos[0], *ownerPID, *ownerStart)
	default:
		fmt.Fprint(os.Stderr, usage)
		return fmt.Errorf("unknown verb %q: %w", verb, errUsage)
	}
}

// nameArg returns the optional NAME argument, defaulting to the primary
// apiserver.
func nameArg(pos []string) string {
	if len(pos) > 1 {
		return pos[1]
	}
	return primaryName
}

// parseArgs parses flags anywhere among the arguments (the standard flag
// package stops at the first positional one) and checks the number of
// positional arguments.
func parseArgs(fs *flag.FlagSet, args []string, minPos, maxPos int) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			break
		}
		if args[0] == "--" {
			pos = append(pos, args[1:]...)
			break
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
	if len(pos) < minPos || len(pos) > maxPos {
		fmt.Fprint(os.Stderr, usage)
		return nil, fmt.Errorf("%s takes %s, got %q: %w", fs.Name(), argCount(minPos, maxPos), strings.Join(pos, " "), errUsage)
	}
	return pos, nil
}

func argCount(minPos, maxPos int) string {
	switch {
	case maxPos == 0:
		return "no arguments"
	case minPos == maxPos:
		return fmt.Sprintf("%d argument(s)", minPos)
	default:
		return fmt.Sprintf("%d to %d arguments", minPos, maxPos)
	}
}
