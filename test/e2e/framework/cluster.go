package framework

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// PrimaryAPIServer is the name hack/cluster gives the kube-apiserver that
// up starts.
const PrimaryAPIServer = "kube-apiserver"

// MetricResolution is how often the metrics-server of a cluster started
// WithMetrics takes a sample (hack/cluster up --metrics).
const MetricResolution = 10 * time.Second

// clusterState is the part of DIR/cluster.json (written by hack/cluster)
// that the framework reads.
type clusterState struct {
	AdminKubeconfig  string `json:"adminKubeconfig"`
	ViewerKubeconfig string `json:"viewerKubeconfig"`
	Etcd             struct {
		ClientURL string `json:"clientURL"`
	} `json:"etcd"`
	APIServers map[string]struct {
		URL        string `json:"url"`
		Kubeconfig string `json:"kubeconfig"`
		AuditLog   string `json:"auditLog"`
	} `json:"apiservers"`
	Nodes   int  `json:"nodes"`
	Metrics bool `json:"metrics"`
	GPUs    int  `json:"gpus"`
}

// Cluster is a control plane started by hack/cluster: etcd and one or more
// kube-apiservers, with state in Dir. Its methods are safe for concurrent
// use, but stopping and starting apiservers affects every test, so tests
// that do it should not run in parallel with others.
type Cluster struct {
	// Dir holds the cluster's certificates, kubeconfigs, logs and state.
	Dir string
	// Nodes is the number of nodes simulated by kwok, with
	// kube-controller-manager and kube-scheduler running; 0 if none.
	Nodes int
	// Metrics says metrics-server serves metrics.k8s.io (WithMetrics),
	// with a sample every MetricResolution.
	Metrics bool
	// GPUs is the nvidia.com/gpu of each odd-numbered node (WithGPUs).
	GPUs int

	repoRoot string
	admin    *rest.Config
	viewer   *rest.Config
	client   kubernetes.Interface
	dynamic  dynamic.Interface

	mu         sync.Mutex
	apiservers map[string]*APIServer
}

// APIServer is one kube-apiserver of a Cluster.
type APIServer struct {
	// Name is PrimaryAPIServer or the name given to StartSecondAPIServer.
	Name string
	// URL is https://127.0.0.1:PORT; the port stays the same across Stop
	// and Start.
	URL string
	// Kubeconfig is a kubeconfig for the admin user at this apiserver.
	Kubeconfig string
	// AuditLogPath is this apiserver's audit log.
	AuditLogPath string

	cluster *Cluster
	config  *rest.Config
}

// loadCluster reads the state of the cluster in dir. The returned Cluster
// is never nil, so that a caller can still stop it.
func loadCluster(root, dir string) (*Cluster, error) {
	c := &Cluster{Dir: dir, repoRoot: root, apiservers: map[string]*APIServer{}}
	st, err := c.readState()
	if err != nil {
		return c, err
	}
	c.Nodes = st.Nodes
	c.Metrics = st.Metrics
	c.GPUs = st.GPUs
	if c.admin, err = loadConfig(st.AdminKubeconfig); err != nil {
		return c, err
	}
	if c.viewer, err = loadConfig(st.ViewerKubeconfig); err != nil {
		return c, err
	}
	if c.client, err = kubernetes.NewForConfig(c.AdminConfig()); err != nil {
		return c, fmt.Errorf("creating the admin client: %w", err)
	}
	if c.dynamic, err = dynamic.NewForConfig(c.AdminConfig()); err != nil {
		return c, fmt.Errorf("creating the admin dynamic client: %w", err)
	}
	if err := c.refreshAPIServers(st); err != nil {
		return c, err
	}
	return c, nil
}

func (c *Cluster) readState() (*clusterState, error) {
	path := filepath.Join(c.Dir, "cluster.json")
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading cluster state: %w", err)
	}
	var st clusterState
	if err := json.Unmarshal(data, &st); err != nil {
		return nil, fmt.Errorf("parsing %s: %w", path, err)
	}
	return &st, nil
}

// refreshAPIServers records the apiservers listed in st that are new.
func (c *Cluster) refreshAPIServers(st *clusterState) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	for name, a := range st.APIServers {
		if _, ok := c.apiservers[name]; ok {
			continue
		}
		cfg, err := loadConfig(a.Kubeconfig)
		if err != nil {
			return err
		}
		c.apiservers[name] = &APIServer{
			Name:         name,
			URL:          a.URL,
			Kubeconfig:   a.Kubeconfig,
			AuditLogPath: a.AuditLog,
			cluster:      c,
			config:       cfg,
		}
	}
	return nil
}

func loadConfig(kubeconfig string) (*rest.Config, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("loading %s: %w", kubeconfig, err)
	}
	cfg.UserAgent = "kubectl-informer-e2e"
	// Tests create and change objects in bursts; client-go's default of
	// 5 QPS would make them queue behind its own rate limiter.
	cfg.QPS = 200
	cfg.Burst = 400
	return cfg, nil
}

// AdminKubeconfig returns the path of a kubeconfig for user admin (group
// system:masters) at the primary apiserver.
func (c *Cluster) AdminKubeconfig() string { return filepath.Join(c.Dir, "admin.kubeconfig") }

// ViewerKubeconfig returns the path of a kubeconfig for user viewer, whom
// RBAC allows only get, list and watch on pods in namespace team-a.
func (c *Cluster) ViewerKubeconfig() string { return filepath.Join(c.Dir, "viewer.kubeconfig") }

// AdminConfig returns a new copy of the admin user's client configuration.
func (c *Cluster) AdminConfig() *rest.Config { return rest.CopyConfig(c.admin) }

