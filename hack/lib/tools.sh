# shellcheck shell=bash
# Shared by the hack/ wrappers: build a Go program from the tools module
# (hack/tools/cmd/NAME, or a package the module pins, such as staticcheck)
# into the cache outside git and exec it.
#
# The cache is ${KUBECTL_INFORMER_CACHE:-$HOME/.cache/kubectl-informer}; the
# tool binaries live in its tools/ directory. `go build -o` leaves an
# up-to-date binary alone, so after the first run this costs well under a
# second.

# run_tool NAME ARGS...: build hack/tools/cmd/NAME and exec it with ARGS.
run_tool() {
	local name="$1"
	shift
	run_tool_package "${name}" "./cmd/${name}" "$@"
}

# run_tool_package NAME PACKAGE ARGS...: build PACKAGE, a main package of the
# tools module or of a module it requires, as NAME and exec it with ARGS in
# the caller's directory.
run_tool_package() {
	local name="$1" pkg="$2"
	shift 2
	local hack_dir tools_dir cache bin
	hack_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
	tools_dir="${hack_dir}/tools"
	cache="${KUBECTL_INFORMER_CACHE:-${HOME}/.cache/kubectl-informer}"
	bin="${cache}/tools/${name}"

	if ! command -v go >/dev/null 2>&1; then
		echo "${name}: go is not on PATH; it is needed to build ${pkg} from hack/tools" >&2
		exit 1
	fi
	mkdir -p "${cache}/tools"
	if ! (cd "${tools_dir}" && GOWORK=off go build -o "${bin}" "${pkg}"); then
		echo "${name}: building ${pkg} from hack/tools failed" >&2
		exit 1
	fi
	export KUBECTL_INFORMER_TOOLS_DIR="${tools_dir}"
	export KUBECTL_INFORMER_CACHE="${cache}"
	exec "${bin}" "$@"
}
