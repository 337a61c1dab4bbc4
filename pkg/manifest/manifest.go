// Package manifest reads Kubernetes objects from files: `kubectl get -o
// yaml|json` output, multi-document YAML, JSON streams, and the directory
// layouts of `kubectl cluster-info dump --output-directory` and of
// must-gather. Its input is untrusted: every document is bounded in size
// and nesting, YAML aliases are bounded by the YAML decoder, and every
// error names the file and the line or document where it arose. Read
// decodes every file; a Dump decodes a file only when a type it can hold
// is asked.
package manifest

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Options bound what one read may take.
type Options struct {
	// MaxDocumentBytes bounds one YAML document, one top-level JSON value
	// other than a list, and one item of a list (0: DefaultMaxDocumentBytes).
	MaxDocumentBytes int64
	// MaxDepth bounds the nesting of maps and lists in an object (0:
	// DefaultMaxDepth).
	MaxDepth int
	// Typed returns a new object of gvk's Go type, or nil for a kind read
	// as *unstructured.Unstructured. Where it gives one, an object is
	// decoded from its JSON straight into it, within the same bounds, as
	// the API machinery decodes (case-sensitive field names, integers
	// kept). Nil: every object is unstructured.
	Typed func(gvk schema.GroupVersionKind) runtime.Object
	// DropManagedFields removes metadata.managedFields from each object as
	// it is read, for readers that never look at them: they are often the
	// largest part of an object.
	DropManagedFields bool
	// Open opens a file to read (nil: os.Open): a test's count of the
	// files a read opens.
	Open func(path string) (io.ReadCloser, error)
	// WhileReading, when set, is called as a Dump starts decoding files
	// (in OpenDump, Read and ReadAll), and what it returns when it ends:
	// a caller's way to collect garbage sooner while files are decoded.
	WhileReading func() (done func())
}

const (
	// DefaultMaxDocumentBytes is the default bound of one document.
	DefaultMaxDocumentBytes = 64 << 20
	// DefaultMaxDepth is the default bound of an object's nesting.
	DefaultMaxDepth = 1000
)

func (o Options) withDefaults() Options {
	if o.MaxDocumentBytes <= 0 {
		o.MaxDocumentBytes = DefaultMaxDocumentBytes
	}
	if o.MaxDepth <= 0 {
		o.MaxDepth = DefaultMaxDepth
	}
	return o
}

// Read reads every object in paths with the default Options; see
// Options.Read.
func Read(paths []string) ([]*unstructured.Unstructured, error) {
	return Options{}.Read(paths)
}

// Read reads every object in paths, in order. A path is a file or a
// directory; a directory is walked recursively in lexical order, reading
// the files whose names end in .yaml, .yml or .json and skipping the others
// (pod logs, must-gather's text files), and the files whose first document
// is well-formed YAML or JSON but not a Kubernetes object (must-gather's
// JSON reports). A file named explicitly must hold objects whatever its
// name; "-" is standard input.
//
// A file holds one or more documents: YAML separated by "---", or JSON
// values one after another (NDJSON included). A document is an object, or
// a list of them (kind List, or a typed list such as PodList whose items
// may lack kind and apiVersion: they are those of the list's kind without
// "List", as `kubectl cluster-info dump` writes them); null documents are
// skipped.
//
// The same object (group, kind, namespace, name) read more than once, from
// one file or several (a must-gather holds pods both in lists and one per
// file), is kept once, silently: the copy with the higher resourceVersion
// where both are numbers, else the one read last. The objects are returned
// in the order their kept copy was first read.
func (o Options) Read(paths []string) ([]*unstructured.Unstructured, error) {
	o.Typed = nil
	objects, err := o.ReadObjects(paths)
	if err != nil {
		return nil, err
	}
	out := make([]*unstructured.Unstructured, len(objects))
	for i, obj := range objects {
		out[i] = obj.(*unstructured.Unstructured)
	}
	return out, nil
}

// ReadObjects reads as Read does, returning each object in the Go type
// Typed gives for its kind, else as *unstructured.Unstructured, with its
// kind and apiVersion set. An object is decoded from its bytes once: no
// map of it is held beside the typed object.
func (o Options) ReadObjects(paths []string) ([]runtime.Object, error) {
	o = o.withDefaults()
	r := &reader{opts: o, index: map[objectKey]int{}}
	for _, p := range paths {
		if err := r.readPath(p); err != nil {
			return nil, err
		}
	}
	return r.objects, nil
}

