//lint:file-ignore SA1019 kubectl still lists the deprecated core/v1 Endpoints, and prints them so.

package columns

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
)

var endpointsTable = Table{
	Columns: columnsOf([]string{"Name", "Endpoints", "Age"}),
	Row: typedRow(func(ep *corev1.Endpoints, now time.Time) []string {
		return []string{ep.Name, endpointsCell(ep.Subsets), age(ep.CreationTimestamp, now)}
	}),
}

// endpointsCell is printers.go's formatEndpoints: "<none>" without subsets; else the address of
// each port of each subset as host:port (an address alone in a subset without ports), the first
// three, then " + N more..." counting every further one.
func endpointsCell(subsets []corev1.EndpointSubset) string {
	if len(subsets) == 0 {
		return "<none>"
	}
	const max = 3
	var list []string
	count := 0
	for _, ss := range subsets {
		if len(ss.Ports) == 0 {
			for _, a := range ss.Addresses {
				if len(list) < max {
					list = append(list, a.IP)
				}
			}
			count += len(ss.Addresses)
			continue
		}
		for _, p := range ss.Ports {
			for _, a := range ss.Addresses {
				if len(list) < max {
					list = append(list, net.JoinHostPort(a.IP, strconv.Itoa(int(p.Port))))
				}
			}
			count += len(ss.Addresses)
		}
	}
	if count > max {
		return fmt.Sprintf("%s + %d more...", strings.Join(list, ","), count-max)
	}
	return strings.Join(list, ",")
}
