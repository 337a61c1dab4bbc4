package plugin

import (
	"io"

	"k8s.io/client-go/rest"
)

// apiWarnings returns the handler of the API server's warnings (Warning
// headers, e.g. of a deprecated API version) for a command whose stderr is
// errOut, as kubectl's: a line "Warning: MESSAGE" on errOut, each message
// once per command, when it arrives (a list's before the command prints
// anything); the word "Warning:" in colour when color is set (stderr is a
// terminal that allows it, printers.AllowsColorOutput).
//
// A command a warm cache answers prints, through the same handler in the
// cache process with the client's color, the warnings the cache's own
// lists and watches of its types got (server.Warnings): those of the
// latest response per type before its answer, later ones as they come.
func apiWarnings(errOut io.Writer, color bool) rest.WarningHandler {
	return rest.NewWarningWriter(errOut, rest.WarningWriterOptions{Deduplicate: true, Color: color})
}
