// Command krew-manifest renders .krew.yaml, krew-release-bot's template, for
// the archives a goreleaser build wrote into dist, as the bot will render it
// for the release of the same tag, and checks the result with krew's own
// validator. hack/krew-manifest (make krew-manifest) runs it.
//
// The rendering is the bot's (github.com/rajatjindal/krew-release-bot,
// pkg/source/template.go), whose Go package the module proxy does not serve;
// see renderer.render. The bot downloads each archive from the release to
// take its sha256; here it is the file of that name in -dist, which is the
// same archive when dist was built from the tagged commit, since the builds
// are reproducible.
//
// The check is krew's validate-krew-manifest, what krew-index's CI runs on
// every plugin manifest; see validate.
//
//	krew-manifest -krew KREW -validator VALIDATE_KREW_MANIFEST
//	    [-template .krew.yaml] [-dist dist] [-tag vX.Y.Z] [-o dist/NAME.yaml]
//	    [-uri-prefix URL] [-skip-missing]
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// options are the command's flags.
type options struct {
	template    string
	dist        string
	tag         string
	out         string
	uriPrefix   string
	skipMissing bool
	krew        string
	validator   string
}

func main() {
	if err := run(os.Args[1:], os.Stderr); err != nil {
		fmt.Fprintf(os.Stderr, "krew-manifest: %v\n", err)
		os.Exit(1)
	}
}

func run(args []string, stderr io.Writer) error {
	var o options
	fs := flag.NewFlagSet("krew-manifest", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.template, "template", ".krew.yaml", "krew-release-bot's template")
	fs.StringVar(&o.dist, "dist", "dist", "the directory goreleaser wrote the archives into")
	fs.StringVar(&o.tag, "tag", "", "the release tag, .TagName (default: v and the version in DIST/metadata.json)")
	fs.StringVar(&o.out, "o", "", "the manifest to write (default: DIST/NAME.yaml, NAME the plugin's)")
	fs.StringVar(&o.uriPrefix, "uri-prefix", "", "write each uri as this prefix and the archive's file name, instead of the release URL")
	fs.BoolVar(&o.skipMissing, "skip-missing", false, "leave out the platforms whose archive is not in DIST, instead of failing")
	fs.StringVar(&o.krew, "krew", "", "the krew binary, run as `kubectl krew` by the validator (required)")
	fs.StringVar(&o.validator, "validator", "", "krew's validate-krew-manifest binary (required)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if o.krew == "" || o.validator == "" {
		return errors.New("-krew and -validator are required (hack/krew-manifest passes them)")
	}
	if o.uriPrefix != "" && !strings.HasSuffix(o.uriPrefix, "/") {
		o.uriPrefix += "/"
	}
	if o.tag == "" {
		version, err := snapshotVersion(o.dist)
		if err != nil {
			return err
		}
		o.tag = "v" + version
	}

	text, err := os.ReadFile(o.template)
	if err != nil {
		return err
	}
	r := renderer{dist: o.dist, uriPrefix: o.uriPrefix, skipMissing: o.skipMissing}
	manifest, plugin, err := r.render(filepath.Base(o.template), text, o.tag)
	if err != nil {
		return err
	}
	if o.out == "" {
		o.out = filepath.Join(o.dist, plugin.Name+".yaml")
	}
	if err := os.WriteFile(o.out, manifest, 0o644); err != nil {
		return err
	}
	if err := validate(r, filepath.Base(o.template), text, o.tag, o.krew, o.validator, stderr); err != nil {
		return fmt.Errorf("%s is not a valid krew manifest: %w", o.out, err)
	}
	fmt.Fprintf(stderr, "krew-manifest: wrote %s (%s, %d platforms), and krew's validate-krew-manifest installed each\n",
		o.out, o.tag, len(plugin.Spec.Platforms))
	return nil
}

// snapshotVersion is the version of the goreleaser build in dist, from the
// metadata.json goreleaser writes beside the archives.
func snapshotVersion(dist string) (string, error) {
	data, err := os.ReadFile(filepath.Join(dist, "metadata.json"))
	if err != nil {
		return "", fmt.Errorf("finding the version of the archives in %s (make dist builds them, or name it with -tag): %w", dist, err)
	}
	var metadata struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal(data, &metadata); err != nil {
		return "", fmt.Errorf("reading %s: %w", filepath.Join(dist, "metadata.json"), err)
	}
	if metadata.Version == "" {
		return "", fmt.Errorf("%s names no version", filepath.Join(dist, "metadata.json"))
	}
	return metadata.Version, nil
}
