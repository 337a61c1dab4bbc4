// Command runner runs one command and reports its resource usage, for
// hack/bench:
//
//	runner -- COMMAND [ARGS...]
//
// The command gets runner's stdin, stdout, stderr and environment. On file
// descriptor 3 runner writes "pid PID" once the command has started, and at
// the end "exit CODE wall NS user NS sys NS maxrss KIB" from wait4. SIGINT
// and SIGTERM are passed on to the command.
//
// Why not measure from the harness itself: Go starts children with
// clone(CLONE_VM|CLONE_VFORK), and at exec the kernel folds the high-water
// RSS of the memory the child shared with its parent into the child's
// ru_maxrss. A child of the harness, which links client-go and holds the
// watch output, would show at least the harness's own peak. runner is small
// (a few MiB), so what it adds to its child's ru_maxrss is negligible.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	args := os.Args[1:]
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	report := os.NewFile(3, "report")
	if len(args) == 0 || report == nil {
		fmt.Fprintln(os.Stderr, "usage: runner -- COMMAND [ARGS...] 3>REPORT")
		os.Exit(2)
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	signals := make(chan os.Signal, 4)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM)
	start := time.Now()
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "runner: %v\n", err)
		os.Exit(127)
	}
	fmt.Fprintf(report, "pid %d\n", cmd.Process.Pid)
	go func() {
		for s := range signals {
			_ = cmd.Process.Signal(s)
		}
	}()
	_ = cmd.Wait()
	wall := time.Since(start)
	code := cmd.ProcessState.ExitCode()
	var maxrss int64
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		maxrss = ru.Maxrss
	}
	fmt.Fprintf(report, "exit %d wall %d user %d sys %d maxrss %d\n", code, wall.Nanoseconds(),
		cmd.ProcessState.UserTime().Nanoseconds(), cmd.ProcessState.SystemTime().Nanoseconds(), maxrss)
	if code < 0 {
		code = 128 + 15
	}
	os.Exit(code)
}
