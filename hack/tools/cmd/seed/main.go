// Command seed fills a cluster with test objects and churns them: pods
// spread over namespaces, fake nodes, images and labels; configmaps; a
// Widget CRD and its custom resources. It creates in parallel with high
// client QPS so that tens of thousands of objects take seconds. It is run
// through hack/seed, which builds it from the tools module.
//
// Every object it creates carries the label
// app.kubernetes.io/managed-by=kubectl-informer-seed.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

const usage = `usage: hack/seed VERB [FLAGS]

Common flags:
  --kubeconfig PATH    kubeconfig to use (default $KUBECONFIG)
  --qps N, --burst N   client rate limits (default 5000, 10000)
  --workers N          parallel requests (default 32)

Verbs:
  pods --count N [--namespaces K] [--nodes M] [--images I] [--apps A]
       [--prefix pod] [--namespace-prefix seed-] [--start 0] [--running]
        Create N pods named PREFIX-<i> for i in [start, start+N), pod i in
        namespace NAMESPACE-PREFIX<i%K> (created with its default
        ServiceAccount), spec.nodeName node-<i%M> (none if M is 0), image
        registry.example.com/image-<i%I>:v1, labels app=app-<i%A> and
        tier=frontend|backend|cache|batch. automountServiceAccountToken is
        false. --running also sets status (phase Running, Ready, pod IP).
  configmaps --count N [--namespaces K] [--size BYTES] [--prefix cm] ...
        Create N configmaps with a data value of BYTES bytes.
  crd
        Install the CRD widgets.example.com (kind Widget, short name wg,
        v1, namespaced, status subresource) and wait until it is Established.
  widgets --count N [--namespaces K] [--prefix widget] ...
        Install the CRD if needed, then create N Widgets with spec.color
        (red, green, blue, yellow, purple) and spec.size <i%100>.
  churn --rate R --duration T [--namespace NS] [--selector SEL]
        [--recreate-percent 5] [--stamp FILE]
        Update R seeded pods per second for T: labels (tier, churn),
        annotations, status (via pods/status), and delete-and-recreate a
        few. Stops sending at T even when the API server keeps it below
        R. Prints the achieved rate. --stamp writes one line per response:
        "<unix-nanos> <op> <namespace>/<name> <resourceVersion>".
  help
        Print this text.
`

// managedByLabel marks every object seed creates.
const (
	managedByLabel = "app.kubernetes.io/managed-by"
	managedByValue = "kubectl-informer-seed"
)

// errUsage marks errors that should be followed by the usage text.
var errUsage = errors.New("usage")

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:])
	stop()
	if err != nil {
		fmt.Fprintf(os.Stderr, "seed: %v\n", err)
		os.Exit(1)
	}
}

// clientFlags are the flags every verb shares.
type clientFlags struct {
	kubeconfig string
	qps        float64
	burst      int
	workers    int
}

func (c *clientFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.kubeconfig, "kubeconfig", os.Getenv("KUBECONFIG"), "kubeconfig to use")
	fs.Float64Var(&c.qps, "qps", 5000, "client queries per second")
	fs.IntVar(&c.burst, "burst", 10000, "client burst")
	fs.IntVar(&c.workers, "workers", 32, "parallel requests")
}

// config loads the kubeconfig and applies the rate limits.
func (c *clientFlags) config() (*rest.Config, error) {
	if c.kubeconfig == "" {
		return nil, fmt.Errorf("--kubeconfig is required (or set KUBECONFIG)")
	}
	if c.workers < 1 {
		return nil, fmt.Errorf("--workers must be at least 1, got %d", c.workers)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", c.kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("loading %s: %w", c.kubeconfig, err)
	}
	cfg.QPS = float32(c.qps)
	cfg.Burst = c.burst
	cfg.UserAgent = "hack/seed"
	return cfg, nil
}

// clients builds the typed and dynamic clients. The typed client speaks
// protobuf, which costs the apiserver and this program less CPU than JSON.
func (c *clientFlags) clients() (*kubernetes.Clientset, dynamic.Interface, error) {
	cfg, err := c.config()
	if err != nil {
		return nil, nil, err
	}
	dyn, err := dynamic.NewForConfig(rest.CopyConfig(cfg))
	if err != nil {
		return nil, nil, fmt.Errorf("creating a dynamic client: %w", err)
	}
	cfg.ContentType = "application/vnd.kubernetes.protobuf"
	cfg.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, nil, fmt.Errorf("creating a client: %w", err)
	}
	return cs, dyn, nil
}

// spreadFlags are the flags of the verbs that create objects.
type spreadFlags struct {
	count           int
	start           int
	namespaces      int
	prefix          string
	namespacePrefix string
}

func (s *spreadFlags) register(fs *flag.FlagSet, prefix string) {
	fs.IntVar(&s.count, "count", 0, "how many objects to create")
	fs.IntVar(&s.start, "start", 0, "index of the first object (to add more later)")
	fs.IntVar(&s.namespaces, "namespaces", 1, "how many namespaces to spread them over")
	fs.StringVar(&s.prefix, "prefix", prefix, "object name prefix")
	fs.StringVar(&s.namespacePrefix, "namespace-prefix", "seed-", "namespace name prefix")
}

