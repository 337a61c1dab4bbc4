package engine

import (
	"fmt"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestAPICauseDropsClientGoWrapping(t *testing.T) {
	forbidden := apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "", fmt.Errorf("no"))
	wrapped := fmt.Errorf("failed to list *v1.PartialObjectMetadata: %w", forbidden)
	if got := apiCause(wrapped); got.Error() != forbidden.Error() {
		t.Errorf("apiCause(wrapped) = %q, want %q", got, forbidden)
	}
	plain := fmt.Errorf("dial tcp: connection refused")
	if got := apiCause(plain); got != plain {
		t.Errorf("apiCause(plain) = %q, want it unchanged", got)
	}
}

func TestIsFatalAndIsForbidden(t *testing.T) {
	gr := schema.GroupResource{Resource: "pods"}
	tests := []struct {
		name          string
		err           error
		want          bool // isFatal
		wantForbidden bool // IsForbidden
	}{
		{"forbidden", apierrors.NewForbidden(gr, "", fmt.Errorf("no")), true, true},
		{"forbidden, wrapped", fmt.Errorf("watching pods: %w", apierrors.NewForbidden(gr, "", fmt.Errorf("no"))), true, true},
		{"unauthorized", apierrors.NewUnauthorized("who"), true, true},
		{"not found", apierrors.NewNotFound(gr, ""), true, false},
		{"bad request", apierrors.NewBadRequest("bad field selector"), true, false},
		{"server error", apierrors.NewInternalError(fmt.Errorf("boom")), false, false},
		{"too many requests", apierrors.NewTooManyRequests("slow down", 1), false, false},
		{"expired", apierrors.NewResourceExpired("too old"), false, false},
		{"not an API error", fmt.Errorf("forbidden"), false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := isFatal(tt.err); got != tt.want {
				t.Errorf("isFatal(%v) = %v, want %v", tt.err, got, tt.want)
			}
			if got := IsForbidden(tt.err); got != tt.wantForbidden {
				t.Errorf("IsForbidden(%v) = %v, want %v", tt.err, got, tt.wantForbidden)
			}
		})
	}
}

func TestIsWatchForbidden(t *testing.T) {
	// Messages as RBAC words them.
	watch := apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "", fmt.Errorf(`User "lister" cannot watch resource "pods" in API group "" in the namespace "a"`))
	list := apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "", fmt.Errorf(`User "viewer" cannot list resource "pods" in API group "" at the cluster scope`))
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"watch forbidden", watch, true},
		{"watch forbidden, wrapped by the reflector", fmt.Errorf("failed to watch *v1.Pod: %w", watch), true},
		{"list forbidden", list, false},
		{"unauthorized", apierrors.NewUnauthorized("cannot watch "), false},
		{"not an API error", fmt.Errorf("User cannot watch resource"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := isWatchForbidden(tt.err); got != tt.want {
				t.Errorf("isWatchForbidden(%v) = %v, want %v", tt.err, got, tt.want)
			}
		})
	}
}
