package krew

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRenderAddURIAndSha(t *testing.T) {
	tmpl := `spec:
  version: {{ .TagName }}
  platforms:
  - bin: x
    {{addURIAndSha "https://example.com/download/{{ .TagName }}/x_{{ .Version }}.tar.gz" .TagName }}
    caveat: {{ indent 2 "a\nb" }}
`
	var asked []string
	asset := func(url string) (string, string, error) {
		asked = append(asked, url)
		return "file:///dist/x.tar.gz", testSHA, nil
	}
	got, err := Render("t.yaml", []byte(tmpl), NewValues("v1.2.3"), asset)
	if err != nil {
		t.Fatalf("Render() error = %v", err)
	}
	want := `spec:
  version: v1.2.3
  platforms:
  - bin: x
    uri: file:///dist/x.tar.gz
    sha256: ` + testSHA + `
    caveat: a
  b
`
	if string(got) != want {
		t.Errorf("Render() = %q, want %q", got, want)
	}
	if len(asked) != 1 || asked[0] != "https://example.com/download/v1.2.3/x_1.2.3.tar.gz" {
		t.Errorf("Render() asked for assets %q, want the url with the tag and version filled in", asked)
	}
}

func TestRenderErrors(t *testing.T) {
	noAsset := func(url string) (string, string, error) { return "", "", fmt.Errorf("no asset %s", url) }
	tests := []struct {
		name, tmpl, want string
	}{
		{"asset missing", `{{addURIAndSha "https://e.com/{{ .TagName }}.zip" .TagName }}`, "no asset https://e.com/v1.zip"},
		{"unknown value", `{{ .Tag }}`, "can't evaluate field Tag"},
		{"bad url template", `{{addURIAndSha "https://e.com/{{ .TagName" .TagName }}`, "parsing the url"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Render("t.yaml", []byte(tt.tmpl), NewValues("v1"), noAsset)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Render() error = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

// TestReleaseTemplate renders the repository's .krew.yaml as
// krew-release-bot would for a release and validates the result.
func TestReleaseTemplate(t *testing.T) {
	tmpl, err := os.ReadFile(filepath.Join("..", "..", ".krew.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var urls []string
	asset := func(url string) (string, string, error) {
		urls = append(urls, url)
		return url, testSHA, nil
	}
	rendered, err := Render(".krew.yaml", tmpl, NewValues("v1.2.3"), asset)
	if err != nil {
		t.Fatalf("Render() error = %v", err)
	}
	p, err := Parse(rendered)
	if err != nil {
		t.Fatalf("Parse() error = %v\n%s", err, rendered)
	}
	if err := Validate(p, "informer"); err != nil {
		t.Fatalf("Validate() = %v\n%s", err, rendered)
	}
	const download = "https://github.com/kubectl-informer/kubectl-informer/releases/download/v1.2.3/"
	for _, platform := range []string{"linux/amd64", "linux/arm64", "darwin/amd64", "darwin/arm64", "windows/amd64", "windows/arm64"} {
		os, arch, _ := strings.Cut(platform, "/")
		pl, ok := p.PlatformFor(os, arch)
		if !ok {
			t.Errorf("PlatformFor(%s, %s) found nothing", os, arch)
			continue
		}
		archive, bin := "tar.gz", "kubectl-informer"
		if os == "windows" {
			archive, bin = "zip", "kubectl-informer.exe"
		}
		if want := download + "kubectl-informer_v1.2.3_" + os + "_" + arch + "." + archive; pl.URI != want {
			t.Errorf("%s: uri = %q, want %q", platform, pl.URI, want)
		}
		if pl.Bin != bin {
			t.Errorf("%s: bin = %q, want %q", platform, pl.Bin, bin)
		}
		var from []string
		for _, fo := range pl.Files {
			from = append(from, fo.From)
		}
		if got, want := strings.Join(from, " "), bin+" LICENSE kubectl_complete-informer"; got != want {
			t.Errorf("%s: files from %q, want %q", platform, got, want)
		}
	}
	if len(urls) != 6 {
		t.Errorf("the template asked for %d assets, want 6: %q", len(urls), urls)
	}
	if !strings.Contains(p.Spec.Caveats, "store/informer/v1.2.3/kubectl_complete-informer") {
		t.Errorf("caveats do not name the installed completion script:\n%s", p.Spec.Caveats)
	}
}

func TestLocalAssets(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "x_v1_linux_amd64.tar.gz"), []byte("archive"), 0o644); err != nil {
		t.Fatal(err)
	}
	uri, sum, err := LocalAssets(dir)("https://example.com/releases/download/v1/x_v1_linux_amd64.tar.gz")
	if err != nil {
		t.Fatalf("LocalAssets() error = %v", err)
	}
	if wantSum := fmt.Sprintf("%x", sha256.Sum256([]byte("archive"))); sum != wantSum {
		t.Errorf("LocalAssets() sha256 = %s, want %s", sum, wantSum)
	}
	path, err := FilePath(uri)
	if err != nil {
		t.Fatalf("FilePath(%q) error = %v", uri, err)
	}
	if want := filepath.Join(dir, "x_v1_linux_amd64.tar.gz"); path != want {
		t.Errorf("FilePath(%q) = %q, want %q", uri, path, want)
	}
	if _, _, err := LocalAssets(dir)("https://example.com/missing.zip"); err == nil {
		t.Error("LocalAssets() for a missing archive = nil error, want one")
	}
}
