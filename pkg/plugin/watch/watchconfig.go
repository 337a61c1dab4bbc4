package watch

import (
	"fmt"
	"io"
	"slices"
	"time"

	"k8s.io/cli-runtime/pkg/printers"

	"github.com/kubectl-informer/kubectl-informer/pkg/diff"
	"github.com/kubectl-informer/kubectl-informer/pkg/expr"
)

// watchFormat is a -o value of watch.
type watchFormat int

const (
	formatText watchFormat = iota
	formatJSON
	formatYAML
	FormatName
)

// watchFormats are the flag values of the watchFormat constants, in their order.
var watchFormats = []string{"text", "json", "yaml", "name"}

func ParseWatchFormat(s string) (watchFormat, error) {
	return parseChoice[watchFormat](watchFormats, s, "-o/--output must be text, json, yaml or name for watch")
}

// diffMode is a --diff value: how text output shows what an update changed.
type diffMode int

const (
	diffCompact diffMode = iota
	diffUnified
	diffNone
)

// diffModes are the flag values of the diffMode constants, in their order.
var diffModes = []string{"compact", "unified", "none"}

func ParseDiffMode(s string) (diffMode, error) {
	return parseChoice[diffMode](diffModes, s, "--diff must be compact, unified or none")
}

// colorMode is a --color value.
type colorMode int

const (
	colorAuto colorMode = iota
	colorAlways
	colorNever
)

// colorModes are the flag values of the colorMode constants, in their order.
var colorModes = []string{"auto", "always", "never"}

func ParseColorMode(s string) (colorMode, error) {
	return parseChoice[colorMode](colorModes, s, "--color must be auto, always or never")
}

// Enabled reports whether output to w is coloured: for auto, when w is a
// terminal and the environment allows it (NO_COLOR, TERM=dumb).
func (m colorMode) Enabled(w io.Writer) bool {
	switch m {
	case colorAlways:
		return true
	case colorAuto:
		return printers.AllowsColorOutput(w)
	}
	return false
}

// parseChoice returns the index in values of the flag value s as a T, or an
// error that says what must be, "got" s.
func parseChoice[T ~int](values []string, s, mustBe string) (T, error) {
	if i := slices.Index(values, s); i >= 0 {
		return T(i), nil
	}
	return 0, fmt.Errorf("%s, got %q", mustBe, s)
}

// WatchPrintConfig is everything the watch printer needs, built from the
// flags once for every target.
type WatchPrintConfig struct {
	Format           watchFormat
	Diff             diffMode
	Color            bool
	Timestamps       bool
	Initial          bool
	ShowSecretValues bool
	DiffOptions      diff.Options
	Where            []WhereClause // ANDed; none: every object
	Filter           *expr.Guard   // --filter, ANDed with where; nil: none
	// Location is the time zone of --timestamps: the user's, which in a
	// warm cache process is the client's, not the process's own.
	Location *time.Location
	// sharedProcess is set when the watch runs in a process serving other
	// commands too (a warm cache): it then leaves GOMAXPROCS alone.
	sharedProcess bool
	// budget, when set, is --max-events shared by the watches of the
	// targets: an event is printed only while it lasts.
	budget *eventBudget
	// Context, set when the watch has several targets, names the target
	// of each event: the first word of every text line, CONTEXT/ before -o
	// name's line, and a field context first in -o json and yaml.
	Context string
}

// ParseDiffPaths returns the diff options of --ignore and --only: the default
// ignored paths and those of ignore, and the paths of only. A path that does not
// parse is an error naming its flag.
func ParseDiffPaths(ignore, only []string) (diff.Options, error) {
	opts := diff.Options{Ignore: diff.DefaultIgnore()}
	for _, s := range ignore {
		p, err := diff.ParsePath(s)
		if err != nil {
			return diff.Options{}, fmt.Errorf("--ignore: %w", err)
		}
		opts.Ignore = append(opts.Ignore, p)
	}
	for _, s := range only {
		p, err := diff.ParsePath(s)
		if err != nil {
			return diff.Options{}, fmt.Errorf("--only: %w", err)
		}
		opts.Only = append(opts.Only, p)
	}
	return opts, nil
}
