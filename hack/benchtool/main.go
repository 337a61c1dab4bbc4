// Command benchtool is the harness behind hack/bench: it seeds a local
// control plane, runs kubectl informer and its baselines as separate
// processes, measures each one's wall time, CPU time and peak RSS from
// wait4's rusage, measures watch throughput, CPU per event and lag against
// the stamps of hack/seed churn, profiles what misses its target, and
// writes bench/RESULTS.md.
//
// Verbs:
//
//	benchtool run --cluster-dir DIR --work-dir DIR --root DIR [--out FILE] [--rawlist BIN]
//	benchtool profile --cpu FILE [--heap FILE] [--repeat N] -- PLUGIN-ARGS...
//	benchtool memory --kubeconfig FILE [--resource pods] [--kind typed|dynamic|metadata] [--managed-fields drop|summarize|intern|keep]
//	benchtool dump --pods N --out FILE
//	benchtool soak-check --dir DIR
//
// hack/bench starts and stops the control plane and calls run; run starts
// profile and memory as child processes. The raw LIST floor is a separate,
// small program, hack/benchtool/rawlist, so that its start-up and RSS are
// not those of this one (which links the whole plugin for profile); so is
// hack/benchtool/floor, the decode and watch floors of client-go alone.
package main

import (
	"fmt"
	"os"
)

const usage = `usage: benchtool VERB [FLAGS]

Verbs:
  run --cluster-dir DIR --work-dir DIR --root DIR [--out FILE] [--rawlist BIN]
        Seed the control plane whose admin.kubeconfig is in --cluster-dir,
        run every benchmark and write the report (default
        ROOT/bench/RESULTS.md). Tuned by BENCH_* environment variables; see
        bench/README.md. --rawlist is the hack/benchtool/rawlist binary
        (default: next to this one).
  profile --cpu FILE [--heap FILE] [--repeat N] -- ARGS...
        Run kubectl-informer ARGS in this process (the plugin's own cobra
        command, not a copy) --repeat times under the CPU profiler, and
        write a heap profile at the end. SIGTERM ends a watch cleanly.
  memory --kubeconfig FILE [--resource pods] [--kind K] [--managed-fields M]
        Sync one informer of the plugin's engine (kind typed, dynamic or
        metadata; managedFields drop, summarize or keep) over all
        namespaces in this process and print, as JSON, the live heap and
        heap in use after a GC before and after the sync, and the count.
  dump --pods N --out FILE
        Write the offline step's dump: N realistic pods as
        kubectl get pods -A -o json writes them.
  soak-check --dir DIR
        Print the soak step's section again from the files a run kept in
        its work directory DIR (BENCH_KEEP=1): the accounting of every
        outage from the watches' lines, churn's stamps, the outages'
        times and the server's lists.
`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	var err error
	switch verb, args := os.Args[1], os.Args[2:]; verb {
	case "run":
		err = cmdRun(args)
	case "profile":
		err = cmdProfile(args)
	case "memory":
		err = cmdMemory(args)
	case "dump":
		err = cmdDump(args)
	case "soak-check":
		err = cmdSoakCheck(args)
	case "help", "-h", "--help":
		fmt.Print(usage)
		return
	default:
		fmt.Fprint(os.Stderr, usage)
		err = fmt.Errorf("unknown verb %q", verb)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "benchtool: %v\n", err)
		os.Exit(1)
	}
}
