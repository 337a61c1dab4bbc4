// Command rawlist is the floor that hack/bench compares list-based tools
// with: one GET of a whole collection with a given Accept header, the body
// read to the end and discarded, nothing decoded. It uses client-go's
// transport (TLS, client certificates, HTTP/2, gzip), as the plugin's
// lists do, and imports nothing else of Kubernetes, so its start-up and
// peak RSS are those of a small Go program. --no-gzip asks for the body
// uncompressed, to weigh client-go's gzip.
//
//	rawlist --kubeconfig FILE --path /api/v1/pods --accept application/vnd.kubernetes.protobuf [--no-gzip]
//
// It prints "<bytes> bytes <HTTP status>".
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

func main() {
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig file")
	path := flag.String("path", "", "request path, e.g. /api/v1/pods")
	accept := flag.String("accept", "application/vnd.kubernetes.protobuf", "Accept header")
	timeout := flag.Duration("timeout", 5*time.Minute, "bound on the whole request")
	noGzip := flag.Bool("no-gzip", false, "ask for the body uncompressed (client-go asks for gzip)")
	flag.Parse()
	if err := run(*kubeconfig, *path, *accept, *timeout, *noGzip); err != nil {
		fmt.Fprintf(os.Stderr, "rawlist: %v\n", err)
		os.Exit(1)
	}
}

func run(kubeconfig, path, accept string, timeout time.Duration, noGzip bool) error {
	if kubeconfig == "" || path == "" {
		return fmt.Errorf("--kubeconfig and --path are required")
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return fmt.Errorf("loading %s: %w", kubeconfig, err)
	}
	cfg.UserAgent = "kubectl-informer-bench-rawlist"
	cfg.DisableCompression = noGzip
	client, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(cfg.Host, "/")+path, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", accept)
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("GET %s: %w", path, err)
	}
	defer resp.Body.Close()
	n, err := io.Copy(io.Discard, resp.Body)
	if err != nil {
		return fmt.Errorf("reading the body of GET %s: %w", path, err)
	}
	fmt.Printf("%d bytes %d\n", n, resp.StatusCode)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: HTTP %d", path, resp.StatusCode)
	}
	return nil
}
