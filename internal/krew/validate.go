package krew

import (
	"errors"
	"fmt"
	"path"
	"regexp"
	"strings"

	"sigs.k8s.io/yaml"
)

// MaxShortDescription is the longest shortDescription krew's plugin
// guidelines allow, so that `kubectl krew search` fits on a line.
const MaxShortDescription = 50

var (
	// safeName is krew's rule for plugin names.
	safeName = regexp.MustCompile(`^[\w-]+$`)
	// sha256Hex is how krew wants a checksum written.
	sha256Hex = regexp.MustCompile(`^[a-f0-9]{64}$`)
	// semver is Semantic Versioning 2.0.0 with the leading "v" krew requires.
	semver = regexp.MustCompile(`^v(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)` +
		`(-(0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(\.(0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*)?` +
		`(\+[0-9a-zA-Z-]+(\.[0-9a-zA-Z-]+)*)?$`)
)

// IsSemver reports whether v is a version krew accepts in spec.version: a
// semantic version with a leading "v", such as v1.2.3 or v0.0.0-gabc1234.
func IsSemver(v string) bool {
	return semver.MatchString(v)
}

// Parse reads a rendered manifest. Unknown fields are errors, so that a
// misspelt field fails here instead of being dropped.
func Parse(data []byte) (Plugin, error) {
	var p Plugin
	if err := yaml.UnmarshalStrict(data, &p); err != nil {
		return Plugin{}, fmt.Errorf("parsing krew plugin manifest: %w", err)
	}
	return p, nil
}

// Validate checks that p is a manifest krew would install as the plugin
// name: the checks of krew's validation.ValidatePlugin, plus that every
// platform selects on both os and arch, that no two platforms have the same
// selector, that the file operations stay inside the archive and the
// installation directory, and that bin is among the files they install. It
// reads no archive; see CheckArchive for that. All problems are reported,
// joined.
func Validate(p Plugin, name string) error {
	var errs []error
	fail := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }

	if p.APIVersion != APIVersion {
		fail("apiVersion is %q, want %q", p.APIVersion, APIVersion)
	}
	if p.Kind != Kind {
		fail("kind is %q, want %q", p.Kind, Kind)
	}
	switch {
	case p.Metadata.Name != name:
		fail("metadata.name is %q, want %q", p.Metadata.Name, name)
	case !safeName.MatchString(name):
		fail("metadata.name %q must match %s", name, safeName)
	}
	switch {
	case p.Spec.Version == "":
		fail("spec.version is not set")
	case !IsSemver(p.Spec.Version):
		fail("spec.version %q is not a semantic version with a leading v, such as v1.2.3", p.Spec.Version)
	}
	if p.Spec.Homepage == "" {
		fail("spec.homepage is not set")
	}
	switch n := len([]rune(p.Spec.ShortDescription)); {
	case n == 0:
		fail("spec.shortDescription is not set")
	case n > MaxShortDescription:
		fail("spec.shortDescription has %d characters, krew allows %d", n, MaxShortDescription)
	}
	if p.Spec.Description == "" {
		fail("spec.description is not set")
	}
	if len(p.Spec.Platforms) == 0 {
		fail("spec.platforms is empty")
	}
	seen := map[string]int{}
	for i, pl := range p.Spec.Platforms {
		where := fmt.Sprintf("spec.platforms[%d]", i)
		if pl.Selector != nil {
			where += " (" + pl.Selector.String() + ")"
			if j, dup := seen[pl.Selector.String()]; dup {
				fail("%s: same selector as spec.platforms[%d]", where, j)
			} else {
				seen[pl.Selector.String()] = i
			}
		}
		for _, err := range validatePlatform(pl) {
			fail("%s: %w", where, err)
		}
	}
	return errors.Join(errs...)
}

// validatePlatform returns the problems of one platform entry.
func validatePlatform(pl Platform) []error {
	var errs []error
	fail := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }

	switch sel := pl.Selector; {
	case sel == nil:
		fail("selector is not set")
	default:
		for _, key := range []string{"os", "arch"} {
			if sel.MatchLabels[key] == "" {
				fail("selector.matchLabels.%s is not set", key)
			}
		}
		for k := range sel.MatchLabels {
			if k != "os" && k != "arch" {
				fail("selector.matchLabels has key %q; krew supports only os and arch", k)
			}
		}
		for _, req := range sel.MatchExpressions {
			if req.Key != "os" && req.Key != "arch" {
				fail("selector.matchExpressions has key %q; krew supports only os and arch", req.Key)
			}
		}
	}
	if pl.URI == "" {
		fail("uri is not set")
	}
	switch {
	case pl.Sha256 == "":
		fail("sha256 is not set")
	case !sha256Hex.MatchString(pl.Sha256):
		fail("sha256 %q is not 64 lowercase hex digits", pl.Sha256)
	}
	if len(pl.Files) == 0 {
		fail("files is empty")
	}
	for i, fo := range pl.Files {
		if err := checkFileOperation(fo); err != nil {
			fail("files[%d]: %w", i, err)
		}
	}
	switch {
	case pl.Bin == "":
		fail("bin is not set")
	case !isRelative(pl.Bin):
		fail("bin %q must be a clean relative path inside the installation directory", pl.Bin)
	case !installs(pl.Files, pl.Bin):
		fail("bin %q is not among the files installed by files (%s)", pl.Bin, describeTargets(pl.Files))
	}
	return errs
}

// checkFileOperation checks that fo stays inside the archive and the
// installation directory. An empty To means ".", as in krew.
func checkFileOperation(fo FileOperation) error {
	if fo.From == "" {
		return errors.New("from is not set")
	}
	if !isRelative(fo.From) {
		return fmt.Errorf("from %q must be a clean relative path inside the archive", fo.From)
	}
	if fo.To != "" && !isRelative(fo.To) {
		return fmt.Errorf("to %q must be a clean relative path inside the installation directory", fo.To)
	}
	if _, err := path.Match(fo.From, ""); err != nil {
		return fmt.Errorf("from %q: %w", fo.From, err)
	}
	return nil
}

// isRelative reports whether p is a clean slash-separated relative path that
// does not leave its base directory.
func isRelative(p string) bool {
	return p != "" && path.Clean(p) == p && !path.IsAbs(p) && !strings.HasPrefix(p, "/") &&
		p != ".." && !strings.HasPrefix(p, "../") && !strings.Contains(p, `\`)
}

// isGlob reports whether from has glob metacharacters.
func isGlob(from string) bool {
	return strings.ContainsAny(from, `*?[`)
}

// target returns where fo installs, judged without the archive: the path a
// single file is copied to, or for a glob the pattern its matches land on.
func target(fo FileOperation) string {
	to := fo.To
	if to == "" {
		to = "."
	}
	if isGlob(fo.From) {
		return path.Join(to, path.Base(fo.From))
	}
	if to == "." {
		return path.Base(fo.From)
	}
	return to
}

// installs reports whether the file operations install file (a path
// relative to the installation directory), directly or inside an installed
// directory.
func installs(files []FileOperation, file string) bool {
	for _, fo := range files {
		t := target(fo)
		for p := file; p != "."; p = path.Dir(p) {
			if ok, _ := path.Match(t, p); ok {
				return true
			}
		}
	}
	return false
}

func describeTargets(files []FileOperation) string {
	targets := make([]string, 0, len(files))
	for _, fo := range files {
		targets = append(targets, target(fo))
	}
	return strings.Join(targets, ", ")
}
