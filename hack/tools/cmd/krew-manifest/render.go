package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"text/template"

	"sigs.k8s.io/krew/pkg/index"
	"sigs.k8s.io/yaml"
)

// releaseRequest is what krew-release-bot's GitHub Action executes the
// template with (its source.ReleaseRequest). Of its fields only TagName is
// known before the release exists; a template that reads another fails to
// render instead of rendering it empty.
type releaseRequest struct {
	TagName string
}

// asset is an archive a platform of the manifest names: the release URL
// the template gives, and the file of the same name in the dist directory.
type asset struct {
	url  string
	file string
}

// renderer renders krew-release-bot templates for the archives in dist.
type renderer struct {
	// dist is the directory holding the archives.
	dist string
	// uriPrefix, when set, replaces each release URL but its file name in the
	// rendered uri (a local index's server); the sha256 is the same.
	uriPrefix string
	// skipMissing leaves out the platforms whose archive is not in dist;
	// otherwise a missing archive is an error, as the bot's failed download is.
	skipMissing bool
}

// render executes the template text (named name, as the bot names it after
// the file) for tag and returns the manifest and the plugin it decodes to.
// The functions are the bot's (pkg/source/template.go):
//
//   - addURIAndSha URL TAG executes URL as a template with .TagName (TAG)
//     and .Version (TAG's first dotted number, v1.2.3 → 1.2.3) and returns
//     "uri: URL\n    sha256: SUM", SUM being the sha256 of the archive.
//     The bot downloads it; here it is the file in dist named as URL's last
//     path element.
//   - indent N TEXT indents TEXT's lines by N spaces, the first one's
//     indentation trimmed, and an addURIAndSha's "    sha256:" with them.
func (r renderer) render(name string, text []byte, tag string) ([]byte, index.Plugin, error) {
	var missing []string
	funcs := template.FuncMap{
		"indent": indent,
		"addURIAndSha": func(urlTemplate, tag string) (string, error) {
			a, err := r.asset(urlTemplate, tag)
			if err != nil {
				return "", err
			}
			uri := a.url
			if r.uriPrefix != "" {
				uri = r.uriPrefix + path.Base(a.url)
			}
			sum, err := sha256File(a.file)
			if errors.Is(err, fs.ErrNotExist) && r.skipMissing {
				missing = append(missing, uri)
				return fmt.Sprintf("uri: %s\n    sha256: %s", uri, strings.Repeat("0", sha256.Size*2)), nil
			}
			if err != nil {
				return "", fmt.Errorf("the archive for %s: %w (make dist builds it)", a.url, err)
			}
			return fmt.Sprintf("uri: %s\n    sha256: %s", uri, sum), nil
		},
	}
	tmpl, err := template.New(name).Funcs(funcs).Parse(string(text))
	if err != nil {
		return nil, index.Plugin{}, fmt.Errorf("parsing the template: %w", err)
	}
	var out bytes.Buffer
	if err := tmpl.Execute(&out, releaseRequest{TagName: tag}); err != nil {
		return nil, index.Plugin{}, fmt.Errorf("rendering the template: %w", err)
	}
	manifest := out.Bytes()
	var plugin index.Plugin
	if err := yaml.UnmarshalStrict(manifest, &plugin); err != nil {
		return nil, index.Plugin{}, fmt.Errorf("decoding the rendered manifest: %w\n%s", err, manifest)
	}
	if len(missing) == 0 {
		return manifest, plugin, nil
	}
	var kept []index.Platform
	for _, p := range plugin.Spec.Platforms {
		if !slices.Contains(missing, p.URI) {
			kept = append(kept, p)
		}
	}
	if len(kept) == 0 {
		return nil, index.Plugin{}, fmt.Errorf("none of the template's %d archives is in %s (make dist builds them)", len(plugin.Spec.Platforms), r.dist)
	}
	plugin.Spec.Platforms = kept
	manifest, err = yaml.Marshal(plugin)
	if err != nil {
		return nil, index.Plugin{}, fmt.Errorf("encoding the manifest without the missing platforms: %w", err)
	}
	return manifest, plugin, nil
}

// asset executes an addURIAndSha URL template for tag and finds its file.
func (r renderer) asset(urlTemplate, tag string) (asset, error) {
	t, err := template.New("url").Parse(urlTemplate)
	if err != nil {
		return asset{}, fmt.Errorf("parsing the URL %q: %w", urlTemplate, err)
	}
	var b strings.Builder
	values := struct{ TagName, Version string }{TagName: tag, Version: versionOfTag(tag)}
	if err := t.Execute(&b, values); err != nil {
		return asset{}, fmt.Errorf("rendering the URL %q: %w", urlTemplate, err)
	}
	u, err := url.Parse(b.String())
	if err != nil {
		return asset{}, fmt.Errorf("parsing the URL %q: %w", b.String(), err)
	}
	name := path.Base(u.Path)
	if name == "/" || name == "." {
		return asset{}, fmt.Errorf("the URL %q names no file", b.String())
	}
	return asset{url: b.String(), file: filepath.Join(r.dist, name)}, nil
}

// versionPattern is the bot's: a tag's version is its first dotted number.
var versionPattern = regexp.MustCompile(`\d+(\.\d+)+`)

// versionOfTag is .Version of an addURIAndSha URL: v1.2.3 → 1.2.3, and a
// tag with no dotted number as it is.
func versionOfTag(tag string) string {
	if v := versionPattern.FindString(tag); v != "" {
		return v
	}
	return tag
}

// indent is the bot's indent function.
func indent(spaces int, v string) string {
	v = strings.ReplaceAll(v, "    sha256:", "sha256:")
	pad := strings.Repeat(" ", spaces)
	return strings.TrimSpace(pad + strings.ReplaceAll(v, "\n", "\n"+pad))
}

// sha256File returns the hex sha256 of the file's content.
func sha256File(name string) (string, error) {
	f, err := os.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("reading %s: %w", name, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
