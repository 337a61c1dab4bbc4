package framework

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// AuditEvent is the part of an audit.k8s.io/v1 Event the tests use. Fields
// keep the JSON names of the API (user.username, objectRef.resource, …).
type AuditEvent struct {
	AuditID string `json:"auditID"`
	// Stage is RequestReceived, ResponseStarted (watches),
	// ResponseComplete or Panic; the log has an event per stage.
	Stage                    string              `json:"stage"`
	Verb                     string              `json:"verb"`
	RequestURI               string              `json:"requestURI"`
	User                     AuditUser           `json:"user"`
	UserAgent                string              `json:"userAgent"`
	SourceIPs                []string            `json:"sourceIPs"`
	ObjectRef                AuditObjectRef      `json:"objectRef"`
	ResponseStatus           AuditResponseStatus `json:"responseStatus"`
	RequestReceivedTimestamp time.Time           `json:"requestReceivedTimestamp"`
	StageTimestamp           time.Time           `json:"stageTimestamp"`
	Annotations              map[string]string   `json:"annotations"`
}

// AuditUser is the authenticated user of a request.
type AuditUser struct {
	Username string   `json:"username"`
	Groups   []string `json:"groups"`
}

// AuditObjectRef is the object a request was about; empty for non-resource
// requests such as /api or /readyz.
type AuditObjectRef struct {
	Resource    string `json:"resource"`
	Namespace   string `json:"namespace"`
	Name        string `json:"name"`
	APIGroup    string `json:"apiGroup"`
	APIVersion  string `json:"apiVersion"`
	Subresource string `json:"subresource"`
}

// AuditResponseStatus is the status of the response; Code is 0 in
// RequestReceived events.
type AuditResponseStatus struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Reason  string `json:"reason"`
}

// ReadAuditLog parses the JSON-lines audit log at path, oldest event first.
// A last line without a newline is one the apiserver is still writing and
// is left out.
func ReadAuditLog(path string) ([]AuditEvent, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("opening audit log: %w", err)
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	var events []AuditEvent
	for n := 1; ; n++ {
		line, err := r.ReadBytes('\n')
		if errors.Is(err, io.EOF) {
			return events, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", path, err)
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		var e AuditEvent
		if err := json.Unmarshal(line, &e); err != nil {
			return nil, fmt.Errorf("parsing %s line %d: %w", path, n, err)
		}
		events = append(events, e)
	}
}

// pluginUserAgentPrefix starts the User-Agent of every request the plugin
// sends (see internal/version.UserAgent).
const pluginUserAgentPrefix = "kubectl-informer/"

// checkPluginReadOnly reads every audit log in dir (the primary
// apiserver's and any second one's) and returns how many audit events of
// the plugin's requests it found per verb, and an error naming each
// request of the plugin whose verb is not get, list or watch.
func checkPluginReadOnly(dir string) (map[string]int, error) {
	logs, err := filepath.Glob(filepath.Join(dir, "*audit.log"))
	if err != nil {
		return nil, err
	}
	verbs := map[string]int{}
	var writes []string
	for _, path := range logs {
		events, err := ReadAuditLog(path)
		if err != nil {
			return nil, err
		}
		for _, e := range events {
			if !strings.HasPrefix(e.UserAgent, pluginUserAgentPrefix) {
				continue
			}
			verbs[e.Verb]++
			switch e.Verb {
			case "get", "list", "watch":
			default:
				writes = append(writes, fmt.Sprintf("%s %s %s as %s (%s) in %s", e.Stage, e.Verb, e.RequestURI, e.User.Username, e.UserAgent, filepath.Base(path)))
			}
		}
	}
	if len(writes) > 0 {
		return verbs, fmt.Errorf("the plugin sent requests that are not get, list or watch:\n  %s", strings.Join(writes, "\n  "))
	}
	return verbs, nil
}
