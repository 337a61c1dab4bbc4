// Command fleet runs several real local control planes at once, for the
// fleet tests and demo of kubectl-informer: N clusters, each one
// `hack/cluster up` in DIR/fleet-I (its own etcd, kube-apiserver, PKI and
// ports), started in parallel, and one kubeconfig naming them all.
//
// It is run as `hack/cluster fleet VERB`, which builds it from the tools
// module. DIR/kubeconfig holds, for I = 1..N, the context fleet-I (admin at
// cluster I) and viewer-I (user viewer at cluster I, who may read only pods
// in team-a), and the context dead, whose server is https://127.0.0.1:1,
// where nothing listens: every request to it fails at once with
// "connection refused". DIR/fleet.json lists the clusters.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

const usage = `usage: hack/cluster fleet VERB DIR [FLAGS]

Verbs:
  up DIR [--clusters N] [--timeout 90s] [--owner-pid PID]
        Start N control planes (default 3) in parallel, cluster I in
        DIR/fleet-I (hack/cluster up DIR/fleet-I), and write DIR/kubeconfig
        with the contexts fleet-I (admin), viewer-I (viewer: get/list/watch
        pods in team-a) and dead (https://127.0.0.1:1, nothing listens),
        and DIR/fleet.json. If one cluster fails to start, the others are
        stopped again. --owner-pid is passed to each cluster's up.
  down DIR
        Stop every cluster of the fleet in DIR (hack/cluster down DIR/fleet-I).
  help
        Print this text.
`

// DeadContext is the context that points at nothing.
const DeadContext = "dead"

// DeadServer is the dead context's server: port 1 on the loopback, where
// nothing listens.
const DeadServer = "https://127.0.0.1:1"

// maxClusters bounds --clusters: each control plane takes ~300 MiB.
const maxClusters = 20

// fleetState is DIR/fleet.json.
type fleetState struct {
	Kubeconfig string         `json:"kubeconfig"`
	Dead       string         `json:"deadContext"`
	Clusters   []clusterEntry `json:"clusters"`
}

type clusterEntry struct {
	Context       string `json:"context"`
	ViewerContext string `json:"viewerContext"`
	Dir           string `json:"dir"`
}

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintf(os.Stderr, "cluster fleet: %v\n", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) == 0 {
		fmt.Fprint(os.Stderr, usage)
		return errors.New("missing verb")
	}
	verb, args := args[0], args[1:]
	fs := flag.NewFlagSet("cluster fleet "+verb, flag.ContinueOnError)
	fs.Usage = func() { fmt.Fprint(os.Stderr, usage) }
	clusters := fs.Int("clusters", 3, "how many control planes")
	timeout := fs.Duration("timeout", 90*time.Second, "how long each cluster may take to be ready")
	ownerPID := fs.Int("owner-pid", 0, "run down once this process exits")
	switch verb {
	case "help", "-h", "--help":
		fmt.Print(usage)
		return nil
	case "up", "down":
	default:
		fmt.Fprint(os.Stderr, usage)
		return fmt.Errorf("unknown verb %q", verb)
	}
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return err
		}
		args = fs.Args()
		if len(args) == 0 {
			break
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
	if len(pos) != 1 {
		fmt.Fprint(os.Stderr, usage)
		return fmt.Errorf("%s takes DIR, got %q", verb, strings.Join(pos, " "))
	}
	dir, err := filepath.Abs(pos[0])
	if err != nil {
		return fmt.Errorf("resolving %s: %w", pos[0], err)
	}
	if verb == "down" {
		return down(dir)
	}
	if *clusters < 1 || *clusters > maxClusters {
		return fmt.Errorf("--clusters must be between 1 and %d, got %d", maxClusters, *clusters)
	}
	return up(dir, *clusters, *timeout, *ownerPID)
}

// clusterScript is hack/cluster, found beside the tools module.
func clusterScript() (string, error) {
	tools := os.Getenv("KUBECTL_INFORMER_TOOLS_DIR")
	if tools == "" {
		return "", errors.New("KUBECTL_INFORMER_TOOLS_DIR is not set; run this as hack/cluster fleet")
	}
	return filepath.Join(filepath.Dir(tools), "cluster"), nil
}

func clusterDir(dir string, i int) string { return filepath.Join(dir, "fleet-"+strconv.Itoa(i)) }

