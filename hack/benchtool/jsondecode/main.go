// Command jsondecode is the floor hack/bench compares `--from FILE` with:
// the least a Go program does to read a dump, one json.Decoder.Decode of
// the whole file, with none of the plugin's work (objects, informers,
// indexes).
//
//	jsondecode [--typed] FILE
//
// It decodes FILE, a JSON List as `kubectl get -o json` writes it, into an
// interface{} value (a map per object, what reading a file of unknown
// types takes), or with --typed into a list of v1.Pod, and prints the
// number of items.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"

	corev1 "k8s.io/api/core/v1"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "jsondecode: %v\n", err)
		os.Exit(1)
	}
}

func run() error {
	typed := flag.Bool("typed", false, "decode the items into v1.Pod values instead of interface{} values")
	flag.Parse()
	if flag.NArg() != 1 {
		return fmt.Errorf("usage: jsondecode [--typed] FILE")
	}
	f, err := os.Open(flag.Arg(0))
	if err != nil {
		return err
	}
	defer f.Close()
	dec := json.NewDecoder(bufio.NewReaderSize(f, 1<<20))
	var n int
	if *typed {
		var list struct {
			Items []corev1.Pod `json:"items"`
		}
		if err := dec.Decode(&list); err != nil {
			return fmt.Errorf("decoding %s: %w", flag.Arg(0), err)
		}
		n = len(list.Items)
	} else {
		var list map[string]any
		if err := dec.Decode(&list); err != nil {
			return fmt.Errorf("decoding %s: %w", flag.Arg(0), err)
		}
		items, _ := list["items"].([]any)
		n = len(items)
	}
	fmt.Printf("%d items\n", n)
	return nil
}
