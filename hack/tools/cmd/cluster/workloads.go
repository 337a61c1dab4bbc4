package main

import (
	"crypto/tls"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// componentState describes one process that up --nodes starts besides etcd
// and the apiservers: kube-controller-manager, kube-scheduler or kwok.
type componentState struct {
	Name   string `json:"name"`
	Binary string `json:"binary"`
	PID    int    `json:"pid"`
	// HealthURL answers 200 "ok" once the process serves.
	HealthURL  string   `json:"healthURL"`
	Kubeconfig string   `json:"kubeconfig"`
	Log        string   `json:"log"`
	Args       []string `json:"args"`
}

// kwokNodeAnnotation marks the nodes kwok manages; kwok leaves every other
// node alone.
const kwokNodeAnnotation = "kwok.x-k8s.io/node"

// The stages kwok plays, from the kwok module's kustomize/stage: nodes
// become Ready and keep a heartbeat; pods become Running and Ready, finish
// when their containers would (Jobs), and are removed once deleted with a
// grace period, as a kubelet does.
var kwokStageFiles = []string{
	"kustomize/stage/node/fast/node-initialize.yaml",
	"kustomize/stage/node/heartbeat/node-heartbeat.yaml",
	"kustomize/stage/pod/fast/pod-ready.yaml",
	"kustomize/stage/pod/fast/pod-complete.yaml",
	"kustomize/stage/pod/fast/pod-delete.yaml",
}

// kwokStagesPath is kwok's configuration file in the binary cache dir.
func kwokStagesPath(dir string) string {
	return filepath.Join(dir, kwokBin+"-"+kwokVersion+"-stages.yaml")
}

// writeKwokStages copies kwokStageFiles from the kwok module, as hack/kwok
// requires it, into one configuration file beside the kwok binary.
func writeKwokStages(dir string) error {
	mod, err := moduleDir("kwok")
	if err != nil {
		return err
	}
	src, err := moduleInfo(mod, "{{.Dir}}", kwokModule)
	if err != nil {
		return err
	}
	var b strings.Builder
	for _, f := range kwokStageFiles {
		data, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			return fmt.Errorf("reading kwok's stage %s: %w", f, err)
		}
		fmt.Fprintf(&b, "# %s@%s %s\n---\n%s\n", kwokModule, kwokVersion, f, strings.TrimRight(string(data), "\n"))
	}
	return writeFileAtomic(kwokStagesPath(dir), []byte(b.String()), 0o644)
}

// schedulerConfig is kube-scheduler's configuration: its client, raised
// limits (the default 50 QPS binds about 25 pods a second), and no leader
// election, since it is the only scheduler.
const schedulerConfig = `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection:
  kubeconfig: %s
  qps: 500
  burst: 1000
leaderElection:
  leaderElect: false
`

// newComponents describes kube-controller-manager, kube-scheduler and kwok
// for st, each with its own identity and a health port from ports (three).
func newComponents(st *clusterState, p pkiFiles, bins binaries, ports []int) (map[string]*componentState, error) {
	primary := st.APIServers[primaryName]
	comps := map[string]*componentState{}
	for i, name := range workloadBins {
		c := &componentState{
			Name:       name,
			Binary:     bins[name],
			Kubeconfig: filepath.Join(st.Dir, name+".kubeconfig"),
			Log:        filepath.Join(st.Dir, name+".log"),
		}
		if err := writeKubeconfig(c.Kubeconfig, primary.URL, p, name); err != nil {
			return nil, err
		}
		port := strconv.Itoa(ports[i])
		serving := []string{"--bind-address=127.0.0.1", "--secure-port=" + port, "--cert-dir=" + filepath.Join(st.Dir, name)}
		c.HealthURL = "https://127.0.0.1:" + port + "/healthz"
		switch name {
		case controllerManagerBin:
			c.Args = append(serving,
				"--kubeconfig="+c.Kubeconfig,
				"--leader-elect=false",
				// csrsigning would need the CA's key; nothing here asks
				// for certificates.
				"--controllers=*,-csrsigning",
				"--use-service-account-credentials=true",
				"--service-account-private-key-file="+p.SAKey(),
				"--root-ca-file="+p.CACert(),
				"--kube-api-qps=500",
				"--kube-api-burst=1000",
				// kwok's heartbeat comes every 20 to 45 s; the default
				// grace (50 s) would mark nodes NotReady now and then.
				"--node-monitor-grace-period=2m",
			)
		case schedulerBin:
			config := filepath.Join(st.Dir, "kube-scheduler.yaml")
			if err := writeFileAtomic(config, []byte(fmt.Sprintf(schedulerConfig, c.Kubeconfig)), 0o644); err != nil {
				return nil, err
			}
			c.Args = append(serving, "--config="+config)
		case kwokBin:
			c.HealthURL = "http://127.0.0.1:" + port + "/healthz"
			stages := kwokStagesPath(filepath.Dir(c.Binary))
			c.Args = []string{
				"--kubeconfig=" + c.Kubeconfig,
				"--config=" + stages,
				"--manage-all-nodes=false",
				"--manage-nodes-with-annotation-selector=" + kwokNodeAnnotation + "=fake",
				"--server-address=127.0.0.1:" + port,
			}
			if st.Metrics {
				// The resource metrics of every node, and pods' usage
				// from their annotations, served on this port, which
				// nodes give as their kubelet's (daemonEndpoints).
				config, err := writeKwokMetricsConfig(st.Dir)
				if err != nil {
					return nil, err
				}
				c.Args = append(c.Args, "--config="+config, "--node-port="+port)
			}
		}
		comps[name] = c
	}
	return comps, nil
}

// startComponent starts c and waits until its health endpoint answers.
func (st *clusterState) startComponent(c *componentState, timeout time.Duration) error {
	proc, err := startDetached(c.Binary, c.Args, c.Log)
	if err != nil {
		return err
	}
	c.PID = proc.pid
	if err := st.save(); err != nil {
		return err
	}
	// The components serve their health check with a self-signed
	// certificate they make at start.
	insecure := &tls.Config{InsecureSkipVerify: true} //nolint:gosec // local health probe only
	return waitHTTP(c.Name, c.HealthURL, "ok", insecure, proc, c.Log, timeout)
}

// startWorkloads starts kube-controller-manager, kube-scheduler and kwok,
// then registers n simulated nodes and waits until kwok reports them Ready.
func (st *clusterState) startWorkloads(p pkiFiles, bins binaries, n int, timeout time.Duration) error {
	ports, err := freePorts(len(workloadBins))
	if err != nil {
		return err
	}
	comps, err := newComponents(st, p, bins, ports)
	if err != nil {
		return err
	}
	st.Components = comps
	st.Nodes = n
	for _, name := range workloadBins {
		if err := st.startComponent(comps[name], timeout); err != nil {
			return err
		}
	}
	return registerNodes(st.AdminKubeconfig, n, nodeOptions{gpus: st.GPUs, metrics: st.Metrics}, timeout)
}
