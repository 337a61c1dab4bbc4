package manifest

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Dump is the files of a read whose objects are decoded only when a
// question needs them: a file found in a directory is read when a type it
// can hold is asked (Read), never before. What a file can hold comes from
// the dump's layout where the paths name it (a must-gather's
// namespaces/NS/GROUP/RESOURCE.yaml, a cluster-info dump's NS/pods.json),
// else from a scan of the file for its objects' kinds that decodes
// nothing. Files named explicitly, standard input, and the files whose
// kinds a scan cannot tell are read by OpenDump. Files that hold no
// objects (pod logs, reports) are never read.
//
// The same object read more than once, from one file or several, is kept
// once, as Options.Read keeps it: the copy with the higher numeric
// resourceVersion, else the one a whole read would read last.
//
// A Dump is safe for concurrent use; reads are serialised. Options.Open,
// when set, is called from several goroutines at once.
type Dump struct {
	opts Options

	mu    sync.Mutex
	files []*dumpFile
	// byResource are the unread files a layout names, by resource; crds
	// the unread CRD files of a must-gather by the resource each defines;
	// byKind the unread scanned files by the kinds they hold.
	byResource map[schema.GroupResource][]*dumpFile
	crds       map[schema.GroupResource][]*dumpFile
	// crdLists are the CRD files a layout names that are not named for
	// one CRD (a list of them): any of them can define a custom resource.
	crdLists []*dumpFile
	byKind   map[schema.GroupKind][]*dumpFile
	// namespacedResource says whether a layout's resource is namespaced
	// (under namespaces/): what the layout tells of a type it does not
	// know.
	namespacedResource map[schema.GroupResource]bool
	kindVersions       map[schema.GroupKind][]string
	// kept are the objects kept so far, by identity; fresh those not yet
	// returned by Read.
	kept     map[objectKey]*keptObject
	fresh    []objectKey
	freshSet map[objectKey]bool
	// roots are the must-gathers' roots found, for Time.
	roots []string
	// dirs are the directories given.
	dirs []string
	// decoded counts the files decoded.
	decoded int
}

// dumpFile is one file of a dump.
type dumpFile struct {
	path string
	// order is the file's place in a whole read.
	order int
	read  bool
	// explicit says the file was named, not found in a directory.
	explicit bool
	// single says the layout names the file for one object.
	single bool
}

// keptObject is an object kept, with where it was read.
type keptObject struct {
	obj        runtime.Object
	order, seq int
}

// OpenDump lists the files of paths as Read would read them and learns
// what each can hold, reading the files named explicitly, standard input
// and the files whose kinds a scan cannot tell. Its errors are Read's: a
// path that does not exist, a file that does not decode.
func (o Options) OpenDump(paths []string) (*Dump, error) {
	o = o.withDefaults()
	d := &Dump{
		opts:               o,
		byResource:         map[schema.GroupResource][]*dumpFile{},
		crds:               map[schema.GroupResource][]*dumpFile{},
		byKind:             map[schema.GroupKind][]*dumpFile{},
		namespacedResource: map[schema.GroupResource]bool{},
		kindVersions:       map[schema.GroupKind][]string{},
		kept:               map[objectKey]*keptObject{},
		freshSet:           map[objectKey]bool{},
	}
	var now []*dumpFile
	for _, p := range paths {
		if p == "-" {
			f := d.newFile(p)
			f.explicit = true
			now = append(now, f)
			continue
		}
		info, err := os.Stat(p)
		if err != nil {
			return nil, pathError(p, err)
		}
		if !info.IsDir() {
			f := d.newFile(p)
			f.explicit = true
			now = append(now, f)
			continue
		}
		d.dirs = append(d.dirs, p)
		if err := d.walk(p, noLayout, "", &now); err != nil {
			return nil, err
		}
	}
	if err := d.readFiles(now); err != nil {
		return nil, err
	}
	return d, nil
}

func (d *Dump) newFile(path string) *dumpFile {
	f := &dumpFile{path: path, order: len(d.files)}
	d.files = append(d.files, f)
	return f
}