func up(dir string, n int, timeout time.Duration, ownerPID int) error {
	began := time.Now()
	script, err := clusterScript()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", dir, err)
	}
	// Build the binaries once before the parallel ups, so that they do
	// not all find them missing at the same time.
	if out, err := exec.Command(script, "build", "--control-plane-only").CombinedOutput(); err != nil {
		return fmt.Errorf("hack/cluster build: %w\n%s", err, out)
	}
	errs := make([]error, n)
	outs := make([][]byte, n)
	var wg sync.WaitGroup
	for i := 1; i <= n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			args := []string{"up", clusterDir(dir, i), "--timeout", timeout.String()}
			if ownerPID != 0 {
				args = append(args, "--owner-pid", strconv.Itoa(ownerPID))
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*timeout+time.Minute)
			defer cancel()
			outs[i-1], errs[i-1] = exec.CommandContext(ctx, script, args...).CombinedOutput()
			if errs[i-1] != nil {
				errs[i-1] = fmt.Errorf("cluster fleet-%d: %w\n%s", i, errs[i-1], outs[i-1])
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		down(dir)
		return err
	}
	st, err := writeKubeconfig(dir, n)
	if err != nil {
		down(dir)
		return err
	}
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "fleet.json"), append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("writing fleet.json: %w", err)
	}
	fmt.Printf("fleet: %d clusters up in %s\n", n, time.Since(began).Round(10*time.Millisecond))
	for i, c := range st.Clusters {
		first, _, _ := strings.Cut(string(outs[i]), "\n")
		fmt.Printf("  %-10s %s (%s)\n", c.Context, c.Dir, first)
	}
	fmt.Printf("  %-10s %s (nothing listens)\n", DeadContext, DeadServer)
	fmt.Printf("  kubeconfig export KUBECONFIG=%s\n", st.Kubeconfig)
	fmt.Printf("  stop with  hack/cluster fleet down %s\n", dir)
	return nil
}

// writeKubeconfig merges the admin and viewer kubeconfigs of the n
// clusters into DIR/kubeconfig, one context each, and adds the dead one.
func writeKubeconfig(dir string, n int) (*fleetState, error) {
	st := &fleetState{Kubeconfig: filepath.Join(dir, "kubeconfig"), Dead: DeadContext}
	out := clientcmdapi.NewConfig()
	for i := 1; i <= n; i++ {
		cdir := clusterDir(dir, i)
		name := "fleet-" + strconv.Itoa(i)
		viewer := "viewer-" + strconv.Itoa(i)
		for _, kc := range []struct{ file, context, user string }{
			{"admin.kubeconfig", name, "admin-" + strconv.Itoa(i)},
			{"viewer.kubeconfig", viewer, viewer},
		} {
			cfg, err := clientcmd.LoadFromFile(filepath.Join(cdir, kc.file))
			if err != nil {
				return nil, fmt.Errorf("reading %s: %w", filepath.Join(cdir, kc.file), err)
			}
			cur := cfg.Contexts[cfg.CurrentContext]
			if cur == nil {
				return nil, fmt.Errorf("%s has no current context", filepath.Join(cdir, kc.file))
			}
			out.Clusters[name] = cfg.Clusters[cur.Cluster]
			out.AuthInfos[kc.user] = cfg.AuthInfos[cur.AuthInfo]
			out.Contexts[kc.context] = &clientcmdapi.Context{Cluster: name, AuthInfo: kc.user}
		}
		st.Clusters = append(st.Clusters, clusterEntry{Context: name, ViewerContext: viewer, Dir: cdir})
	}
	out.Clusters[DeadContext] = &clientcmdapi.Cluster{Server: DeadServer, InsecureSkipTLSVerify: true}
	out.AuthInfos[DeadContext] = &clientcmdapi.AuthInfo{Token: "none"}
	out.Contexts[DeadContext] = &clientcmdapi.Context{Cluster: DeadContext, AuthInfo: DeadContext}
	out.CurrentContext = "fleet-1"
	if err := clientcmd.WriteToFile(*out, st.Kubeconfig); err != nil {
		return nil, fmt.Errorf("writing %s: %w", st.Kubeconfig, err)
	}
	return st, nil
}

// down stops every cluster DIR/fleet-* that has a cluster.json.
func down(dir string) error {
	script, err := clusterScript()
	if err != nil {
		return err
	}
	dirs, err := filepath.Glob(filepath.Join(dir, "fleet-*", "cluster.json"))
	if err != nil {
		return err
	}
	errs := make([]error, len(dirs))
	var wg sync.WaitGroup
	for i, path := range dirs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cdir := filepath.Dir(path)
			if out, err := exec.Command(script, "down", cdir).CombinedOutput(); err != nil {
				errs[i] = fmt.Errorf("hack/cluster down %s: %w\n%s", cdir, err, out)
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}
