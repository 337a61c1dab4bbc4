package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// validate checks the manifest the template renders for tag with krew's
// validate-krew-manifest (sigs.k8s.io/krew/cmd/validate-krew-manifest): the
// manifest's structure and the plugin name it is filed under, that every
// platform's selector matches an os/arch krew supports and no two overlap,
// and, for each platform, that `kubectl krew install --manifest` with that
// os and arch (KREW_OS, KREW_ARCH) downloads the archive, checks its sha256,
// extracts the files the platform names, finds its bin, and extracts a
// LICENSE.
//
// The validator downloads each uri, so it reads a copy of the manifest whose
// uris are those of the archives served from r.dist on a loopback port for
// the duration; the rest of the copy is the manifest's. kubectl must be on
// PATH; krew is put there as kubectl-krew.
func validate(r renderer, name string, text []byte, tag, krew, validator string, stderr io.Writer) error {
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		return fmt.Errorf("validate-krew-manifest installs through kubectl, which is not on PATH: %w", err)
	}
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("serving the archives: %w", err)
	}
	server := &http.Server{Handler: http.FileServer(http.Dir(r.dist)), ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- server.Serve(listener) }()
	defer func() {
		server.Close()
		<-served
	}()

	r.uriPrefix = "http://" + listener.Addr().String() + "/"
	local, plugin, err := r.render(name, text, tag)
	if err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "krew-manifest-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	// validate-krew-manifest takes the plugin's name from the file's.
	manifest := filepath.Join(work, plugin.Name+".yaml")
	if err := os.WriteFile(manifest, local, 0o644); err != nil {
		return err
	}
	bin := filepath.Join(work, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		return err
	}
	if err := os.Symlink(krew, filepath.Join(bin, "kubectl-krew")); err != nil {
		return err
	}

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, validator, "-manifest", manifest)
	// The validator gives its installs only KREW_ROOT, KREW_OS, KREW_ARCH and
	// PATH; krew needs no more.
	cmd.Env = append(os.Environ(),
		"PATH="+bin+string(os.PathListSeparator)+filepath.Dir(kubectl)+string(os.PathListSeparator)+os.Getenv("PATH"))
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return fmt.Errorf("validate-krew-manifest: %w\n%s", err, indentLines(out.String()))
		}
		return fmt.Errorf("running validate-krew-manifest: %w", err)
	}
	return nil
}

// indentLines indents each line of s by four spaces, for output quoted in
// an error.
func indentLines(s string) string {
	s = strings.TrimRight(s, "\n")
	return "    " + strings.ReplaceAll(s, "\n", "\n    ")
}
