package main

import (
	"fmt"
	"path/filepath"
	"time"
)

// moveComponents restarts kube-controller-manager, kube-scheduler, kwok and
// metrics-server (if the cluster runs it) against the apiserver name, so that they keep driving the cluster while
// another apiserver is stopped, as they would behind a load balancer of an
// HA control plane.
func moveComponents(dirArg, name string, timeout time.Duration) error {
	st, unlock, err := lockRunning(dirArg)
	if err != nil {
		return err
	}
	defer unlock()
	a, ok := st.APIServers[name]
	if !ok {
		return fmt.Errorf("no apiserver %s in %s", name, st.Dir)
	}
	if len(st.Components) == 0 {
		return fmt.Errorf("the cluster in %s runs no controllers; start it with up --nodes N", st.Dir)
	}
	p := pkiFiles{dir: filepath.Join(st.Dir, "pki")}
	for _, component := range componentBins {
		c, ok := st.Components[component]
		if !ok {
			continue
		}
		pid := c.PID
		if err := stopProcess(pid, st.Dir, stopGrace); err != nil {
			return fmt.Errorf("stopping %s: %w", component, err)
		}
		waitReaped([]int{pid}, 3*time.Second)
		if err := writeKubeconfig(c.Kubeconfig, a.URL, p, component); err != nil {
			return err
		}
		if err := st.startComponent(c, timeout); err != nil {
			st.save()
			return err
		}
	}
	if err := st.save(); err != nil {
		return err
	}
	var moved []string
	for _, component := range componentBins {
		if _, ok := st.Components[component]; ok {
			moved = append(moved, component)
		}
	}
	fmt.Printf("cluster: %v talk to apiserver %s at %s\n", moved, name, a.URL)
	return nil
}
