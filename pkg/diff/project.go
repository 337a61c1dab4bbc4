package diff

// Project returns the part of obj that opts.Ignore and opts.Only let
// through (Redact plays no part): obj without the Ignore paths, and only
// the Only paths when there are any. A list element matches a selector such
// as [name=web] by obj's own content. It copies only the maps and lists on
// the way to what is left out, never mutates obj, and returns obj itself
// when opts leave nothing out.
func Project(obj map[string]interface{}, opts Options) map[string]interface{} {
	if m, ok := filtered(obj, opts).(map[string]interface{}); ok {
		return m
	}
	return map[string]interface{}{}
}
