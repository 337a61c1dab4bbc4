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
	local bin
	bin="$(build_tool_package "${name}" "${pkg}")"
	export KUBECTL_INFORMER_TOOLS_DIR
	KUBECTL_INFORMER_TOOLS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/../tools" && pwd)"
	export KUBECTL_INFORMER_CACHE="${KUBECTL_INFORMER_CACHE:-${HOME}/.cache/kubectl-informer}"
	exec "${bin}" "$@"
}

# build_tool_package NAME PACKAGE: build PACKAGE as NAME, as run_tool_package
# does, and print the binary's path.
build_tool_package() {
	local name="$1" pkg="$2"
	local tools_dir cache bin
	tools_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/../tools" && pwd)"
	cache="${KUBECTL_INFORMER_CACHE:-${HOME}/.cache/kubectl-informer}"
	bin="${cache}/tools/${name}"

	if ! command -v go >/dev/null 2>&1; then
		echo "${name}: go is not on PATH; it is needed to build ${pkg} from hack/tools" >&2
		exit 1
	fi
	mkdir -p "${cache}/tools"
	if ! (cd "${tools_dir}" && GOWORK=off go build -o "${bin}" "${pkg}") >&2; then
		echo "${name}: building ${pkg} from hack/tools failed" >&2
		exit 1
	fi
	echo "${bin}"
}
