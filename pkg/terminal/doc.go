// Package terminal keeps cluster data from acting on the terminal it is
// printed to: it escapes control, line-separator and bidirectional formatting
// characters (SanitizeText, AppendSanitized), escapes the characters the YAML
// library must not see raw (EscapeForYAML), and names the ANSI codes the
// printers colour their output with.
//
// Whether to colour at all is not decided here: cli-runtime's
// printers.AllowsColorOutput answers that.
package terminal
