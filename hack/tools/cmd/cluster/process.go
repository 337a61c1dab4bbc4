package main

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// child is a process started by this command. exited is closed when it
// exits while this command still runs; after the command exits the process
// carries on in its own session.
type child struct {
	pid    int
	exited chan struct{}
	err    error // valid once exited is closed
}

// startDetached starts bin in a new session (so signals to the caller's
// terminal or process group do not reach it and it outlives this command),
// with stdin from /dev/null and stdout and stderr appended to logPath.
func startDetached(bin string, args []string, logPath string) (*child, error) {
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("opening log: %w", err)
	}
	defer logFile.Close()
	fmt.Fprintf(logFile, "=== %s: %s %s\n", time.Now().Format(time.RFC3339), bin, strings.Join(args, " "))
	cmd := exec.Command(bin, args...)
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", bin, err)
	}
	c := &child{pid: cmd.Process.Pid, exited: make(chan struct{})}
	go func() {
		c.err = cmd.Wait()
		close(c.exited)
	}()
	return c, nil
}

// procState returns the state letter from /proc/PID/stat ("R", "S", "Z", …)
// and the process start time in clock ticks since boot; ok is false if
// there is no such process.
func procState(pid int) (state string, start uint64, ok bool) {
	if pid <= 0 {
		return "", 0, false
	}
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", 0, false
	}
	// The command name is in parentheses and may contain spaces; the fields
	// after the last ')' are space-separated: state is the first, start
	// time the twentieth.
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return "", 0, false
	}
	fields := strings.Fields(string(data[i+1:]))
	if len(fields) < 20 {
		return "", 0, false
	}
	start, _ = strconv.ParseUint(fields[19], 10, 64)
	return fields[0], start, true
}

// alive reports whether pid is a live process (zombies count as gone).
func alive(pid int) bool {
	state, _, ok := procState(pid)
	return ok && state != "Z" && state != "X"
}

// ownedBy reports whether pid is a live process whose command line mentions
// dir, which every process this command starts does. It guards against
// signalling an unrelated process that reused a recorded pid.
func ownedBy(pid int, dir string) bool {
	if !alive(pid) {
		return false
	}
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		return false
	}
	for _, arg := range bytes.Split(data, []byte{0}) {
		if bytes.Contains(arg, []byte(dir)) {
			return true
		}
	}
	return false
}

// stopProcess ends pid if it is still one of ours: SIGTERM, then SIGKILL
// after grace. With grace 0 it sends SIGKILL at once. It returns once the
// process is gone.
func stopProcess(pid int, dir string, grace time.Duration) error {
	if !ownedBy(pid, dir) {
		return nil
	}
	if grace > 0 {
		if err := syscall.Kill(pid, syscall.SIGTERM); err != nil && !errors.Is(err, syscall.ESRCH) {
			return fmt.Errorf("signalling pid %d: %w", pid, err)
		}
		if waitGone(pid, grace) {
			return nil
		}
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("killing pid %d: %w", pid, err)
	}
	if waitGone(pid, 10*time.Second) {
		return nil
	}
	return fmt.Errorf("pid %d is still running after SIGKILL", pid)
}

// waitReaped waits up to d for the given exited pids to leave the process
// table. A process this program did not start stays a zombie until init
// reaps it (here within a second or two); waiting for that keeps ps and
// pgrep from listing it after down returns.
func waitReaped(pids []int, d time.Duration) {
	deadline := time.Now().Add(d)
	for _, pid := range pids {
		for time.Now().Before(deadline) {
			if _, _, ok := procState(pid); !ok {
				break
			}
			time.Sleep(25 * time.Millisecond)
		}
	}
}

// waitGone waits up to d for pid to exit; a zombie counts as gone.
func waitGone(pid int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for {
		if !alive(pid) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// freePorts returns n distinct free TCP ports on 127.0.0.1. All listeners are
// held until every port is chosen, so the ports differ; another process may
// still take one before it is used, a small race tests live with.
func freePorts(n int) ([]int, error) {
	ports := make([]int, 0, n)
	for i := 0; i < n; i++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("finding a free port: %w", err)
		}
		defer l.Close()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// portFree reports whether port can be listened on right now.
func portFree(port int) bool {
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return false
	}
	l.Close()
	return true
}

// tail returns the last n lines of the file at path, for error messages.
func tail(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
