package framework

import (
	"net"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"k8s.io/client-go/tools/clientcmd"
)

// Proxy is a TCP proxy on 127.0.0.1 between a client and an apiserver, for
// injecting network faults. TLS passes through untouched: the apiserver's
// serving certificate names 127.0.0.1, so clients that connect to the
// proxy's port verify it as usual.
type Proxy struct {
	listener net.Listener
	target   string

	mu       sync.Mutex
	conns    map[*proxyConn]struct{}
	refusing bool
	accepted int
}

// proxyConn is one client connection and its connection to the target.
type proxyConn struct {
	client, server net.Conn
	// dead: bytes read from either side are dropped, as if the network
	// between them had gone, while both TCP connections stay open.
	dead atomic.Bool
}

// StartProxy starts a proxy to target (host:port) and stops it when t ends.
func StartProxy(t testing.TB, target string) *Proxy {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("proxy: %v", err)
	}
	p := &Proxy{listener: l, target: target, conns: map[*proxyConn]struct{}{}}
	go p.serve()
	t.Cleanup(p.close)
	return p
}

// Addr is the proxy's host:port.
func (p *Proxy) Addr() string { return p.listener.Addr().String() }

// Accepted returns how many connections the proxy has accepted so far,
// refused ones included.
func (p *Proxy) Accepted() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.accepted
}

// Cut closes every open connection on both sides, as a restarted load
// balancer or NAT would, and returns how many there were.
func (p *Proxy) Cut() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := len(p.conns)
	for c := range p.conns {
		c.client.Close()
		c.server.Close()
		delete(p.conns, c)
	}
	return n
}

// Stall makes every open connection silently drop what either side sends
// from now on, while keeping the TCP connections open: the client sees
// neither data nor an error, only silence, as when a peer or a middlebox
// vanishes without a reset. New connections are not affected. It returns
// how many connections it stalled.
func (p *Proxy) Stall() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for c := range p.conns {
		if !c.dead.Swap(true) {
			n++
		}
	}
	return n
}

// Refuse makes the proxy close new connections at once (refuse is true) or
// forward them again (false). Open connections are not affected.
func (p *Proxy) Refuse(refuse bool) {
	p.mu.Lock()
	p.refusing = refuse
	p.mu.Unlock()
}

// Kubeconfig writes a copy of kubeconfig whose clusters point at the proxy,
// into t's temporary directory, and returns its path.
func (p *Proxy) Kubeconfig(t testing.TB, kubeconfig string) string {
	t.Helper()
	cfg, err := clientcmd.LoadFromFile(kubeconfig)
	if err != nil {
		t.Fatalf("proxy: %v", err)
	}
	for name, cluster := range cfg.Clusters {
		u, err := url.Parse(cluster.Server)
		if err != nil {
			t.Fatalf("proxy: server of cluster %s in %s: %v", name, kubeconfig, err)
		}
		u.Host = p.Addr()
		cluster.Server = u.String()
	}
	dir, err := os.MkdirTemp(t.TempDir(), "proxy")
	if err != nil {
		t.Fatalf("proxy: %v", err)
	}
	path := filepath.Join(dir, filepath.Base(kubeconfig))
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatalf("proxy: %v", err)
	}
	return path
}

func (p *Proxy) serve() {
	for {
		client, err := p.listener.Accept()
		if err != nil {
			return // closed
		}
		p.mu.Lock()
		p.accepted++
		refusing := p.refusing
		p.mu.Unlock()
		if refusing {
			client.Close()
			continue
		}
		go p.forward(client)
	}
}

func (p *Proxy) forward(client net.Conn) {
	server, err := net.Dial("tcp", p.target)
	if err != nil {
		client.Close()
		return
	}
	c := &proxyConn{client: client, server: server}
	p.mu.Lock()
	p.conns[c] = struct{}{}
	p.mu.Unlock()
	done := make(chan struct{}, 2)
	go c.pump(server, client, done)
	go c.pump(client, server, done)
	<-done
	client.Close()
	server.Close()
	<-done
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
}

// pump copies from src to dst until either fails, dropping the bytes once
// the connection is dead.
func (c *proxyConn) pump(dst, src net.Conn, done chan<- struct{}) {
	defer func() { done <- struct{}{} }()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 && !c.dead.Load() {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return // EOF, a reset or Cut: the same to the other side
		}
	}
}

func (p *Proxy) close() {
	p.listener.Close()
	p.Cut()
}
