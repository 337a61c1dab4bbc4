package engines

import (
	"os"
	"strings"
	"time"
)

// ClientLocation returns the time zone of a warm cache's client from its
// TZ variable (nil: unset), by the rules the Go runtime applies to its own
// TZ (time.Local): unset means /etc/localtime; empty, "UTC" or a zone that
// cannot be loaded means UTC; a leading ':' is dropped; an absolute path
// is a zoneinfo file; anything else a zone name (Asia/Kolkata). The cache
// process and its client run on one machine, so the files are the same.
func ClientLocation(tz *string) *time.Location {
	if tz == nil {
		return zoneFile("/etc/localtime", "Local")
	}
	name := strings.TrimPrefix(*tz, ":")
	switch {
	case name == "" || name == "UTC":
		return time.UTC
	case strings.HasPrefix(name, "/"):
		return zoneFile(name, name)
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return time.UTC
	}
	return loc
}

// zoneFile loads the zoneinfo file at path as the location name, UTC if it
// cannot.
func zoneFile(path, name string) *time.Location {
	data, err := os.ReadFile(path)
	if err != nil {
		return time.UTC
	}
	loc, err := time.LoadLocationFromTZData(name, data)
	if err != nil {
		return time.UTC
	}
	return loc
}

// clientTZ returns this process's TZ variable for a warm cache's Request,
// nil when it is unset.
func clientTZ() *string {
	if tz, ok := os.LookupEnv("TZ"); ok {
		return &tz
	}
	return nil
}