func (s *spreadFlags) validate() error {
	if s.count < 1 {
		return fmt.Errorf("--count must be at least 1, got %d", s.count)
	}
	if s.namespaces < 1 {
		return fmt.Errorf("--namespaces must be at least 1, got %d", s.namespaces)
	}
	if s.start < 0 {
		return fmt.Errorf("--start must not be negative, got %d", s.start)
	}
	return nil
}

// namespace returns the namespace of object i.
func (s *spreadFlags) namespace(i int) string {
	return fmt.Sprintf("%s%d", s.namespacePrefix, i%s.namespaces)
}

// name returns the name of object i.
func (s *spreadFlags) name(i int) string {
	return fmt.Sprintf("%s-%d", s.prefix, i)
}

// namespaceNames lists the namespaces the objects go to.
func (s *spreadFlags) namespaceNames() []string {
	n := min(s.namespaces, s.count)
	names := make([]string, 0, n)
	for i := s.start; i < s.start+n; i++ {
		names = append(names, s.namespace(i))
	}
	return names
}

func run(ctx context.Context, args []string) error {
	if len(args) == 0 {
		fmt.Fprint(os.Stderr, usage)
		return fmt.Errorf("missing verb: %w", errUsage)
	}
	verb, args := args[0], args[1:]
	fs := flag.NewFlagSet("seed "+verb, flag.ContinueOnError)
	fs.Usage = func() { fmt.Fprint(os.Stderr, usage) }
	var cf clientFlags
	cf.register(fs)
	var sf spreadFlags
	switch verb {
	case "help", "-h", "--help":
		fmt.Print(usage)
		return nil
	case "pods":
		sf.register(fs, "pod")
		var po podOptions
		fs.IntVar(&po.nodes, "nodes", 10, "how many fake node names (0: leave pods unscheduled)")
		fs.IntVar(&po.images, "images", 5, "how many distinct images")
		fs.IntVar(&po.apps, "apps", 10, "how many distinct app labels")
		fs.BoolVar(&po.running, "running", false, "also set status: phase Running, Ready, pod IP")
		if err := parseFlags(fs, args); err != nil {
			return err
		}
		if err := sf.validate(); err != nil {
			return err
		}
		if err := po.validate(); err != nil {
			return err
		}
		cs, _, err := cf.clients()
		if err != nil {
			return err
		}
		return seedPods(ctx, cs, cf.workers, sf, po)
	case "configmaps":
		sf.register(fs, "cm")
		size := fs.Int("size", 256, "bytes in each configmap's data value")
		if err := parseFlags(fs, args); err != nil {
			return err
		}
		if err := sf.validate(); err != nil {
			return err
		}
		if *size < 0 {
			return fmt.Errorf("--size must not be negative, got %d", *size)
		}
		cs, _, err := cf.clients()
		if err != nil {
			return err
		}
		return seedConfigMaps(ctx, cs, cf.workers, sf, *size)
	case "crd":
		if err := parseFlags(fs, args); err != nil {
			return err
		}
		cfg, err := cf.config()
		if err != nil {
			return err
		}
		return installCRD(ctx, cfg)
	case "widgets":
		sf.register(fs, "widget")
		if err := parseFlags(fs, args); err != nil {
			return err
		}
		if err := sf.validate(); err != nil {
			return err
		}
		cs, dyn, err := cf.clients()
		if err != nil {
			return err
		}
		cfg, err := cf.config()
		if err != nil {
			return err
		}
		if err := installCRD(ctx, cfg); err != nil {
			return err
		}
		return seedWidgets(ctx, cs, dyn, cf.workers, sf)
	case "churn":
		var co churnOptions
		fs.Float64Var(&co.rate, "rate", 10, "updates per second")
		fs.DurationVar(&co.duration, "duration", 10*time.Second, "how long to churn")
		fs.StringVar(&co.namespace, "namespace", "", "only pods in this namespace (default: all)")
		fs.StringVar(&co.selector, "selector", managedByLabel+"="+managedByValue, "label selector of the pods to churn")
		fs.Float64Var(&co.recreatePercent, "recreate-percent", 5, "share of updates that delete and recreate a pod")
		fs.StringVar(&co.stamp, "stamp", "", "write the time of each update response to this file")
		if err := parseFlags(fs, args); err != nil {
			return err
		}
		if err := co.validate(); err != nil {
			return err
		}
		cs, _, err := cf.clients()
		if err != nil {
			return err
		}
		return churn(ctx, cs, cf.workers, co)
	default:
		fmt.Fprint(os.Stderr, usage)
		return fmt.Errorf("unknown verb %q: %w", verb, errUsage)
	}
}

// parseFlags parses flags and rejects positional arguments.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%s takes only flags, got %q", fs.Name(), strings.Join(fs.Args(), " "))
	}
	return nil
}
