package mcp

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"strings"

	"k8s.io/klog/v2"

	"github.com/kubectl-informer/kubectl-informer/internal/peercred"
	"github.com/kubectl-informer/kubectl-informer/pkg/warmcache/client"
	"github.com/kubectl-informer/kubectl-informer/pkg/warmcache/server"
)

// unixPrefix starts an --http address that names a unix socket.
const unixPrefix = "unix:"

// CheckAddress checks an --http address: HOST:PORT on a loopback address,
// or unix:PATH, a unix socket only its owner may use. Any other address is
// refused: whoever connects reads the clusters with the user's credentials.
func CheckAddress(addr string) error {
	if path, ok := strings.CutPrefix(addr, unixPrefix); ok {
		if path == "" {
			return fmt.Errorf("--http %q: want unix:PATH, the path of the socket to create", addr)
		}
		return nil
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--http %q: want HOST:PORT on a loopback address (127.0.0.1:8080) or unix:PATH: %w", addr, err)
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("--http %q: only a loopback address (127.0.0.1, ::1 or localhost) or a unix socket (unix:PATH) is served, since whoever connects reads the clusters with your credentials", addr)
}

// listen listens on addr, which CheckAddress accepted, and returns the
// listener and the URL clients connect to. A unix socket is created with
// mode 0600 and accepts only connections of this process's user; a socket
// left at its path by a server that is gone is replaced, anything else at
// the path is an error.
func listen(addr string) (net.Listener, string, error) {
	path, ok := strings.CutPrefix(addr, unixPrefix)
	if !ok {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			return nil, "", fmt.Errorf("--http %s: %w", addr, err)
		}
		return ln, "http://" + ln.Addr().String(), nil
	}
	info, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, "", fmt.Errorf("--http %s: %w", addr, err)
	case info.Mode().Type() != fs.ModeSocket:
		return nil, "", fmt.Errorf("--http %s: %s exists and is not a socket", addr, path)
	default:
		free, err := client.RemoveStale(path)
		if err != nil {
			return nil, "", fmt.Errorf("--http %s: %w", addr, err)
		}
		if !free {
			return nil, "", fmt.Errorf("--http %s: another server listens on %s", addr, path)
		}
	}
	ln, err := server.Listen(path)
	if err != nil {
		return nil, "", fmt.Errorf("--http %s: %w", addr, err)
	}
	return ownerOnly{ln}, addr, nil
}

// ownerOnly is a unix socket listener that closes the connections of other
// users, whatever the socket file's mode says.
type ownerOnly struct{ *server.Listener }

// Accept returns the next connection of this process's user.
func (l ownerOnly) Accept() (net.Conn, error) {
	for {
		conn, err := l.AcceptUnix()
		if err != nil {
			return nil, err
		}
		uid, err := peercred.UID(conn)
		if err == nil && uid == os.Getuid() {
			return conn, nil
		}
		klog.InfoS("refused a connection from another user", "peerUID", uid, "err", err)
		conn.Close()
	}
}
