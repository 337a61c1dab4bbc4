// Command krewtool packs release archives and renders the krew manifest for
// them; hack/dist and hack/krew-manifest run it.
//
//	krewtool pack -o dist/x.tar.gz -mtime 1700000000 NAME=FILE ...
//	krewtool render -template .krew.yaml -dist dist -tag v1.2.3 -o dist/informer.yaml
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/kubectl-informer/kubectl-informer/internal/krew"
)

const usage = `usage:
  krewtool pack -o ARCHIVE [-mtime UNIX_SECONDS] NAME=FILE ...
      Write a .tar.gz or .zip holding each FILE as NAME, reproducibly.
      Files that are executable on disk or named *.exe get mode 0755,
      the rest 0644.
  krewtool render -template FILE -dist DIR -tag TAG [-name NAME] [-o FILE]
      Render the .krew.yaml template for release TAG against the archives
      in DIR (uri file://…, their real sha256), validate the result, check
      every platform's archive, and write it to -o (default: stdout).
`

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "krewtool: %v\n", err)
		os.Exit(1)
	}
}

func run(args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return fmt.Errorf("no command\n%s", usage)
	}
	switch args[0] {
	case "pack":
		return runPack(args[1:])
	case "render":
		return runRender(args[1:], stdout)
	case "help", "-h", "--help":
		_, err := fmt.Fprint(stdout, usage)
		return err
	}
	return fmt.Errorf("unknown command %q\n%s", args[0], usage)
}

func runPack(args []string) error {
	fs := flag.NewFlagSet("pack", flag.ContinueOnError)
	out := fs.String("o", "", "archive to write, .tar.gz, .tgz or .zip")
	mtime := fs.Int64("mtime", 0, "modification time of every entry, in Unix seconds")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" {
		return fmt.Errorf("pack: -o is required")
	}
	if fs.NArg() == 0 {
		return fmt.Errorf("pack: no NAME=FILE entries")
	}
	var entries []krew.Entry
	for _, arg := range fs.Args() {
		name, file, ok := strings.Cut(arg, "=")
		if !ok || name == "" || file == "" {
			return fmt.Errorf("pack: entry %q is not NAME=FILE", arg)
		}
		info, err := os.Stat(file)
		if err != nil {
			return fmt.Errorf("pack: %w", err)
		}
		mode := os.FileMode(0o644)
		if info.Mode().Perm()&0o111 != 0 || strings.HasSuffix(name, ".exe") {
			mode = 0o755
		}
		entries = append(entries, krew.Entry{Name: name, Source: file, Mode: mode})
	}
	return krew.Pack(*out, entries, time.Unix(*mtime, 0))
}

func runRender(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("render", flag.ContinueOnError)
	tmplFile := fs.String("template", ".krew.yaml", "the krew-release-bot template")
	dist := fs.String("dist", "dist", "directory holding the release archives")
	tag := fs.String("tag", "", "release tag, e.g. v1.2.3 (.TagName in the template)")
	name := fs.String("name", "informer", "the plugin name the manifest must have")
	out := fs.String("o", "", "file to write (default: stdout)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *tag == "" {
		return fmt.Errorf("render: -tag is required")
	}
	if fs.NArg() != 0 {
		return fmt.Errorf("render: unexpected arguments %q", fs.Args())
	}
	tmpl, err := os.ReadFile(*tmplFile)
	if err != nil {
		return err
	}
	rendered, err := krew.Render(filepath.Base(*tmplFile), tmpl, krew.NewValues(*tag), krew.LocalAssets(*dist))
	if err != nil {
		return err
	}
	plugin, err := krew.Parse(rendered)
	if err != nil {
		return err
	}
	if err := krew.Validate(plugin, *name); err != nil {
		return fmt.Errorf("the rendered manifest is invalid:\n%w", err)
	}
	for _, pl := range plugin.Spec.Platforms {
		file, err := krew.FilePath(pl.URI)
		if err != nil {
			return err
		}
		if err := krew.CheckArchive(pl, file); err != nil {
			return fmt.Errorf("platform %s: %w", pl.Selector, err)
		}
	}
	if *out == "" {
		_, err := stdout.Write(rendered)
		return err
	}
	return os.WriteFile(*out, rendered, 0o644)
}
