package manifest

import (
	"bufio"
	"bytes"
	"io"
)

// Written to standard output, `kubectl cluster-info dump` puts each pod's
// logs between its lists, as lines between
// "==== START logs for container C of pod NS/NAME ====" and
// "==== END logs for container C of pod NS/NAME ====".
var (
	logStart = []byte("==== START logs for container ")
	logEnd   = []byte("==== END logs for container ")
)

// logBlockFilter passes its input on with the log blocks of a
// cluster-info dump blanked (white space), so that the lists around them
// decode.
type logBlockFilter struct {
	in *bufio.Reader
	// inBlock is set between a start line and its end line.
	inBlock bool
	// atLineStart is set when the next byte read starts a line.
	atLineStart bool
	// skipLine drops the rest of the current line.
	skipLine bool
	pending  []byte
	// blank holds a log line turned into spaces.
	blank []byte
}

func newLogBlockFilter(in io.Reader) *logBlockFilter {
	return &logBlockFilter{in: bufio.NewReaderSize(in, 64*1024), atLineStart: true}
}

func (f *logBlockFilter) Read(p []byte) (int, error) {
	for len(f.pending) == 0 {
		chunk, err := f.in.ReadSlice('\n')
		if len(chunk) > 0 {
			f.take(chunk)
		}
		switch {
		case err == nil || err == bufio.ErrBufferFull:
		case len(f.pending) > 0 && err == io.EOF:
			// Hand over what is left; EOF comes on the next Read.
		default:
			return 0, err
		}
	}
	n := copy(p, f.pending)
	f.pending = f.pending[n:]
	return n, nil
}

// take passes chunk, a whole line or a part of one, on, blanked if it
// belongs to a log block.
func (f *logBlockFilter) take(chunk []byte) {
	lineStart := f.atLineStart
	f.atLineStart = chunk[len(chunk)-1] == '\n'
	if lineStart {
		f.skipLine = false
		switch {
		case bytes.HasPrefix(chunk, logStart):
			f.inBlock, f.skipLine = true, true
		case f.inBlock && bytes.HasPrefix(chunk, logEnd):
			f.inBlock, f.skipLine = false, true
		}
	}
	if f.inBlock || f.skipLine {
		// Blanked, not dropped: the lines and offsets of what follows
		// stay those of the file, for error messages.
		blank := append(f.blank[:0], chunk...)
		for i, c := range blank {
			if c != '\n' {
				blank[i] = ' '
			}
		}
		f.blank = blank
		f.pending = blank
		return
	}
	f.pending = chunk
}
