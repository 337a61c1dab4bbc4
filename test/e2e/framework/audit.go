package framework

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
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