// ViewerConfig returns a new copy of the viewer user's client configuration.
func (c *Cluster) ViewerConfig() *rest.Config { return rest.CopyConfig(c.viewer) }

// AdminClient returns a clientset for the admin user at the primary
// apiserver.
func (c *Cluster) AdminClient() kubernetes.Interface { return c.client }

// AdminDynamicClient returns a dynamic client for the admin user at the
// primary apiserver.
func (c *Cluster) AdminDynamicClient() dynamic.Interface { return c.dynamic }

// AuditLog returns the events in the primary apiserver's audit log
// (DIR/audit.log, every request at Metadata level), oldest first.
func (c *Cluster) AuditLog() ([]AuditEvent, error) {
	return ReadAuditLog(filepath.Join(c.Dir, "audit.log"))
}

// APIServer returns the apiserver called name, or nil if there is none.
func (c *Cluster) APIServer(name string) *APIServer {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.apiservers[name]
}

// StartSecondAPIServer starts another kube-apiserver called name (lowercase
// letters, digits and '-') on a new port against the same etcd,
// certificates and service-account keys, and waits until it is ready. Its
// admin kubeconfig is DIR/NAME.kubeconfig. flags are more flags of
// `hack/cluster apiserver`, such as --no-watch-cache.
func (c *Cluster) StartSecondAPIServer(name string, flags ...string) (*APIServer, error) {
	if _, err := c.hack("cluster", append([]string{"apiserver", c.Dir, name}, flags...)...); err != nil {
		return nil, err
	}
	st, err := c.readState()
	if err != nil {
		return nil, err
	}
	if err := c.refreshAPIServers(st); err != nil {
		return nil, err
	}
	a := c.APIServer(name)
	if a == nil {
		return nil, fmt.Errorf("apiserver %s is missing from %s/cluster.json", name, c.Dir)
	}
	return a, nil
}

// StopAPIServer stops the primary apiserver (SIGTERM). Clients of it see
// connection errors until StartAPIServer.
func (c *Cluster) StopAPIServer() error { return c.mustAPIServer(PrimaryAPIServer).Stop() }

// KillAPIServer kills the primary apiserver with SIGKILL.
func (c *Cluster) KillAPIServer() error { return c.mustAPIServer(PrimaryAPIServer).Kill() }

// StartAPIServer starts the primary apiserver again on the same port and
// waits until it is ready.
func (c *Cluster) StartAPIServer() error { return c.mustAPIServer(PrimaryAPIServer).Start() }

func (c *Cluster) mustAPIServer(name string) *APIServer {
	a := c.APIServer(name)
	if a == nil {
		// Only reachable if cluster.json was edited under us.
		panic(fmt.Sprintf("framework: no apiserver %q in %s", name, c.Dir))
	}
	return a
}

// CompactEtcd compacts etcd's history up to its current revision: a watch
// that resumes from an older resourceVersion through an apiserver started
// with --no-watch-cache then gets "410 Gone".
func (c *Cluster) CompactEtcd() error {
	_, err := c.hack("cluster", "compact", c.Dir)
	return err
}

// Seed runs hack/seed with args (a verb and its flags, see hack/seed help)
// as the admin user, unless args has its own --kubeconfig, and returns its
// output.
func (c *Cluster) Seed(args ...string) (string, error) {
	hasKubeconfig := false
	for _, a := range args {
		if a == "--kubeconfig" || strings.HasPrefix(a, "--kubeconfig=") {
			hasKubeconfig = true
		}
	}
	if !hasKubeconfig {
		args = append(args, "--kubeconfig", c.AdminKubeconfig())
	}
	return c.hack("seed", args...)
}

func (c *Cluster) hack(name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	out, err := hackCommand(ctx, c.repoRoot, name, args...)
	if err != nil {
		return string(out), fmt.Errorf("%w\n%s", err, out)
	}
	return string(out), nil
}

// Config returns a new copy of the admin user's client configuration for
// this apiserver.
func (a *APIServer) Config() *rest.Config { return rest.CopyConfig(a.config) }

// ViewerConfig returns a new copy of the viewer user's client configuration
// pointed at this apiserver.
func (a *APIServer) ViewerConfig() *rest.Config {
	cfg := a.cluster.ViewerConfig()
	cfg.Host = a.URL
	return cfg
}

// Stop stops this apiserver with SIGTERM, keeping its port for Start.
func (a *APIServer) Stop() error {
	_, err := a.cluster.hack("cluster", "stop-apiserver", a.cluster.Dir, a.Name)
	return err
}

// Kill stops this apiserver with SIGKILL, keeping its port for Start.
func (a *APIServer) Kill() error {
	_, err := a.cluster.hack("cluster", "stop-apiserver", a.cluster.Dir, a.Name, "--kill")
	return err
}

// Start starts this stopped apiserver again on its port and waits until it
// is ready.
func (a *APIServer) Start() error {
	_, err := a.cluster.hack("cluster", "start-apiserver", a.cluster.Dir, a.Name)
	return err
}

// AuditLog returns the events in this apiserver's audit log, oldest first.
func (a *APIServer) AuditLog() ([]AuditEvent, error) {
	return ReadAuditLog(a.AuditLogPath)
}

// MoveComponents restarts kube-controller-manager, kube-scheduler and kwok
// against the apiserver called name, as an HA control plane's load balancer
// would send them there: they keep driving workloads while the primary is
// stopped. The cluster must run them (WithNodes).
func (c *Cluster) MoveComponents(name string) error {
	_, err := c.hack("cluster", "components", c.Dir, name)
	return err
}
