package main

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// machineInfo is what the results depend on besides the code.
type machineInfo struct {
	nproc                                        int
	cpuModel, memory, kernel                     string
	apiserver, kubectl, goVersion, pluginVersion string
	load                                         string // the three load averages at the start
}

func (b *bench) machine(ctx context.Context) machineInfo {
	m := machineInfo{nproc: runtime.NumCPU(), cpuModel: "unknown", memory: "unknown"}
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				m.cpuModel = strings.TrimSpace(v)
				break
			}
		}
		f.Close()
	}
	if f, err := os.Open("/proc/meminfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if f := strings.Fields(sc.Text()); len(f) >= 2 && f[0] == "MemTotal:" {
				if kb, err := strconv.ParseFloat(f[1], 64); err == nil {
					m.memory = strconv.FormatFloat(kb/1024/1024, 'f', 1, 64) + " GiB"
				}
			}
		}
		f.Close()
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.kernel = strings.TrimSpace(string(b))
	}
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		m.load = strings.Join(strings.Fields(string(b))[:3], " ")
	}
	m.apiserver = apiserverVersion(b.kubeconfig)
	m.goVersion = firstLine(b.output(ctx, "go", "version"))
	m.kubectl = firstLine(b.output(ctx, "kubectl", "version", "--client"))
	m.pluginVersion = firstLine(b.output(ctx, b.plugin, "version"))
	return m
}

// output runs a command with the measured commands' environment and
// returns its combined output, or the error.
func (b *bench) output(ctx context.Context, name string, args ...string) string {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = b.root
	cmd.Env = b.cmdEnv()
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "unknown (" + err.Error() + ")"
	}
	return strings.TrimSpace(string(out))
}

func apiserverVersion(kubeconfig string) string {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return "unknown (" + err.Error() + ")"
	}
	client, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return "unknown (" + err.Error() + ")"
	}
	resp, err := client.Get(strings.TrimSuffix(cfg.Host, "/") + "/version")
	if err != nil {
		return "unknown (" + err.Error() + ")"
	}
	defer resp.Body.Close()
	var v struct {
		GitVersion string `json:"gitVersion"`
		GoVersion  string `json:"goVersion"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		return "unknown (" + err.Error() + ")"
	}
	return v.GitVersion + " (built with " + v.GoVersion + ")"
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}
