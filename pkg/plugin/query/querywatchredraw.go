package query

import (
	"bytes"
	"context"
	"fmt"
	"strings"
)

// This file holds query -w on a terminal: the query's table of objects (or
// custom columns), exactly as query prints it, computed again from the
// caches as they change (the same lookup, filter, sort and printer as a
// one-shot query) and redrawn in place (live.Screen, live.Follow). Each
// target follows its own caches (watchOutput.run) and says when its answer
// changed; the shared output looks every target's answer up again and
// prints them merged as the one-shot query merges them (answerPrinter).

// current looks up the answer of every target that has synced, in the
// order of the contexts. A target of several whose answer fails is ended
// with its error (rowPrinter.fail), and left out.
func (s *watchOutput) current(ctx context.Context) ([]*targetAnswer, error) {
	s.mu.Lock()
	var answers []*targetAnswer
	var rps []*rowPrinter
	for _, name := range s.contexts {
		if rp := s.printers[name]; rp != nil {
			answers = append(answers, &targetAnswer{name: name, several: s.several, cfg: rp.w.cfg})
			rps = append(rps, rp)
		}
	}
	s.mu.Unlock()
	looked := answers[:0]
	for i, a := range answers {
		var err error
		a.groups, err = rps[i].w.lookup(ctx)
		switch {
		case err != nil && !s.several:
			return nil, err
		case err != nil:
			rps[i].fail(err)
		default:
			looked = append(looked, a)
		}
	}
	return looked, nil
}

// draw draws the answer of every target that has synced as a frame of
// the live table. Nothing is drawn before a target has synced.
func (s *watchOutput) draw(ctx context.Context) error {
	answers, err := s.current(ctx)
	if err != nil || len(answers) == 0 {
		return err
	}
	table, objects, err := render(answers, s.several)
	if err != nil {
		return err
	}
	return s.live.Draw(table, objects)
}

// render returns the lines query prints for answers ("No resources found"
// included), and the count of their objects per type.
func render(answers []*targetAnswer, several bool) ([]string, []string, error) {
	var types []string
	counts := map[string]int{}
	for _, a := range answers {
		for _, g := range a.groups {
			if _, ok := counts[g.t.Name()]; !ok {
				types = append(types, g.t.Name())
			}
			counts[g.t.Name()] += len(g.objs)
		}
	}
	objects := make([]string, len(types))
	for i, name := range types {
		objects[i] = fmt.Sprintf("%s: %d", name, counts[name])
	}
	var buf bytes.Buffer
	p := answerPrinter{answers: answers, several: several, contextAt: -1, out: &buf, errOut: &buf}
	if err := p.print(); err != nil {
		return nil, nil, err
	}
	text := strings.TrimSuffix(buf.String(), "\n")
	if text == "" {
		return nil, objects, nil
	}
	return strings.Split(text, "\n"), objects, nil
}
