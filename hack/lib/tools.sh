# shellcheck shell=bash
# Shared by the hack/ wrappers: build a Go program from the tools module
# (hack/tools/cmd/NAME) into the cache outside git and exec it.
#
# The cache is ${KUBECTL_INFORMER_CACHE:-$HOME/.cache/kubectl-informer}; the
# tool binaries live in its tools/ directory. `go build -o` leaves an
# up-to-date binary alone, so after the first run this costs well under a
# second.

run_tool() {
	local name="$1"
	shift
	local hack_dir tools_dir cache bin
	hack_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
	tools_dir="${hack_dir}/tools"
	cache="${KUBECTL_INFORMER_CACHE:-${HOME}/.cache/kubectl-informer}"
	bin="${cache}/tools/${name}"

	if ! command -v go >/dev/null 2>&1; then
		echo "${name}: go is not on PATH; it is needed to build hack/tools/cmd/${name}" >&2
		exit 1
	fi
	mkdir -p "${cache}/tools"
	if ! (cd "${tools_dir}" && GOWORK=off go build -o "${bin}" "./cmd/${name}"); then
		echo "${name}: building hack/tools/cmd/${name} failed" >&2
		exit 1
	fi
	export KUBECTL_INFORMER_TOOLS_DIR="${tools_dir}"
	export KUBECTL_INFORMER_CACHE="${cache}"
	exec "${bin}" "$@"
}
