package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpSession is one MCP server process over stdio and the Go SDK's client
// session with it.
type mcpSession struct {
	cs  *sdk.ClientSession
	cmd *exec.Cmd
	pid int
	// toolsBytes is the size of the tools/list result, as JSON: what a
	// client reads before its first call.
	toolsBytes int
	tools      map[string]bool
}

// startMCP starts argv as an MCP server over stdio with env, its stderr
// appended to stderrPath, initializes a session and lists its tools. The
// session reads frames of any length: a client with the SDK's default
// (sdk.DefaultMaxLineLength) fails a call whose result is longer, and the
// bench measures such results rather than failing them.
func startMCP(ctx context.Context, argv, env []string, stderrPath string) (*mcpSession, error) {
	stderr, err := os.OpenFile(stderrPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	defer stderr.Close() // the child holds its own descriptor
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	cmd.Stderr = stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", strings.Join(argv, " "), err)
	}
	s := &mcpSession{cmd: cmd, pid: cmd.Process.Pid, tools: map[string]bool{}}
	client := sdk.NewClient(&sdk.Implementation{Name: "benchtool", Version: "v1"}, nil)
	s.cs, err = client.Connect(ctx, &sdk.IOTransport{Reader: stdout, Writer: stdin, MaxLineLength: -1}, nil)
	if err != nil {
		s.close()
		return nil, fmt.Errorf("initializing %s: %w", strings.Join(argv, " "), err)
	}
	cs := s.cs
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		s.close()
		return nil, fmt.Errorf("%s: tools/list: %w", argv[0], err)
	}
	s.toolsBytes = jsonSize(list)
	for _, t := range list.Tools {
		s.tools[t.Name] = true
	}
	return s, nil
}

// call calls a tool and returns its result, its size as JSON and the
// call's wall time; a tool error is an error.
func (s *mcpSession) call(ctx context.Context, c mcpCall) (*sdk.CallToolResult, int, time.Duration, error) {
	if !s.tools[c.tool] {
		return nil, 0, 0, fmt.Errorf("the server has no tool %s", c.tool)
	}
	start := time.Now()
	res, err := s.cs.CallTool(ctx, &sdk.CallToolParams{Name: c.tool, Arguments: c.args})
	wall := time.Since(start)
	if err != nil {
		return nil, 0, wall, fmt.Errorf("%s: %w", c, err)
	}
	if res.IsError {
		return res, jsonSize(res), wall, fmt.Errorf("%s: tool error: %s", c, tail(resultText(res), 300))
	}
	return res, jsonSize(res), wall, nil
}

// peakRSS is the server process's peak resident set so far (VmHWM), in
// KiB, or 0 when it cannot be read.
func (s *mcpSession) peakRSS() int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.pid))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmHWM:" {
			v, _ := strconv.ParseInt(f[1], 10, 64)
			return v
		}
	}
	return 0
}

// close ends the session, which closes the server's stdin, and waits for
// the server to exit: at most 5 s, then it is killed.
func (s *mcpSession) close() {
	if s.cs != nil {
		_ = s.cs.Close()
	}
	done := make(chan struct{})
	go func() {
		_ = s.cmd.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = s.cmd.Process.Kill()
		<-done
	}
}

// mcpCall is one tool call.
type mcpCall struct {
	tool string
	args map[string]any
}

func (c mcpCall) String() string {
	args, _ := json.Marshal(c.args)
	return c.tool + " " + string(args)
}

// jsonSize is the size of v as JSON, or 0.
func jsonSize(v any) int {
	b, err := json.Marshal(v)
	if err != nil {
		return 0
	}
	return len(b)
}

// resultText is the text content of a tool result.
// modelBytes is how much of res a model reads: a client gives it one of
// the result's two forms, the structured content as JSON (Claude Code and
// VS Code, when there is one) or the text content (other clients, or when
// there is no structured content). Both are counted, and the larger is
// what a model may read. 0 for no result.
func modelBytes(res *sdk.CallToolResult) int {
	if res == nil {
		return 0
	}
	text := len(resultText(res))
	if res.StructuredContent == nil {
		return text
	}
	return max(text, jsonSize(res.StructuredContent))
}

func resultText(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*sdk.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}
