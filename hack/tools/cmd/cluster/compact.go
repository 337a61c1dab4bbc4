package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"
)

// compact compacts etcd's history up to its current revision, so that a
// watch resuming from any earlier resourceVersion gets "410 Gone" from an
// apiserver that sends watches straight to etcd (see apiserver
// --no-watch-cache). It uses etcd's JSON gateway, which needs no client
// library.
func compact(dirArg string) error {
	st, unlock, err := lockRunning(dirArg)
	if err != nil {
		return err
	}
	defer unlock()
	client := &http.Client{Timeout: 10 * time.Second}
	// A range over a key that does not exist returns the store's revision
	// in its header.
	var status struct {
		Header struct {
			Revision string `json:"revision"`
		} `json:"header"`
	}
	if err := etcdPost(client, st.Etcd.ClientURL+"/v3/kv/range", map[string]any{"key": "AA=="}, &status); err != nil {
		return err
	}
	revision, err := strconv.ParseInt(status.Header.Revision, 10, 64)
	if err != nil {
		return fmt.Errorf("etcd returned revision %q: %w", status.Header.Revision, err)
	}
	req := map[string]any{"revision": revision, "physical": true}
	if err := etcdPost(client, st.Etcd.ClientURL+"/v3/kv/compaction", req, nil); err != nil {
		return err
	}
	fmt.Printf("cluster: compacted etcd at revision %d\n", revision)
	return nil
}

func etcdPost(client *http.Client, url string, body, out any) error {
	data, err := json.Marshal(body)
	if err != nil {
		return err
	}
	resp, err := client.Post(url, "application/json", bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("etcd: %w", err)
	}
	defer resp.Body.Close()
	respBody, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("etcd %s: %w", url, err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("etcd %s: %s: %s", url, resp.Status, bytes.TrimSpace(respBody))
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(respBody, out); err != nil {
		return fmt.Errorf("etcd %s: decoding %q: %w", url, respBody, err)
	}
	return nil
}
