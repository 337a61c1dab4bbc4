package krew

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"text/template"
)

// Values are what a .krew.yaml template is executed with, as
// krew-release-bot executes it: .TagName is the release tag ("v1.2.3") and
// .Version the version inside it ("1.2.3").
type Values struct {
	TagName string
	Version string
}

// NewValues returns the template values for the release tag tagName.
func NewValues(tagName string) Values {
	return Values{TagName: tagName, Version: versionFromTag(tagName)}
}

// versionFromTag returns the dotted version number in tag, or tag itself if
// it has none, as krew-release-bot does.
func versionFromTag(tag string) string {
	if v := dottedVersion.FindString(tag); v != "" {
		return v
	}
	return tag
}

var dottedVersion = regexp.MustCompile(`\d+(\.\d+)+`)

// AssetFunc resolves the release asset url named in an addURIAndSha call to
// the uri to write into the manifest and the sha256 of the asset's content.
type AssetFunc func(url string) (uri, sha256 string, err error)

// Render executes a .krew.yaml template the way krew-release-bot does,
// with the template functions it offers:
//
//	{{ addURIAndSha "https://…/download/{{ .TagName }}/x_{{ .TagName }}_linux_amd64.tar.gz" .TagName }}
//
// expands to "uri: URI\n    sha256: SHA" (so it belongs at a platform's
// four-space indentation), after executing the url as a template itself
// and resolving it with asset; and {{ indent N "text" }} indents text.
// name appears in errors.
func Render(name string, tmpl []byte, values Values, asset AssetFunc) ([]byte, error) {
	funcs := template.FuncMap{
		"indent": indent,
		"addURIAndSha": func(rawURL, tag string) (string, error) {
			u, err := template.New("url").Option("missingkey=error").Parse(rawURL)
			if err != nil {
				return "", fmt.Errorf("parsing the url %q: %w", rawURL, err)
			}
			var buf strings.Builder
			if err := u.Execute(&buf, NewValues(tag)); err != nil {
				return "", fmt.Errorf("executing the url %q: %w", rawURL, err)
			}
			uri, sum, err := asset(buf.String())
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("uri: %s\n    sha256: %s", uri, sum), nil
		},
	}
	t, err := template.New(name).Option("missingkey=error").Funcs(funcs).Parse(string(tmpl))
	if err != nil {
		return nil, fmt.Errorf("parsing template %s: %w", name, err)
	}
	var out bytes.Buffer
	if err := t.Execute(&out, values); err != nil {
		return nil, fmt.Errorf("executing template %s: %w", name, err)
	}
	return out.Bytes(), nil
}

// indent indents every line of v by spaces, trimming the result's outer
// white space as krew-release-bot's indent does.
func indent(spaces int, v string) string {
	pad := strings.Repeat(" ", spaces)
	return strings.TrimSpace(pad + strings.ReplaceAll(v, "\n", "\n"+pad))
}

// LocalAssets returns an AssetFunc that resolves a release asset url to the
// file of the same base name in dir: the uri is that file's file:// URL and
// the sha256 its checksum. It lets a manifest be rendered and tried before
// the release exists.
func LocalAssets(dir string) AssetFunc {
	return func(rawURL string) (string, string, error) {
		u, err := url.Parse(rawURL)
		if err != nil {
			return "", "", fmt.Errorf("parsing asset url %q: %w", rawURL, err)
		}
		base := path.Base(u.Path)
		file, err := filepath.Abs(filepath.Join(dir, base))
		if err != nil {
			return "", "", err
		}
		sum, err := SHA256File(file)
		if err != nil {
			return "", "", fmt.Errorf("asset %s for %s: %w", base, rawURL, err)
		}
		return FileURI(file), sum, nil
	}
}

// FileURI returns the file:// URL of the absolute path file.
func FileURI(file string) string {
	p := filepath.ToSlash(file)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // C:/x on Windows
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}

// FilePath returns the local path a file:// uri names; other schemes are an
// error.
func FilePath(uri string) (string, error) {
	u, err := url.Parse(uri)
	if err != nil {
		return "", fmt.Errorf("parsing uri %q: %w", uri, err)
	}
	if u.Scheme != "file" {
		return "", fmt.Errorf("uri %q is not a file:// URL", uri)
	}
	p := u.Path
	if len(p) >= 3 && p[0] == '/' && p[2] == ':' {
		p = p[1:] // /C:/x on Windows
	}
	return filepath.FromSlash(p), nil
}

// SHA256File returns the hex sha256 of the file's content.
func SHA256File(file string) (string, error) {
	f, err := os.Open(file)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("reading %s: %w", file, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
