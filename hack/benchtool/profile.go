package main

import (
	"flag"
	"fmt"
	"os"
	"runtime/pprof"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-informer/kubectl-informer/pkg/plugin"
)

// cmdProfile runs the plugin's own root command in this process under the
// CPU profiler: the same code as bin/kubectl-informer, minus process start.
// A query of 10,000 pods takes well under a second of CPU, which is few
// samples at pprof's 100 Hz; --repeat runs it several times into one
// profile. The heap profile written at the end shows allocations
// (alloc_space) over every run, and in-use memory as of the last garbage
// collection, which for a query happens while its cache is full.
func cmdProfile(args []string) error {
	fs := flag.NewFlagSet("profile", flag.ContinueOnError)
	cpu := fs.String("cpu", "", "write the CPU profile here")
	heap := fs.String("heap", "", "write a heap profile here at the end")
	repeat := fs.Int("repeat", 1, "run the command this many times")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *cpu == "" || fs.NArg() == 0 {
		return fmt.Errorf("profile needs --cpu FILE and the plugin's arguments after --")
	}
	f, err := os.Create(*cpu)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := pprof.StartCPUProfile(f); err != nil {
		return err
	}
	streams := genericiooptions.IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr}
	var runErr error
	for i := 0; i < *repeat && runErr == nil; i++ {
		cmd := plugin.NewCmdRoot(streams)
		cmd.SetArgs(fs.Args())
		runErr = cmd.Execute()
	}
	pprof.StopCPUProfile()
	if *heap != "" {
		h, err := os.Create(*heap)
		if err != nil {
			return err
		}
		defer h.Close()
		// No runtime.GC() first: that would drop the cache the last run
		// built, and in-use numbers are what remained at the last GC.
		if err := pprof.Lookup("allocs").WriteTo(h, 0); err != nil {
			return err
		}
	}
	return runErr
}
