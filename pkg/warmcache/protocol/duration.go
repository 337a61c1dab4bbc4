package protocol

import (
	"encoding/json"
	"fmt"
	"time"
)

// Duration is a time.Duration that is written as Go formats it ("30m0s"),
// as Kubernetes writes durations, so that `cache status -o json|yaml` reads
// as the flag was given. It reads that form and, from caches of earlier
// builds, a number of nanoseconds.
type Duration time.Duration

// MarshalJSON implements json.Marshaler.
func (d Duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(d).String())
}

// UnmarshalJSON implements json.Unmarshaler.
func (d *Duration) UnmarshalJSON(data []byte) error {
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		var ns int64
		if numErr := json.Unmarshal(data, &ns); numErr != nil {
			return fmt.Errorf("a duration must be a string such as \"30m0s\" or a number of nanoseconds, got %s", data)
		}
		*d = Duration(ns)
		return nil
	}
	parsed, err := time.ParseDuration(s)
	if err != nil {
		return err
	}
	*d = Duration(parsed)
	return nil
}
