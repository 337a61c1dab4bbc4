package krew

import (
	"strings"
	"testing"
)

const testSHA = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// validPlugin returns a manifest Validate accepts, for tests to break.
func validPlugin() Plugin {
	platform := func(os, arch, bin string) Platform {
		return Platform{
			Selector: &Selector{MatchLabels: map[string]string{"os": os, "arch": arch}},
			URI:      "https://example.com/x_" + os + "_" + arch + ".tar.gz",
			Sha256:   testSHA,
			Files: []FileOperation{
				{From: bin, To: "."},
				{From: "LICENSE", To: "."},
			},
			Bin: bin,
		}
	}
	return Plugin{
		APIVersion: APIVersion,
		Kind:       Kind,
		Metadata:   Metadata{Name: "informer"},
		Spec: PluginSpec{
			Version:          "v1.2.3",
			Homepage:         "https://example.com",
			ShortDescription: "Does a thing",
			Description:      "Does a thing, at length.",
			Platforms: []Platform{
				platform("linux", "amd64", "kubectl-informer"),
				platform("windows", "amd64", "kubectl-informer.exe"),
			},
		},
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name   string
		breakP func(p *Plugin)
		want   string // "" means valid
	}{
		{"valid", func(p *Plugin) {}, ""},
		{"prerelease version", func(p *Plugin) { p.Spec.Version = "v0.0.0-gaa30d46-dirty" }, ""},
		{"glob files", func(p *Plugin) {
			p.Spec.Platforms[0].Files = []FileOperation{{From: "*", To: "."}}
		}, ""},
		{"file renamed", func(p *Plugin) {
			p.Spec.Platforms[0].Files = []FileOperation{{From: "build/out", To: "kubectl-informer"}}
		}, ""},
		{"bin inside a glob dir", func(p *Plugin) {
			p.Spec.Platforms[0].Files = []FileOperation{{From: "pkg/*", To: "lib"}}
			p.Spec.Platforms[0].Bin = "lib/bin/kubectl-informer"
		}, ""},
		{"wrong apiVersion", func(p *Plugin) { p.APIVersion = "v1" }, `apiVersion is "v1"`},
		{"wrong kind", func(p *Plugin) { p.Kind = "Pod" }, `kind is "Pod"`},
		{"wrong name", func(p *Plugin) { p.Metadata.Name = "informers" }, `metadata.name is "informers", want "informer"`},
		{"no version", func(p *Plugin) { p.Spec.Version = "" }, "spec.version is not set"},
		{"version without v", func(p *Plugin) { p.Spec.Version = "1.2.3" }, `spec.version "1.2.3" is not a semantic version`},
		{"git describe version", func(p *Plugin) { p.Spec.Version = "aa30d46-dirty" }, "not a semantic version"},
		{"no homepage", func(p *Plugin) { p.Spec.Homepage = "" }, "spec.homepage is not set"},
		{"no short description", func(p *Plugin) { p.Spec.ShortDescription = "" }, "spec.shortDescription is not set"},
		{"long short description", func(p *Plugin) { p.Spec.ShortDescription = strings.Repeat("x", 51) }, "has 51 characters, krew allows 50"},
		{"no description", func(p *Plugin) { p.Spec.Description = "" }, "spec.description is not set"},
		{"no platforms", func(p *Plugin) { p.Spec.Platforms = nil }, "spec.platforms is empty"},
		{"no selector", func(p *Plugin) { p.Spec.Platforms[0].Selector = nil }, "spec.platforms[0]: selector is not set"},
		{"selector without arch", func(p *Plugin) {
			delete(p.Spec.Platforms[0].Selector.MatchLabels, "arch")
		}, "spec.platforms[0] (os=linux): selector.matchLabels.arch is not set"},
		{"selector with another key", func(p *Plugin) {
			p.Spec.Platforms[0].Selector.MatchLabels["libc"] = "musl"
		}, `selector.matchLabels has key "libc"`},
		{"duplicate selector", func(p *Plugin) {
			p.Spec.Platforms[1].Selector = &Selector{MatchLabels: map[string]string{"arch": "amd64", "os": "linux"}}
		}, "spec.platforms[1] (arch=amd64,os=linux): same selector as spec.platforms[0]"},
		{"no uri", func(p *Plugin) { p.Spec.Platforms[1].URI = "" }, "spec.platforms[1] (arch=amd64,os=windows): uri is not set"},
		{"no sha256", func(p *Plugin) { p.Spec.Platforms[0].Sha256 = "" }, "sha256 is not set"},
		{"upper-case sha256", func(p *Plugin) { p.Spec.Platforms[0].Sha256 = strings.ToUpper(testSHA) }, "is not 64 lowercase hex digits"},
		{"no files", func(p *Plugin) { p.Spec.Platforms[0].Files = nil }, "files is empty"},
		{"file from outside", func(p *Plugin) {
			p.Spec.Platforms[0].Files[1].From = "../LICENSE"
		}, `files[1]: from "../LICENSE" must be a clean relative path`},
		{"file to outside", func(p *Plugin) {
			p.Spec.Platforms[0].Files[1].To = "/etc"
		}, `files[1]: to "/etc" must be a clean relative path`},
		{"no bin", func(p *Plugin) { p.Spec.Platforms[0].Bin = "" }, "bin is not set"},
		{"bin not installed", func(p *Plugin) {
			p.Spec.Platforms[1].Bin = "kubectl-informer"
		}, `bin "kubectl-informer" is not among the files installed by files (kubectl-informer.exe, LICENSE)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := validPlugin()
			tt.breakP(&p)
			err := Validate(p, "informer")
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("Validate() = %v, want nil", err)
			case tt.want != "" && err == nil:
				t.Errorf("Validate() = nil, want an error containing %q", tt.want)
			case tt.want != "" && !strings.Contains(err.Error(), tt.want):
				t.Errorf("Validate() = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestValidateReportsEveryProblem(t *testing.T) {
	p := validPlugin()
	p.Kind = ""
	p.Spec.Platforms[0].Sha256 = ""
	p.Spec.Platforms[1].Bin = ""
	err := Validate(p, "informer")
	if err == nil {
		t.Fatal("Validate() = nil, want three problems")
	}
	for _, want := range []string{"kind is", "spec.platforms[0] (arch=amd64,os=linux): sha256 is not set", "spec.platforms[1] (arch=amd64,os=windows): bin is not set"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Validate() = %v, want it to contain %q", err, want)
		}
	}
}

func TestParseRejectsUnknownFields(t *testing.T) {
	manifest := `apiVersion: krew.googlecontainertools.github.com/v1alpha2
kind: Plugin
metadata:
  name: informer
spec:
  version: v1.2.3
  shortDescripton: typo
`
	if _, err := Parse([]byte(manifest)); err == nil || !strings.Contains(err.Error(), "shortDescripton") {
		t.Errorf("Parse() error = %v, want one naming the unknown field shortDescripton", err)
	}
}

func TestIsSemver(t *testing.T) {
	tests := []struct {
		v    string
		want bool
	}{
		{"v1.2.3", true},
		{"v0.0.0-gaa30d46-dirty", true},
		{"v1.2.3-rc.1+build.5", true},
		{"v1.2.3-4-gabcdef0", true},
		{"1.2.3", false},
		{"v1.2", false},
		{"v01.2.3", false},
		{"v1.2.3-01", false},
		{"aa30d46-dirty", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := IsSemver(tt.v); got != tt.want {
			t.Errorf("IsSemver(%q) = %v, want %v", tt.v, got, tt.want)
		}
	}
}

func TestPlatformFor(t *testing.T) {
	p := validPlugin()
	p.Spec.Platforms = append(p.Spec.Platforms, Platform{
		Selector: &Selector{MatchExpressions: []SelectorRequirement{{Key: "os", Operator: "In", Values: []string{"darwin", "freebsd"}}}},
		Bin:      "from-expression",
	})
	tests := []struct {
		os, arch string
		wantBin  string
		wantOK   bool
	}{
		{"linux", "amd64", "kubectl-informer", true},
		{"windows", "amd64", "kubectl-informer.exe", true},
		{"darwin", "arm64", "from-expression", true},
		{"linux", "arm64", "", false},
	}
	for _, tt := range tests {
		pl, ok := p.PlatformFor(tt.os, tt.arch)
		if ok != tt.wantOK || pl.Bin != tt.wantBin {
			t.Errorf("PlatformFor(%s, %s) = %q, %v, want %q, %v", tt.os, tt.arch, pl.Bin, ok, tt.wantBin, tt.wantOK)
		}
	}
}