// walk lists the files below dir in lexical order, as filepath.WalkDir
// visits them; l is the layout of the dump dir is in, root its root.
func (d *Dump) walk(dir string, l layout, root string, now *[]*dumpFile) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return pathError(dir, err)
	}
	if found := dumpRoot(dir, entries); found != noLayout {
		l, root = found, dir
		if found == mustGather {
			d.roots = append(d.roots, dir)
		}
	}
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		if e.IsDir() {
			if err := d.walk(p, l, root, now); err != nil {
				return err
			}
			continue
		}
		if !manifestName(e.Name()) {
			continue
		}
		if !e.Type().IsRegular() {
			info, err := os.Stat(p)
			if err != nil {
				return pathError(p, err)
			}
			if !info.Mode().IsRegular() {
				continue
			}
		}
		f := d.newFile(p)
		if l != noLayout {
			rel, err := filepath.Rel(root, p)
			if err == nil {
				if gr, ok := layoutResource(l, filepath.ToSlash(rel)); ok {
					f.single = singleObjectFile(l, filepath.ToSlash(rel))
					d.byResource[gr] = append(d.byResource[gr], f)
					d.namespacedResource[gr] = strings.HasPrefix(filepath.ToSlash(rel), "namespaces/") || l == clusterInfoDump && gr.Resource != "nodes"
					if gr == crdResource {
						if defined, ok := crdFileResource(p); ok {
							d.crds[defined] = append(d.crds[defined], f)
						} else {
							d.crdLists = append(d.crdLists, f)
						}
					}
					continue
				}
			}
		}
		kinds, any, err := d.scan(f)
		if err != nil {
			return err
		}
		if any {
			*now = append(*now, f)
			continue
		}
		for _, gvk := range kinds {
			gk := gvk.GroupKind()
			d.byKind[gk] = append(d.byKind[gk], f)
			if !contains(d.kindVersions[gk], gvk.Version) {
				d.kindVersions[gk] = append(d.kindVersions[gk], gvk.Version)
			}
		}
		if len(kinds) == 0 {
			f.read = true // nothing to read
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

// scanLimit bounds the bytes of a file scanned for its kinds: a larger
// file is decoded by OpenDump (the decoder bounds each document, and each
// item of a JSON list, on its own).
const scanLimit = 16 << 20

// scan reads f whole and scans it for its kinds; any for a file larger
// than scanLimit or a document may be.
func (d *Dump) scan(f *dumpFile) (kinds []schema.GroupVersionKind, any bool, err error) {
	in, err := d.open(f.path)
	if err != nil {
		return nil, false, pathError(f.path, err)
	}
	defer in.Close()
	limit := min(int64(scanLimit), d.opts.MaxDocumentBytes)
	data, err := io.ReadAll(io.LimitReader(newLogBlockFilter(in), limit+1))
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", f.path, err)
	}
	if int64(len(data)) > limit {
		return nil, true, nil
	}
	kinds, any = scanKinds(data)
	return kinds, any, nil
}

// open opens path with Options.Open, or os.Open.
func (d *Dump) open(path string) (io.ReadCloser, error) {
	if d.opts.Open != nil {
		return d.opts.Open(path)
	}
	return os.Open(path)
}

// Unread says what the files not read yet can hold.
type Unread struct {
	// Resources are the resources a dump's layout names files for, each
	// with whether the layout has it namespaced.
	Resources map[schema.GroupResource]bool
	// Defined are the resources the unread CRD files of a must-gather
	// define (from the files' names).
	Defined []schema.GroupResource
	// Kinds are the kinds scanned files hold, each with the versions
	// found.
	Kinds map[schema.GroupKind][]string
	// CRDLists says some unread CRD files are lists, which can define
	// custom resources of any group.
	CRDLists bool
}

// Unread returns what the files not read yet can hold.
func (d *Dump) Unread() Unread {
	d.mu.Lock()
	defer d.mu.Unlock()
	u := Unread{Resources: map[schema.GroupResource]bool{}, Kinds: map[schema.GroupKind][]string{}}
	for gr, files := range d.byResource {
		if unread(files) {
			u.Resources[gr] = d.namespacedResource[gr]
		}
	}
	for gr, files := range d.crds {
		if unread(files) {
			u.Defined = append(u.Defined, gr)
		}
	}
	sort.Slice(u.Defined, func(i, j int) bool { return u.Defined[i].String() < u.Defined[j].String() })
	for gk, files := range d.byKind {
		if unread(files) {
			u.Kinds[gk] = d.kindVersions[gk]
		}
	}
	u.CRDLists = unread(d.crdLists)
	return u
}

// Empty reports whether every file is read.
func (u Unread) Empty() bool {
	return len(u.Resources) == 0 && len(u.Defined) == 0 && len(u.Kinds) == 0
}

