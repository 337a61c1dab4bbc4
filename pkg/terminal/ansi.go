package terminal

// ANSI escape sequences the printers write around coloured text.
const (
	Red    = "\x1b[31m"
	Green  = "\x1b[32m"
	Yellow = "\x1b[33m"
	Cyan   = "\x1b[36m"
	Bold   = "\x1b[1m"
	Faint  = "\x1b[2m"
	Reset  = "\x1b[0m"
)

// ClearLine moves the cursor to the start of the line and erases the line,
// for a status line that rewrites itself.
const ClearLine = "\r\x1b[K"
