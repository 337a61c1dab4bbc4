// Package columns computes the columns kubectl prints for an object in `kubectl get`, the way the
// API server's table printers compute them: the rules of
// k8s.io/kubernetes/pkg/printers/internalversion/printers.go for built-in types, and of
// k8s.io/apiextensions-apiserver/pkg/registry/customresource/tableconvertor for custom resources
// (a CRD version's additionalPrinterColumns). The code is written from those rules; it does not
// link k8s.io/kubernetes or k8s.io/apiextensions-apiserver.
//
// [For] knows every resource kube-apiserver v1.37 lists. Where the API server prints a resource
// with a table of its own rather than printers.go's, the package follows that table: kube-aggregator's
// for APIServices, the apiextensions-apiserver's for CustomResourceDefinitions, and the server's
// default table (NAME and CREATED AT) for the resources it has no printer for (Roles, ClusterRoles,
// LimitRanges, CSIStorageCapacities).
//
// A row is computed from one object, where printers.go's list printers may read the whole list:
// kubectl marks only the most recently created of several StorageClasses annotated as the default,
// where a Table marks each. Where the list printer sorts the rows (FlowSchemas, by matching
// precedence), the Table's Compare says the order, which its caller applies.
//
// A [Table] is what kubectl shows for one resource: its columns ([Column]) and a [RowFunc] that turns one
// object into one row of cells. [For] returns the Table of a built-in resource by GroupResource;
// [ForCustomResource] builds the Table of a custom resource from its printer columns, which
// [PrinterColumnsFromCRD] reads from a CustomResourceDefinition held as unstructured.
//
// # Objects
//
// The RowFuncs of built-in Tables take the typed object of their resource (*corev1.Pod for pods,
// *appsv1.Deployment for deployments, ...), or the same object as *unstructured.Unstructured,
// which they convert first; any other object, a *metav1.PartialObjectMetadata from a
// metadata-only cache included, is an error. The exceptions: the default table reads metadata
// only, so it takes any object with metadata; the APIService and CustomResourceDefinition tables,
// whose types the package does not link, read the object's content. The RowFunc of a custom resource takes any object
// with metadata, reading it as unstructured content: *unstructured.Unstructured as it is, a typed
// object (a *metav1.PartialObjectMetadata too) once converted; a column its content lacks is an
// empty cell.
//
// The rows are those of objects as the API server serves them. Where a field the server always
// sets is missing (a nil spec.replicas, say), a RowFunc reads what converting the object to the
// server's internal type would read: 0 for a nil count.
//
// # Columns and cells
//
// The API server always builds its table with every column, and kubectl drops the columns of
// priority above 0 unless it prints -o wide. A Table does the same: a row holds a cell for every
// column, wide or not, and [Table.Headers] and [Table.Visible] pick the columns kubectl would show.
// Because the server builds the row in wide mode, the cells that printers.go clips to 16 bytes when
// not wide (a LoadBalancer service's EXTERNAL-IP, an ingress's ADDRESS) are never clipped.
//
// Every cell is the string kubectl prints: numbers in decimal, ages through
// k8s.io/apimachinery/pkg/util/duration.HumanDuration measured against the time passed to the
// RowFunc, "<none>", "<unset>" and "<unknown>" where printers.go writes them, and "" where kubectl
// prints an empty cell (a nil cell of the server's table). Cells are not escaped: kubectl escapes
// control characters when it prints, and so must the caller.
//
// # NAME and NAMESPACE
//
// NAME is one of a Table's columns, where kubectl puts it: first for every type but events, whose
// NAME is the last, wide-only column. Its [Column.Format] is [FormatName], which is where kubectl
// writes KIND/ before the name with --show-kind. NAMESPACE is never a column: kubectl adds it in
// front of every row with --all-namespaces, and so must the caller.
//
// The package does no I/O and keeps no state beyond read-only tables; it is safe for concurrent use.
package columns