// Holds reports whether unread files can hold resources (by the layout,
// or as the CRD that defines them) or kinds.
func (u Unread) Holds(resources []schema.GroupResource, kinds []schema.GroupKind) bool {
	for _, gr := range resources {
		if _, ok := u.Resources[gr]; ok {
			return true
		}
		for _, d := range u.Defined {
			if d == gr {
				return true
			}
		}
	}
	for _, gk := range kinds {
		if _, ok := u.Kinds[gk]; ok {
			return true
		}
	}
	return false
}

// InGroups returns the resources and kinds unread files can hold whose
// group starts with prefix.
func (u Unread) InGroups(prefix string) ([]schema.GroupResource, []schema.GroupKind) {
	var resources []schema.GroupResource
	for gr := range u.Resources {
		if strings.HasPrefix(gr.Group, prefix) {
			resources = append(resources, gr)
		}
	}
	for _, gr := range u.Defined {
		if strings.HasPrefix(gr.Group, prefix) && !slices.Contains(resources, gr) {
			resources = append(resources, gr)
		}
	}
	var kinds []schema.GroupKind
	for gk := range u.Kinds {
		if strings.HasPrefix(gk.Group, prefix) {
			kinds = append(kinds, gk)
		}
	}
	return resources, kinds
}

func unread(files []*dumpFile) bool {
	for _, f := range files {
		if !f.read {
			return true
		}
	}
	return false
}

// Read reads the files not read yet that can hold objects of resources
// (by the layout, or as the CRD that defines them: named for it, or a
// list of CRDs for a resource whose group can be a custom resource's,
// with a dot in its name) or of kinds, and
// returns the objects kept since the last Read (or OpenDump): new ones,
// and those that replace a copy returned before (same group, kind,
// namespace and name).
func (d *Dump) Read(resources []schema.GroupResource, kinds []schema.GroupKind) ([]runtime.Object, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	var files []*dumpFile
	for _, gr := range resources {
		files = append(files, d.byResource[gr]...)
		files = append(files, d.crds[gr]...)
		if strings.Contains(gr.Group, ".") {
			files = append(files, d.crdLists...)
		}
	}
	for _, gk := range kinds {
		files = append(files, d.byKind[gk]...)
	}
	if err := d.readFiles(files); err != nil {
		return nil, err
	}
	return d.takeFresh(), nil
}

// ReadAll reads every file not read yet and returns the objects kept
// since the last Read.
func (d *Dump) ReadAll() ([]runtime.Object, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.readFiles(append([]*dumpFile(nil), d.files...)); err != nil {
		return nil, err
	}
	return d.takeFresh(), nil
}

func (d *Dump) takeFresh() []runtime.Object {
	out := make([]runtime.Object, 0, len(d.fresh))
	for _, k := range d.fresh {
		if d.freshSet[k] {
			out = append(out, d.kept[k].obj)
			delete(d.freshSet, k)
		}
	}
	d.fresh = nil
	return out
}

// readFiles reads the files not read yet among files. Files are decoded
// on every CPU, a few at a time, and their objects kept in a whole read's
// order of files; the first error, in that order, ends the read (the
// files after it stay unread). A file a layout names for one object
// (namespaces/NS/pods/POD/POD.yaml) is read after the others, and not
// decoded when a copy of its object with the same or a higher
// resourceVersion is kept already (a must-gather's pods are also in
// namespaces/NS/core/pods.yaml): a scan of its metadata tells.
func (d *Dump) readFiles(files []*dumpFile) error {
	sort.Slice(files, func(i, j int) bool { return files[i].order < files[j].order })
	var lists, singles []*dumpFile
	for _, f := range files {
		switch {
		case f.read:
		case f.single:
			singles = append(singles, f)
		default:
			lists = append(lists, f)
		}
	}
	if err := d.decodeFiles(lists); err != nil {
		return err
	}
	var need []*dumpFile
	for _, f := range singles {
		if d.keptAlready(f) {
			f.read = true
			continue
		}
		need = append(need, f)
	}
	return d.decodeFiles(need)
}

// keptAlready reports whether the one object of f, a file a layout names
// for one object, is kept already with the same or a higher
// resourceVersion, as far as a scan of f's metadata tells.
func (d *Dump) keptAlready(f *dumpFile) bool {
	in, err := d.open(f.path)
	if err != nil {
		return false
	}
	defer in.Close()
	data, err := io.ReadAll(io.LimitReader(in, d.opts.MaxDocumentBytes+1))
	if err != nil || int64(len(data)) > d.opts.MaxDocumentBytes {
		return false
	}
	id, ok := scanIdentity(data)
	if !ok {
		return false
	}
	k, seen := d.kept[id.key]
	if !seen {
		return false
	}
	m, err := meta.Accessor(k.obj)
	if err != nil {
		return false
	}
	kept, errKept := strconv.ParseUint(m.GetResourceVersion(), 10, 64)
	read, errRead := strconv.ParseUint(id.resourceVersion, 10, 64)
	return errKept == nil && errRead == nil && kept >= read
}

