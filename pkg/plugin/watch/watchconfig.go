package watch

import (
	"fmt"
	"io"
	"slices"
	"time"

	"k8s.io/cli-runtime/pkg/printers"

	"github.com/kubectl-informer/kubectl-informer/pkg/diff"
	"github.com/kubectl-informer/kubectl-informer/pkg/expr"
	"github.com/spf13/cobra"
)

// watchFormat is a -o value of watch and history.
type watchFormat string

const (
	formatText watchFormat = "text"
	formatJSON watchFormat = "json"
	formatYAML watchFormat = "yaml"
	formatName watchFormat = "name"
)

// diffMode is a --diff value: how text output shows what an update changed.
type diffMode string

const (
	diffCompact diffMode = "compact"
	diffUnified diffMode = "unified"
	diffNone    diffMode = "none"
)

// colorMode is a --color value.
type colorMode string

const (
	colorAuto   colorMode = "auto"
	colorAlways colorMode = "always"
	colorNever  colorMode = "never"
)

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

// parseChoice returns the flag value s as a T when it is one of choices,
// or an error that says what must be, "got" s.
func parseChoice[T ~string](s, mustBe string, choices ...T) (T, error) {
	if slices.Contains(choices, T(s)) {
		return T(s), nil
	}
	return "", fmt.Errorf("%s, got %q", mustBe, s)
}

// PrintFlags are the flags of how events print, which watch and history
// share.
type PrintFlags struct {
	Output           string
	Diff             string
	Color            string
	Ignore           []string
	Only             []string
	ShowSecretValues bool
}

// AddFlags adds the flags to cmd, -o with outputUsage as its help, with
// their defaults: text, compact, auto.
func (f *PrintFlags) AddFlags(cmd *cobra.Command, outputUsage string) {
	fl := cmd.Flags()
	fl.StringVarP(&f.Output, "output", "o", string(formatText), outputUsage)
	fl.StringVar(&f.Diff, "diff", string(diffCompact), "How updates show what changed: compact, unified or none.")
	fl.StringVar(&f.Color, "color", string(colorAuto), "Colour output: auto (on a terminal, unless NO_COLOR is set), always or never.")
	fl.StringArrayVar(&f.Ignore, "ignore", nil, "Leave changes at or under PATH out of diffs and events (repeatable), e.g. --ignore status.conditions.")
	fl.StringArrayVar(&f.Only, "only", nil, "Report only changes at or under PATH (repeatable), e.g. --only spec --only metadata.labels.")
	fl.BoolVar(&f.ShowSecretValues, "show-secret-values", false, "Print the values of changed Secret data in text diffs (hidden by default).")
}

// Complete returns the print configuration the flags say, in local time,
// and the colour mode, which each output resolves for itself (Enabled).
// Its errors name the flag.
func (f *PrintFlags) Complete() (WatchPrintConfig, colorMode, error) {
	cfg := WatchPrintConfig{ShowSecretValues: f.ShowSecretValues, Location: time.Local}
	var color colorMode
	var err error
	if cfg.Format, err = parseChoice(f.Output, "-o/--output must be text, json, yaml or name for watch", formatText, formatJSON, formatYAML, formatName); err != nil {
		return cfg, color, err
	}
	if cfg.Diff, err = parseChoice(f.Diff, "--diff must be compact, unified or none", diffCompact, diffUnified, diffNone); err != nil {
		return cfg, color, err
	}
	if color, err = parseChoice(f.Color, "--color must be auto, always or never", colorAuto, colorAlways, colorNever); err != nil {
		return cfg, color, err
	}
	cfg.DiffOptions, err = ParseDiffPaths(f.Ignore, f.Only)
	return cfg, color, err
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
	// Location is the time zone of --timestamps: local for a watch.
	Location *time.Location
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
