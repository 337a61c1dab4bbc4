package main

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
)

// writeArchives writes a small file per name into a new directory and
// returns it with the sha256 of each.
func writeArchives(t *testing.T, names ...string) (string, map[string]string) {
	t.Helper()
	dir := t.TempDir()
	sums := map[string]string{}
	for _, name := range names {
		content := []byte("archive " + name)
		if err := os.WriteFile(filepath.Join(dir, name), content, 0o644); err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(content)
		sums[name] = hex.EncodeToString(sum[:])
	}
	return dir, sums
}

// The repository's .krew.yaml, rendered as the bot renders it.
func TestRenderKrewYAML(t *testing.T) {
	text, err := os.ReadFile(filepath.Join("..", "..", "..", "..", ".krew.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	const tag = "v1.2.3"
	var names []string
	for _, p := range []string{"linux_amd64", "linux_arm64", "darwin_amd64", "darwin_arm64", "windows_amd64", "windows_arm64"} {
		ext := ".tar.gz"
		if strings.HasPrefix(p, "windows") {
			ext = ".zip"
		}
		names = append(names, "kubectl-informer_"+tag+"_"+p+ext)
	}
	dist, sums := writeArchives(t, names...)

	manifest, plugin, err := renderer{dist: dist}.render(".krew.yaml", text, tag)
	if err != nil {
		t.Fatal(err)
	}
	if plugin.Name != "informer" || plugin.Spec.Version != tag {
		t.Errorf("render(.krew.yaml, %s) = plugin %q version %q, want informer %s", tag, plugin.Name, plugin.Spec.Version, tag)
	}
	if got, want := len(plugin.Spec.Platforms), len(names); got != want {
		t.Fatalf("render(.krew.yaml) has %d platforms, want %d", got, want)
	}
	for i, p := range plugin.Spec.Platforms {
		wantURI := "https://github.com/kubectl-informer/kubectl-informer/releases/download/" + tag + "/" + names[i]
		if p.URI != wantURI || p.Sha256 != sums[names[i]] {
			t.Errorf("platform %d = uri %s sha256 %s, want %s %s", i, p.URI, p.Sha256, wantURI, sums[names[i]])
		}
	}
	if !strings.Contains(string(manifest), "store/informer/"+tag+"/kubectl_complete-informer") {
		t.Errorf("render(.krew.yaml) caveats do not name the installed completion script of %s:\n%s", tag, manifest)
	}
}

const testTemplate = `apiVersion: krew.googlecontainertools.github.com/v1alpha2
kind: Plugin
metadata:
  name: demo
spec:
  version: {{ .TagName }}
  homepage: https://example.com/demo
  shortDescription: A demo
  platforms:
  - selector:
      matchLabels:
        os: linux
        arch: amd64
    {{addURIAndSha "https://example.com/download/{{ .TagName }}/demo_{{ .Version }}_linux_amd64.tar.gz" .TagName }}
    files:
    - from: demo
      to: .
    bin: demo
  - selector:
      matchLabels:
        os: darwin
        arch: arm64
    {{ addURIAndSha "https://example.com/download/{{ .TagName }}/demo_{{ .Version }}_darwin_arm64.tar.gz" .TagName | indent 4 }}
    files:
    - from: demo
      to: .
    bin: demo
`

func TestRender(t *testing.T) {
	linux, darwin := "demo_0.4.0_linux_amd64.tar.gz", "demo_0.4.0_darwin_arm64.tar.gz"
	both, sums := writeArchives(t, linux, darwin)
	linuxOnly, _ := writeArchives(t, linux)
	tests := []struct {
		name      string
		renderer  renderer
		template  string
		wantURIs  []string
		wantError string
	}{
		{
			name:     "every archive",
			renderer: renderer{dist: both},
			template: testTemplate,
			wantURIs: []string{"https://example.com/download/v0.4.0/" + linux, "https://example.com/download/v0.4.0/" + darwin},
		},
		{
			name:     "uri prefix",
			renderer: renderer{dist: both, uriPrefix: "http://127.0.0.1:1234/x/"},
			template: testTemplate,
			wantURIs: []string{"http://127.0.0.1:1234/x/" + linux, "http://127.0.0.1:1234/x/" + darwin},
		},
		{
			name:      "an archive missing",
			renderer:  renderer{dist: linuxOnly},
			template:  testTemplate,
			wantError: darwin,
		},
		{
			name:     "an archive missing, skipped",
			renderer: renderer{dist: linuxOnly, skipMissing: true},
			template: testTemplate,
			wantURIs: []string{"https://example.com/download/v0.4.0/" + linux},
		},
		{
			name:      "every archive missing, skipped",
			renderer:  renderer{dist: t.TempDir(), skipMissing: true},
			template:  testTemplate,
			wantError: "none of the template's 2 archives",
		},
		{
			name:      "a field the bot knows only at release",
			renderer:  renderer{dist: both},
			template:  strings.Replace(testTemplate, "https://example.com/demo", "https://example.com/{{ .PluginOwner }}", 1),
			wantError: "PluginOwner",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, plugin, err := tt.renderer.render("demo.yaml", []byte(tt.template), "v0.4.0")
			if tt.wantError != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantError) {
					t.Fatalf("render() error = %v, want one naming %q", err, tt.wantError)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var uris []string
			for _, p := range plugin.Spec.Platforms {
				uris = append(uris, p.URI)
				if want := sums[path.Base(p.URI)]; p.Sha256 != want {
					t.Errorf("render() sha256 of %s = %s, want %s", p.URI, p.Sha256, want)
				}
			}
			if strings.Join(uris, " ") != strings.Join(tt.wantURIs, " ") {
				t.Errorf("render() uris = %q, want %q", uris, tt.wantURIs)
			}
		})
	}
}

func TestVersionOfTag(t *testing.T) {
	tests := []struct{ tag, want string }{
		{"v1.2.3", "1.2.3"},
		{"v0.1.1-dev.g1a2b3c4", "0.1.1"},
		{"release-2.0", "2.0"},
		{"latest", "latest"},
	}
	for _, tt := range tests {
		if got := versionOfTag(tt.tag); got != tt.want {
			t.Errorf("versionOfTag(%q) = %q, want %q", tt.tag, got, tt.want)
		}
	}
}

func TestIndent(t *testing.T) {
	in := "uri: https://example.com/a.tar.gz\n    sha256: abc"
	want := "uri: https://example.com/a.tar.gz\n    sha256: abc"
	if got := indent(4, in); got != want {
		t.Errorf("indent(4, %q) = %q, want %q", in, got, want)
	}
}
