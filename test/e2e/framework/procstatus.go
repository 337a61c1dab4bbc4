package framework

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// ProcStatus returns the fields of /proc/PID/status that are sizes in kB
// (VmHWM, VmRSS, RssAnon, RssFile, ...) in bytes. It fails if the process
// has ended, since the kernel then no longer reports its memory.
func ProcStatus(pid int) (map[string]int64, error) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return nil, fmt.Errorf("reading the status of process %d: %w", pid, err)
	}
	fields := map[string]int64{}
	for _, line := range strings.Split(string(data), "\n") {
		key, value, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		number, found := strings.CutSuffix(strings.TrimSpace(value), " kB")
		if !found {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(number), 10, 64)
		if err != nil {
			continue
		}
		fields[key] = n << 10
	}
	if _, ok := fields["VmHWM"]; !ok {
		// A zombie has a status file without memory fields.
		return nil, fmt.Errorf("process %d reports no memory (it has exited)", pid)
	}
	return fields, nil
}
