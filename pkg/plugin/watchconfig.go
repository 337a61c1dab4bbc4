package plugin

import (
	"fmt"
	"io"

	"k8s.io/cli-runtime/pkg/printers"

	"github.com/kubectl-informer/kubectl-informer/pkg/diff"
)

// watchFormat is a -o value of watch.
type watchFormat int

const (
	formatText watchFormat = iota
	formatJSON
	formatYAML
	formatName
)

func parseWatchFormat(s string) (watchFormat, error) {
	switch s {
	case "text":
		return formatText, nil
	case "json":
		return formatJSON, nil
	case "yaml":
		return formatYAML, nil
	case "name":
		return formatName, nil
	}
	return 0, fmt.Errorf("-o/--output must be text, json, yaml or name for watch, got %q", s)
}

// diffMode is a --diff value: how text output shows what an update changed.
type diffMode int

const (
	diffCompact diffMode = iota
	diffUnified
	diffNone
)

func parseDiffMode(s string) (diffMode, error) {
	switch s {
	case "compact":
		return diffCompact, nil
	case "unified":
		return diffUnified, nil
	case "none":
		return diffNone, nil
	}
	return 0, fmt.Errorf("--diff must be compact, unified or none, got %q", s)
}

// colorMode is a --color value.
type colorMode int

const (
	colorAuto colorMode = iota
	colorAlways
	colorNever
)

func parseColorMode(s string) (colorMode, error) {
	switch s {
	case "auto":
		return colorAuto, nil
	case "always":
		return colorAlways, nil
	case "never":
		return colorNever, nil
	}
	return 0, fmt.Errorf("--color must be auto, always or never, got %q", s)
}

// enabled reports whether output to w is coloured: for auto, when w is a
// terminal and the environment allows it (NO_COLOR, TERM=dumb).
func (m colorMode) enabled(w io.Writer) bool {
	switch m {
	case colorAlways:
		return true
	case colorAuto:
		return printers.AllowsColorOutput(w)
	}
	return false
}

// watchPrintConfig is everything the watch printer needs, built by
// WatchOptions.Complete from the flags.
type watchPrintConfig struct {
	format           watchFormat
	diff             diffMode
	color            bool
	timestamps       bool
	initial          bool
	maxEvents        int // 0: no limit
	showSecretValues bool
	diffOptions      diff.Options
	where            []whereClause // ANDed; none: every object
}
