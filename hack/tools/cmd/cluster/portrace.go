package main

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
)

// errPortTaken marks a start that failed because a port freePorts chose
// was taken before the process bound it: freePorts releases its listeners
// before etcd, kube-apiserver and the components bind the ports, and
// clusters started at the same time (hack/cluster fleet up) can take one
// meanwhile.
var errPortTaken = errors.New("a port chosen for it was taken meanwhile")

// upAttempts bounds how often upRetrying starts a cluster that lost a
// port race.
const upAttempts = 3

// upRetrying is up, started again with other ports when a start failed
// with errPortTaken (up stops what it started; the next up starts afresh).
func upRetrying(dirArg string, timeout time.Duration, ownerPID int, o upOptions) error {
	for attempt := 1; ; attempt++ {
		err := up(dirArg, timeout, ownerPID, o)
		if err == nil || !errors.Is(err, errPortTaken) || attempt == upAttempts {
			return err
		}
		first, _, _ := strings.Cut(err.Error(), "\n")
		fmt.Fprintf(os.Stderr, "cluster: %s; starting again with other ports\n", first)
	}
}

// bindFailed says whether the log at path tells that its process could not
// bind an address.
func bindFailed(path string) bool {
	data, err := os.ReadFile(path)
	return err == nil && strings.Contains(string(data), "address already in use")
}
