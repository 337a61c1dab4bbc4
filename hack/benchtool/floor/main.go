// Command floor is what hack/bench compares the plugin with after the raw
// LIST: the least a client-go program does to get the same objects into Go
// values, with none of the plugin's work (informers, indexes, diffs).
//
//	floor list --kubeconfig FILE [--metadata]
//	floor watch --kubeconfig FILE --namespace NS|--all-namespaces [--gzip]
//
// list GETs every pod in one unpaginated request, as protobuf, and decodes
// the body into a []v1.Pod with client-go's typed client (--metadata: a
// PartialObjectMetadataList with the metadata client), then prints the
// count. watch watches the pods of NS (or of every namespace) from the
// current resourceVersion with the typed client (protobuf), decodes each
// event, and prints one line per event, "TYPE NAMESPACE/NAME
// RESOURCEVERSION", flushed when no event is pending, until SIGTERM or
// SIGINT; like the plugin's watch it asks for the stream uncompressed
// unless --gzip. It says "watching" on stderr once the watch is open. Both use client-go's transport as the plugin does.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"syscall"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: floor list|watch --kubeconfig FILE [FLAGS]")
		os.Exit(2)
	}
	verb := os.Args[1]
	fs := flag.NewFlagSet(verb, flag.ExitOnError)
	kubeconfig := fs.String("kubeconfig", "", "kubeconfig file")
	metadataOnly := fs.Bool("metadata", false, "list: decode PartialObjectMetadata with the metadata client")
	namespace := fs.String("namespace", "", "watch: the namespace whose pods to watch")
	allNamespaces := fs.Bool("all-namespaces", false, "watch: the pods of every namespace")
	gzip := fs.Bool("gzip", false, "watch: accept a gzip-compressed stream")
	_ = fs.Parse(os.Args[2:])
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	err := run(ctx, verb, *kubeconfig, *metadataOnly, *namespace, *allNamespaces, *gzip)
	if err != nil {
		fmt.Fprintf(os.Stderr, "floor: %v\n", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, verb, kubeconfig string, metadataOnly bool, namespace string, allNamespaces, gzip bool) error {
	if kubeconfig == "" {
		return errors.New("--kubeconfig is required")
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return fmt.Errorf("loading %s: %w", kubeconfig, err)
	}
	cfg.UserAgent = "kubectl-informer-bench-floor"
	cfg.ContentType = "application/vnd.kubernetes.protobuf"
	cfg.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	switch verb {
	case "list":
		return list(ctx, cfg, metadataOnly)
	case "watch":
		if (namespace == "") == !allNamespaces {
			return errors.New("watch needs one of --namespace and --all-namespaces")
		}
		if !gzip {
			cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return identity{rt} })
		}
		return watch(ctx, cfg, namespace)
	}
	return fmt.Errorf("unknown verb %q", verb)
}

func list(ctx context.Context, cfg *rest.Config, metadataOnly bool) error {
	if metadataOnly {
		client, err := metadata.NewForConfig(cfg)
		if err != nil {
			return err
		}
		l, err := client.Resource(schema.GroupVersionResource{Version: "v1", Resource: "pods"}).List(ctx, metav1.ListOptions{})
		if err != nil {
			return fmt.Errorf("listing pods: %w", err)
		}
		fmt.Printf("%d pods\n", len(l.Items))
		return nil
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	l, err := cs.CoreV1().Pods("").List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("listing pods: %w", err)
	}
	fmt.Printf("%d pods\n", len(l.Items))
	return nil
}

func watch(ctx context.Context, cfg *rest.Config, namespace string) error {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	pods := cs.CoreV1().Pods(namespace)
	l, err := pods.List(ctx, metav1.ListOptions{Limit: 1})
	if err != nil {
		return fmt.Errorf("listing pods: %w", err)
	}
	w, err := pods.Watch(ctx, metav1.ListOptions{ResourceVersion: l.ResourceVersion})
	if err != nil {
		return fmt.Errorf("watching pods: %w", err)
	}
	defer w.Stop()
	fmt.Fprintln(os.Stderr, "watching")
	out := bufio.NewWriterSize(os.Stdout, 64*1024)
	defer out.Flush()
	events := w.ResultChan()
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-events:
			if !ok {
				return errors.New("the watch ended")
			}
			if m, err := metaOf(ev.Object); err == nil {
				fmt.Fprintf(out, "%s %s/%s %s\n", ev.Type, m.GetNamespace(), m.GetName(), m.GetResourceVersion())
			}
			if len(events) == 0 {
				if err := out.Flush(); err != nil {
					return err
				}
			}
		}
	}
}

func metaOf(obj interface{}) (metav1.Object, error) {
	if m, ok := obj.(metav1.Object); ok {
		return m, nil
	}
	return nil, fmt.Errorf("%T has no metadata", obj)
}

// identity asks for watch streams uncompressed, as the plugin's watch does.
type identity struct{ next http.RoundTripper }

func (t identity) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Query().Get("watch") == "true" && req.Header.Get("Accept-Encoding") == "" {
		req = req.Clone(req.Context())
		req.Header.Set("Accept-Encoding", "identity")
	}
	return t.next.RoundTrip(req)
}
