//go:build unix

package client

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// Start starts a cache process in a session of its own (no controlling
// terminal, not ended by the terminal's hangup or Ctrl-C) and waits until
// it says it listens. It returns the process id, or an error with the end
// of the process's log when the process fails or does not get ready in time
// (it is then killed).
func Start(opts StartOptions) (int, error) {
	logFile, err := os.OpenFile(opts.LogPath, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return 0, fmt.Errorf("opening the cache log: %w", err)
	}
	defer logFile.Close()
	readyR, readyW, err := os.Pipe()
	if err != nil {
		return 0, fmt.Errorf("creating the readiness pipe: %w", err)
	}
	defer readyR.Close()
	cmd := exec.Command(opts.Executable, opts.Args...)
	cmd.Stdin = bytes.NewReader(opts.Stdin)
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	cmd.ExtraFiles = []*os.File{readyW} // fd 3 = ReadyFD
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		readyW.Close()
		return 0, fmt.Errorf("starting the cache process: %w", err)
	}
	readyW.Close()
	pid := cmd.Process.Pid
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()

	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(readyR).ReadString('\n')
		line <- strings.TrimSpace(s)
	}()
	select {
	case s := <-line:
		if s == "ready" {
			return pid, nil
		}
		if s == "" {
			<-waitAtMost(exited, 2*time.Second)
			return 0, fmt.Errorf("the cache process exited before it listened%s", logTail(opts.LogPath))
		}
		_ = cmd.Process.Kill()
		return 0, errors.New(s)
	case <-time.After(opts.Ready):
		_ = cmd.Process.Kill()
		return 0, fmt.Errorf("the cache process did not listen within %s; killed it%s", opts.Ready, logTail(opts.LogPath))
	}
}

func waitAtMost(ch <-chan struct{}, d time.Duration) <-chan struct{} {
	out := make(chan struct{})
	go func() {
		select {
		case <-ch:
		case <-time.After(d):
		}
		close(out)
	}()
	return out
}

// logTail returns the last lines of the log at path, as the end of an error
// message, or "" when it has none.
func logTail(path string) string {
	b, err := os.ReadFile(path)
	if err != nil || len(b) == 0 {
		return ""
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > 10 {
		lines = lines[len(lines)-10:]
	}
	return fmt.Sprintf("; the end of its log %s:\n%s", path, strings.Join(lines, "\n"))
}