// fileObjects is what decoding one file gave.
type fileObjects struct {
	objects []runtime.Object
	err     error
	opened  bool
}

// decodeFiles decodes files on every CPU and keeps their objects, file by
// file in order; the first error ends it.
func (d *Dump) decodeFiles(files []*dumpFile) error {
	if len(files) == 0 {
		return nil
	}
	if d.opts.WhileReading != nil {
		defer d.opts.WhileReading()()
	}
	results := make([]chan fileObjects, len(files))
	for i := range results {
		results[i] = make(chan fileObjects, 1)
	}
	// window bounds the files decoded and not yet kept.
	window := make(chan struct{}, max(1, goruntime.GOMAXPROCS(0)))
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i, f := range files {
			select {
			case window <- struct{}{}:
			case <-stop:
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				results[i] <- d.decodeFile(f)
			}()
		}
	}()
	var err error
	for i, f := range files {
		r := <-results[i]
		<-window
		if r.opened {
			d.decoded++
		}
		if r.err != nil {
			err = r.err
			break
		}
		f.read = true
		for seq, obj := range r.objects {
			d.keep(obj, f.order, seq)
		}
	}
	close(stop)
	wg.Wait()
	return err
}

// decodeFile decodes f. A file found in a directory whose first document
// is well-formed but not an object holds nothing, as Read skips it. It
// touches nothing of d but its options.
func (d *Dump) decodeFile(f *dumpFile) fileObjects {
	var r fileObjects
	dec := &decoder{opts: d.opts, name: f.path, add: func(obj runtime.Object) { r.objects = append(r.objects, obj) }}
	if f.path == "-" {
		r.opened = true
		r.err = dec.decode(os.Stdin)
	} else {
		if info, err := os.Stat(f.path); err != nil {
			r.err = pathError(f.path, err)
			return r
		} else if info.IsDir() {
			r.err = fmt.Errorf("%s: is a directory", f.path)
			return r
		}
		in, err := d.open(f.path)
		if err != nil {
			r.err = pathError(f.path, err)
			return r
		}
		r.opened = true
		r.err = dec.decode(in)
		in.Close()
	}
	if r.err != nil && !f.explicit && len(r.objects) == 0 && dec.doc <= 1 && errors.As(r.err, new(notManifestError)) {
		r.err = nil
	}
	return r
}

// keep keeps obj, read at (order, seq), or the newer of it and the copy
// kept before.
func (d *Dump) keep(obj runtime.Object, order, seq int) {
	gvk := obj.GetObjectKind().GroupVersionKind()
	m, _ := meta.Accessor(obj) // every object read has metadata
	if d.opts.DropManagedFields {
		m.SetManagedFields(nil)
	}
	key := objectKey{group: gvk.Group, kind: gvk.Kind, namespace: m.GetNamespace(), name: m.GetName()}
	k, seen := d.kept[key]
	if !seen {
		d.kept[key] = &keptObject{obj: obj, order: order, seq: seq}
		d.markFresh(key)
		return
	}
	// The copy a whole read reads last wins unless the other's
	// resourceVersion is the higher number.
	first, second := k.obj, obj
	laterIsNew := order > k.order || order == k.order && seq > k.seq
	if !laterIsNew {
		first, second = obj, k.obj
	}
	winner := second
	if olderWins(first, second) {
		winner = first
	}
	if winner == k.obj {
		return
	}
	k.obj, k.order, k.seq = obj, order, seq
	d.markFresh(key)
}

func (d *Dump) markFresh(key objectKey) {
	if !d.freshSet[key] {
		d.freshSet[key] = true
		d.fresh = append(d.fresh, key)
	}
}

// olderWins reports whether first, read before second in a whole read,
// is kept: its resourceVersion is the higher number.
func olderWins(first, second runtime.Object) bool {
	a, _ := meta.Accessor(first)
	b, _ := meta.Accessor(second)
	x, errA := strconv.ParseUint(a.GetResourceVersion(), 10, 64)
	y, errB := strconv.ParseUint(b.GetResourceVersion(), 10, 64)
	return errA == nil && errB == nil && x > y
}
