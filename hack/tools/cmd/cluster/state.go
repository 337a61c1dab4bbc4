package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// primaryName is the name of the kube-apiserver that up starts.
const primaryName = "kube-apiserver"

// clusterState is DIR/cluster.json: everything later verbs, and the e2e
// framework, need to find and manage the processes of one cluster. Every
// verb that changes it holds DIR/.cluster.lock.
type clusterState struct {
	Dir                   string                     `json:"dir"`
	KubernetesVersion     string                     `json:"kubernetesVersion"`
	ServiceClusterIPRange string                     `json:"serviceClusterIPRange"`
	CACert                string                     `json:"caCert"`
	AdminKubeconfig       string                     `json:"adminKubeconfig"`
	ViewerKubeconfig      string                     `json:"viewerKubeconfig"`
	Etcd                  etcdState                  `json:"etcd"`
	APIServers            map[string]*apiServerState `json:"apiservers"`
	// Components are the processes up --nodes starts, by name
	// (kube-controller-manager, kube-scheduler, kwok, and with --metrics
	// metrics-server); none without it.
	Components map[string]*componentState `json:"components,omitempty"`
	// Nodes is the number of simulated nodes up --nodes registered.
	Nodes int `json:"nodes,omitempty"`
	// Metrics says up --metrics started metrics-server (a component) and
	// the apiservers with the aggregation layer's flags.
	Metrics bool `json:"metrics,omitempty"`
	// GPUs is the nvidia.com/gpu of each odd-numbered node (up --gpus).
	GPUs int `json:"gpus,omitempty"`
	// ReaperPID is the watcher that runs down when the owner process exits
	// (up --owner-pid); 0 if there is none.
	ReaperPID int `json:"reaperPID,omitempty"`
}

// etcdState describes the etcd process.
type etcdState struct {
	Binary     string   `json:"binary"`
	ClientURL  string   `json:"clientURL"`
	ClientPort int      `json:"clientPort"`
	PeerPort   int      `json:"peerPort"`
	PID        int      `json:"pid"`
	Log        string   `json:"log"`
	Args       []string `json:"args"`
}

// apiServerState describes one kube-apiserver. PID is 0 while it is stopped;
// Args and Port stay so start-apiserver can bring it back as it was.
type apiServerState struct {
	Name       string   `json:"name"`
	Binary     string   `json:"binary"`
	URL        string   `json:"url"`
	Port       int      `json:"port"`
	PID        int      `json:"pid"`
	Kubeconfig string   `json:"kubeconfig"`
	Log        string   `json:"log"`
	AuditLog   string   `json:"auditLog"`
	Args       []string `json:"args"`
}

func statePath(dir string) string { return filepath.Join(dir, "cluster.json") }

// loadState reads DIR/cluster.json; it returns nil, nil if there is none.
func loadState(dir string) (*clusterState, error) {
	data, err := os.ReadFile(statePath(dir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading cluster state: %w", err)
	}
	var st clusterState
	if err := json.Unmarshal(data, &st); err != nil {
		return nil, fmt.Errorf("parsing %s: %w", statePath(dir), err)
	}
	if st.APIServers == nil {
		st.APIServers = map[string]*apiServerState{}
	}
	return &st, nil
}

// save writes cluster.json and env atomically (temp file, then rename).
func (st *clusterState) save() error {
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding cluster state: %w", err)
	}
	if err := writeFileAtomic(statePath(st.Dir), append(data, '\n'), 0o644); err != nil {
		return err
	}
	return writeFileAtomic(filepath.Join(st.Dir, "env"), []byte(st.env()), 0o644)
}

// env renders DIR/env: shell assignments with the ports, URLs and pids, for
// scripts (`. DIR/env`). A pid of 0 means not running.
func (st *clusterState) env() string {
	var b strings.Builder
	set := func(k, v string) { fmt.Fprintf(&b, "%s=%s\n", k, shellQuote(v)) }
	set("CLUSTER_DIR", st.Dir)
	set("KUBERNETES_VERSION", st.KubernetesVersion)
	set("ETCD_URL", st.Etcd.ClientURL)
	set("ETCD_CLIENT_PORT", strconv.Itoa(st.Etcd.ClientPort))
	set("ETCD_PEER_PORT", strconv.Itoa(st.Etcd.PeerPort))
	set("ETCD_PID", strconv.Itoa(st.Etcd.PID))
	set("CA_CERT", st.CACert)
	set("ADMIN_KUBECONFIG", st.AdminKubeconfig)
	set("VIEWER_KUBECONFIG", st.ViewerKubeconfig)
	names := make([]string, 0, len(st.APIServers))
	for name := range st.APIServers {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		a := st.APIServers[name]
		prefix := "APISERVER"
		if name != primaryName {
			prefix = "APISERVER_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
		}
		set(prefix+"_URL", a.URL)
		set(prefix+"_PORT", strconv.Itoa(a.Port))
		set(prefix+"_PID", strconv.Itoa(a.PID))
		set(prefix+"_KUBECONFIG", a.Kubeconfig)
	}
	set("NODES", strconv.Itoa(st.Nodes))
	for _, name := range componentBins {
		if c, ok := st.Components[name]; ok {
			set(strings.ToUpper(strings.ReplaceAll(name, "-", "_"))+"_PID", strconv.Itoa(c.PID))
		}
	}
	set("REAPER_PID", strconv.Itoa(st.ReaperPID))
	return b.String()
}

func shellQuote(s string) string {
	if s != "" && regexp.MustCompile(`^[A-Za-z0-9_./:@=+-]+$`).MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func writeFileAtomic(path string, data []byte, mode os.FileMode) error {
	tmp := fmt.Sprintf("%s.tmp-%d", path, os.Getpid())
	if err := os.WriteFile(tmp, data, mode); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// lockDir takes DIR/.cluster.lock, which serialises the verbs that change a
// cluster.
func lockDir(dir string) (func(), error) {
	return lockFile(filepath.Join(dir, ".cluster.lock"))
}

var apiServerNameRE = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,30}[a-z0-9])?$`)

// validateName checks the NAME of an extra apiserver: it names files in DIR,
// so it must be simple and must not clash with the fixed ones.
func validateName(name string) error {
	if !apiServerNameRE.MatchString(name) {
		return fmt.Errorf("apiserver name %q must be lowercase letters, digits and '-', at most 32 characters", name)
	}
	switch name {
	case primaryName, "admin", "viewer", "etcd", "audit", "cluster", "reaper", "env", "pki":
		return fmt.Errorf("apiserver name %q is taken by a file in the cluster directory", name)
	}
	return nil
}