// objectKey identifies an object for deduplication.
type objectKey struct {
	group, kind, namespace, name string
}

type reader struct {
	opts    Options
	objects []runtime.Object
	index   map[objectKey]int
	// replaced counts the objects read that replaced an earlier copy.
	replaced int
	// firstDocument is set when the last file read failed in its first
	// document.
	firstDocument bool
}

// readPath reads one path given by the user.
func (r *reader) readPath(path string) error {
	if path == "-" {
		return r.readStream(os.Stdin, "standard input")
	}
	info, err := os.Stat(path)
	if err != nil {
		return pathError(path, err)
	}
	if !info.IsDir() {
		return r.readFile(path)
	}
	return filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return pathError(p, err)
		}
		if d.IsDir() || !manifestName(d.Name()) {
			return nil
		}
		if !d.Type().IsRegular() {
			// A symbolic link to a manifest is read; anything else that
			// is not a regular file (a FIFO, a device) is not.
			info, err := os.Stat(p)
			if err != nil {
				return pathError(p, err)
			}
			if !info.Mode().IsRegular() {
				return nil
			}
		}
		return r.readWalked(p)
	})
}

// readWalked reads a file found in a directory. One whose first document
// is well-formed but not a Kubernetes object (a must-gather's JSON
// reports, a kustomization's files are other things) is skipped.
func (r *reader) readWalked(path string) error {
	before := len(r.objects) + r.replaced
	err := r.readFile(path)
	var notManifest notManifestError
	if err != nil && len(r.objects)+r.replaced == before && r.firstDocument && errors.As(err, &notManifest) {
		return nil
	}
	return err
}

// manifestName reports whether a file in a directory is read.
func manifestName(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return false
}

// pathError words a failure to open or walk path as "PATH: REASON".
func pathError(path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return fmt.Errorf("%s: %w", path, err)
}

func (r *reader) readFile(path string) error {
	if r.opts.Open != nil {
		info, err := os.Stat(path)
		if err != nil {
			return pathError(path, err)
		}
		if info.IsDir() {
			return fmt.Errorf("%s: is a directory", path)
		}
		in, err := r.opts.Open(path)
		if err != nil {
			return pathError(path, err)
		}
		defer in.Close()
		return r.readStream(in, path)
	}
	f, err := os.Open(path)
	if err != nil {
		return pathError(path, err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return pathError(path, err)
	}
	if info.IsDir() {
		return fmt.Errorf("%s: is a directory", path)
	}
	return r.readStream(f, path)
}

// readStream reads the documents of one file.
func (r *reader) readStream(in io.Reader, name string) error {
	d := &decoder{opts: r.opts, name: name, add: r.add}
	err := d.decode(in)
	r.firstDocument = d.doc <= 1
	return err
}

// add keeps obj, or the newer of obj and an earlier copy of it.
func (r *reader) add(obj runtime.Object) {
	gvk := obj.GetObjectKind().GroupVersionKind()
	m, _ := meta.Accessor(obj) // every object read has metadata
	if r.opts.DropManagedFields {
		m.SetManagedFields(nil)
	}
	key := objectKey{group: gvk.Group, kind: gvk.Kind, namespace: m.GetNamespace(), name: m.GetName()}
	i, seen := r.index[key]
	if !seen {
		r.index[key] = len(r.objects)
		r.objects = append(r.objects, obj)
		return
	}
	r.replaced++
	if newer(r.objects[i], m) {
		return
	}
	r.objects[i] = obj
}

// newer reports whether kept is newer than read: its resourceVersion is
// the higher number. Where either is not a number, the copy read last wins.
func newer(kept runtime.Object, read metav1.Object) bool {
	k, _ := meta.Accessor(kept)
	a, errA := strconv.ParseUint(k.GetResourceVersion(), 10, 64)
	b, errB := strconv.ParseUint(read.GetResourceVersion(), 10, 64)
	if errA != nil || errB != nil {
		return false
	}
	return a > b
}
